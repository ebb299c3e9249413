"""The tool contract and the one dispatcher that validates arguments and turns every failure into a
structured error result for the model (never a crash)."""

from __future__ import annotations

import difflib
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ValidationError

from acode.audience import for_model
from acode.llm.types import ToolCall, ToolSpec, without_titles

if TYPE_CHECKING:
    from acode.command_sandbox import CommandSandbox
    from acode.config.agent import AgentSettings

log = logging.getLogger("acode.tools")

ToolKind = Literal["read", "edit", "execute", "interact", "agent"]


class ToolError(Exception):
    """Raised inside a tool for an expected failure; its message goes back to the model. ``refused``:
    the request can never succeed as asked (a path outside the workspace), so trying again is pointless."""

    refused = False


class TurnInterrupted(Exception):
    """The person ended the turn from inside a tool (a slash command typed at an ``ask_user`` question).
    ``run_tool`` lets it through instead of turning it into an error result; the loop stops the turn."""


class ToolResult(BaseModel):
    output: str = ""
    error: str | None = None
    display: str | None = None  # what a person sees, when it differs from what the model gets
    data: dict[str, Any] | None = None  # structured result (also sent to the model as JSON when set)
    refused: bool = False  # an error that no retry can fix (see ToolError.refused)
    model_note: str | None = None  # advice after the error for the model alone ("Do not retry this call.")

    @property
    def ok(self) -> bool:
        return self.error is None

    def for_person(self) -> str:
        """What a person reads of a failed call: ``display`` when it differs, else the error without
        the advice meant for the model."""
        return self.display or self.error or ""

    def for_model(self) -> str:
        if self.error is not None:
            return json.dumps({"error": for_model(self.error, self.model_note)})
        if self.data is not None:
            return json.dumps(self.data, ensure_ascii=False)
        return self.output


@dataclass
class ToolContext:
    """What a tool may use. The workspace root confines every path."""

    workspace: Path
    outputs_dir: Path | None = None  # where cut-off outputs are saved in full
    interactive: bool = False
    session_id: str = ""
    ask_user: Callable[[list[str]], list[str]] | None = None
    shell_inactivity_timeout: float = 120.0
    output_budget_chars: int = 8000
    extra_writable: tuple[Path, ...] = ()  # e.g. a plan file outside the workspace
    sandbox: CommandSandbox | None = None  # where commands run (acode.command_sandbox); None: as the user
    state: dict[str, Any] = field(default_factory=dict)  # per-session scratch (files changed, ...)

    @classmethod
    def from_settings(cls, workspace: Path, agent: AgentSettings | None, **fields: Any) -> ToolContext:
        """A context whose shell and output limits come from ``agent`` (settings.agent; None: defaults)."""
        if agent is not None:
            fields = {"shell_inactivity_timeout": agent.shell_inactivity_timeout,
                      "output_budget_chars": agent.output_budget_chars, **fields}
        return cls(workspace=workspace, **fields)


class Tool(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]
    kind: ClassVar[ToolKind] = "read"

    @property
    def read_only(self) -> bool:
        return self.kind == "read"

    def spec(self) -> ToolSpec:
        schema = without_titles(self.Args.model_json_schema())
        return ToolSpec(name=self.name, description=self.description, parameters=schema)

    @abstractmethod
    def run(self, args: Any, ctx: ToolContext) -> ToolResult: ...

    def preview(self, args: Any, ctx: ToolContext) -> str | None:
        """What running would change, for the approval question (a unified diff for edit tools);
        None when there is nothing to show or the call would fail (running it reports why)."""
        return None


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()):
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: str) -> bool:
        return name in self._tools

    def __iter__(self):
        return iter(self._tools.values())

    def subset(self, names: Iterable[str]) -> ToolRegistry:
        return ToolRegistry(self._tools[n] for n in names if n in self._tools)

    def specs(self) -> list[ToolSpec]:
        return [tool.spec() for tool in self._tools.values()]

    def validate(self, call: ToolCall) -> tuple[Tool, BaseModel] | ToolResult:
        """The tool and its parsed arguments, or an error result naming the problem."""
        tool = self._tools.get(call.name)
        if tool is None:
            close = difflib.get_close_matches(call.name, self.names(), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            return ToolResult(error=f"Unknown tool '{call.name}'.{hint} Available: {', '.join(self.names())}")
        try:
            return tool, tool.Args.model_validate(call.arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            return ToolResult(error=f"Invalid arguments for {call.name}: {problems}")

    def dispatch(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        checked = self.validate(call)
        if isinstance(checked, ToolResult):
            return checked
        tool, args = checked
        return run_tool(tool, args, ctx)


def run_tool(tool: Tool, args: BaseModel, ctx: ToolContext) -> ToolResult:
    return _names_escaped(_run(tool, args, ctx))


def _names_escaped(result: ToolResult) -> ToolResult:
    """File names that are not UTF-8 (``bad\\xff.py``) written with ``\\xNN`` escapes: a lone surrogate
    cannot be stored, sent to a model or printed. The tools take the escaped name back (tools.paths)."""
    fields = result.model_dump()
    escaped = _escaped(fields)
    return result if escaped == fields else result.model_copy(update=escaped)


def _escaped(value: Any) -> Any:
    from acode.shown import undecodable_escaped

    if isinstance(value, str):
        return undecodable_escaped(value)
    if isinstance(value, dict):
        return {key: _escaped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_escaped(item) for item in value]
    return value


def _run(tool: Tool, args: BaseModel, ctx: ToolContext) -> ToolResult:
    try:
        return tool.run(args, ctx)
    except TurnInterrupted:
        raise
    except ToolError as exc:
        return ToolResult(error=str(exc), refused=exc.refused)
    except PermissionError as exc:
        return ToolResult(error=f"Permission denied: {exc.filename or exc}")
    except FileNotFoundError as exc:
        return ToolResult(error=f"File not found: {exc.filename or exc}")
    except Exception as exc:  # a tool bug must not end the session; the model and the log both see it
        log.exception("tool %s failed", tool.name)
        return ToolResult(error=f"{tool.name} failed: {type(exc).__name__}: {exc}")
