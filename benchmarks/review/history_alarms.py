"""False alarms of the history evidence (``acode.review.evidence.history``) on real histories: no model,
seconds.

Two sources of changes that do not put a fix back (as far as anyone knows):
- acode's own commits, each against its parent, in this repository's history;
- every adjacent release pair of the PyPI projects of ``real_commits_set`` (the tuning set and the
  held-back projects, not only the fix releases), built with the project's two previous releases as
  `main` (``build(history=True)``).

Prints JSON: how many changes were read and every finding at ``medium`` or above (the ones that count).
The other direction (how many reverted fixes it catches) is in ``real_commits.py --history``.

    python benchmarks/review/history_alarms.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.tasks import real_commits_set as rcs

REPO = Path(__file__).resolve().parents[2]


def own_commits(repo: Path) -> tuple[int, list[dict]]:
    from acode.review.change.git_context import commit_context
    from acode.review.evidence.history import history_findings

    shas = subprocess.run(["git", "rev-list", "--no-merges", "HEAD"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.split()
    alarms = []
    for sha in shas[:-1]:  # the root commit has no parent to compare with
        alarms += [_alarm(f"acode {sha[:7]}", f) for f in history_findings(commit_context(repo, sha))]
    return len(shas) - 1, [a for a in alarms if a]


def release_pairs() -> tuple[int, list[dict]]:
    from acode.review.change.git_context import branch_context
    from acode.review.evidence.history import history_findings

    read, alarms = 0, []
    with tempfile.TemporaryDirectory(prefix="acode-history-alarms-") as tmp:
        for name, versions in {**rcs.PYPI_RELEASES, **rcs.HELD_BACK_RELEASES}.items():
            for release, _ in rcs.release_changes(name, versions):
                if not release.changes:
                    continue
                repo = rcs.build(release, "fix", Path(tmp) / rcs.slug(release), history=True)
                read += 1
                alarms += [_alarm(release.name, f) for f in history_findings(branch_context(repo, "main"))]
    return read, [a for a in alarms if a]


def _alarm(change: str, finding) -> dict | None:
    if finding.severity not in ("critical", "high", "medium"):
        return None
    return {"change": change, "severity": finding.severity, "file": finding.file, "message": finding.message}


def main() -> int:
    commits, own = own_commits(REPO)
    pairs, releases = release_pairs()
    print(json.dumps({"benchmark": "history_alarms",
                      "acode_commits": {"changes": commits, "alarms": len(own), "items": own},
                      "release_pairs": {"changes": pairs, "alarms": len(releases), "items": releases}},
                     indent=2))
    return 0


if __name__ == "__main__":
    sys.path.append(str(REPO / "src"))
    raise SystemExit(main())
