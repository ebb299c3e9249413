"""What the project's history says about a change: lines it puts back that an earlier commit of the base
took out, and lines it takes out that the commit put in.

A change that undoes a commit whose message names a fix puts a fixed bug back. That is how a bad merge, a
stale branch or an agent that "simplifies" code re-introduces a bug, and it is the case the other signals
miss most: a fix often comes without a test, and a small model reading the two versions cannot tell which
one is right (benchmarks/results/history/, real commits). The history can: it says which version the
project moved away from, and why. Read from git only (one ``git log -p`` per changed file, the last
``MAX_COMMITS`` commits that touched it), deterministic, a few milliseconds a file.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

from acode.gitcmd import GitError, run_git
from acode.review.change.diff import parse_diff
from acode.review.models import ChangedFile, Finding, ReviewContext
from acode.secrets import redact
from acode.test_files import is_test_path

MAX_COMMITS = 50  # per file: how far back a change is compared (recent fixes are the ones put back)
MIN_UNDONE = 2  # lines: a one-line fix reverted is two (the fixed line goes, the old one comes back)
MIN_SHARE = 0.6  # of the lines the earlier commit added to the file, and of those it removed, reversed
# of the change's own lines in the file: a rewrite of a whole module that happens to drop a few lines of an
# old fix is a rewrite (on acode's own history: one such false alarm without this, none with it)
MIN_SHARE_OF_CHANGE = 0.4
GIT_TIMEOUT = 30
# files whose reversal puts no behaviour back (a paragraph of the docs restored is not a bug restored)
PROSE_SUFFIXES = frozenset({".md", ".rst", ".txt", ".adoc", ""})

# a commit message that says it fixed something (subject or body)
FIX_MESSAGE = re.compile(
    r"\b(fix(e[sd])?|bug(fix)?|regression|crash(es|ed)?|incorrect(ly)?|wrong(ly)?|leak(s|ed)?|cve-\d+|"
    r"vulnerab\w*|security|race condition|deadlock|hang(s|ed)?|overflow|injection|no longer)\b",
    re.IGNORECASE,
)
# a message that says the change takes something back, without naming what
UNDO_MESSAGE = re.compile(r"\b(revert(s|ed|ing)?|undo(es|ing)?|undid|roll(s|ed|ing)? back|rollback|"
                          r"back(s|ed|ing)? out)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z_]\w*")
# lines too common to say anything about where code came from
_TRIVIAL_WORDS = frozenset({"else", "try", "finally", "pass", "return", "break", "continue", "none", "true",
                            "false", "self", "end", "fi", "done", "then", "do"})


@dataclass(frozen=True)
class Undone:
    """An earlier commit whose change to ``path`` the reviewed change reverses (mostly or wholly)."""

    sha: str
    subject: str
    path: str
    undone: int  # the earlier commit's changed lines in the file that the change reverses
    of: int  # the earlier commit's changed lines in the file (not counting trivial ones)
    line: int | None  # where in the new file (a line put back, or where lines were taken out)
    quote: str  # a line the change puts back (or takes out)
    is_fix: bool  # the earlier commit's message says it fixed something
    named: bool  # the reviewed change's own message names that commit: a deliberate revert
    says_undo: bool = False  # the reviewed change's message says it reverts or undoes something (not what)

    @property
    def whole(self) -> bool:
        """Every line the earlier commit changed in a file of code is reversed: the file is back as it was
        before that commit, which is what a stale branch or a bad merge does (a tweak that only moves a
        value back, or a rewrite that keeps part of the commit, reverses less than all of it)."""
        return self.undone >= self.of and PurePosixPath(self.path).suffix.lower() not in PROSE_SUFFIXES


def history_findings(context: ReviewContext) -> list[Finding]:
    """One finding per file whose change reverses an earlier commit: ``high`` when that commit fixed something
    and the change does not say it reverts it (a fixed bug put back, silently), ``medium`` when the change's
    message names the commit (a deliberate revert of a fix: a person should confirm why). For an earlier
    commit whose message does not say "fix": ``high`` when the change silently reverses all of it in a file
    of code (many projects describe a fix by what it does, "do not take a prompt echo", "keep a minimum
    width", and a revert rarely says so), ``low`` when it reverses only most of it (shown, never rejects),
    ``info`` when the change says it reverts it."""
    out = []
    for undone in undone_commits(context):
        severity, note, suggestion = _weigh(undone)
        what = "fix" if undone.is_fix else "commit"
        out.append(Finding(
            dimension="intent_alignment", source="history", rule=f"history/undoes-{what}",
            severity=severity,  # type: ignore[arg-type]
            message=(f"the change undoes {what} {undone.sha[:10]} (\"{redact(undone.subject[:120])}\") in "
                     f"{undone.path}: {undone.undone} of the {undone.of} lines it changed are reversed"
                     + note),
            file=undone.path, line=undone.line, end_line=undone.line, quote=redact(undone.quote),
            suggestion=suggestion, confidence=1.0, metrics={"undone": undone.undone, "of": undone.of},
        ))
    return out


_NAMED = "; the change's message names that commit"
_SAY_WHICH = "say in the commit message which commit is reverted and why"


def _weigh(undone: Undone) -> tuple[str, str, str]:
    """(severity, what the message adds, the suggestion) of an undone commit."""
    if undone.is_fix:  # a fix put back: only naming the fix makes it a deliberate revert
        if undone.named:
            return "medium", _NAMED, ""
        return "high", "", f"keep the fix; if it must go, {_SAY_WHICH}"
    if undone.named:
        return "info", _NAMED, ""
    if undone.whole and not undone.says_undo:
        note = "; the file is back as it was before that commit, and the change's message does not say so"
        return "high", note, f"if that commit is meant to go, {_SAY_WHICH}"
    return "low", "", ""


def undone_commits(context: ReviewContext) -> list[Undone]:
    """Per changed file, the most recent commit of the base's history that the change reverses."""
    if not context.base_sha:
        return []
    message = context.effective_intent()
    says_undo = bool(UNDO_MESSAGE.search(message))
    changes = {changed.path: _ChangeLines.of(changed.whole_diff) for changed in context.files}
    found = []
    for changed in context.files:
        # a test the change edits back is not a bug put back (what tests a change drops is another question)
        if changed.change_type not in ("modified", "renamed") or is_test_path(changed.path):
            continue
        change = changes[changed.path]
        for path, other in changes.items():  # code taken out of this file and put in another moved
            if path != changed.path:
                change.removed -= other.added
        if change.size < MIN_UNDONE:
            continue
        try:
            earlier = _earlier_commits(context, changed)
        except GitError:
            continue
        for sha, subject, body, diff in earlier:
            if "\nnew file mode" in diff[:500]:
                break  # the file's creation: reversing "most of" a new file is not undoing a change
            before = _ChangeLines.of(diff)
            undone = before.reversed_by(change)
            if undone >= MIN_UNDONE and undone >= MIN_SHARE_OF_CHANGE * change.size:
                line, quote = change.first_overlap(before)
                found.append(Undone(
                    sha=sha, subject=subject, path=changed.path, undone=undone, of=before.size, line=line,
                    quote=quote, is_fix=bool(FIX_MESSAGE.search(f"{subject}\n{body}")),
                    named=_names(message, sha, subject), says_undo=says_undo))
                break
    return found


def _names(message: str, sha: str, subject: str) -> bool:
    """The reviewed change's message names the earlier commit: its hash (7+ characters) or its subject."""
    text = message.lower()
    if any(sha.lower().startswith(token) for token in re.findall(r"\b[0-9a-f]{7,40}\b", text)):
        return True
    return len(subject) >= 10 and subject.lower() in text


def _earlier_commits(context: ReviewContext, changed: ChangedFile) -> list[tuple[str, str, str, str]]:
    """(sha, subject, body, diff of the path) of the base's last MAX_COMMITS commits touching the file."""
    path = changed.old_path or changed.path
    out = run_git(context.root, "log", f"-n{MAX_COMMITS}", "--no-merges", "--format=%x1e%H%x1f%s%x1f%b%x1f",
                  "-p", "-U0", "--text", "--no-renames", context.base_sha, "--", path,
                  timeout=GIT_TIMEOUT).stdout
    commits = []
    for record in out.split("\x1e")[1:]:
        parts = record.split("\x1f", 3)
        if len(parts) == 4:
            commits.append((parts[0].strip(), parts[1].strip(), parts[2].strip(), parts[3]))
    return commits


_INLINE_COMMENT = re.compile(r"\s+#[^\"']*$")


def _key(text: str) -> str | None:
    """A line as compared across commits (whitespace and a trailing comment ignored), or None when it says
    nothing about where code came from: blank, a comment, too common (a bracket, ``else:``, ``return``)."""
    stripped = " ".join(_INLINE_COMMENT.sub("", text).split())
    if stripped.startswith(("#", "//")):
        return None
    words = [w for w in _WORD.findall(stripped) if w.lower() not in _TRIVIAL_WORDS]
    if not words or len(stripped) < 4:
        return None
    return stripped


@dataclass
class _ChangeLines:
    removed: Counter[str]
    added: Counter[str]
    added_at: dict[str, int]  # added line -> its number in the new file
    removed_at: dict[str, int]  # removed line -> where the new file continues

    @classmethod
    def of(cls, diff: str) -> _ChangeLines:
        removed: Counter[str] = Counter()
        added: Counter[str] = Counter()
        added_at: dict[str, int] = {}
        removed_at: dict[str, int] = {}
        for hunk in parse_diff(diff).hunks:
            last_new = 0
            for line in hunk.lines:
                if line.new_no is not None:
                    last_new = line.new_no
                key = _key(line.text)
                if key is None or line.kind == " ":
                    continue
                if line.kind == "+":
                    added[key] += 1
                    added_at.setdefault(key, line.new_no or last_new)
                else:
                    removed[key] += 1
                    removed_at.setdefault(key, last_new + 1)
        same = removed & added  # re-indented or moved within the file: not changed
        return cls(removed - same, added - same, added_at, removed_at)

    @property
    def size(self) -> int:
        return sum(self.removed.values()) + sum(self.added.values())

    def reversed_by(self, later: _ChangeLines) -> int:
        """How many of this change's lines ``later`` reverses (what this added and later takes out, plus what
        this removed and later puts back), or 0 unless it reverses at least ``MIN_SHARE`` of each side: a
        rewrite of lines this change added is not a revert unless it also puts back what they replaced."""
        taken_out = sum((self.added & later.removed).values())
        put_back = sum((self.removed & later.added).values())
        for done, of in ((taken_out, sum(self.added.values())), (put_back, sum(self.removed.values()))):
            if done < MIN_SHARE * of:
                return 0
        return taken_out + put_back

    def first_overlap(self, earlier: _ChangeLines) -> tuple[int | None, str]:
        """The first line this change puts back (else the first it takes out) of the earlier change."""
        back = [(self.added_at[k], k) for k in (self.added & earlier.removed)]
        if back:
            return min(back)
        out = [(self.removed_at[k], k) for k in (self.removed & earlier.added)]
        return min(out) if out else (None, "")
