"""The review's one entry point, which `acode review` and the Reviewer stage of `acode run` both call
(``ReviewService``): which settings apply, the identity a stored review is reused under, the review itself
(``review_change``: evidence -> packed context -> a strategy's assessment -> decision) and storing it.
No CLI here: the front ends build the change's context and render the result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from acode.config.model import ModelSettings
from acode.config.review import ReviewerSettings
from acode.gitcmd import run_git
from acode.llm.protocol import ChatModel
from acode.paths import ProjectPaths
from acode.review.evidence.dismissed import DISMISSED_FILE, Dismissal, parse_dismissals
from acode.review.evidence.test_runs import SuiteContrast
from acode.review.models import ReviewContext, ReviewResult
from acode.review.running.findings_strategy import FindingsReview
from acode.review.running.review_run import Progress, ReviewRun
from acode.review.running.verdict_strategy import ReviewStrategy, VerdictReview
from acode.store.reviews import ReviewStore, StoredReview
from acode.tools.base import ToolRegistry

# what of the model settings makes two reviews comparable (the rest: how it runs, not what it is)
_MODEL_IDENTITY = {"backend", "name", "path", "base_url", "script"}


def strategy_for(settings: ReviewerSettings) -> ReviewStrategy:
    return VerdictReview() if settings.decision_strategy == "verdict" else FindingsReview()


def review_change(
    context,
    model: ChatModel,
    settings: ReviewerSettings,
    tools: ToolRegistry | None = None,
    *,
    run_tests: bool | Literal["auto"] = False,
    behaviour: bool = False,
    progress: Progress | None = None,
    strategy: ReviewStrategy | None = None,
    tests_ran: Sequence[SuiteContrast] = (),
    dismissed: Sequence[Dismissal] = (),
) -> ReviewResult:
    """Review one change within ``settings.timeout_seconds`` (the plan: acode.review.judging.time_plan).
    Raises ModelOutputError only with ``on_model_failure: error``. When the limit passes mid-plan, the
    result keeps what was assessed (``status="partial"``); ``status="timeout"`` only when the model assessed
    nothing at all. ``strategy``: how to decide (default: the one ``settings`` names). ``tests_ran``: test
    runs on both sides of the change the caller made already (`acode run`'s failed checks), evidence too.
    ``behaviour``: run the behavioural diff (when ``settings.behaviour`` enables it; it runs the change's
    code, so callers opt in, as for the tests). ``dismissed``: the team's dismissals (``base_dismissals``)."""
    run = ReviewRun.start(context, model, settings, run_tests=run_tests, behaviour=behaviour,
                          progress=progress, tools=tools, tests_ran=tests_ran, dismissed=dismissed)
    (strategy or strategy_for(settings)).assess(run)
    return run.finish()


class ReviewService:
    """One review of one change with one set of settings: reuse a stored one, review, store. ``db_path``:
    the review store (None: nothing is stored); ``source``: who reviewed ("review", "run")."""

    def __init__(self, reviewer: ReviewerSettings, model: ModelSettings, *, run_tests: bool | Literal["auto"],
                 db_path: Path | None, source: str, dismissed: Sequence[Dismissal] = ()) -> None:
        self.reviewer, self.run_tests, self.db_path, self.source = reviewer, run_tests, db_path, source
        self.dismissed = tuple(dismissed)
        self.identity: dict[str, Any] = {  # what a stored review must share to be reused
            "reviewer": reviewer.model_dump(mode="json"),
            "run_tests": run_tests,
            "model": model.model_dump(mode="json", include=_MODEL_IDENTITY),
        }
        if self.dismissed:
            self.identity["dismissed"] = sorted(d.fingerprint for d in self.dismissed)

    def reusable(self, context: ReviewContext) -> StoredReview | None:
        """The newest complete stored review of the same change with the same settings
        (``reviewer.reuse_unchanged``), else None."""
        if not self.reviewer.reuse_unchanged or self.db_path is None:
            return None
        store = ReviewStore(self.db_path)
        try:
            return store.find_same(context.content_hash(), self.identity)
        finally:
            store.close()

    def review(self, context: ReviewContext, model: ChatModel, *, tools: ToolRegistry | None = None,
               behaviour: bool = False, progress: Progress | None = None,
               tests_ran: Sequence[SuiteContrast] = ()) -> ReviewResult:
        return review_change(context, model, self.reviewer, tools, run_tests=self.run_tests,
                             behaviour=behaviour, progress=progress, tests_ran=tests_ran,
                             dismissed=self.dismissed)

    def store(self, result: ReviewResult) -> int | None:
        """Keep ``result`` (a partial one too); its id, or None without a store."""
        if self.db_path is None:
            return None
        store = ReviewStore(self.db_path)
        try:
            return store.save(result, self.identity, source=self.source)
        finally:
            store.close()


def with_suggestions(reviewer: ReviewerSettings, suggest: bool | None) -> ReviewerSettings:
    """``reviewer`` with the model's own findings asked for (``suggest``) or not; None: as configured."""
    if suggest is None or suggest == (reviewer.strategy != "checks_only"):
        return reviewer
    return reviewer.model_copy(update={"strategy": "single_call" if suggest else "checks_only"})


@dataclass(frozen=True)
class BaseConfig:
    """The project's settings file as the base revision of a change has it."""

    text: str  # '' when the base has none
    source: str  # a name for it, e.g. ".acode/config.yml at main"
    note: str  # what to tell the user


def base_config(context: ReviewContext) -> BaseConfig | None:
    """When the change under review touches the project's ``.acode/`` (its config.yml, or ``.acode``
    itself made a symbolic link to a folder the change fills), or git tracks a symbolic link on the way to
    the config, the config as the base revision's tree stores it: a change must not choose how it is
    judged or what runs while it is (its own reviewer.test_command, hooks ...). A symbolic link there is
    refused, not followed. None: the settings file is the working tree's own (it applies)."""
    try:
        relative = ProjectPaths(context.root).config_file.relative_to(context.root).as_posix()
    except ValueError:
        return None
    folder = relative.split("/")[0]
    touched = [p for f in context.files for p in (f.path, f.old_path)
               if p and (p == folder or p.startswith(folder + "/"))]
    linked = _tracked_links(context.root, [folder, relative])
    if not touched and not linked:
        return None
    base = context.base_ref or context.base_sha[:12] or "the empty base"
    text, refused = ("", "")
    if context.base_sha:
        text, refused = _stored_text(context.root, context.base_sha, [folder, relative])
    why = (f"the reviewed change edits {touched[0]}" if touched else
           f"{linked[0]} is a symbolic link in this checkout")
    refusal = f"; {refused} is a symbolic link at {base}: not followed, no project settings" * bool(refused)
    return BaseConfig(text=text, source=f"{relative} at {base}", note=(
        f"note: {why}; this review uses the settings of its base ({base}) as git stores them, not the "
        f"change's own{refusal}"))


def base_dismissals(context: ReviewContext) -> tuple[list[Dismissal], str]:
    """(the team's dismissals, a note) from ``.acode/review-dismissed.yml`` as the base revision's tree
    stores it: the change under review cannot dismiss its own findings, whatever its working tree or its
    commits say. A symbolic link on the way is refused (no dismissals, and the note says so)."""
    if not context.base_sha:
        return [], ""
    folder = DISMISSED_FILE.split("/")[0]
    text, refused = _stored_text(context.root, context.base_sha, [folder, DISMISSED_FILE])
    base = context.base_ref or context.base_sha[:12]
    if refused:
        return [], f"note: {refused} is a symbolic link at {base}: not followed, no dismissed findings"
    return parse_dismissals(text, f"{DISMISSED_FILE} at {base}"), ""


def _tracked_links(root: Path, paths: list[str]) -> list[str]:
    """Which of ``paths`` git's index holds as symbolic links (mode 120000)."""
    out = run_git(root, "ls-files", "-s", "-z", "--", *paths, check=False).stdout
    return [entry.split("\t", 1)[1] for entry in out.split("\0") if entry.startswith("120000 ")]


def _stored_text(root: Path, rev: str, chain: list[str]) -> tuple[str, str]:
    """(the last of ``chain``'s text in ``rev``'s tree, '') when each entry of the chain is a plain folder
    or file there; ('', the first entry that is a symbolic link); ('', '') when there is none."""
    out = run_git(root, "ls-tree", "-z", rev, "--", *chain, check=False).stdout
    entries = {}
    for entry in filter(None, out.split("\0")):
        meta, _, path = entry.partition("\t")
        mode, _kind, oid = meta.split(" ")
        entries[path] = (mode, oid)
    link = next((path for path in chain if entries.get(path, ("",))[0] == "120000"), "")
    mode, oid = entries.get(chain[-1], ("", ""))
    if link or mode not in ("100644", "100755"):
        return "", link
    done = run_git(root, "cat-file", "blob", oid, check=False)
    return (done.stdout if done.returncode == 0 else ""), ""
