"""Git like aider: what each turn changed, one commit per turn (``git.auto_commit``), ``/undo`` and ``/diff``.

Before a turn's first model call the working tree is snapshotted as a git tree object through a
temporary index (``git add -A`` into a copy of the index, ``git write-tree``): HEAD, the real index and
the files are untouched, ``.gitignore`` is honoured and ``.acode/`` is left out. After the turn a second
snapshot gives exactly the paths the turn changed (by tools or shell commands alike) and its diff.

With auto-commit on, those paths (only those: your own uncommitted work elsewhere stays uncommitted)
become one commit ``acode: <prompt>`` with the trailer ``Acode-Session: <id>``, which is how ``/undo``
recognises acode's commits. ``/undo`` moves HEAD back one commit (``git reset --keep``) only when HEAD
is such a commit and no tracked file has uncommitted changes; otherwise it says why and does nothing.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from acode.agent.loop.middleware import AgentState
from acode.agent.loop.observer import LoopObserver
from acode.agent.loop.result import AgentResult
from acode.gitcmd import GitError, run_git

log = logging.getLogger("acode.git")

TRAILER = "Acode-Session"
EXCLUDE = ":(exclude).acode"
SUBJECT_CHARS = 60


def in_git_repo(root: Path) -> bool:
    try:
        return run_git(root, "rev-parse", "--is-inside-work-tree", check=False).stdout.strip() == "true"
    except GitError:
        return False


def snapshot_tree(root: Path) -> str:
    """The working tree (tracked and untracked, not ignored, without .acode/) as a tree object id."""
    git_dir = Path(run_git(root, "rev-parse", "--absolute-git-dir").stdout.strip())
    with tempfile.TemporaryDirectory(prefix="acode-index-") as tmp:
        index = Path(tmp) / "index"
        if (git_dir / "index").is_file():
            shutil.copyfile(git_dir / "index", index)  # reuse stat data: only changed files are hashed
        env = {**os.environ, "GIT_INDEX_FILE": str(index)}
        run_git(root, "add", "-A", "--", ".", EXCLUDE, env=env)
        return run_git(root, "write-tree", env=env).stdout.strip()


def changed_paths(root: Path, before: str, after: str) -> list[str]:
    if before == after:
        return []
    out = run_git(root, "diff", "--name-only", "--no-renames", before, after).stdout
    return [line for line in out.splitlines() if line]


@dataclass
class TurnChange:
    session_id: str
    prompt: str
    before: str
    after: str
    paths: list[str] = field(default_factory=list)
    commit: str | None = None


def commit_message(prompt: str, session_id: str, paths: list[str]) -> str:
    first = " ".join(prompt.strip().splitlines()[0].split()) if prompt.strip() else "changes"
    subject = first if len(first) <= SUBJECT_CHARS else first[: SUBJECT_CHARS - 3].rstrip() + "..."
    files = "\n".join(f"- {p}" for p in paths[:20]) + ("\n- ..." if len(paths) > 20 else "")
    return f"acode: {subject}\n\nFiles changed by the agent:\n{files}\n\n{TRAILER}: {session_id}\n"


def commit_paths(root: Path, paths: list[str], message: str) -> str:
    run_git(root, "add", "-A", "--", *paths)
    run_git(root, "commit", "-q", "--no-gpg-sign", "-m", message, "--", *paths)
    return run_git(root, "rev-parse", "HEAD").stdout.strip()


class GitTurns(LoopObserver):
    """Snapshots around each turn; commits it when ``auto_commit``. ``last`` is the last turn that
    changed files."""

    def __init__(self, root: Path, *, auto_commit: bool = False, notify=None):
        self.root = root
        self.auto_commit = auto_commit
        self.notify = notify or (lambda text: None)
        self.enabled = in_git_repo(root)
        self._before: str | None = None
        self._tried = False  # this turn's snapshot was attempted (a model call starts each step)
        self._failure: str | None = None  # the last reason a snapshot failed, said once per reason
        self.last: TurnChange | None = None

    def on_model_start(self, state: AgentState) -> None:
        if not self.enabled or self._tried:
            return
        self._tried = True
        try:
            self._before = snapshot_tree(self.root)
        except GitError as exc:
            if str(exc) != self._failure:
                log.warning("no snapshot before this turn: %s", exc)
            self._failure = str(exc)

    def on_stop(self, state: AgentState, result: AgentResult) -> None:
        before, self._before, self._tried = self._before, None, False
        if before is None:
            return
        try:
            after = snapshot_tree(self.root)
            paths = changed_paths(self.root, before, after)
        except GitError as exc:
            log.warning("cannot tell what this turn changed: %s", exc)
            return
        if not paths:
            return
        prompt = next((m.content for m in reversed(state.history) if m.role == "user"), "")
        change = TurnChange(
            state.session_id, prompt.split("\n\n--- Content from", 1)[0], before, after, paths
        )
        self.last = change
        if self.auto_commit:
            try:
                change.commit = commit_paths(
                    self.root, paths, commit_message(change.prompt, state.session_id, paths)
                )
                self.notify(f"committed {change.commit[:10]}: {len(paths)} file(s) ({', '.join(paths[:5])})")
            except GitError as exc:
                self.notify(f"auto-commit failed: {exc.message}")

    def diff(self, *, color: bool = False) -> str:
        if self.last is None:
            return ""
        flag = "--color=always" if color else "--no-color"
        return run_git(self.root, "diff", flag, "--no-renames", self.last.before, self.last.after).stdout


@dataclass
class UndoOutcome:
    done: bool
    message: str
    commit: str = ""
    paths: list[str] = field(default_factory=list)


def undo_last_commit(root: Path) -> UndoOutcome:
    """Undo HEAD if it is an acode commit and no tracked file has uncommitted changes."""
    if not in_git_repo(root):
        return UndoOutcome(False, "not a git repository: nothing to undo")
    head = run_git(root, "rev-parse", "--verify", "-q", "HEAD", check=False).stdout.strip()
    if not head:
        return UndoOutcome(False, "the repository has no commits")
    message = run_git(root, "log", "-1", "--format=%B", head).stdout
    if f"\n{TRAILER}:" not in message and not message.startswith(f"{TRAILER}:"):
        subject = message.strip().splitlines()[0] if message.strip() else ""
        return UndoOutcome(
            False,
            f'HEAD ({head[:10]} "{subject}") is not an acode commit; /undo only undoes '
            "acode's own commits while they are the latest",
        )
    status = run_git(root, "status", "--porcelain", "--untracked-files=no", "--", ".", EXCLUDE).stdout
    dirty = [line for line in status.splitlines() if line.strip()]
    if dirty:
        files = ", ".join(line[3:] for line in dirty[:5])
        return UndoOutcome(
            False, f"the working tree has uncommitted changes ({files}); commit or stash them first"
        )
    parents = run_git(root, "rev-list", "--parents", "-n", "1", head).stdout.split()[1:]
    if len(parents) != 1:
        return UndoOutcome(False, f"HEAD ({head[:10]}) has {len(parents)} parents; undo it with git yourself")
    paths = [
        p
        for p in run_git(root, "diff", "--name-only", "--no-renames", parents[0], head).stdout.splitlines()
        if p
    ]
    run_git(root, "reset", "-q", "--keep", parents[0])
    subject = message.strip().splitlines()[0]
    return UndoOutcome(True, f'undid {head[:10]} "{subject}"; HEAD is now {parents[0][:10]}', head, paths)
