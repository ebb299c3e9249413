"""From the behavioural diff to findings, and the one narrow question a model is asked about a difference.

A difference is a fact; whether it is wrong depends on what the change meant to do:
- under a message that claims no behaviour change (refactor, rename, tidy, clean up, simplify) it is
  ``high``: such a change must show no difference at all;
- where the new version no longer gives a docstring example's output (and the old one did), ``high``;
  where it now gives one the old version did not, the change does what its documentation says:
  ``fixed/behaviour`` (it confirms the change, as a fixed test does);
- where both versions raise, only different errors, it is ``low``: shown, not counted;
- otherwise the model is asked which outcome is right — once for the old outcome, once for the new, as the
  same yes/no question, so a model that answers "yes" to everything cancels out — and a clear preference for
  the old one makes it ``high``; without a clear answer it stays ``medium``, for a person to look at.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

from acode.llm.protocol import ChatModel
from acode.llm.types import Message
from acode.prompts import render
from acode.review.assessment import PKG
from acode.review.behaviour_diff import BehaviourDiff, FunctionResult
from acode.review.checking import yes_probability
from acode.review.decision import REGRESSION_RULE
from acode.review.models import Finding
from acode.secrets import redact

RULE = "behaviour/changed"
ASK = "ask"  # metrics key: the difference waits for the model's question
_NO_CHANGE_CLAIM = re.compile(
    r"\b(refactor\w*|renam\w*|tid(?:y|ied|ies|ying)|clean(?:ed|s|ing)?[ -]?up|cleanup|reformat\w*|"
    r"simplif\w*|restructur\w*|no (?:functional|behaviou?ral|behaviou?r) changes?)\b", re.IGNORECASE)
_NO_CHANGE_PHRASE = re.compile(r"\bno (?:functional|behaviou?ral|behaviou?r) changes?\b", re.IGNORECASE)
_NAMES_BEHAVIOUR = re.compile(r"\b(fix\w*|bug\w*|correct\w*|handl\w*|support\w*|allow\w*|now|instead|"
                              r"behaviou?r change|chang\w* (?:the )?behaviou?r)\b", re.IGNORECASE)


def claims_no_behaviour_change(intent: str) -> str:
    """The words of ``intent`` that claim a change of form only ('' when it claims none, or also names a
    change of behaviour such as a fix)."""
    claim = _NO_CHANGE_CLAIM.search(intent or "")
    if not claim or _NAMES_BEHAVIOUR.search(_NO_CHANGE_PHRASE.sub("", intent)):
        return ""
    return claim.group(0)


def behaviour_findings(diff: BehaviourDiff, intent: str) -> list[Finding]:
    out = []
    claim = claims_no_behaviour_change(intent)
    for result in diff.results:
        if result.status != "differs" or not result.difference:
            continue
        broken = [c for c in result.docstring if c["old_ok"] and not c["new_ok"]]
        kept = [c for c in result.docstring if c["new_ok"] and not c["old_ok"]]
        if kept and not broken:
            out.append(_finding(result, "info", rule="fixed/behaviour", message=(
                f"{kept[0]['call']} now gives {kept[0]['want']}, as the docstring's example says (before: "
                f"{kept[0]['old']})")))
            continue
        text = _difference_text(result)
        if broken:
            out.append(_finding(result, "high", message=(
                f"{text}; the docstring's example {broken[0]['call']} gives {broken[0]['want']}, which the "
                f"new version no longer does ({broken[0]['new']})")))
        elif claim:
            out.append(_finding(result, "high", message=(
                f"{text}; the change says it is a {claim.lower()}, which must not change what the function "
                "does")))
        elif _both_raise(result.difference):
            out.append(_finding(result, "low", message=text + "; both versions refuse this input, only with "
                                                              "another error: not counted"))
        else:
            out.append(_finding(result, "medium", message=text + "; which is right is for the intent to say",
                                metrics={ASK: 1.0}))
    return out


def _both_raise(difference: dict) -> bool:
    """Both versions raise on the input, only different errors: an input neither accepts (CrossHair's
    symbolic stand-ins often are one) says little about which is right, and a real fix often changes the
    error a bad input gets."""
    return all(str(difference.get(side, "")).startswith("raises") for side in ("old", "new"))


def _difference_text(result: FunctionResult) -> str:
    d = result.difference or {}
    found = {"crosshair": "CrossHair", "hypothesis": "Hypothesis", "docstring": "the docstring's example",
             "tests": "a call in the tests"}.get(d.get("found_by", ""), d.get("found_by", ""))
    return f"`{d['input']}`: before the change it {d['old']}, now it {d['new']} (input found by {found})"


def _finding(result: FunctionResult, severity: str, *, message: str, rule: str = RULE,
             metrics: dict[str, float] | None = None) -> Finding:
    function = result.function
    return Finding(dimension="intent_alignment", source="behaviour", rule=rule, severity=severity,  # type: ignore[arg-type]
                   message=redact(message), file=function.path, line=function.line,
                   end_line=function.end_line,
                   quote=f"def {function.qualname.split('.')[-1]}(...)", confidence=1.0,
                   suggestion="" if rule != RULE else (
                       "if the new behaviour is intended, say so in the commit message and update the "
                       "docstring; otherwise restore the old behaviour for this input"),
                   metrics=metrics or {})


def ask_about_differences(model: ChatModel, findings: list[Finding], diff: BehaviourDiff, intent: str, *,
                          margin: float, timeout: Callable[[], float],
                          progress: Callable[[str], None] = lambda _: None,
                          standing: Sequence[Finding] = ()) -> list[Finding]:
    """``findings`` with every difference that waits for it judged by the model: the same question asked of
    the old outcome and of the new; new − old log-odds below ``-margin`` -> high (the old one is right),
    above ``margin`` -> info, not counted (the new one is); in between, or unreadable, medium. Not asked
    where a finding of ``standing`` already counts high in the same function: the answer could only add a
    second reason to reject (or dismiss this one and leave the other), at two model calls."""
    docs = {(r.function.path, r.function.line): r for r in diff.results}
    out = []
    for finding in findings:
        result = docs.get((finding.file or "", finding.line or 0))
        if finding.rule != RULE or ASK not in finding.metrics or result is None or not result.difference:
            out.append(finding)
            continue
        high = _high_in(result, standing)
        if high is not None:
            out.append(finding.model_copy(update={
                "metrics": {k: v for k, v in finding.metrics.items() if k != ASK},
                "message": f"{finding.message}; the model was not asked: {high.rule or high.source} already "
                           "counts high in this function"}))
            continue
        progress(f"asking which behaviour of {result.function.qualname}() is right")
        logits = {}
        for side in ("old", "new"):
            question = render(PKG, "behaviour_question.j2", intent=redact(intent.strip())[:600],
                              function=result.function.qualname,
                              docstring=redact(result.function.docstring)[:600],
                              call=result.difference["input"], outcome=result.difference[side])
            answer = model.complete([Message.system(render(PKG, "system.j2")), Message.user(question)],
                                    max_tokens=1, temperature=0.0, logprobs=10, timeout=timeout())
            p_yes = yes_probability(answer)
            if p_yes is None:
                break
            p_yes = min(max(p_yes, 1e-4), 1 - 1e-4)
            logits[side] = math.log(p_yes / (1 - p_yes))
        out.append(_judged(finding, logits, margin))
    return out


def _high_in(result: FunctionResult, standing: Sequence[Finding]) -> Finding | None:
    """A counting critical/high finding inside ``result``'s function (not a difference still to be judged)."""
    function = result.function
    for item in standing:
        if (item.file == function.path and function.line <= (item.line or 0) <= function.end_line
                and item.severity in ("critical", "high") and item.counts and ASK not in item.metrics):
            return item
    return None


