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

import math
from collections.abc import Callable
from dataclasses import replace

from acode.config.review import RegressionSettings
from acode.errors import ModelError
from acode.llm.protocol import ChatModel
from acode.llm.scoring import TextScore, scorer_of
from acode.llm.types import Message
from acode.prompts import render
from acode.secrets import redact
from acode.review.assessment import PKG
from acode.review.checking import yes_probability
from acode.review.decision import REGRESSION_RULE
from acode.review.git_context import read_new_text, read_old_text
from acode.review.metered import MeteredModel
from acode.review.models import Finding, ReviewContext
from acode.review.regions import Region, changed_regions

DIMENSION = "intent_alignment"
RULE = REGRESSION_RULE


def regression_findings(context: ReviewContext, model: MeteredModel, settings: RegressionSettings, *,
                        timeout: Callable[[], float], progress: Callable[[str], None] = lambda _: None,
                        paths: set[str] | None = None, fixed: dict[str, set[int]] | None = None) -> list[Finding]:
    """``fixed``: lines (per file) where the deterministic evidence shows the change removing a known
    vulnerability or adding a safety call; a region holding one is measured but not counted (see
    ``FIXED``)."""
    method = resolve_method(model, settings.method)
    if method == "off":
        return []
    regions, left_out = _regions(context, settings, paths)
    if left_out:
        progress(f"not comparing {left_out} changed region(s): inserted lines, comment or docstring changes, "
                 f"rewrites of more than {settings.max_edit_lines} lines (reviewer.regression.max_edit_lines) "
                 "or past max_regions")
    header = intent_header(context.effective_intent()) if settings.intent else []
    findings = []
    for index, region in enumerate(regions, 1):
        progress(f"comparing old and new code ({index}/{len(regions)}, {region.path}:{region.first_line})")
        if header:
            region = replace(region, prefix=render(PKG, "regression_intent.j2", mark=_comment_mark(region.path),
                                                   lines=header) + "\n\n" + region.prefix)
        if method == "likelihood":
            metrics, line = _by_likelihood(model, region, timeout)
        else:
            metrics, line = _by_question(model, region, timeout), region.first_line
        metrics.update(removed_lines=float(len(region.removed)), added_lines=float(len(region.added)))
        fix = sorted(set(region.added) & (fixed or {}).get(region.path, set()))
        if fix:
            metrics[FIXED] = float(fix[0])
        findings.append(_finding(region, line, metrics, settings))
    return findings


# A region where the evidence shows a fix (a high-severity analyzer finding of the old code gone, a
# constant-time comparison, an escape or a lock added) is not judged by the likelihood: safer code uses
# rarer calls (hmac.compare_digest, html.escape, parameters instead of an f-string) and reads as less
# likely whether or not it is right. Measured on the security pairs: 6 of 39 fixes "regressed" (0.5B).
FIXED = "fixed_line"


def intent_header(intent: str, *, max_lines: int = 3, max_chars: int = 160) -> list[str]:
    """The first few non-blank lines of the intent (redacted, each cut to ``max_chars``)."""
    lines = [line.strip() for line in redact(intent).splitlines() if line.strip()]
    return [line[:max_chars] for line in lines[:max_lines]]


_SLASH_COMMENTS = {".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".go", ".java", ".js", ".jsx", ".kt", ".rs", ".scala",
                   ".swift", ".ts", ".tsx", ".php", ".dart"}
_DASH_COMMENTS = {".sql", ".lua", ".hs"}


def _comment_mark(path: str) -> str:
    suffix = "." + path.rsplit(".", 1)[-1].lower() if "." in path else ""
    return "//" if suffix in _SLASH_COMMENTS else "--" if suffix in _DASH_COMMENTS else "#"


def is_edit(region: Region, max_edit_lines: int) -> bool:
    """Old code is replaced or removed, code (not only comments or docstrings) changes, and the change is
    small enough that the two versions are alternatives to each other."""
    if not any(line.strip() for line in region.removed) or not region.code_changed:
        return False
    return max_edit_lines == 0 or (len(region.removed) <= max_edit_lines and len(region.added) <= max_edit_lines)


def resolve_method(model: ChatModel, method: str) -> str:
    if method == "auto":
        return "likelihood" if scorer_of(model) is not None else "question"
    return method


def is_regression(metrics: dict[str, float], settings: RegressionSettings) -> bool:
    return delta_from(metrics, settings.statistic) < -settings.margin


