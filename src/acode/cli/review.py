"""`acode review`: review a branch, uncommitted changes or a commit; `review show|history|run`.

`acode review [OPTIONS]` reviews (reusing the stored review when nothing changed, and saying so);
`acode review --fresh` or `acode review run` always reviews again; `show [ID]` and `history` read the
store. Exit codes: 0 approved, 50 rejected, 52 timeout (the model assessed nothing in time; a partial
review exits 0 or 50 by its decision), 1 failure, 2 usage or configuration error.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from acode.cli import review_options as opt
from acode.cli.common import (
    console,
    err_console,
    model_overrides,
    print_json,
    print_problem,
    project_root,
    settings_for,
)
from acode.cli.review_fix import apply_fixes, print_fixes
from acode.errors import (
    EXIT_OK,
    EXIT_REVIEW_REJECTED,
    EXIT_REVIEW_TIMEOUT,
    AcodeError,
    NothingToReview,
    UsageError,
)

REPORT_FORMATS = (None, "markdown", "sarif", "github", "gitlab", "junit", "rdjson")

review_app = typer.Typer(
    help="Review a change: this branch against its base (default), --uncommitted work, or --commit SHA.\n\n"
    "Without a sub-command, `acode review [OPTIONS]` reviews now (the options below). Sub-commands: "
    "`acode review run [OPTIONS]` (review again, ignoring a stored review), `acode review show [ID]`, "
    "`acode review history`; each has its own --help.",
    subcommand_metavar="[SUB-COMMAND] [ARGS]...",
    invoke_without_command=True,
    no_args_is_help=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@contextmanager
def _errors_for_people():
    """AcodeErrors become one message and their exit code, never a traceback."""
    try:
        yield
    except AcodeError as exc:
        print_problem(err_console, "error", exc)
        raise typer.Exit(exc.exit_code) from None


@review_app.callback()
@opt.takes(opt.CONTEXT, *opt.REVIEW, opt.DESCRIBE_OPTION, opt.FIX_OPTION, opt.FRESH_OPTION)
def review(ctx: typer.Context, **options: Any) -> None:
    if ctx.invoked_subcommand is not None:
        return
    _review_and_exit(force=options.pop("fresh"), **options)


@review_app.command("run", rich_help_panel="Sub-commands")
@opt.takes(*opt.REVIEW, opt.FIX_OPTION)
def review_again(**options: Any) -> None:
    """Review again even if the change is the same as last time."""
    _review_and_exit(force=True, **options)


def _review_and_exit(**options: Any) -> None:
    with _errors_for_people():
        code = run_review(**options)
    raise typer.Exit(code)


@review_app.command("show", rich_help_panel="Sub-commands")
def show(
    review_id: int = typer.Argument(None, help="Review id (default: the latest)."),
    json_out: bool = opt.JSON,
    fmt: str = opt.FORMAT,
    output: Path = opt.OUTPUT,
) -> None:
    """Show a stored review."""
    with _errors_for_people():
        store = _store(project_root())
        stored = store.get(review_id)
        if stored is None:
            which = f"review #{review_id}" if review_id is not None else "any review"
            raise UsageError(
                "ACODE-REVIEW-040",
                f"there is no {which} in {store.path}",
                hint="list reviews with `acode review history`",
            )
        _emit(stored.result, json_out=json_out, fmt=fmt, output=output, review_id=stored.id)
    raise typer.Exit(exit_code_for(stored.result))


@review_app.command("dismiss", rich_help_panel="Sub-commands")
def dismiss(
    finding: str = typer.Argument(..., help="The finding: RULE@FILE:LINE as `acode review show` lists it "
                                  "(e.g. ruff/S602@app.py:6), or its fingerprint."),
    reason: str = typer.Option(..., "--reason", help="Why it is not a problem here (kept in the file)."),
    review_id: int = typer.Option(None, "--review", help="The stored review it is from (default: latest)."),
) -> None:
    """Dismiss a finding for good: recorded by its fingerprint (rule, file, code; not its line) in
    .acode/review-dismissed.yml. Commit the file: reviews read it from the base branch, so it counts once it
    is there, and until the code it names changes."""
    with _errors_for_people():
        root = project_root()
        stored = _store(root).get(review_id)
        if stored is None:
            raise UsageError("ACODE-REVIEW-040", "there is no review to dismiss a finding of",
                             hint="run `acode review` first")
        from acode.review.evidence.dismissing import record_dismissal

        entry, path = record_dismissal(root, stored.result, finding, reason)
    console.print(f"dismissed {entry.rule} in {entry.file} (fingerprint {entry.fingerprint}) in {path}; "
                  "commit it: reviews read it from the base branch", markup=False, highlight=False)


@review_app.command("history", rich_help_panel="Sub-commands")
def history(
    limit: int = typer.Option(20, "--limit", "-n", help="How many reviews to list."),
    json_out: bool = opt.JSON,
) -> None:
    """List stored reviews, newest first (reviews made by `acode run` included)."""
    with _errors_for_people():
        rows = _store(project_root()).history(limit)
    if json_out:
        print_json(rows)
        return
    if not rows:
        console.print("no reviews yet (run `acode review`)")
        return
    from rich.table import Table

    table = Table("id", "when", "source", "target", "model", "decision", "secs", box=None)
    for row in rows:
        target = row["target"] if row["target"] != "branch" else f"{row['head_ref']}..{row['base_ref']}"
        decision = row["decision"] if row["status"] == "complete" else f"{row['decision']} ({row['status']})"
        table.add_row(
            str(row["id"]),
            row["created_at"][:16].replace("T", " "),
            row["source"],
            target,
            row["model"],
            decision,
            f"{row['duration_seconds']:.0f}",
        )
    table.columns[5].no_wrap = True
    console.print(table)


def exit_code_for(result: Any) -> int:
    if result.status == "timeout":
        return EXIT_REVIEW_TIMEOUT
    return EXIT_OK if result.approved else EXIT_REVIEW_REJECTED


def _store(root: Path):
    from acode.paths import ProjectPaths
    from acode.store.reviews import ReviewStore

    return ReviewStore(ProjectPaths(root).db_file)


def run_review(
    *,
    base,
    uncommitted,
    commit,
    intent,
    run_tests,
    json_out,
    fmt,
    output,
    model,
    backend,
    force: bool,
    staged: bool = False,
    suggest: bool | None = None,
    trust: bool = False,
    describe: bool = False,
    fix: bool = False,
) -> int:
    from acode.review.change import git_context

    if sum([bool(base), uncommitted, staged, bool(commit)]) > 1:
        raise UsageError(
            "ACODE-REVIEW-041",
            "--base, --uncommitted, --staged and --commit choose different targets; give one",
            hint="acode review --base main | --uncommitted | --staged | --commit <sha>",
        )
    if fmt not in REPORT_FORMATS:
        raise UsageError(
            "ACODE-REVIEW-042", f"--format {fmt!r} is not known",
            hint=f"use one of {', '.join(f for f in REPORT_FORMATS if f)} (or --json)",
        )
    if describe and fix:
        raise UsageError("ACODE-REVIEW-044", "--fix applies a review's fixes; --describe makes no review",
                         hint="run `acode review --fix` and `acode review --describe` one after the other")
    if describe and fmt not in (None, "markdown"):
        raise UsageError("ACODE-REVIEW-043", f"--describe writes Markdown or JSON, not --format {fmt}",
                         hint="acode review --describe [--json] [-o FILE]")
    start = Path.cwd()
    root = git_context.repo_root(start)
    settings = settings_for(root, trust=trust, notice=False, **model_overrides(model, backend))
    rs = settings.reviewer
    detached_name = None
    if not (uncommitted or staged or commit):
        from acode.review.change.ci_target import review_base

        given = base
        base, detached_name = review_base(root, base)
        if base and not given:
            err_console.print(f"CI: reviewing against {base}, the pull/merge request's target", markup=False)

    def read_context(rs):
        limits = {"intent": intent or "", "max_diff_chars": rs.max_diff_chars,
                  "context_lines": rs.context_lines}
        if uncommitted:
            return git_context.uncommitted_context(root, **limits)
        if staged:
            return git_context.staged_context(root, **limits)
        if commit:
            return git_context.commit_context(root, commit, **limits)
        return git_context.branch_context(root, base, detached_name=detached_name, **limits)

    try:
        context = read_context(rs)
    except NothingToReview as nothing:
        # a hook on a commit that stages nothing, a push of the base branch itself: nothing to block
        err_console.print(f"nothing to review: {nothing.message}", markup=False, highlight=False)
        if json_out or fmt or output:  # a CI job's artifact or a script's JSON still appears, empty
            from acode.review.models import nothing_to_review

            target = ("staged" if staged else "uncommitted" if uncommitted else "commit" if commit
                      else "branch")
            # no terminal report: the one stderr line above said it
            _emit(nothing_to_review(nothing.message, target, base or ""), json_out=json_out, fmt=fmt,
                  output=output, review_id=None, terminal=False)
        return EXIT_OK
    # The settings of the base, not of the change under review (acode.review.service.base_config).
    from acode.review.service import ReviewService, base_config, base_dismissals, with_suggestions

    of_base = base_config(context)
    if of_base is not None:
        err_console.print(of_base.note, markup=False, highlight=False)
        settings = settings_for(
            root, trust=trust, project_text=of_base.text, project_source=of_base.source,
            **model_overrides(model, backend),
        )
        first, now = rs, settings.reviewer
        if (now.max_diff_chars, now.context_lines) != (first.max_diff_chars, first.context_lines):
            context = read_context(now)  # the change's own limits shaped the context: read it again
    else:
        from acode.cli.trust_question import trust_notice

        trust_notice(settings, err_console)
    rs = with_suggestions(settings.reviewer, suggest)
    from acode.paths import ProjectPaths

    dismissed, note = base_dismissals(context)
    if note:
        err_console.print(note, markup=False, highlight=False)
    run_tests = rs.run_tests if run_tests is None else run_tests
    if describe:
        from acode.cli.review_describe import describe_and_emit

        return describe_and_emit(context, settings, rs, run_tests=run_tests, dismissed=dismissed,
                                 json_out=json_out, output=output, fresh=force)
    service = ReviewService(rs, settings.model, run_tests=run_tests,
                            db_path=ProjectPaths(context.root).db_file, source="review", dismissed=dismissed)
    stored = None if force else service.reusable(context)
    if stored is not None:
        fixes = apply_fixes(context, stored.result) if fix else None
        _emit(stored.result, json_out=json_out, fmt=fmt, output=output, review_id=stored.id,
              reused_at=stored.created_at, fixes=fixes)
        _step_summary(stored.result)
        return exit_code_for(stored.result)

    from acode.llm.lazy import build_model_when_needed

    tools = None
    if rs.lookaround.enabled:
        from acode.tools.builtin import REVIEW_TOOL_NAMES, default_registry

        tools = default_registry(REVIEW_TOOL_NAMES)
    with err_console.status("reviewing") as status:
        # loaded only if a step asks the model something (the likelihood check, --suggest)
        chat_model = build_model_when_needed(settings.model, say=lambda text: err_console.print(text + " …"))
        result = service.review(context, chat_model, tools=tools, behaviour=True,
                                progress=lambda text: status.update(text))
    review_id = service.store(result)
    fixes = apply_fixes(context, result) if fix else None
    _emit(result, json_out=json_out, fmt=fmt, output=output, review_id=review_id, fixes=fixes)
    _step_summary(result)
    return exit_code_for(result)


def _step_summary(result) -> None:
    from acode.review.change.ci_target import write_step_summary
    from acode.review.reporting.report import render_markdown

    written = write_step_summary(render_markdown(result))
    if written is not None:
        err_console.print(f"review summary added to {written} (GITHUB_STEP_SUMMARY)", markup=False)


def _emit(
    result,
    *,
    json_out: bool,
    fmt: str | None,
    output: Path | None,
    review_id: int | None,
    reused_at: str | None = None,
    fixes: list | None = None,
    terminal: bool = True,
) -> None:
    """The report in the format asked for (stdout or ``output``), else the terminal report (``terminal``)."""
    from acode.fsutil import atomic_write_text
    from acode.review.reporting.ci_formats import RENDERERS
    from acode.review.reporting.report import render_json, render_markdown, render_sarif, render_terminal

    if reused_at is not None and review_id is not None and (json_out or fmt or output):
        from acode.review.reporting.report import reused_line

        err_console.print(reused_line(review_id, reused_at, result), markup=False, highlight=False)
    text = None
    if fmt == "markdown":
        text = render_markdown(result)
    elif fmt == "sarif":
        text = render_sarif(result)
    elif fmt in RENDERERS:
        text = RENDERERS[fmt](result)
    elif json_out or output:
        text = render_json(result, review_id=review_id, reused_at=reused_at)
    if output:
        atomic_write_text(output, text + "\n")
        err_console.print(f"report written to {output}")
    if json_out:
        print(render_json(result, review_id=review_id, reused_at=reused_at,
                          fixes=None if fixes is None else [o.as_dict() for o in fixes]))
    elif text is not None and not output:
        from acode.shown import under_github_actions, visible, workflow_safe

        shown = visible(text) if fmt == "markdown" else text
        # the github format's own lines are the workflow commands; in any other, no line may read as one
        print(workflow_safe(shown) if under_github_actions() and fmt != "github" else shown)
    elif terminal:
        reused = (review_id, reused_at) if review_id is not None and reused_at is not None else None
        render_terminal(result, console, reused=reused)
        if review_id is not None and reused is None:
            console.print(f"[dim]stored as review #{review_id} (`acode review show {review_id}`)[/]")
    if fixes is not None and not json_out:
        print_fixes(fixes, err_console if (fmt or output) else console)
