"""Agent definitions: who a sub-agent is (its system prompt), which tools it may use, and its limits.

Sources, later ones overriding earlier ones of the same name: the built-ins, personas of enabled
extensions (``prompt`` in the manifest), ``~/.config/acode/agents/*.md`` and ``.acode/agents/*.md``.
A Markdown definition has YAML front matter (name, description, tools, model, temperature, max_turns,
timeout_mins); its body is the system prompt.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from acode.errors import ConfigError, UsageError
from acode.paths import ProjectPaths, user_config_dir
from acode.prompts import render
from acode.tools.builtin import READ_ONLY_TOOL_NAMES

log = logging.getLogger("acode.agent")

EDIT_TOOL_NAMES = ("write_file", "replace")


class AgentDefinition(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    tools: list[str] | None = None  # None: every built-in tool except invoke_agent
    model: str | None = None
    temperature: float = Field(0.0, ge=0, le=2)
    max_turns: int = Field(15, ge=1, le=200)
    timeout_mins: float = Field(10.0, gt=0)
    system_prompt: str = ""
    output: Literal["text", "investigation"] = "text"
    source: str = "built-in"

    @field_validator("tools", mode="before")
    @classmethod
    def _split_tools(cls, value: object) -> object:
        if isinstance(value, str):
            return [t.strip() for t in value.split(",") if t.strip()]
        return value


def builtin_agents() -> list[AgentDefinition]:
    read_tools = list(READ_ONLY_TOOL_NAMES)
    return [
        AgentDefinition(
            name="codebase_investigator",
            description="Read-only: explores the code base and reports relevant files, reasons and key "
                        "symbols.",
            tools=read_tools,
            max_turns=15,
            system_prompt=render("acode.agent", "persona_codebase_investigator.j2"),
            output="investigation",
        ),
        AgentDefinition(
            name="coder-agent",
            description="Writes code into its workspace; updates its plan file first; ends with the path it "
                        "created.",
            tools=["read_file", *EDIT_TOOL_NAMES],  # few tools: each schema costs prompt tokens per call
            max_turns=8,
            system_prompt=render("acode.agent", "persona_coder.j2"),
        ),
        AgentDefinition(
            name="reviewer-agent",
            description="Reviews the file it is given and writes the review into its plan file.",
            tools=[*read_tools, *EDIT_TOOL_NAMES],
            max_turns=10,
            system_prompt=render("acode.agent", "persona_reviewer.j2"),
        ),
    ]


def parse_agent_markdown(text: str, source: Path) -> AgentDefinition:
    """A definition from Markdown with YAML front matter; errors name the file and the key."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise ConfigError(
            "ACODE-AGENT-006",
            f"{source} has no YAML front matter",
            hint="start the file with a '---' line, the keys (name, description, tools, ...), and another "
                 "'---'",
        )
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise ConfigError(
            "ACODE-AGENT-007", f"{source}: the front matter is not closed by a '---' line"
        ) from None
    try:
        meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        raise ConfigError("ACODE-AGENT-008", f"{source}: the front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise ConfigError("ACODE-AGENT-008", f"{source}: the front matter must be a mapping of keys")
    meta.setdefault("name", source.stem)
    body = "\n".join(lines[end + 1 :]).strip()
    if not body:
        raise ConfigError("ACODE-AGENT-005", f"{source}: the body (the agent's system prompt) is empty")
    try:
        return AgentDefinition.model_validate({**meta, "system_prompt": body, "source": str(source)})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'front matter'}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigError(
            "ACODE-AGENT-004",
            f"{source}: invalid agent definition: {problems}",
            hint="allowed keys: name, description, tools, model, temperature, max_turns, timeout_mins",
        ) from None


def persona_from_extension(extension) -> AgentDefinition | None:
    """An extension with a ``prompt`` is usable as an agent; its context file joins the prompt."""
    manifest = extension.manifest
    if not manifest.prompt:
        return None
    prompt = manifest.prompt.strip()
    context = extension.context_text().strip()
    if context:
        prompt += f"\n\n{context}"
    return AgentDefinition(
        name=manifest.name,
        description=manifest.description or f"Persona from extension {manifest.name} {manifest.version}",
        system_prompt=prompt,
        source=str(extension.manifest_path),
    )


def agent_dirs(project_root: Path | None) -> list[Path]:
    dirs = [user_config_dir() / "agents"]
    if project_root is not None:
        dirs.append(ProjectPaths(project_root).agents_dir)
    return dirs


def load_agents(
    project_root: Path | None, extensions: Iterable = (), *, problems: list[str] | None = None
) -> dict[str, AgentDefinition]:
    """Every known agent by name. An invalid definition file is reported (in ``problems``) and skipped."""
    agents = {a.name: a for a in builtin_agents()}
    for ext in extensions:
        persona = persona_from_extension(ext)
        if persona is not None:
            agents[persona.name] = persona
    for folder in agent_dirs(project_root):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            try:
                definition = parse_agent_markdown(path.read_text(encoding="utf-8"), path)
            except (ConfigError, OSError, UnicodeDecodeError) as exc:
                log.warning("%s", exc)
                if problems is not None:
                    problems.append(str(exc))
                continue
            agents[definition.name] = definition
    return agents


def get_agent(agents: dict[str, AgentDefinition], name: str) -> AgentDefinition:
    if name in agents:
        return agents[name]
    raise UsageError(
        "ACODE-AGENT-010",
        f"unknown agent '{name}'",
        hint=f"known agents: {', '.join(sorted(agents))} (`acode agents list`)",
    )
