"""Reading unified diffs: hunks, their lines with old/new line numbers, and compacting them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


@dataclass
class DiffLine:
    kind: str  # "+", "-" or " "
    text: str
    old_no: int | None
    new_no: int | None


@dataclass
class Hunk:
    header: str
    lines: list[DiffLine] = field(default_factory=list)


@dataclass
class FileDiff:
    preamble: list[str]  # "diff --git", "index", "---", "+++" lines
    hunks: list[Hunk]
    trailer: list[str]  # anything after the hunks that is not a diff line (e.g. a truncation marker)


def parse_diff(text: str) -> FileDiff:
    preamble: list[str] = []
    hunks: list[Hunk] = []
    trailer: list[str] = []
    old_no = new_no = 0
    for raw in text.splitlines():
        match = _HUNK.match(raw)
        if match:
            old_no, new_no = int(match.group(1)), int(match.group(3))
            hunks.append(Hunk(header=raw))
            continue
        if not hunks:
            preamble.append(raw)
            continue
        kind = raw[:1]
        if kind == "+":
            hunks[-1].lines.append(DiffLine("+", raw[1:], None, new_no))
            new_no += 1
        elif kind == "-":
            hunks[-1].lines.append(DiffLine("-", raw[1:], old_no, None))
            old_no += 1
        elif kind == " " or raw == "":
            hunks[-1].lines.append(DiffLine(" ", raw[1:], old_no, new_no))
            old_no += 1
            new_no += 1
        elif raw.startswith("\\"):
            continue  # "\ No newline at end of file"
        else:
            trailer.append(raw)
    return FileDiff(preamble, hunks, trailer)


def added_lines(text: str) -> list[tuple[int, str]]:
    """(new line number, text) of every added line."""
    return [
        (line.new_no, line.text)
        for hunk in parse_diff(text).hunks
        for line in hunk.lines
        if line.kind == "+" and line.new_no is not None
    ]


def changed_new_lines(text: str) -> set[int]:
    """New-file line numbers that were added, plus the position of each deletion."""
    numbers: set[int] = set()
    for hunk in parse_diff(text).hunks:
        last_new = None
        for line in hunk.lines:
            if line.new_no is not None:
                last_new = line.new_no
            if line.kind == "+":
                numbers.add(line.new_no)  # type: ignore[arg-type]
            elif line.kind == "-":
                numbers.add((last_new or 0) + 1)
    return numbers


def compact_diff(text: str) -> str:
    """The same diff without unchanged context lines and without deletion-only runs of changes; each
    run of changed lines gets its own hunk header so line numbers stay right."""
    parsed = parse_diff(text)
    out = list(parsed.preamble)
    for hunk in parsed.hunks:
        run: list[DiffLine] = []
        for line in [*hunk.lines, DiffLine(" ", "", None, None)]:
            if line.kind != " ":
                run.append(line)
                continue
            if any(ln.kind == "+" for ln in run):
                out.extend(_run_lines(run))
            run = []
    out.extend(parsed.trailer)
    return "\n".join(out) + "\n"


def _run_lines(run: list[DiffLine]) -> list[str]:
    removed = [ln for ln in run if ln.kind == "-"]
    added = [ln for ln in run if ln.kind == "+"]
    old_start = removed[0].old_no if removed else 0
    header = f"@@ -{old_start},{len(removed)} +{added[0].new_no},{len(added)} @@"
    return [header, *(f"{ln.kind}{ln.text}" for ln in run)]


def numbered_diff(text: str) -> str:
    """The diff as the model sees it: hunks only (the file header is said elsewhere), each added or
    unchanged line prefixed with its line number in the new file, so findings can point at lines."""
    parsed = parse_diff(text)
    out: list[str] = []
    for hunk in parsed.hunks:
        out.append(hunk.header)
        for line in hunk.lines:
            number = f"{line.new_no:>4}" if line.new_no is not None else "    "
            out.append(f"{number} {line.kind}{line.text}")
    out.extend(parsed.trailer)
    return "\n".join(out) + "\n"


def new_position(text: str, old_no: int) -> int | None:
    """Where an old line ends up in the new file: its new number when it is kept, the line that took its
    place (or follows its removal) when it was removed; None when the diff does not show it."""
    for hunk in parse_diff(text).hunks:
        last_new = None
        for index, line in enumerate(hunk.lines):
            if line.new_no is not None:
                last_new = line.new_no
            if line.old_no != old_no:
                continue
            if line.new_no is not None:
                return line.new_no
            following = next((ln.new_no for ln in hunk.lines[index + 1:] if ln.new_no is not None), None)
            return following if following is not None else (last_new or 0) + 1
    return None
