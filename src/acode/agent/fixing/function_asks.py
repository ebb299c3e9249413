"""Function-level candidates after the one call (issue 51): the one call's prompt again, its last
instruction asking for only the function the failing test reaches, greedy and then sampled at a few
temperatures and seeds, each reply merged back into the file by name (merge.py).

Why: a whole-file reply is mostly the file copied back (a 60-line pair of functions: ~430 completion
tokens at ~23 tokens/s on 2 cores); the function alone is a fraction of that, and the prompt is the one
call's but for its last sentence, so the KV cache holds the rest. The replies stop at the end of the
function (its block closed, or two blank lines and the next top-level statement). A reply that leaves
the file unchanged or repeats a candidate already tested is dropped before any test runs.

The budget is the wall clock: asks are made while the time since the one call began, plus what the next
ask is expected to take (the longest so far with its test run; before the first, half the one call and
a test run as long as the first one),
stays within ``function_time_budget`` times the one call's seconds.

A function that is more than half its file (every task of the Novel and HumanEvalFix tune halves but 2 of
106) gets ``large_function_asks`` asks (1: the greedy one alone; 0, the default, none: on the held-out
half it solved nothing more, benchmarks/results/2026-11-28-fix-policy-held-out.md), and only when no
smaller function is reached. Its reply costs about a whole file's tokens, as much as the one call's;
counted against token_budget (2x the one call's) it would leave the line asks after it nothing, and the
line asks found most of what the model has within 2x the one call's time (benchmarks/results/
2026-11-27-fix-candidates-passk.md: the one call 1/17, its greedy function ask then the line asks 6/17,
the line asks alone 4/17). So it is bounded by the clock and its number only, like the suspects' greedy
asks, whose tokens are not counted either."""

from __future__ import annotations

import ast
import re
import time
from dataclasses import dataclass

from acode.agent.fixing.candidate_source import Candidates, FixSession, Proposal
from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.rewrite import parse_reply

# the end of the block asked for, or of a top-level function written on past the one asked for
FUNCTION_STOP = ["\n```\n", "\n\n\ndef ", "\n\n\nclass ", "\n\n\n@", "\n\n\nif __name__"]
SAMPLE_TEMPERATURES = (0.4, 0.8)  # after the greedy ask, in turn
FUNCTION_SEED = 300  # apart from the whole-file, line and suspect asks' seeds
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class FunctionAsk:
    path: str
    name: str
    text: str  # the function as the file writes it: the room its reply needs
    large: bool = False  # more than half its file: its reply costs about a whole file's tokens


def reached_functions(files: list[FileView], output: str, context: list[FileView]) -> list[FunctionAsk]:
    """The functions of ``files`` the failing tests reach, most likely first: those the traceback names in
    their own file (``calc.py:3: in add``), then those the tests' text names, in the order it names
    them. Top-level functions and methods of top-level classes, of files that parse; those at most half
    their file first, then the large ones (more than half: where the file is little more than the
    function), so a file with a smaller reached function is asked about that one."""
    found: dict[tuple[str, str], FunctionAsk] = {}
    tests = "\n".join(v.text for v in context)
    for view in files:
        try:
            tree = ast.parse(view.text)
        except (SyntaxError, ValueError):
            continue
        lines = view.text.splitlines()
        for node in _functions(tree):
            text = "\n".join(lines[node.lineno - 1 : node.end_lineno]) + "\n"
            large = 2 * len(text) > len(view.text)
            found[(view.path, node.name)] = FunctionAsk(view.path, node.name, text, large)

    def rank(ask: FunctionAsk) -> tuple[bool, int, int]:
        frame = re.search(rf"{re.escape(ask.path)}:\d+: in {re.escape(ask.name)}\b", output)
        named = re.search(rf"\b{re.escape(ask.name)}\b", tests)
        if frame:
            return ask.large, 0, frame.start()
        return (ask.large, 1, named.start()) if named else (ask.large, 2, 0)

    return sorted((a for a in found.values() if rank(a)[1] < 2), key=rank)


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    functions = [n for n in tree.body if isinstance(n, _FUNCS)]
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            functions += [m for m in node.body if isinstance(m, _FUNCS)]
    return functions


class FunctionAsks:
    """``function_asks`` asks for the first reached function (greedy, then samples) while the time budget
    lasts. Their tokens count against token_budget too, so the line asks after them get what is left. A
    large function (more than half its file) gets ``large_function_asks`` asks instead, their tokens not
    counted (the module's docstring says why)."""

    name = "function"
    counts_as_attempt, keep_if_partial, needs_model = False, True, True

    def candidates(self, session: FixSession) -> Candidates:
        if not session.views or not session.function_framings:
            return None
        ask, framing = session.function_framings[0]
        view = next(v for v in session.views if v.path == ask.path)
        settings = session.settings
        costs: list[float] = []
        for number in range(settings.large_function_asks if ask.large else settings.function_asks):
            expected = max(costs, default=session.first_seconds / 2 + session.test_seconds)
            if not within_time_budget(session, expected):
                break
            started, spent = time.monotonic(), session.door.generated
            temperature = 0.0 if number == 0 else SAMPLE_TEMPERATURES[(number - 1) % len(SAMPLE_TEMPERATURES)]
            reply = session.ask(framing, temperature, seed=FUNCTION_SEED + number, stop=FUNCTION_STOP,
                                max_tokens=session.door.output_tokens_for(ask.text))
            if ask.large:
                session.unbudgeted += session.door.generated - spent
            parsed = parse_reply(reply, [view], session.context)
            # no candidate (the file unchanged, no block) or one already tested: no test run
            if not isinstance(parsed, str):
                note = f"`{ask.name}` asked for alone ({'greedy' if number == 0 else f'sample {number}'})"
                yield Proposal(parsed, note)
            costs.append(time.monotonic() - started)
        return None


def within_time_budget(session: FixSession, expected: float) -> bool:
    """Whether a step expected to take ``expected`` seconds ends within ``function_time_budget`` times the
    one call's seconds, counted from when the one call began."""
    elapsed = time.monotonic() - session.first_started
    return elapsed + expected <= session.settings.function_time_budget * session.first_seconds
