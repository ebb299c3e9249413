"""The regression check: is the changed code less right than the code it replaces?

Each changed region (see ``regions``) is read twice by the model, once with the old lines and once with
the new, after the same documentation and code. The model's preference between the two versions is a
contrast, so the model's general leaning (a small model answers "looks fine" or "looks wrong" to almost
anything) cancels out:

- likelihood: the model's log-likelihood of each version (backends that score text: the embedded model);
- question: log-odds of "yes" to "do these lines do what the documentation requires?" for each version
  (any backend with token log-probabilities).

delta = new - old; the change is a regression when delta < -margin. The finding carries both measures
(sum and mean per token for likelihood) so a benchmark can re-decide without asking the model again.

Only edits are compared. Inserted lines (nothing removed) have no old version: adding anything lowers the
likelihood. Changes to comments, docstrings and message strings only are wording, which a likelihood
judges by style, not correctness. A rewrite of more than ``max_edit_lines`` lines is new code, which the
model finds less familiar whether it is right or wrong. (Measured on real commits: each of these kinds
"regressed" in sound changes.)
Both versions are headed with the change's stated intent, so a deliberate change of behaviour is read
against what it set out to do rather than against the old behaviour alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from acode.config.review import PathInstruction, RegressionSettings
from acode.errors import ModelError
from acode.llm.protocol import ChatModel
from acode.llm.scoring import TextScore, scorer_of
from acode.llm.types import Message
from acode.prompts import render
from acode.review.change.git_context import read_new_text, read_old_text
from acode.review.change.preamble import preamble
from acode.review.change.project_tests import ProjectTests, around_names
from acode.review.change.regions import Region, changed_regions
from acode.review.judging.instructions import instructions_for
from acode.review.judging.metered import MeteredModel
from acode.review.judging.proposals import PKG
from acode.review.judging.verification import old_side_confidence, yes_log_odds
from acode.review.models import Finding, ReviewContext
from acode.secrets import redact

DIMENSION = "intent_alignment"
CALIBRATION_CHARS = 240  # text read once to measure an unknown model's speed before the plan is checked
RULE = "review/regression"  # the rule of its findings, which the levels weigh apart (deciding.levels)


@dataclass
class RegionPlan:
    """The regions a review will compare, and how many changed regions it leaves out and why."""

    method: str
    regions: list[Region] = field(default_factory=list)
    # left out for time by the estimate at the prior pace; compared after the planned regions when the pace
    # measured on those shows they still fit
    deferred: list[Region] = field(default_factory=list)
    found: int = 0
    left_out: dict[str, int] = field(default_factory=dict)  # why -> how many
    estimated_seconds: float = 0.0

    def note(self, max_edit_lines: int) -> str:
        """One line naming every reason a region was not compared ('' when none was left out)."""
        reasons = {
            "not an edit": "inserted lines or comment/docstring-only changes",
            "rewrite": f"rewrites of more than {max_edit_lines} lines (reviewer.regression.max_edit_lines)",
            "max_regions": "past reviewer.regression.max_regions",
            "time": "beyond the time plan (reviewer.timeout_seconds)",
            "ran the same": "inside functions the behavioural diff ran without finding a difference (a "
                            "likelihood guess there is at most medium)",
            "no open difference": "outside the functions where running both versions left a difference "
                                  "open (reviewer.regression.scope: a guess alone is at most medium)",
        }
        parts = [f"{count} {reasons[why]}" for why, count in self.left_out.items() if count]
        return (f"not comparing {sum(self.left_out.values())} changed region(s): " + "; ".join(parts)
                if parts else "")


def plan_regions(context: ReviewContext, model: MeteredModel, settings: RegressionSettings, *,
                 paths: Callable[[], set[str]] | None = None, seconds: float | None = None,
                 settled: dict[str, list[tuple[int, int]]] | None = None,
                 within: dict[str, list[tuple[int, int]]] | None = None) -> RegionPlan:
    """The edits to compare: the largest first, at most ``max_regions``, and (when ``seconds`` is given)
    only those whose reading fits that many seconds at the model's measured pace. ``paths``: the files
    whose edits may be compared, asked only when there is an edit (it may count tokens). ``settled``: per
    file, line spans where executed evidence outranks the guess; an edit wholly inside one is not compared.
    ``within``: per file, the only line spans where an edit is compared (``scope: differences``)."""
    plan = RegionPlan(method=resolve_method(model, settings.method))
    if plan.method == "off":
        return plan
    edits, plan.found, plan.left_out = _regions(context, settings, None)
    if edits and paths is not None:
        shown = paths()
        if any(f.path not in shown for f in context.files):
            edits, plan.found, plan.left_out = _regions(context, settings, shown)
    kept = [r for r in edits if not _inside(r, (settled or {}).get(r.path, []))]
    if len(kept) < len(edits):
        plan.left_out["ran the same"] = len(edits) - len(kept)
    if within is not None:
        inside = [r for r in kept if _inside(r, within.get(r.path, []))]
        if len(inside) < len(kept):
            plan.left_out["no open difference"] = len(kept) - len(inside)
        kept = inside
    edits = kept
    edits.sort(key=lambda r: -r.size)
    header = _header_text(context, settings, "#")
    for region in edits:
        if len(plan.regions) >= settings.max_regions:
            plan.left_out["max_regions"] = plan.left_out.get("max_regions", 0) + 1
            continue
        cost = _estimated_seconds(model, region, header, plan.method)
        if seconds is not None and plan.estimated_seconds + cost > seconds:
            plan.left_out["time"] = plan.left_out.get("time", 0) + 1
            plan.deferred.append(region)
            continue
        plan.regions.append(region)
        plan.estimated_seconds += cost
    plan.regions.sort(key=lambda r: (r.path, r.first_line))
    plan.estimated_seconds = round(plan.estimated_seconds, 1)
    return plan


def _inside(region: Region, spans: list[tuple[int, int]]) -> bool:
    lines = region.added or (region.first_line,)
    return any(all(start <= n <= end for n in lines) for start, end in spans)


def _header_text(context: ReviewContext, settings: RegressionSettings, mark: str,
                 instructions: list[str] = ()) -> str:
    """Comment lines before both versions: the intent's first lines, then the project's instructions for
    the file (``instructions``: their texts)."""
    header = intent_header(context.effective_intent()) if settings.intent else []
    told = [line.strip() for text in instructions for line in text.splitlines() if line.strip()]
    if not header and not told:
        return ""
    return render(PKG, "regression_intent.j2", mark=mark, lines=header, instructions=told) + "\n\n"


def _estimated_seconds(model: MeteredModel, region: Region, header: str, method: str) -> float:
    """Both versions are read after the same prefix; the second reading reuses it from the KV cache (the
    question method reads the prefix twice)."""
    prefix = model.count_tokens(header + region.prefix)
    old, new = model.count_tokens(region.old_text), model.count_tokens(region.new_text)
    if method == "likelihood":
        return model.pace.seconds(prefix + old + new)
    return model.pace.seconds(2 * prefix + old + new + 200, 2)


def compare_regions(context: ReviewContext, model: MeteredModel, settings: RegressionSettings,
                    plan: RegionPlan, *, timeout: Callable[[], float],
                    progress: Callable[[str], None] = lambda _: None, out: list[Finding],
                    seconds_left: Callable[[], float | None] = lambda: None,
                    fixed: dict[str, set[int]] | None = None,
                    instructions: Sequence[PathInstruction] = ()) -> None:
    """Compare each planned region, appending its finding to ``out`` as soon as it is measured (so a
    review that runs out of time keeps the regions it compared). With ``seconds_left`` the plan is checked
    again before each region at the speed measured so far (the first region's prefix is read on its own
    first, which measures the speed and is then reused from the KV cache); a region that no longer fits
    is left out and counted in ``plan.left_out["time"]``. The regions the plan deferred are then compared
    while the measured speed says they fit the time left (the prior is often slower than the machine).
    ``fixed``: lines (per file) where the
    deterministic evidence shows the change removing a known vulnerability or adding a safety call; a
    region holding one is measured but not counted (see ``FIXED``). ``instructions``: the project's
    (reviewer.instructions); each region is headed with those of its file."""
    scorer = scorer_of(model) if plan.method == "likelihood" else None
    calibrated = False
    planned = len(plan.regions)
    for index, region in enumerate(plan.regions + plan.deferred, 1):
        header = _header_text(context, settings, _comment_mark(region.path),
                              instructions_for(instructions, region.path))
        if header:
            region = replace(region, prefix=header + region.prefix)
        left = seconds_left()
        deferred = index > planned  # already counted in left_out["time"] until it is compared
        if left is not None and scorer is not None:
            # a deferred region is held to its whole reading, prefix included: the plan said it did not fit
            read = [region.old_text, region.new_text] + ([region.prefix] if deferred else [])
            tokens = sum(model.count_tokens(text) for text in read)
            if not model.pace.measured and not calibrated and model.pace.seconds(
                    tokens + model.count_tokens(region.prefix)) > left / 4:
                # the head of the prefix (a few dozen tokens), read on its own to measure the speed before a
                # region that may not fit; a region that fits four times over measures it itself (a
                # reading shorter than the KV cache's 64-token chunk is not reused: pure cost)
                model.record(
                    scorer.score_text(region.prefix[:CALIBRATION_CHARS], "", timeout=timeout()).usage)
                calibrated, left = True, seconds_left()
            cost = model.pace.seconds(tokens)
            if left is not None and cost > left:
                plan.left_out["time"] = plan.left_out.get("time", 0) + (not deferred)
                continue
        elif deferred:
            continue  # no time plan to fit it into
        if deferred:
            plan.left_out["time"] -= 1
            plan.regions.append(region)
        count = f"{index}/{planned}" if not deferred else "one more: time was left"
        progress(f"comparing old and new code ({count}, {region.path}:{region.first_line})")
        if plan.method == "likelihood":
            metrics, line = _by_likelihood(model, region, timeout)
        else:
            metrics, line = _by_question(model, region, timeout), region.first_line
        metrics.update(removed_lines=float(len(region.removed)), added_lines=float(len(region.added)))
        fix = sorted(set(region.added) & (fixed or {}).get(region.path, set()))
        if fix:
            metrics[FIXED] = float(fix[0])
        out.append(_finding(region, line, metrics, settings))


# A region where the evidence shows a fix (a high-severity analyzer finding of the old code gone, a
# constant-time comparison, an escape or a lock added) is not judged by the likelihood: safer code uses
# rarer calls (hmac.compare_digest, html.escape, parameters instead of an f-string) and reads as less
# likely whether or not it is right. Measured on the security pairs: 6 of 39 fixes "regressed" (0.5B).
FIXED = "fixed_line"


def intent_header(intent: str, *, max_lines: int = 3, max_chars: int = 160) -> list[str]:
    """The first few non-blank lines of the intent (redacted, each cut to ``max_chars``)."""
    lines = [line.strip() for line in redact(intent).splitlines() if line.strip()]
    return [line[:max_chars] for line in lines[:max_lines]]


_SLASH_COMMENTS = {".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".go", ".java", ".js", ".jsx", ".kt", ".rs",
                   ".scala", ".swift", ".ts", ".tsx", ".php", ".dart"}
_DASH_COMMENTS = {".sql", ".lua", ".hs"}


def _comment_mark(path: str) -> str:
    suffix = "." + path.rsplit(".", 1)[-1].lower() if "." in path else ""
    return "//" if suffix in _SLASH_COMMENTS else "--" if suffix in _DASH_COMMENTS else "#"


def is_edit(region: Region, max_edit_lines: int) -> bool:
    """Old code is replaced or removed, code (not only comments or docstrings) changes, and the change is
    small enough that the two versions are alternatives to each other."""
    if not any(line.strip() for line in region.removed) or not region.code_changed:
        return False
    return max_edit_lines == 0 or (len(region.removed) <= max_edit_lines
                                   and len(region.added) <= max_edit_lines)


def resolve_method(model: ChatModel, method: str) -> str:
    if method == "auto":
        return "likelihood" if scorer_of(model) is not None else "question"
    return method


def is_regression(metrics: dict[str, float], settings: RegressionSettings) -> bool:
    return delta_from(metrics, settings.statistic) < -settings.margin


def _regions(context: ReviewContext, settings: RegressionSettings,
             paths: set[str] | None) -> tuple[list[Region], int, dict[str, int]]:
    """Every edit that may be compared, how many changed regions there are, and why the others are not."""
    regions: list[Region] = []
    seen = 0
    left_out = {"not an edit": 0, "rewrite": 0}
    tests = ProjectTests(context) if settings.tests else None
    for file in context.files:
        if file.change_type not in ("modified", "renamed") or (paths is not None and file.path not in paths):
            continue
        old, new = read_old_text(context, file), read_new_text(context, file.path)
        if old is None or new is None:
            continue
        changed = changed_regions(file.path, old, new, context_lines=settings.context_lines,
                                  after_lines=settings.after_lines)
        seen += len(changed)
        for region in changed:
            if is_edit(region, settings.max_edit_lines):
                region = _with_preamble(region, old, new) if settings.preamble else region
                regions.append(_with_tests(region, new, tests) if tests is not None else region)
            else:
                left_out["not an edit" if is_edit(region, 0) is False else "rewrite"] += 1
    return regions, seen, left_out


def _with_preamble(region: Region, old: str, new: str) -> Region:
    """The region with the definitions its changed lines use (and its prefix does not show) before it."""
    if not region.path.endswith(".py"):
        return region
    extra = preamble(region.prefix, region.changed_code, new, old)
    return replace(region, prefix=extra + region.prefix) if extra else region


def _with_tests(region: Region, new: str, tests: ProjectTests) -> Region:
    """The region with the project's tests of the code around it before it (see project_tests)."""
    if not region.path.endswith(".py"):
        return region
    names = around_names(new, set(region.added) or {region.first_line})
    extra = tests.for_region(names, region.changed_code)
    return replace(region, prefix=extra + region.prefix) if extra else region


