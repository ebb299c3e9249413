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
Regions with no old lines (new code) have nothing to compare and are skipped.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from acode.config.review import RegressionSettings
from acode.llm.protocol import ChatModel
from acode.errors import ModelError
from acode.llm.scoring import TextScore, scorer_of
from acode.llm.types import Message
from acode.prompts import render
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
                        paths: set[str] | None = None) -> list[Finding]:
    method = resolve_method(model, settings.method)
    if method == "off":
        return []
    regions = _regions(context, settings, paths)
    findings = []
    for index, region in enumerate(regions, 1):
        progress(f"comparing old and new code ({index}/{len(regions)}, {region.path}:{region.first_line})")
        if method == "likelihood":
            metrics, line = _by_likelihood(model, region, timeout)
        else:
            metrics, line = _by_question(model, region, timeout), region.first_line
        findings.append(_finding(region, line, metrics, settings))
    return findings


def resolve_method(model: ChatModel, method: str) -> str:
    if method == "auto":
        return "likelihood" if scorer_of(model) is not None else "question"
    return method


def is_regression(metrics: dict[str, float], settings: RegressionSettings) -> bool:
    return delta_from(metrics, settings.statistic) < -settings.margin


def _regions(context: ReviewContext, settings: RegressionSettings, paths: set[str] | None) -> list[Region]:
    regions: list[Region] = []
    for file in context.files:
        if file.change_type not in ("modified", "renamed") or (paths is not None and file.path not in paths):
            continue
        old, new = read_old_text(context, file), read_new_text(context, file.path)
        if old is None or new is None:
            continue
        regions += [r for r in changed_regions(file.path, old, new, context_lines=settings.context_lines,
                                               after_lines=settings.after_lines) if r.old_text.strip()]
    regions.sort(key=lambda r: -r.size)
    return sorted(regions[: settings.max_regions], key=lambda r: (r.path, r.first_line))


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