def _regions(context: ReviewContext, settings: RegressionSettings,
             paths: set[str] | None) -> tuple[list[Region], int]:
    """The edits to compare (the largest ``max_regions``) and how many changed regions are left out."""
    regions: list[Region] = []
    seen = 0
    for file in context.files:
        if file.change_type not in ("modified", "renamed") or (paths is not None and file.path not in paths):
            continue
        old, new = read_old_text(context, file), read_new_text(context, file.path)
        if old is None or new is None:
            continue
        changed = changed_regions(file.path, old, new, context_lines=settings.context_lines,
                                  after_lines=settings.after_lines)
        seen += len(changed)
        regions += [r for r in changed if is_edit(r, settings.max_edit_lines)]
    regions.sort(key=lambda r: -r.size)
    chosen = sorted(regions[: settings.max_regions], key=lambda r: (r.path, r.first_line))
    return chosen, seen - len(chosen)


def _by_likelihood(model: MeteredModel, region: Region, timeout: Callable[[], float]) -> tuple[dict[str, float], int]:
    scorer = scorer_of(model)
    if scorer is None:
        raise ModelError("ACODE-REVIEW-040", f"the {model.name} backend cannot score text "
                         "(reviewer.regression.method: likelihood needs the embedded model)",
                         hint="set reviewer.regression.method: question (or auto)")
    old = scorer.score_text(region.prefix, region.old_text, timeout=timeout())
    model.stats.add(old.usage)
    new = scorer.score_text(region.prefix, region.new_text, timeout=timeout())
    model.stats.add(new.usage)
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
        question = render(PKG, "regression_question.j2", path=region.path, version=version, code=region.prefix + text,
                          first=shown_before + 1, last=shown_before + changed)
        answer = model.complete([Message.system(render(PKG, "system.j2")), Message.user(question)],
                                max_tokens=1, temperature=0.0, logprobs=10, timeout=timeout())
        p_yes = yes_probability(answer)
        if p_yes is None:
            return {"unreadable": 1.0}
        p_yes = min(max(p_yes, 1e-4), 1 - 1e-4)
        logits[version] = math.log(p_yes / (1 - p_yes))
    return {"delta_sum": round(logits["new"] - logits["old"], 4), "old_logit": round(logits["old"], 4),
            "new_logit": round(logits["new"], 4)}


def _finding(region: Region, line: int, metrics: dict[str, float], settings: RegressionSettings) -> Finding:
    quote = region.new_text.splitlines()[line - region.first_line].strip() if region.added else ""
    where = dict(dimension=DIMENSION, source="model", rule=RULE, file=region.path, line=line, end_line=line,
                 quote=quote, grounding="changed" if region.added else "context", metrics=metrics)
    if "unreadable" in metrics:
        return Finding(**where, severity="high", status="unchecked",
                       message="the regression check's answer could not be read; an unreadable answer never approves")
    value = delta_from(metrics, settings.statistic)
    regression = is_regression(metrics, settings)
    if FIXED in metrics and "unreadable" not in metrics:
        return Finding(**where, severity="info", status="dismissed", confidence=None,
                       message=f"not judged by the likelihood: the change fixes a known problem here (line "
                               f"{int(metrics[FIXED])}, see the evidence); {'log-likelihood' if 'new_sum' in metrics else 'yes/no log-odds'} "
                               f"{value:+.2f} ({settings.statistic})")
    was = next((line.strip() for line in region.removed if line.strip()), "")
    replaced = f" (it replaced `{was}`)" if was and region.added else (f" (`{was}` was removed)" if was else "")
    how = "log-likelihood" if "new_sum" in metrics else "yes/no log-odds"
    message = (f"the model finds the changed code less right than the code it replaces{replaced}: {how} "
               f"{value:+.2f} ({settings.statistic}) for the new version" if regression else
               f"the new code reads as at least as right as the old ({how} {value:+.2f}, {settings.statistic})")
    where["suggestion"] = ("check the changed lines against the documentation; if the behaviour change is "
                           "intended, update the documentation with it") if regression else ""
    return Finding(**where, severity="high" if regression else "info", message=message,
                   confidence=round(1 / (1 + math.exp(max(-50.0, min(50.0, value)))), 4),
                   status="confirmed" if regression else "dismissed")


def delta_from(metrics: dict[str, float], statistic: str) -> float:
    return metrics.get(f"delta_{statistic}", metrics.get("delta_sum", 0.0))
