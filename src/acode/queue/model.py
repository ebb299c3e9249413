"""One task's state, as stored in ``.acode/agents/tasks/<task_id>.json`` (camelCase keys on disk)."""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

TaskStatus = Literal["pending", "running", "complete", "failed", "cancelled"]
FINISHED: tuple[TaskStatus, ...] = ("complete", "failed", "cancelled")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def new_task_id() -> str:
    """Sortable by second, unique within it: ``20250101-120000-3f9a1c2b``."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(4)


class TaskState(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    task_id: str
    status: TaskStatus = "pending"
    agent: str
    prompt: str
    plan_file: str
    log_file: str
    created_at: str = Field(default_factory=now_iso)
    started_at: str | None = None
    completed_at: str | None = None
    worker_pid: int | None = None
    error: str | None = None
    result: str | None = None
    attempts: int = 0

    def to_json(self) -> dict:
        return self.model_dump(mode="json", by_alias=True)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED
