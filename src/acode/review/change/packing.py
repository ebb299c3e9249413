"""Fit the diffs into the model's token budget, counted with the model's own tokenizer.

Whole diffs (with their few lines of context) when everything fits; otherwise every diff is compacted
(deletion-only changes and context lines dropped), files are ordered by language relevance (the change's
main languages first) and size, and fitted greedily: a file that does not fit is set aside so smaller
ones can still go in. Lock files, generated and binary files are named, never sent.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from acode.review.change.diff import compact_diff, numbered_diff
from acode.review.models import ChangedFile, PackingSummary

LOCK_FILES = {
    "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "pipfile.lock", "uv.lock",
    "cargo.lock", "go.sum", "composer.lock", "gemfile.lock", "pdm.lock", "bun.lockb", "flake.lock",
}
_GENERATED_NAME = re.compile(r"(\.min\.(js|css)$|\.map$|_pb2(_grpc)?\.pyi?$|\.pb\.go$|\.generated\.\w+$)")
_GENERATED_DIRS = {"dist", "build", "node_modules", "vendor", "__pycache__", ".venv", "site-packages"}
_GENERATED_MARK = re.compile(r"@generated|DO NOT EDIT|auto-?generated", re.IGNORECASE)


@dataclass
class PackedDiffs:
    text: str  # the diffs as they go into the prompt, each under a "File:" header
    summary: PackingSummary


def language_of(path: str) -> str:
    suffix = PurePosixPath(path).suffix.lower()
    return suffix or PurePosixPath(path).name.lower()


def skip_reason(changed: ChangedFile) -> str | None:
    """Why a file is named but not sent, or None when its diff is worth the tokens."""
    name = PurePosixPath(changed.path)
    if changed.change_type == "binary":
        return "binary"
    if name.name.lower() in LOCK_FILES or name.suffix == ".lock":
        return "lock file"
    if _GENERATED_NAME.search(name.name) or _GENERATED_DIRS.intersection(name.parts[:-1]):
        return "generated"
    head = "\n".join(line for line in changed.diff.splitlines()[:12] if line.startswith("+"))
    if _GENERATED_MARK.search(head):
        return "generated"
    return None


def file_block(changed: ChangedFile, diff: str) -> str:
    title = f"File: {changed.path} ({changed.change_type}"
    if changed.old_path:
        title += f" from {changed.old_path}"
    title += f", +{changed.additions} -{changed.deletions})"
    return f"{title}\n{numbered_diff(diff).rstrip()}\n"


def pack_diffs(files: list[ChangedFile], count_tokens: Callable[[str], int], budget_tokens: int, *,
               over_budget: str = "did not fit the token budget") -> PackedDiffs:
    summary = PackingSummary(budget_tokens=budget_tokens)
    candidates: list[ChangedFile] = []
    for changed in files:
        reason = skip_reason(changed)
        if reason:
            summary.omitted[changed.path] = reason
        else:
            candidates.append(changed)

    full = {c.path: file_block(c, c.diff) for c in candidates}
    full_tokens = {path: count_tokens(block) for path, block in full.items()}
    if sum(full_tokens.values()) <= budget_tokens:
        summary.included = list(full)
        summary.used_tokens = sum(full_tokens.values())
        return PackedDiffs("\n".join(full.values()), summary)

    summary.compacted = True
    blocks: dict[str, str] = {}
    for changed in _by_relevance(candidates):
        compact = compact_diff(changed.diff)
        if not any(line.startswith("@@") for line in compact.splitlines()):
            summary.omitted[changed.path] = ("only deletions" if changed.change_type != "deleted"
                                             else "deleted")
            continue
        block = file_block(changed, compact)
        cost = count_tokens(block)
        if summary.used_tokens + cost > budget_tokens:
            summary.omitted[changed.path] = over_budget
            continue
        blocks[changed.path] = block
        summary.used_tokens += cost
    summary.included = list(blocks)
    return PackedDiffs("\n".join(blocks.values()), summary)


def _by_relevance(files: list[ChangedFile]) -> list[ChangedFile]:
    """Languages with the most changed lines first; within a language, the biggest changes first."""
    weight = Counter()
    for changed in files:
        weight[language_of(changed.path)] += changed.additions + changed.deletions
    rank = {lang: i for i, (lang, _) in enumerate(weight.most_common())}
    return sorted(
        files, key=lambda c: (rank[language_of(c.path)], -(c.additions + c.deletions), c.path)
    )


def omitted_note(summary: PackingSummary) -> str:
    """One line per file that was changed but is not shown, for the prompt and the report."""
    return "\n".join(f"- {path}: {why}" for path, why in summary.omitted.items())
