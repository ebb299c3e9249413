"""A description as Markdown (a pull request's body, GitHub's job summary) or JSON. Every text that comes
from the change or the model goes through ``escaping.md_text`` / ``md_code``: it cannot add HTML, links or
lines of its own to the body."""

from __future__ import annotations

import json

from acode.review.describing.describe import Description
from acode.review.describing.facts import FileChange
from acode.review.reporting.escaping import md_code, md_text
from acode.secrets import redact_data

MAX_FILES = 60  # files listed one by one; the rest are counted
MAX_NAMES = 8  # functions named per file and kind; the rest are counted


def render_description_markdown(description: Description) -> str:
    facts = description.facts
    lines = [f"## {md_text(facts.title)}", ""]
    if description.summary is not None:
        summary = description.summary
        by = (f"_Summary written by the model {md_text(summary.model)}; everything below comes from acode's "
              "checks, without a model._")
        lines += [md_text(summary.text), "", by, ""]
    else:
        lines += [f"_{md_text(description.summary_note)}; everything below comes from acode's checks._", ""]
    lines += [f"### Files changed ({len(facts.files)})", ""]
    lines += [_file_line(f) for f in facts.files[:MAX_FILES]]
    if len(facts.files) > MAX_FILES:
        lines.append(f"- and {len(facts.files) - MAX_FILES} more")
    lines += ["", "### Behaviour differences", ""]
    if facts.behaviour:
        lines += [f"- {md_code(d.call)}: before {md_code(d.before)}, now {md_code(d.after)} "
                  f"({md_code(f'{d.file}:{d.line}')})" for d in facts.behaviour]
    else:
        lines.append(f"None found: {md_text(facts.behaviour_note)}.")
    tests = facts.tests
    lines += ["", "### Tests", ""]
    for label, paths in (("added", tests.added), ("changed", tests.changed),
                         ("affected (they name the changed code)", tests.affected)):
        if paths:
            lines.append(f"- {label}: " + ", ".join(md_code(p) for p in paths))
    if not (tests.added or tests.changed or tests.affected):
        lines.append("- none added, changed or naming the changed code")
    if tests.ran:
        lines.append(f"- run on both sides: {md_text(tests.ran)}")
    lines += ["", f"### Risk: {facts.risk.level}", "", *[f"- {md_text(r)}" for r in facts.risk.reasons], ""]
    return "\n".join(lines)


def _file_line(changed: FileChange) -> str:
    moved = f" (from {md_code(changed.old_path)})" if changed.old_path else ""
    size = f"+{changed.additions} -{changed.deletions}"
    line = f"- {md_code(changed.path)}{moved}: {changed.change_type}, {size}"
    for verb, names in (("adds", changed.added), ("changes", changed.changed), ("removes", changed.removed)):
        if names:
            shown = ", ".join(md_code(n) for n in names[:MAX_NAMES])
            more = f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
            line += f"; {verb} {shown}{more}"
    return line


def render_description_json(description: Description) -> str:
    data = redact_data(description.model_dump(mode="json"))
    data["markdown"] = render_description_markdown(description)
    return json.dumps(data, indent=2, ensure_ascii=False)
