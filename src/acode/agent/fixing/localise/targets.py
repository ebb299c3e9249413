"""Which files a fix may rewrite and what the prompt shows of them and of the tests: the files the request
names, else those the failing tests reach (locate.py); a long file or test file as an excerpt of what the
failing tests reach (excerpt.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from acode.agent.fixing.detect import FixPlan, is_test_file
from acode.agent.fixing.file_view import FileView, read_text
from acode.agent.fixing.localise.excerpt import excerpt
from acode.agent.fixing.localise.locate import (
    Focus,
    failing_tests,
    focus_named_like,
    locate,
    named_by_tests,
    test_words,
)
from acode.agent.fixing.localise.quoted import quoted_lines
from acode.agent.fixing.localise.spectrum import Suspect
from acode.agent.fixing.outcome import TestOutcome, implicated_files

MAX_TARGETS = 3
MAX_SHOWN_CHARS = 10000  # of the files to fix, all together (the first is always shown)
EXCERPT_CHARS = 6000  # a file longer than this is shown as an excerpt, also under excerpt_file_lines
MAX_CONTEXT_CHARS = 4000  # of test files shown whole as the specification; a longer one: its failing tests
# the test spectrum's suspects (spectrum.py) worth showing: a score this high means the failing tests
# executed the function and few passing tests did; of those, the files of the first few are added to the
# targets, and a long file's excerpt shows the first few functions
SUSPECT_SCORE = 0.5
SUSPECT_FILES = 2
SUSPECT_FOCUS = 5


@dataclass(frozen=True)
class Target:
    whole: FileView  # the file as it is: what a reply is merged into
    shown: FileView  # what the prompt shows: the whole file, or an excerpt (then ``whole.shown_part``)


def failing_test_files(plan: FixPlan, before: TestOutcome, workspace: Path) -> dict[Path, set[str]]:
    """{test file: its failing test functions (empty: all of them)}: from the output's FAILED lines and
    the named node ids, else the named test files, else the test files in the traceback."""
    tests = {path: names for path, names in failing_tests(before.output, plan.tests).items()
             if (workspace / path).is_file()}
    fallback = plan.protected or [p for p in implicated_files(before.output, workspace) if is_test_file(p)]
    return tests or {path: set() for path in fallback}


def choose_targets(plan: FixPlan, before: TestOutcome, workspace: Path, *, max_lines: int,
                   excerpt_lines: int, excerpt_chars: int = EXCERPT_CHARS,
                   suspects: list[Suspect] | None = None) -> list[Target]:
    """The files to fix, best first: named ones, else the traceback's and the failing tests' modules (the
    one the test is named after alone when the traceback does not go through any). A file over
    ``excerpt_lines`` lines or ``excerpt_chars`` characters is shown as an excerpt around what the
    failing tests reach, else (a file found by name, nothing failing reaches into it) around its
    definitions named like the failing tests."""
    tests = failing_test_files(plan, before, workspace)
    located = locate(before.output, tests, workspace)
    focus = {found.path: found.focus for found in located}
    strong = [s for s in suspects or () if s.score >= SUSPECT_SCORE]
    paths = list(plan.targets)
    if not paths:
        subjects = {t.stem.removeprefix("test_").removesuffix("_test") for t in tests}
        named_after = [f.path for f in located if f.referenced and f.path.stem in subjects]
        in_traceback = [f.path for f in located if f.in_traceback]
        on_failing_line = [f.path for f in located if f.on_failing_line]
        named_like_tests = [] if in_traceback or named_after else named_by_tests(tests, workspace)
        paths = (in_traceback or named_after[:1] or named_like_tests[:MAX_TARGETS] or on_failing_line
                 or [f.path for f in located])
        # the best of those, then the suspects' files: a slot of the prompt for executed evidence
        suspect_files = list(dict.fromkeys(s.path for s in strong))[:SUSPECT_FILES]
        paths = list(dict.fromkeys([*paths[:1], *suspect_files, *paths[1:]]))
    suspect_lines: dict[Path, set[int]] = {}
    for suspect in strong[:SUSPECT_FOCUS]:
        suspect_lines.setdefault(suspect.path, set()).add(suspect.line)
    targets = []
    for path in paths:
        text = read_text(workspace / path)
        lines = len(text.strip().splitlines())
        if not 0 < lines <= max_lines:  # not an empty __init__.py, not past the limit
            continue
        whole = FileView(path.as_posix(), text)
        shown = None
        if lines > excerpt_lines or len(text) > excerpt_chars:
            found = focus.get(path, Focus())
            quoted = quoted_lines(text, before.output)  # a message the output quotes: where it is written
            if not found.lines and not found.names and not quoted:  # found by its name: named like the tests
                found = focus_named_like(text, test_words(tests))
            found = replace(found, lines=found.lines | quoted | suspect_lines.get(path, set()))
            shown = excerpt(text, path.as_posix(), found, max_chars=excerpt_chars)
        if shown is not None:
            targets.append(Target(replace(whole, shown_part=shown), FileView(path.as_posix(), shown)))
        elif lines <= excerpt_lines:  # short, or long in characters only with nothing to excerpt around
            targets.append(Target(whole, whole))
        # else a long file nothing failing reaches is not rewritten blind
    return _within_budget(targets)


def _within_budget(targets: list[Target]) -> list[Target]:
    """The best target, then the next ones while the prompt's files stay within ``MAX_SHOWN_CHARS``: three
    whole modules of a real project made a 21,000-character prompt the 1.5B was still reading after 300 s
    on 2 cores."""
    kept: list[Target] = []
    size = 0
    for target in targets[:MAX_TARGETS]:
        size += len(target.shown.text)
        if kept and size > MAX_SHOWN_CHARS:
            break
        kept.append(target)
    return kept


def spec_views(plan: FixPlan, before: TestOutcome, workspace: Path, targets: list[Target]) -> list[FileView]:
    """The failing tests as the prompt shows them (read only): each test file whole while the budget
    lasts, a longer one as its imports and failing test functions."""
    views, budget = [], MAX_CONTEXT_CHARS
    rewritten = {t.whole.path for t in targets}
    for path, functions in failing_test_files(plan, before, workspace).items():
        text = read_text(workspace / path)
        if path.as_posix() in rewritten:
            continue
        if len(text) <= budget:
            views.append(FileView(path.as_posix(), text))
            budget -= len(text)
        elif functions:
            shown = excerpt(text, path.as_posix(), Focus(names=set(functions)), outline=False)
            if shown is not None and len(shown) <= budget:
                views.append(FileView(path.as_posix(), shown))
                budget -= len(shown)
    return views