def _by_likelihood(model: MeteredModel, region: Region,
                   timeout: Callable[[], float]) -> tuple[dict[str, float], int]:
    scorer = scorer_of(model)
    if scorer is None:
        raise ModelError("ACODE-REVIEW-021", f"the {model.name} backend cannot score text "
                         "(reviewer.regression.method: likelihood needs the embedded model)",
                         hint="set reviewer.regression.method: question (or auto)")
    old = scorer.score_text(region.prefix, region.old_text, timeout=timeout())
    model.record(old.usage)
    new = scorer.score_text(region.prefix, region.new_text, timeout=timeout())
    model.record(new.usage)
    metrics = {"delta_sum": new.total - old.total, "delta_mean": new.mean - old.mean,
               "old_sum": old.total, "new_sum": new.total, "old_tokens": len(old.logprobs),
               "new_tokens": len(new.logprobs)}
    return {k: round(v, 4) for k, v in metrics.items()}, _least_likely_added_line(region, new)


def _least_likely_added_line(region: Region, score: TextScore) -> int:
    """The added line the model found least probable per token: where the finding points."""
    lines = score.by_line()[: len(region.added)]
    if not lines:
        return region.first_line
    worst = min(range(len(lines)), key=lambda i: lines[i][1] / max(1, lines[i][2]))
    return region.added[worst]


