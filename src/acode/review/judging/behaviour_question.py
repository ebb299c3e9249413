"""The one narrow question a model is asked about a behavioural difference (``evidence.behaviour.findings``
left it ``medium``, waiting): which outcome is right — once for the old outcome, once for the new, as the
same yes/no question, so a model that answers "yes" to everything cancels out. A clear preference for the
old one makes it ``high``; without a clear answer it stays ``medium``, for a person to look at. With
``behaviour.judge_votes`` the question is put several ways instead (``behaviour_votes``), and only answers
that agree however it was asked decide. And a
likelihood regression weighed against what running both versions showed (``backed_or_medium``): never
``high`` on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from acode.config.review import PathInstruction
from acode.llm.protocol import ChatModel
from acode.llm.types import Message
from acode.prompts import render
from acode.review.evidence.behaviour.diff import BehaviourDiff, FunctionResult
from acode.review.evidence.behaviour.findings import ASK, RULE
from acode.review.judging.behaviour_votes import Swap, Votes, ask_votes
from acode.review.judging.instructions import instructions_for
from acode.review.judging.proposals import PKG
from acode.review.judging.regression import RULE as REGRESSION_RULE
from acode.review.judging.verification import old_side_confidence, yes_log_odds
from acode.review.models import Finding
from acode.secrets import redact


def ask_about_differences(model: ChatModel, findings: list[Finding], diff: BehaviourDiff, intent: str, *,
                          margin: float, timeout: Callable[[], float],
                          progress: Callable[[str], None] = lambda _: None,
                          standing: Sequence[Finding] = (),
                          instructions: Sequence[PathInstruction] = (), votes: int = 0,
                          vote_margin: float = 0.5, vote_swap: Swap = "consistent",
                          spec_of: Callable[[FunctionResult], str] = lambda _: "") -> list[Finding]:
    """``findings`` with every difference that waits for it judged by the model: the same question asked of
    the old outcome and of the new; new − old log-odds below ``-margin`` -> high (the old one is right),
    above ``margin`` -> info, not counted (the new one is); in between, or unreadable, medium. Not asked
    where a finding of ``standing`` already counts high in the same function: the answer could only add a
    second reason to reject (or dismiss this one and leave the other), at two model calls.
    ``instructions``: the project's (reviewer.instructions); a question is told those of its function's
    file. ``votes`` > 0: instead, the difference is put to the model several ways (``behaviour_votes``:
    that many wordings of "A or B?", each in both orders, beside the yes/no pair) with ``spec_of`` its
    function's specification, and only votes that all lean one way past ``vote_margin`` decide."""
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
        if votes:
            header = {"intent": redact(intent.strip())[:600], "function": result.function.qualname,
                      "path": result.function.path,
                      "instructions": instructions_for(instructions, result.function.path),
                      "docstring": redact(result.function.docstring)[:600], "spec": redact(spec_of(result))}
            asked = ask_votes(model, header=header, call=result.difference["input"],
                              old=result.difference["old"], new=result.difference["new"], wordings=votes,
                              timeout=timeout, swap=vote_swap)
            out.append(_voted(finding, asked, vote_margin))
            continue
        logits = {}
        for side in ("old", "new"):
            question = render(PKG, "behaviour_question.j2", intent=redact(intent.strip())[:600],
                              function=result.function.qualname, path=result.function.path,
                              instructions=instructions_for(instructions, result.function.path),
                              docstring=redact(result.function.docstring)[:600],
                              call=result.difference["input"], outcome=result.difference[side])
            answer = model.complete([Message.system(render(PKG, "system.j2")), Message.user(question)],
                                    max_tokens=1, temperature=0.0, logprobs=10, timeout=timeout())
            said = yes_log_odds(answer)
            if said is None:
                break
            logits[side] = said
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
    update = {"metrics": metrics, "confidence": old_side_confidence(delta)}
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


def _voted(finding: Finding, votes: Votes, margin: float) -> Finding:
    metrics = {k: v for k, v in finding.metrics.items() if k != ASK}
    mean = votes.mean
    metrics.update({f"vote_{name}": value for name, value in votes.votes.items() if value is not None})
    if mean is not None:
        metrics["votes_mean"] = round(mean, 3)
    if votes.position_bias is not None:
        metrics["position_bias"] = votes.position_bias
    update: dict = {"metrics": metrics}
    if mean is not None:  # confidence: P(the old outcome is the right one)
        update["confidence"] = old_side_confidence(mean)
    asked = f"asked {len(votes.votes)} ways ({votes.note()})"
    verdict = votes.verdict(margin)
    if verdict == "old":
        update.update(severity="high", message=f"{finding.message}; the model finds the old outcome right, "
                                               f"every way it was {asked}")
    elif verdict == "new":
        update.update(severity="info", status="dismissed",
                      message=f"{finding.message}; the model finds the new outcome right, every way it was "
                              f"{asked}")
    else:
        update["message"] = (f"{finding.message}; no decision when {asked}: {votes.undecided(margin)}; for a "
                             "person to judge")
    return finding.model_copy(update=update)


def open_differences(findings: Sequence[Finding]) -> dict[str, list[tuple[int, int]]]:
    """Per file, the line spans of the functions with a difference that still counts after the model's
    question but is not ``high`` (the question left it open): the only places where a likelihood guess can
    change the decision, since a guess is never high on its own (``backed_or_medium``)."""
    out: dict[str, list[tuple[int, int]]] = {}
    for finding in findings:
        if finding.rule == RULE and finding.counts and finding.severity == "medium" and finding.file:
            out.setdefault(finding.file, []).append(_function_span(finding))
    return out


def _function_span(difference: Finding) -> tuple[int, int]:
    """The lines of the function a behavioural difference is about (its finding spans the function)."""
    line = difference.line or 0
    return line, max(line, difference.end_line or line)


def backed_or_medium(finding: Finding, evidence: Sequence[Finding]) -> Finding:
    """A likelihood regression is a guess: never ``high`` on its own. It stays ``high`` only where executed
    evidence backs it: the behavioural diff found a difference in the same function that the model's
    question did not dismiss (two independent signals: the behaviour changed, and the model prefers the old
    text), or a high finding of the deterministic evidence stands on the same line. Otherwise it is
    ``medium``: a reason to look. Measured on real fixes of real projects with the tests off: a guess on
    its own rejected sound fixes as often as it caught reverted ones (benchmarks/results/history/)."""
    if finding.rule != REGRESSION_RULE or finding.severity != "high" or finding.status != "confirmed":
        return finding
    line = finding.line or 0
    for item in evidence:
        if item is finding or item.rule == REGRESSION_RULE or not item.counts or item.file != finding.file:
            continue
        first, last = _function_span(item)
        if item.rule == RULE and first <= line <= last:
            return finding
        if item.line == line and item.severity in ("critical", "high"):
            return finding
    return finding.model_copy(update={
        "severity": "medium", "message": finding.message + " (a likelihood guess no executed evidence backs: "
                                                           "a reason to look)"})