def _judged(finding: Finding, logits: dict[str, float], margin: float) -> Finding:
    metrics = {k: v for k, v in finding.metrics.items() if k != ASK}
    if len(logits) < 2:
        return finding.model_copy(update={"metrics": metrics, "message": finding.message
                                          + "; the model's answer could not be read: for a person to judge"})
    delta = logits["new"] - logits["old"]
    metrics.update(old_logit=round(logits["old"], 3), new_logit=round(logits["new"], 3),
                   delta=round(delta, 3))
    update = {"metrics": metrics, "confidence": round(1 / (1 + math.exp(max(-50.0, min(50.0, delta)))), 4)}
    odds = f"(log-odds {delta:+.2f})"
    if delta < -margin:  # confidence: P(the old outcome is the right one)
        verdict = {"severity": "high",
                   "message": f"{finding.message}; the model finds the old outcome right {odds}"}
    elif delta > margin:
        verdict = {"severity": "info", "status": "dismissed",
                   "message": f"{finding.message}; the model finds the new outcome right {odds}"}
    else:
        verdict = {"message": f"{finding.message}; the model cannot tell which is right {odds}: for a person "
                              "to judge"}
    return finding.model_copy(update={**update, **verdict})


def ran_the_same(diff: BehaviourDiff | None) -> dict[str, list[tuple[int, int]]]:
    """Per file, the line spans of the functions the behavioural diff ran and found no difference in: there a
    likelihood guess could only be medium (``backed_or_medium``), so it is not worth its model calls."""
    out: dict[str, list[tuple[int, int]]] = {}
    for result in diff.results if diff else []:
        if result.status == "same":
            out.setdefault(result.function.path, []).append((result.function.line, result.function.end_line))
    return out


def open_differences(findings: Sequence[Finding]) -> dict[str, list[tuple[int, int]]]:
    """Per file, the line spans of the functions with a difference that still counts after the model's
    question but is not ``high`` (the question left it open): the only places where a likelihood guess can
    change the decision, since a guess is never high on its own (``backed_or_medium``)."""
    out: dict[str, list[tuple[int, int]]] = {}
    for finding in findings:
        if finding.rule == RULE and finding.counts and finding.severity == "medium" and finding.file:
            line = finding.line or 0
            out.setdefault(finding.file, []).append((line, max(line, finding.end_line or line)))
    return out


def backed_or_medium(finding: Finding, evidence: Sequence[Finding]) -> Finding:
    """A likelihood regression is a guess: never ``high`` on its own. It stays ``high`` only where executed
    evidence backs it: the behavioural diff found a difference in the same function that the model's
    question did not dismiss (two independent signals: the behaviour changed, and the model prefers the old
    text), or a high finding of the deterministic evidence stands on the same line. Otherwise it is
    ``medium``: a reason to look. Measured on real fixes of real projects with the tests off: a guess on
    its own rejected sound fixes as often as it caught reverted ones (docs/review.md, Measured)."""
    if finding.rule != REGRESSION_RULE or finding.severity != "high" or finding.status != "confirmed":
        return finding
    line = finding.line or 0
    for item in evidence:
        if item is finding or item.rule == REGRESSION_RULE or not item.counts or item.file != finding.file:
            continue
        if item.rule == RULE and (item.line or 0) <= line <= max(item.line or 0, item.end_line or 0):
            return finding
        if item.line == line and item.severity in ("critical", "high"):
            return finding
    return finding.model_copy(update={
        "severity": "medium", "message": finding.message + " (a likelihood guess no executed evidence backs: "
                                                           "a reason to look)"})
