"""Running configured hook commands: JSON on stdin, JSON (or exit code 2) back, killed at the timeout.

A hook is a shell command run in the project root in its own process group. Exit 0: stdout may hold a
JSON object (``continue``, ``stopReason``, ``systemMessage``, ``decision``, ``reason``,
``hookSpecificOutput``). Exit 2: block, with stderr as the reason. Any other exit code, a crash or a
timeout is only a warning: the session goes on. When several hooks answer, any block wins.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acode.child_signals import shell_argv
from acode.config.hooks import HookCommand, HookEvent, HooksSettings

log = logging.getLogger("acode.hooks")

TOOL_EVENTS = ("BeforeTool", "AfterTool")


@dataclass
class HookOutcome:
    """What all hooks of one event said together."""

    blocked: bool = False
    reasons: list[str] = field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""
    ask: bool = False
    system_messages: list[str] = field(default_factory=list)
    additional_context: list[str] = field(default_factory=list)
    tool_input: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    ran: int = 0

    @property
    def reason(self) -> str:
        return "; ".join(r for r in self.reasons if r)

    @property
    def context(self) -> str:
        return "\n".join(self.additional_context)


class HookRunner:
    def __init__(
        self,
        settings: HooksSettings,
        *,
        session_id: str,
        cwd: Path,
        notify: Callable[[str], None] | None = None,
    ):
        self.settings = settings
        self.session_id = session_id
        self.cwd = cwd
        self.notify = notify or (lambda text: log.warning("hook: %s", text))

    def has(self, event: HookEvent, tool_name: str | None = None) -> bool:
        return bool(self._matching(event, tool_name))

    def _matching(self, event: HookEvent, tool_name: str | None) -> list[HookCommand]:
        commands = []
        for group in self.settings.for_event(event):
            if event in TOOL_EVENTS and group.matcher and not re.search(group.matcher, tool_name or ""):
                continue
            commands.extend(group.hooks)
        return commands

    def run(self, event: HookEvent, payload: dict[str, Any], *, tool_name: str | None = None) -> HookOutcome:
        outcome = HookOutcome()
        for hook in self._matching(event, tool_name):
            data = {
                "session_id": self.session_id,
                "cwd": str(self.cwd),
                "hook_event_name": event,
                "timestamp": datetime.now(UTC).isoformat(),
                **payload,
            }
            if outcome.tool_input is not None:
                data["tool_input"] = outcome.tool_input  # later hooks see earlier rewrites
            self._run_one(hook, event, data, outcome)
        for text in outcome.system_messages:
            self.notify(text)
        for text in outcome.warnings:
            self.notify(text)
        return outcome

    def _run_one(self, hook: HookCommand, event: str, data: dict[str, Any], outcome: HookOutcome) -> None:
        label = hook.name or hook.command[:40]
        env = {
            **os.environ,
            "ACODE_PROJECT_DIR": str(self.cwd),
            "ACODE_SESSION_ID": self.session_id,
            "ACODE_HOOK_EVENT": event,
        }
        try:
            proc = subprocess.Popen(
                shell_argv(hook.command),
                cwd=self.cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,  # its own process group, so a timeout kills its children too
            )
        except OSError as exc:
            outcome.warnings.append(f"hook '{label}' could not start: {exc}")
            return
        outcome.ran += 1
        try:
            stdout, stderr = proc.communicate(json.dumps(data, default=str), timeout=hook.timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            outcome.warnings.append(
                f"hook '{label}' ({event}) timed out after {hook.timeout:g} s and was killed"
            )
            log.warning("hook %s timed out after %s s", label, hook.timeout)
            return
        if proc.returncode == 2:
            outcome.blocked = True
            outcome.reasons.append(stderr.strip() or f"blocked by hook '{label}'")
            return
        if proc.returncode != 0:
            outcome.warnings.append(
                f"hook '{label}' ({event}) exited with {proc.returncode}: {stderr.strip()[:300]}"
            )
            return
        _apply_output(stdout, label, outcome)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    try:
        proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        log.warning("hook process %d did not exit after SIGKILL", proc.pid)


def _apply_output(stdout: str, label: str, outcome: HookOutcome) -> None:
    text = stdout.strip()
    if not text:
        return
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        log.info("hook %s printed non-JSON output (ignored): %s", label, text[:200])
        return
    if not isinstance(answer, dict):
        return
    if answer.get("continue") is False:
        outcome.stop = True
        outcome.stop_reason = str(answer.get("stopReason") or f"stopped by hook '{label}'")
    if answer.get("systemMessage"):
        outcome.system_messages.append(str(answer["systemMessage"]))
    decision = str(answer.get("decision", "")).lower()
    if decision in ("deny", "block"):
        outcome.blocked = True
        outcome.reasons.append(str(answer.get("reason") or f"blocked by hook '{label}'"))
    elif decision == "ask":
        outcome.ask = True
        outcome.reasons.append(str(answer.get("reason") or ""))
    specific = answer.get("hookSpecificOutput")
    if isinstance(specific, dict):
        if specific.get("additionalContext"):
            outcome.additional_context.append(str(specific["additionalContext"]))
        if isinstance(specific.get("tool_input"), dict):
            outcome.tool_input = specific["tool_input"]
