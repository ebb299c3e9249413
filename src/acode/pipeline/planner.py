"""Planner: request + repository context -> a plan of steps (each with a check), validated against the
Plan schema, written as plan_v<N>.md and plan_v<N>.json. On re-planning the previous plan and the
reviewer's issues go into the prompt and into the plan file."""

from __future__ import annotations

import re
from pathlib import Path

from acode.llm.structured import complete_json
from acode.llm.types import Message
from acode.pipeline import gitops
from acode.pipeline.models import Plan
from acode.pipeline.records import write_record_json, write_record_text
from acode.pipeline.stages import RunContext, Stage, StageResult
from acode.prompts import render

MAX_LISTED_FILES = 60
MAX_EXCERPT_LINES = 60


class PlannerStage(Stage):
    name = "plan"

    def execute(self, ctx: RunContext) -> StageResult:
        state = ctx.state
        version = len(state.plans) + 1
        options = ctx.settings.pipeline
        values = dict(
            task=state.task,
            version=version,
            max_steps=options.max_steps,
            previous=state.plan,
            feedback=state.feedback,
            feedback_notes=state.feedback_notes,
            **repository_context(ctx.root, state.task),
        )
        messages = [
            Message.system(render("acode.pipeline", "planner_system.j2", **values)),
            Message.user(render("acode.pipeline", "planner_user.j2", **values)),
        ]
        plan = complete_json(
            ctx.model, messages, Plan, max_tokens=options.plan_max_tokens, timeout=options.timeouts.planner
        )
        plan.steps = plan.steps[: options.max_steps]
        state.plans.append(plan)
        state.step_results, state.verifications, state.verify_attempt = [], [], 0
        md_path, _ = self._write_files(ctx, plan, version, messages)
        ctx.events.emit(
            "plan",
            version=version,
            steps=[s.model_dump() for s in plan.steps],
            feedback=[i.model_dump() for i in state.feedback],
            file=str(md_path.relative_to(ctx.root)),
        )
        return StageResult("ok", f"plan v{version}: {len(plan.steps)} step(s)", {"plan_file": str(md_path)})

    def _write_files(
        self, ctx: RunContext, plan: Plan, version: int, messages: list[Message]
    ) -> tuple[Path, Path]:
        state = ctx.state
        md = render(
            "acode.pipeline",
            "plan.md.j2",
            plan=plan,
            version=version,
            task=state.task,
            session_id=state.session_id,
            cycle=state.cycle,
            feedback=state.feedback,
            feedback_notes=state.feedback_notes,
        )
        md_path = ctx.run_dir / f"plan_v{version}.md"
        json_path = ctx.run_dir / f"plan_v{version}.json"
        write_record_text(md_path, md + "\n")
        write_record_json(
            json_path,
            {
                "version": version,
                "cycle": state.cycle,
                "task": state.task,
                "plan": plan.model_dump(),
                "feedback": [i.model_dump() for i in state.feedback],
                "feedback_notes": state.feedback_notes,
                "prompt": [m.model_dump(include={"role", "content"}) for m in messages],
            },
        )
        return md_path, json_path


def repository_context(root: Path, task: str) -> dict:
    """Tracked files (a bounded list) and the start of the files the request names."""
    names = [n for n in gitops.git(root, "ls-files", "-z").split("\0") if n and not n.startswith(".acode/")]
    return {
        "files": names[:MAX_LISTED_FILES],
        "files_truncated": len(names) > MAX_LISTED_FILES,
        "excerpts": mentioned_files(root, task, names),
    }


def mentioned_files(
    root: Path, text: str, names: list[str] | None = None, limit: int = 3
) -> list[tuple[str, str]]:
    """(path, first lines) of the repository files ``text`` names, as they are now (untracked ones too)."""
    if names is None:
        names = gitops.git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    mentioned = {m.strip("`'\".,:;()") for m in re.findall(r"[\w./-]+\.\w+", text)}
    excerpts = []
    for name in names:
        if name and not name.startswith(".acode/") and (name in mentioned or Path(name).name in mentioned):
            try:
                lines = (root / name).read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            more = len(lines) - MAX_EXCERPT_LINES
            excerpts.append(
                (
                    name,
                    "\n".join(lines[:MAX_EXCERPT_LINES] + ([f"... ({more} more lines)"] if more > 0 else [])),
                )
            )
    return excerpts[:limit]