def _by_question(model: MeteredModel, region: Region, timeout: Callable[[], float]) -> dict[str, float]:
    logits = {}
    shown_before = region.prefix.count("\n")
    tail = region.new_text.count("\n") - len(region.added)
    for version, text in (("old", region.old_text), ("new", region.new_text)):
        changed = max(1, text.count("\n") - tail)
        question = render(PKG, "regression_question.j2", path=region.path, version=version,
                          code=region.prefix + text, first=shown_before + 1, last=shown_before + changed)
        answer = model.complete([Message.system(render(PKG, "system.j2")), Message.user(question)],
                                max_tokens=1, temperature=0.0, logprobs=10, timeout=timeout())
        said = yes_log_odds(answer)
        if said is None:
            return {"unreadable": 1.0}
        logits[version] = said
    return {"delta_sum": round(logits["new"] - logits["old"], 4), "old_logit": round(logits["old"], 4),
            "new_logit": round(logits["new"], 4)}


def _finding(region: Region, line: int, metrics: dict[str, float], settings: RegressionSettings) -> Finding:
    quote = region.new_text.splitlines()[line - region.first_line].strip() if region.added else ""
    where = {"dimension": DIMENSION, "source": "model", "rule": RULE, "file": region.path, "line": line,
             "end_line": line,
                 "quote": quote, "grounding": "changed" if region.added else "context", "metrics": metrics}
    if "unreadable" in metrics:
        return Finding(**where, severity="high", status="unchecked",
                       message="the regression check's answer could not be read; an unreadable answer never "
                               "approves")
    value = delta_from(metrics, settings.statistic)
    regression = is_regression(metrics, settings)
    if FIXED in metrics and "unreadable" not in metrics:
        return Finding(**where, severity="info", status="dismissed", confidence=None,
                       message=f"not judged by the likelihood: the change fixes a known problem here (line "
                               f"{int(metrics[FIXED])}, see the evidence); "
                               f"{'log-likelihood' if 'new_sum' in metrics else 'yes/no log-odds'} "
                               f"{value:+.2f} ({settings.statistic})")
    was = next((line.strip() for line in region.removed if line.strip()), "")
    replaced = (f" (it replaced `{was}`)" if was and region.added
                else (f" (`{was}` was removed)" if was else ""))
    how = "log-likelihood" if "new_sum" in metrics else "yes/no log-odds"
    message = (f"the model finds the changed code less right than the code it replaces{replaced}: {how} "
               f"{value:+.2f} ({settings.statistic}) for the new version" if regression else
               f"the new code reads as at least as right as the old ({how} {value:+.2f}, "
               f"{settings.statistic})")
    where["suggestion"] = ("check the changed lines against the documentation; if the behaviour change is "
                           "intended, update the documentation with it") if regression else ""
    return Finding(**where, severity="high" if regression else "info", message=message,
                   confidence=old_side_confidence(value),
                   status="confirmed" if regression else "dismissed")


def delta_from(metrics: dict[str, float], statistic: str) -> float:
    return metrics.get(f"delta_{statistic}", metrics.get("delta_sum", 0.0))
