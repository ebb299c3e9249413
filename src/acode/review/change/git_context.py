"""Gather what a review looks at from git: a branch against its base, uncommitted changes, or one commit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from acode.errors import NothingToReview, UsageError
from acode.gitblobs import each_blob
from acode.gitcmd import GitError, run_git
from acode.review.change import diff_reading
from acode.review.models import ChangedFile, Commit, ReviewContext

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def repo_root(start: Path) -> Path:
    done = run_git(start, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise UsageError(
            "ACODE-GIT-002",
            f"{start} is not inside a git repository",
            hint="run acode review inside a git repository (git init; git commit) ",
        )
    return Path(done.stdout.strip()).resolve()


def commit_sha(root: Path, rev: str) -> str | None:
    done = run_git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    return done.stdout.strip() if done.returncode == 0 else None


def default_base(root: Path) -> str:
    """The remote's default branch (origin/HEAD), else main, else master."""
    done = run_git(root, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD", check=False)
    candidates = [done.stdout.strip()] if done.returncode == 0 and done.stdout.strip() else []
    for name in [*candidates, "main", "master"]:
        if commit_sha(root, name):
            return name
    raise UsageError(
        "ACODE-GIT-003",
        f"no base branch found in {root}: neither origin/HEAD, 'main' nor 'master' exists",
        hint="name the base branch: acode review --base <branch>",
    )


def branch_context(start: Path, base: str | None = None, *, intent: str = "", max_diff_chars: int = 10_000,
                   context_lines: int = 3, detached_name: str | None = None) -> ReviewContext:
    """This branch against ``base``. A detached HEAD (a CI job's checkout) is reviewed only when the caller
    names it (``detached_name``, the pull request's branch)."""
    root = repo_root(start)
    head = run_git(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    head_name = head.stdout.strip() if head.returncode == 0 else detached_name
    if not head_name:
        raise UsageError(
            "ACODE-GIT-004",
            f"HEAD is detached in {root}, so there is no branch to review",
            hint="check out a branch (git switch -c my-change), or review one commit: acode review --commit "
                 "<sha>",
        )
    base = base or default_base(root)
    base_sha = commit_sha(root, base)
    if base_sha is None:
        raise UsageError(
            "ACODE-GIT-003",
            f"unknown base branch '{base}' in {root}",
            hint="list branches with `git branch -a` and pass one with --base",
        )
    head_sha = commit_sha(root, "HEAD")
    if head_sha is None:
        raise UsageError("ACODE-REVIEW-008", f"the branch in {root} has no commits yet",
                         hint="commit something first")
    merge_base = run_git(root, "merge-base", base_sha, head_sha, check=False).stdout.strip() or EMPTY_TREE
    files = _changed_files(root, [merge_base, head_sha], max_diff_chars, context_lines)
    if not files:
        raise NothingToReview(
            "ACODE-GIT-005",
            f"no changes between '{base}' and '{head_name}' in {root}",
            hint="commit your changes on the branch, or review uncommitted work with --uncommitted",
        )
    return ReviewContext(
        target="branch", root=root, base_ref=base, base_sha=merge_base, head_ref=head_name,
        head_sha=head_sha, head_rev=head_sha, intent=intent,
        commits=_commits(root, f"{merge_base}..{head_sha}"), files=files,
    )


def uncommitted_context(start: Path, *, intent: str = "", max_diff_chars: int = 10_000,
                        context_lines: int = 3) -> ReviewContext:
    """The working tree and index against HEAD, untracked (not ignored) files included as added."""
    root = repo_root(start)
    head_sha = commit_sha(root, "HEAD")
    against = head_sha or EMPTY_TREE
    files = _changed_files(root, [against], max_diff_chars, context_lines)
    files += _untracked_files(root, max_diff_chars)
    if not files:
        raise NothingToReview(
            "ACODE-GIT-005", f"no uncommitted changes in {root}",
            hint="edit something, or review a branch with --base"
        )
    head_ref = run_git(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).stdout.strip()
    return ReviewContext(
        target="uncommitted", root=root, base_ref="HEAD", base_sha=head_sha or "",
        head_ref=head_ref or "HEAD", head_sha="", head_rev=None, intent=intent, files=files,
    )


def staged_context(start: Path, *, intent: str = "", max_diff_chars: int = 10_000,
                   context_lines: int = 3) -> ReviewContext:
    """The index against HEAD: what `git commit` would record (a pre-commit hook's view). The index is
    written as a tree so the review reads the staged contents, not the working tree's."""
    root = repo_root(start)
    head_sha = commit_sha(root, "HEAD")
    written = run_git(root, "write-tree", check=False)
    if written.returncode != 0:
        raise UsageError("ACODE-GIT-008", f"the index of {root} cannot be reviewed: {written.stderr.strip()}",
                         hint="resolve the merge conflicts and stage the result (git add)")
    tree = written.stdout.strip()
    files = _changed_files(root, [head_sha or EMPTY_TREE, tree], max_diff_chars, context_lines)
    if not files:
        raise NothingToReview("ACODE-GIT-005", f"nothing is staged in {root}",
                         hint="stage a change with git add, or review the working tree with --uncommitted")
    head_ref = run_git(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).stdout.strip()
    return ReviewContext(
        target="staged", root=root, base_ref="HEAD", base_sha=head_sha or "",
        head_ref=f"{head_ref or 'HEAD'} (staged)", head_sha="", head_rev=tree, intent=intent, files=files,
    )


def commit_context(start: Path, sha: str, *, intent: str = "", max_diff_chars: int = 10_000,
                   context_lines: int = 3) -> ReviewContext:
    root = repo_root(start)
    full = commit_sha(root, sha)
    if full is None:
        raise UsageError("ACODE-REVIEW-006", f"unknown commit '{sha}' in {root}",
                         hint="check the hash with `git log`")
    parent = commit_sha(root, f"{full}^") or EMPTY_TREE
    files = _changed_files(root, [parent, full], max_diff_chars, context_lines)
    if not files:
        raise NothingToReview("ACODE-GIT-005", f"commit {full[:12]} changes no files",
                              hint="pick another commit")
    return ReviewContext(
        target="commit", root=root, base_ref=f"{sha}^", base_sha=parent if parent != EMPTY_TREE else "",
        head_ref=sha, head_sha=full, head_rev=full, intent=intent,
        commits=_commits(root, f"-1 {full}"), files=files,
    )


def _commits(root: Path, range_spec: str) -> list[Commit]:
    out = run_git(root, "log", "--format=%H%x1f%an%x1f%s%x1f%b%x1e", *range_spec.split()).stdout
    commits = []
    for record in out.split("\x1e"):
        parts = record.strip("\n").split("\x1f")
        if len(parts) == 4:
            commits.append(Commit(sha=parts[0], author=parts[1], subject=parts[2], body=parts[3].strip()))
    return commits


def _changed_files(root: Path, revs: list[str], max_chars: int, context_lines: int) -> list[ChangedFile]:
    return diff_reading.changed_files(root, revs, max_chars, context_lines)


def _untracked_files(root: Path, max_chars: int) -> list[ChangedFile]:
    names = run_git(root, "ls-files", "--others", "--exclude-standard", "-z").stdout.split("\0")
    return [diff_reading.untracked_file(root, name, max_chars) for name in filter(None, names)
            if not name.startswith(".acode/")]


def read_new_text(context: ReviewContext, path: str) -> str | None:
    """A changed file's new content: from the head commit, or the working tree for uncommitted changes."""
    if context.head_rev is None:
        file = context.root / path
        try:
            return file.read_text(encoding="utf-8", errors="replace") if file.is_file() else None
        except OSError:
            return None
    return _text_at(context, context.head_rev, path)


def read_old_text(context: ReviewContext, file: ChangedFile) -> str | None:
    """A changed file's content before the change (at the base commit), or None when it did not exist."""
    if not context.base_sha or file.change_type == "added":
        return None
    return _text_at(context, context.base_sha, file.old_path or file.path)


# Both versions of every changed file, read at the first ask in one git process (the checks ask file by
# file, several times each: one `git show` apiece made a 1,000-file change take minutes). Only the last
# change asked about is kept; None: git has no such file there; a file above _CACHED_BYTES, or one of
# another change, is read with `git show` when asked.
_texts: dict[tuple[str, str, str], str | None] = {}
_texts_of: list[tuple[str, str, str]] = []  # the change they belong to: (root, head, base)
_CACHED_BYTES = 1 << 20


def _text_at(context: ReviewContext, rev: str, path: str) -> str | None:
    change = (str(context.root), context.head_rev or "", context.base_sha)
    if _texts_of != [change]:
        _prefetch(context)
        _texts_of[:] = [change]
    key = (str(context.root), rev, path)
    if key in _texts:
        return _texts[key]
    done = run_git(context.root, "show", f"{rev}:{path}", check=False)
    return done.stdout if done.returncode == 0 else None


def _prefetch(context: ReviewContext) -> None:
    """Both versions of the change's files, by blob id from one `git diff --raw` of it (asking git for
    ``rev:path`` makes it search the tree anew for each file: quadratic in a folder of 20,000 files)."""
    _texts.clear()
    if not context.base_sha and not context.head_rev:
        return
    root = str(context.root)
    revs = [context.base_sha or EMPTY_TREE, *([context.head_rev] if context.head_rev else [])]
    wanted: dict[str, list[tuple[str, str, str]]] = {}  # blob id -> the (root, rev, path) it is
    try:
        pairs = diff_reading.file_pairs(context.root, revs)
    except GitError:
        return
    for pair in pairs:
        sides = [(context.base_sha, pair.old_path or pair.path, pair.old_oid, pair.old_mode),
                 (context.head_rev, pair.path, pair.new_oid, pair.new_mode)]
        for rev, path, oid, mode in sides:
            if rev and diff_reading.is_blob(oid, mode):
                wanted.setdefault(oid, []).append((root, rev, path))
                _texts[(root, rev, path)] = None  # until git hands the blob over

    def keep(oid: str, chunks: Iterator[bytes]) -> None:
        data = b""
        for chunk in chunks:
            data += chunk
            if len(data) > _CACHED_BYTES:
                for key in wanted[oid]:
                    del _texts[key]
                return
        # as `git show` through run_git reads it (text mode: universal newlines)
        text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
        for key in wanted[oid]:
            _texts[key] = text

    try:
        each_blob(context.root, list(wanted), keep)
    except GitError:
        _texts.clear()
