"""How a running agent looks to a person: a spinner while the model thinks, each tool call and its
outcome, diffs of edits, and the approval question. Progress goes to the console it is given (stderr
for ``acode -p``, so stdout holds only the answer)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from acode.agent.approval.policy import Answer, ApprovalRequest
from acode.agent.loop.middleware import AgentState
from acode.agent.loop.observer import LoopObserver
from acode.agent.loop.result import AgentResult, ModelStep, ToolStep
from acode.llm.types import ToolCall
from acode.shown import for_terminal
from acode.tools.base import ToolResult, TurnInterrupted

PREVIEW_LINES = 12


def call_summary(call: ToolCall) -> str:
    """One line naming the call, as a person sees it (secrets hidden, controls shown, no markup)."""
    args = call.arguments
    if call.name == "run_shell_command":
        return for_terminal(f"$ {args.get('command', '')}")
    target = args.get("file_path") or args.get("dir_path") or args.get("pattern") or ""
    return for_terminal(f"{call.name} {target}".strip())


def _plain(text: str) -> str:
    """Text from the model or a tool inside a markup string: shown as text, never read as markup."""
    return escape(for_terminal(text))


def diff_view(diff: str) -> Syntax:
    """A unified diff coloured for the terminal (red removals, green additions)."""
    return Syntax(diff.rstrip("\n"), "diff", theme="ansi_dark", word_wrap=True)


def _first_lines(text: str, n: int = 3) -> str:
    lines = text.strip().splitlines()
    more = f"  [{len(lines) - n} more lines]" if len(lines) > n else ""
    return "\n    ".join(line[:160] for line in lines[:n]) + more


class ConsoleView(LoopObserver):
    def __init__(self, console: Console, *, verbose: bool = False, previewed: set[str] | None = None):
        self.console = console
        self.verbose = verbose
        self.previewed = previewed if previewed is not None else set()  # diffs the approval question showed
        self._status: Any = None

    def _stop_status(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def on_model_start(self, state: AgentState) -> None:
        if self.console.is_terminal:
            from acode.cli.progress import Elapsed

            self._status = self.console.status(Elapsed(f"thinking (turn {state.turn})"))
            self._status.start()

    def on_model_step(self, state: AgentState, step: ModelStep) -> None:
        self._stop_status()
        if step.format_error:
            self.console.print(f"[yellow]! invalid answer:[/] {_plain(step.format_error)}", highlight=False)
        if self.verbose:
            u = step.usage
            self.console.print(
                f"[dim]model: {step.seconds:.1f}s, prompt {u.prompt_tokens} ({u.prompt_tokens_reused} "
                "cached),"
                f" out {u.completion_tokens}[/]"
            )

    def on_tool_start(self, state: AgentState, call: ToolCall) -> None:
        self._stop_status()
        self.console.print(f"[cyan]>[/] {escape(call_summary(call))}", markup=True, highlight=False)

    def on_tool_step(self, state: AgentState, step: ToolStep, result: ToolResult) -> None:
        if step.decision != "allowed":  # what the model is told stays with the model
            why = result.display or (step.error or "").removeprefix(f"{step.decision}: ")
            self.console.print(f"  [red]x {step.decision}:[/] {_plain(why)}", highlight=False)
            return
        if not step.ok:
            self.console.print(f"  [red]x[/] {_plain(step.error or '')}", highlight=False)
            return
        display = for_terminal(result.display or "")
        if step.call_id in self.previewed:  # its diff was shown with the approval question
            self.console.print(f"  [green]ok[/] [dim]{step.seconds:.1f}s[/] {_plain(result.output)}",
                               highlight=False)
        elif display.lstrip().startswith(("---", "@@", "diff ")):
            self.console.print(diff_view(display))
        else:
            shown = escape(_first_lines(display or for_terminal(result.output)))  # redacted before the cut
            self.console.print(
                f"  [green]ok[/] [dim]{step.seconds:.1f}s[/] {shown}", highlight=False, markup=True
            )

    def on_stop(self, state: AgentState, result: AgentResult) -> None:
        self._stop_status()
        if not result.ok:
            self.console.print(
                f"[yellow]{result.stop_reason}:[/] {_plain(result.message)}", highlight=False, soft_wrap=True
            )


class ConsoleApprover:
    """Asks y / n / always on the terminal with one key press, showing what the call would do: the
    coloured diff of an edit (the same diff is then not printed again when the edit is done)."""

    def __init__(self, console: Console, previewed: set[str] | None = None):
        self.console = console
        self.previewed = previewed if previewed is not None else set()  # ids of calls whose diff was shown

    def __call__(self, request: ApprovalRequest) -> Answer:
        from acode.cli.keys import END_OF_INPUT, read_key

        args = request.call.arguments
        self.console.print(f"[bold yellow]? approve[/] {_plain(request.summary)}", highlight=False)
        if request.preview:
            self.console.print(diff_view(for_terminal(request.preview)))
            self.previewed.add(request.call.id)
        elif "content" in args:
            preview = "\n".join(for_terminal(str(args["content"])).splitlines()[:PREVIEW_LINES])
            self.console.print(Syntax(preview, "text", line_numbers=True, word_wrap=True))
        elif request.call.name != "run_shell_command":
            self.console.print(for_terminal(json.dumps(args, ensure_ascii=False)[:400]), markup=False)
        while True:
            key = read_key(self.console, "  allow? \\[y]es / \\[n]o / \\[a]lways: ")
            if key == "y":
                return "yes"
            if key in ("n", "", END_OF_INPUT, "\x1b"):  # Enter, Ctrl-D and Esc decline
                return "no"
            if key == "a":
                return "always"


def console_ask_user(console: Console, set_aside: Callable[[str], None] | None = None):
    """The chat's ``ask_user``. A slash command typed at the question is not an answer: it is handed to
    ``set_aside`` (the chat runs it once the turn has stopped) and the turn stops."""

    def ask(questions: list[str]) -> list[str]:
        answers = []
        for question in questions:
            console.print(f"[bold]? {_plain(question)}[/]", highlight=False)
            try:
                answer = console.input("  > ")
            except EOFError:
                answer = ""
            if answer.strip().startswith("/") and set_aside is not None:
                set_aside(answer.strip())
                raise TurnInterrupted(f"the question: {answer.strip()} was typed instead of an answer")
            answers.append(answer)
        return answers

    return ask
