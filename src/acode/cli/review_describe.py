"""`acode review --describe`: print (or write with -o) a pull-request description of the change, Markdown
by default, JSON with --json; appended to GitHub's job summary when the job has one. Exit 0 whenever the
description is written: it describes, it does not decide (the review does)."""

from __future__ import annotations

from pathlib import Path

from acode.cli.common import err_console
from acode.errors import EXIT_OK


def describe_and_emit(context, settings, reviewer, *, run_tests, dismissed, json_out: bool,
                      output: Path | None, fresh: bool) -> int:
    from acode.fsutil import atomic_write_text
    from acode.llm.lazy import build_model_when_needed
    from acode.paths import ProjectPaths
    from acode.review.change.ci_target import write_step_summary
    from acode.review.describing.describe import describe_change
    from acode.review.describing.render import render_description_json, render_description_markdown
    from acode.shown import under_github_actions, visible, workflow_safe

    def summary_model():
        return build_model_when_needed(settings.model, say=lambda text: err_console.print(text + " …"))

    with err_console.status("describing the change") as status:
        description = describe_change(context, reviewer, settings.model, summary_model=summary_model,
                                      run_tests=run_tests, db_path=ProjectPaths(context.root).db_file,
                                      dismissed=dismissed, fresh=fresh,
                                      progress=lambda text: status.update(text))
    if description.summary_note:
        err_console.print(description.summary_note, markup=False, highlight=False)
    markdown = render_description_markdown(description)
    text = render_description_json(description) if json_out else markdown
    if output:
        atomic_write_text(output, text + "\n")
        err_console.print(f"description written to {output}", markup=False)
    else:
        shown = text if json_out else visible(text)
        print(workflow_safe(shown) if under_github_actions() else shown)
    written = write_step_summary(markdown)
    if written is not None:
        err_console.print(f"description added to {written} (GITHUB_STEP_SUMMARY)", markup=False)
    return EXIT_OK
