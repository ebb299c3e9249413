"""The agent's system prompt, rendered from prompts/system.j2. Kept short on purpose: on a small local
model every prompt token costs prefill time (~10 ms each on two cores). The tools' schemas are added
by the backend (constrained decoding needs them anyway), so the prompt only names the tools."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from acode.agent.session.context_files import ContextFile
from acode.prompts import render

MODE_NOTES = {
    "default": "Edits and shell commands need the user's approval; a denied call comes back as an error.",
    "auto_edit": "File edits run without asking; shell commands need the user's approval.",
    "yolo": "Every tool runs without asking: take care with commands that delete or overwrite.",
    "plan": "Plan mode is read-only: research and write a plan, change nothing until it is approved.",
}


def build_system_prompt(
    *,
    workspace: Path,
    tool_names: Sequence[str],
    approval_mode: str,
    context_files: Sequence[ContextFile] = (),
    interactive: bool = False,
    extra_sections: Sequence[str] = (),
) -> str:
    """``extra_sections``: more text from other parts (an approved plan, an extension's prompt)."""
    return render(
        "acode.agent",
        "system.j2",
        project_name=workspace.name,  # not the absolute path: small models copy it into file paths
        tool_names=list(tool_names),
        approval_mode=approval_mode,
        mode_note=MODE_NOTES.get(approval_mode, ""),
        context_files=list(context_files),
        interactive=interactive,
        extra_sections=[s for s in extra_sections if s],
    )
