"""The pass@k benchmark (benchmarks/fix/fix_candidates.py): what the visible tests choose against what any
candidate holds, the 2x clock, and the candidates of a task written and judged from a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.fix import fix_candidates as fc
from benchmarks.tasks.fix_tasks import NOVEL, load_tasks

from acode.llm.types import Completion, Usage


def _row(shape: str, model_s: float, visible: bool, hidden: bool) -> dict:
    return {"shape": shape, "model_s": model_s, "test_s": 1.0, "visible": visible, "hidden": hidden}


def test_the_visible_tests_choose_and_the_clock_cuts_at_twice_the_one_call():
    # the one call fails; the first line candidate passes the shown tests but not the hidden ones, the
    # second passes both; the whole-file candidate passes both but only after 2x the one call's 10 s
    record = {"one_call_s": 10.0, "candidates": [
        _row("one call", 10.0, False, False), _row("line", 2.0, True, False), _row("line", 2.0, True, True),
        _row("whole", 9.0, False, False), _row("whole", 9.0, True, True)]}
    assert fc.pass_at_k([record], "line", 3, None) == 0  # chosen: the first that passes the shown tests
    assert fc.pass_at_k([record], "line", 3, None, oracle=True) == 1  # held: the second
    assert fc.pass_at_k([record], "line", 2, None, oracle=True) == 0
    assert fc.pass_at_k([record], "whole", 3, None) == 1
    assert fc.pass_at_k([record], "whole", 3, 2.0) == 0  # 10+1 + 9+1 + 9 > 20 s


class _Scripted:
    def __init__(self, replies: list[str]):
        self.replies, self.prompts = iter(replies), []

    def complete(self, messages, **_):
        self.prompts.append(messages[0].content)
        return Completion(text=next(self.replies), usage=Usage(completion_tokens=20, prompt_tokens=600))


def test_line_asks_are_applied_judged_and_their_repeats_and_copies_dropped(tmp_path: Path):
    task = load_tasks(half="even", task_set="novel")[2]
    row = next(r for r in map(json.loads, NOVEL.read_text().splitlines()) if r["task_id"] == task.task_id)
    old, new = next((a, b) for a, b in zip(row["buggy_solution"].splitlines(),
                                           row["canonical_solution"].splitlines()) if a != b)
    fix = f"```diff\n-{old.strip()}\n+{new.strip()}\n```"
    copy = "```diff\n-<the wrong line, as it is in x.py>\n+<the corrected line>\n```"
    previous = {"task": task.task_id, "one_call_s": 60.0,
                "candidates": [_row("one call", 60.0, False, False)]}
    model = _Scripted(["(the one call's prompt, cached)", fix, copy, fix])
    record = fc.run_task(task, model, tmp_path, 2, 2, 3, previous)
    lines = record["candidates"][1:]
    one_call = model.prompts[0]  # the warm-up: the one call's prompt, which acode's line asks follow
    assert model.prompts[1].startswith(one_call[: one_call.rindex("\n\n")])  # all but its last sentence
    assert model.prompts[1].endswith("+<the corrected line>\n```")  # fix_line.j2, as acode asks
    assert [(r["visible"], r["hidden"], r.get("dropped", "")) for r in lines] == [
        (True, True, ""), (False, False, "copies the instruction"), (False, False, "repeat")]
    assert fc.pass_at_k([record], "line", 2, 2.0) == 1
