"""A JSON beside each prose record here: its tables, the commits it names, the commands it quotes and the
loads it states, read from the text as written (the per-run data of those runs was not kept, so the
markdown stays the record; the JSON makes its figures readable by scripts).

    python3 benchmarks/results/history/extract_json.py      (rewrites every JSON beside its .md)
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEX = re.compile(r"(?<![0-9a-zA-Z/.])[0-9a-f]{7,40}(?![0-9a-zA-Z])")
LOAD = re.compile(r"load(?: average)?(?: \(1 min\))?s?(?: of| at| was|:)?\s*~?"
                  r"([0-9]+(?:\.[0-9]+)?(?:\s*(?:[-–]|to)\s*[0-9]+(?:\.[0-9]+)?)?)", re.IGNORECASE)
SHELL = re.compile(r"`((?:[A-Z_]+=\S+\s+)*(?:flock \S+ )?(?:\.venv/bin/|/\S+/)?"
                   r"(?:python3?|acode|bash|PYTHONPATH=\S+ python3?)\s[^`]+)`")
SCRIPT = re.compile(r"`((?:benchmarks/)?[a-z_]+\.py\s[^`]+)`")
DIVIDER = re.compile(r"^\s*\|[\s:|-]+\|\s*$")
NOTE = ("Read from the markdown beside it on 2026-11-28 by extract_json.py: its tables, the commits it "
        "names that exist in this repository, the commands it quotes and the loads it states. The per-run "
        "data of these runs was not kept; the markdown is the record.")


def is_commit(sha: str) -> bool:
    if not re.search("[a-f]", sha) or not re.search("[0-9]", sha):
        return False
    found = subprocess.run(["git", "cat-file", "-e", sha + "^{commit}"], cwd=HERE, capture_output=True,
                           check=False)
    return found.returncode == 0


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def tables(lines: list[str]) -> list[dict]:
    found, section, i = [], None, 0
    while i < len(lines):
        if lines[i].startswith("#"):
            section = lines[i].lstrip("#").strip()
        if lines[i].lstrip().startswith("|") and i + 1 < len(lines) and DIVIDER.match(lines[i + 1]):
            columns, rows, i = cells(lines[i]), [], i + 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            found.append({"section": section, "columns": columns, "rows": rows})
            continue
        i += 1
    return found


def commands(text: str) -> list[str]:
    found = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.DOTALL):
        found += [line for line in block.splitlines() if re.search(r"\b(python3?|acode|bash)\b", line)]
    for block in re.findall(r"(?:^|\n\n)((?:    .*\n?)+)", text):
        found += [line for line in block.splitlines() if re.search(r"\b(python3?|acode)\b", line)]
    flat = text.replace("\n", " ")
    found += [match.group(1) for match in SHELL.finditer(flat)]
    found += [match.group(1) for match in SCRIPT.finditer(flat)]
    return list(dict.fromkeys(re.sub(r"\s+", " ", command.strip()) for command in found))


def record(md: Path) -> dict:
    text = md.read_text()
    lines = text.splitlines()
    return {
        "record": md.name,
        "kind": "prose record, figures as written",
        "date_first_written": md.name[:10],
        "title": next((line[2:].strip() for line in lines if line.startswith("# ")), md.stem),
        "moved": next((line for line in lines[1:6] if line.startswith("Moved from")), None),
        "note": NOTE,
        "machine": "2 CPU cores, shared" if re.search(r"2[- ](?:CPU )?cores?", text) else None,
        "commits": list(dict.fromkeys(sha for sha in HEX.findall(text) if is_commit(sha))),
        "commands": commands(text),
        "loads": list(dict.fromkeys(LOAD.findall(text.replace("\n", " ")))),
        "sections": [line.lstrip("#").strip() for line in lines if line.startswith(("## ", "### "))],
        "tables": tables(lines),
    }


def main() -> None:
    for md in sorted(HERE.glob("*.md")):
        made = record(md)
        md.with_suffix(".json").write_text(json.dumps(made, indent=1, ensure_ascii=False) + "\n")
        print(f"{md.name}: {len(made['tables'])} tables, {len(made['commits'])} commits, "
              f"{len(made['commands'])} commands, {len(made['loads'])} loads")


if __name__ == "__main__":
    main()
