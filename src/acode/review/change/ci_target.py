"""The review's target inside a CI job: which branch a pull/merge request goes into, read from the CI
system's own variables, and the base fetched when the job's clone is shallow or has only the head.

CI systems check out a merge commit or the head commit (HEAD detached) with one branch and little
history, so "this branch against main" needs three things `acode review` cannot guess at a terminal:
the target branch's name, a name for the head, and enough history for a merge base.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from acode.errors import UsageError
from acode.gitcmd import GitError, fetch, fetchable, run_git
from acode.review.change.git_context import commit_sha
from acode.secrets import redact

FETCH_TIMEOUT = 300
DEEPEN_STEPS = (50, 500)


@dataclass(frozen=True)
class CiTarget:
    provider: str
    base: str  # the target branch's name
    base_sha: str = ""  # the merge base when the CI system names it (GitLab)
    head_name: str = ""  # the source branch, for the report of a detached checkout


def _strip_heads(ref: str) -> str:
    return ref.removeprefix("refs/heads/")


def detect(env: Mapping[str, str] | None = None) -> CiTarget | None:
    """The pull/merge request's target from the CI variables, or None outside a pull/merge request job."""
    env = os.environ if env is None else env
    if env.get("GITHUB_ACTIONS") == "true" and env.get("GITHUB_BASE_REF"):
        return CiTarget("github", env["GITHUB_BASE_REF"], head_name=env.get("GITHUB_HEAD_REF", ""))
    if env.get("GITLAB_CI") == "true" and env.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"):
        return CiTarget("gitlab", env["CI_MERGE_REQUEST_TARGET_BRANCH_NAME"],
                        base_sha=env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA", ""),
                        head_name=env.get("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", ""))
    if env.get("BITBUCKET_PR_DESTINATION_BRANCH"):
        return CiTarget("bitbucket", env["BITBUCKET_PR_DESTINATION_BRANCH"],
                        head_name=env.get("BITBUCKET_BRANCH", ""))
    if env.get("SYSTEM_PULLREQUEST_TARGETBRANCH"):  # Azure Pipelines
        return CiTarget("azure", _strip_heads(env["SYSTEM_PULLREQUEST_TARGETBRANCH"]),
                        head_name=_strip_heads(env.get("SYSTEM_PULLREQUEST_SOURCEBRANCH", "")))
    return None


def _has_commit(root: Path, rev: str) -> bool:
    return commit_sha(root, rev) is not None


def _origin_url(root: Path) -> str | None:
    """origin's URL as git would fetch from it (``url.*.insteadOf`` applied), or None without an origin."""
    done = run_git(root, "remote", "get-url", "origin", check=False)
    url = done.stdout.strip()
    return url if done.returncode == 0 and url else None


def _fetch(root: Path, url: str, *refspecs: str, options: tuple[str, ...] = ()) -> bool:
    try:
        done = fetch(root, url, *refspecs, options=("--no-tags", "--quiet", *options), timeout=FETCH_TIMEOUT)
    except GitError:  # not a URL acode fetches from: the base is missing, and the error says why
        return False
    return done.returncode == 0


def _fetch_hint(target: CiTarget) -> str:
    return (f"fetch it before the review: `git fetch origin {target.base}` (GitHub: actions/checkout with "
            "fetch-depth: 0; GitLab: GIT_DEPTH: 0), or name the base with --base")


def resolve_base(root: Path, target: CiTarget) -> str:
    """A revision for the target's base that exists here, fetching the branch from origin (and deepening a
    shallow clone until the merge base is there) when the job's clone lacks it."""
    if target.base_sha and _has_commit(root, target.base_sha):
        return target.base_sha
    remote_ref = f"origin/{target.base}"
    url = _origin_url(root)
    if not _has_commit(root, remote_ref) and not _has_commit(root, target.base) and url:
        _fetch(root, url, f"+refs/heads/{target.base}:refs/remotes/{remote_ref}")
    base = next((rev for rev in (remote_ref, target.base) if _has_commit(root, rev)), None)
    if base is None:
        refused = (f" (origin's URL {redact(url)!r} is not https, ssh or a local path: acode does not "
                   "fetch from it)" if url and not fetchable(url) else "")
        raise UsageError("ACODE-GIT-010",
                         f"the target branch '{target.base}' ({target.provider} CI) is not in this clone"
                         + refused, hint=_fetch_hint(target))
    _deepen_until_merge_base(root, base, target, url)
    return base


def _deepen_until_merge_base(root: Path, base: str, target: CiTarget, url: str | None) -> None:
    def merge_base() -> bool:
        return run_git(root, "merge-base", base, "HEAD", check=False).returncode == 0

    if merge_base():
        return
    shallow = run_git(root, "rev-parse", "--is-shallow-repository", check=False).stdout.strip() == "true"
    if shallow and url:
        for depth in DEEPEN_STEPS:
            _fetch(root, url, f"refs/heads/{target.base}", options=(f"--deepen={depth}",))
            if merge_base():
                return
        _fetch(root, url, options=("--unshallow",))
        if merge_base():
            return
    raise UsageError("ACODE-GIT-011",
                     f"no common history between '{base}' and HEAD in this {target.provider} CI clone",
                     hint=_fetch_hint(target))


def write_step_summary(markdown: str, env: Mapping[str, str] | None = None) -> Path | None:
    """Append the review to GitHub's job summary when the job has one (GITHUB_STEP_SUMMARY)."""
    env = os.environ if env is None else env
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        return None
    with open(path, "a", encoding="utf-8") as out:
        out.write(markdown + "\n")
    return Path(path)


def review_base(root: Path, base: str | None,
                env: Mapping[str, str] | None = None) -> tuple[str | None, str | None]:
    """(base revision, name for a detached head) for a branch review: the user's --base as given; in a
    pull/merge request job, its target branch (fetched when missing); else (None, None): the default."""
    if base:
        return base, None
    target = detect(env)
    if target is None:
        return None, None
    return resolve_base(root, target), target.head_name or "HEAD"
