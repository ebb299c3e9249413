"""ask_user: put questions to the person at the keyboard (interactive sessions only)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from acode.tools.base import Tool, ToolContext, ToolError, ToolResult


class AskUserArgs(BaseModel):
    questions: list[str] = Field(min_length=1, description="One or more short, specific questions.")


class AskUser(Tool):
    name = "ask_user"
    description = (
        "Ask the user one or more questions when a decision truly needs them (interactive sessions only)."
    )
    Args = AskUserArgs
    kind = "interact"

    def run(self, args: AskUserArgs, ctx: ToolContext) -> ToolResult:
        questions = [q.strip() for q in args.questions if q.strip()]
        if not questions:
            raise ToolError("ask_user needs at least one non-empty question.")
        if not ctx.interactive or ctx.ask_user is None:
            raise ToolError(
                "No user is available: this session is non-interactive. Decide yourself, state the "
                "assumption you made, and continue."
            )
        answers = list(ctx.ask_user(questions))
        answers += [""] * (len(questions) - len(answers))
        pairs = [{"question": q, "answer": a} for q, a in zip(questions, answers, strict=False)]
        output = "\n".join(f"Q: {p['question']}\nA: {p['answer'] or '(no answer)'}" for p in pairs)
        return ToolResult(output=output, data={"answers": pairs})


def tools() -> list[Tool]:
    return [AskUser()]
