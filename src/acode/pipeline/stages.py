"""The stage contract: ``on_enter(ctx)``, ``execute(ctx) -> StageResult``, ``on_exit(ctx, result)``.
A stage does its one job on the shared RunContext; the orchestrator decides what comes next."""

from __future__ import annotations

import json
import time
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from acode.pipeline.events import EventLog
from acode.pipeline.models import RunState, StageName
from acode.pipeline.records import write_record_json

if TYPE_CHECKING:
    from acode.config.settings import Settings
    from acode.llm.protocol import ChatModel
    from acode.tools.base import ToolRegistry

Outcome = Literal["ok", "failed", "approved", "rejected", "timeout"]
STATE_FILE = "state.json"


def new_session_id() -> str:
    return datetime.now(UTC).strftime("run-%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def runs_dir(root: Path) -> Path:
    return root / ".acode" / "runs"


def load_state(root: Path, session_id: str) -> RunState | None:
    """The persisted state of a session, by id or unique prefix."""
    folder = runs_dir(root)
    matches = sorted(folder.glob(session_id + "*")) if folder.is_dir() else []
    exact = [m for m in matches if m.name == session_id]
    chosen = exact or matches
    if len(chosen) != 1 or not (chosen[0] / STATE_FILE).is_file():
        return None
    return RunState.model_validate(json.loads((chosen[0] / STATE_FILE).read_text(encoding="utf-8")))


@dataclass
class StageResult:
    outcome: Outcome
    message: str = ""
    data: dict[str, Any] = field(default_factory=dict)


class HumanReview(Protocol):
    """The person's part in a run, as the orchestrator calls it (acode.pipeline.human.HumanGate)."""

    def final_gate(self, ctx: RunContext) -> None: ...

    def escalate(self, ctx: RunContext, why: str) -> bool: ...


@dataclass
class RunContext:
    """What every stage may use. Collaborators come in as arguments; nothing reads global settings."""

    state: RunState
    root: Path
    settings: Settings
    model: ChatModel
    tools: ToolRegistry
    events: EventLog
    human: HumanReview
    db_path: Path | None = None

    @property
    def run_dir(self) -> Path:
        return runs_dir(self.root) / self.state.session_id

    def save_state(self) -> None:
        write_record_json(self.run_dir / STATE_FILE, self.state.model_dump(mode="json"))


class Stage(ABC):
    name: ClassVar[StageName]

    def __init__(self) -> None:
        self._started = 0.0

    def on_enter(self, ctx: RunContext) -> None:
        self._started = time.monotonic()
        ctx.events.emit("stage_enter", stage=self.name, cycle=ctx.state.cycle)

    @abstractmethod
    def execute(self, ctx: RunContext) -> StageResult: ...

    def on_exit(self, ctx: RunContext, result: StageResult) -> None:
        ctx.events.emit(
            "stage_exit",
            stage=self.name,
            cycle=ctx.state.cycle,
            outcome=result.outcome,
            message=result.message,
            duration_s=round(time.monotonic() - self._started, 3),
        )
        ctx.save_state()
