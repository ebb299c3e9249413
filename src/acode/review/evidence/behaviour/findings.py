"""From the behavioural diff to findings. A difference is a fact; whether it is wrong depends on what the
change meant to do:
- under a message that claims no behaviour change (refactor, rename, tidy, clean up, simplify) it is
  ``high``: such a change must show no difference at all;
- where the new version no longer gives a docstring example's output (and the old one did), ``high``;
  where it now gives one the old version did not, the change does what its documentation says:
  ``fixed/behaviour`` (it confirms the change, as a fixed test does);
- where both versions raise, only different errors, it is ``low``: shown, not counted;
- otherwise it is ``medium`` and waits (``ASK``) for the model's question (``judging.behaviour_question``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acode.review.evidence.behaviour.diff import BehaviourDiff, FunctionResult
from acode.review.models import Finding
from acode.secrets import redact

RULE = "behaviour/changed"
WITHHELD = "behaviour/withheld"  # the change made its function impossible to run (``withheld``)
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


@dataclass(frozen=True)
class IntentVerdict:
    """What the change's intent says about behaviour, however it was read: ``no_change`` the words that
    promise no change of behaviour ('' when it promises none), ``asks_change`` whether it asks for one (None:
    not known), ``source`` who read it (``words``: the word list below; a model's yes/no answer plugs in
    here)."""

    no_change: str = ""
    asks_change: bool | None = None
    source: str = "words"


def intent_verdict(intent: str) -> IntentVerdict:
    """Today's reading of an intent: the word list (``claims_no_behaviour_change``)."""
    claim = claims_no_behaviour_change(intent)
    return IntentVerdict(no_change=claim, asks_change=False if claim else None)


def weigh_difference(result: FunctionResult, verdict: IntentVerdict) -> Finding:
    """Whether one found difference counts, given what the intent says: the one place that decides it, for
    every kind of difference (a value, a new exception, a hang, a call sequence, a docstring example).
    A broken docstring example is ``high``; one the change now satisfies confirms it (``fixed/behaviour``);
    under an intent that promises no behaviour change any difference is ``high``; a difference where both
    versions raise is ``low``; otherwise ``medium``, waiting (``ASK``) for the model's question."""
    broken = [c for c in result.docstring if c["old_ok"] and not c["new_ok"]]
    kept = [c for c in result.docstring if c["new_ok"] and not c["old_ok"]]
    if kept and not broken:
        return _finding(result, "info", rule="fixed/behaviour", message=(
            f"{kept[0]['call']} now gives {kept[0]['want']}, as the docstring's example says (before: "
            f"{kept[0]['old']})"))
    text = _difference_text(result)
    if broken:
        return _finding(result, "high", message=(
            f"{text}; the docstring's example {broken[0]['call']} gives {broken[0]['want']}, which the new "
            f"version no longer does ({broken[0]['new']})"))
    if verdict.no_change:
        promise = (f"the change says it is a {verdict.no_change.lower()}" if verdict.source == "words"
                   else f"the request asks for no change of behaviour ({verdict.no_change})")
        return _finding(result, "high", message=f"{text}; {promise}, which must not change what the function "
                                                "does")
    if _both_raise(result.difference or {}):
        return _finding(result, "low", message=text + "; both versions refuse this input, only with another "
                                                      "error: not counted")
    return _finding(result, "medium", message=text + "; which is right is for the intent to say",
                    metrics={ASK: 1.0})


def behaviour_findings(diff: BehaviourDiff, intent: str | IntentVerdict) -> list[Finding]:
    verdict = intent if isinstance(intent, IntentVerdict) else intent_verdict(intent)
    return [weigh_difference(result, verdict) for result in diff.results
            if result.status == "differs" and result.difference] + [
        _finding(result, "high", rule=WITHHELD, message=(
            f"{result.function.qualname}() could not be compared: with the change "
            f"{result.why.removeprefix('with the change: ')}, on the base it imported; evidence the change "
            "makes unavailable counts against it"))
        for result in diff.results if result.withheld]


def reweigh(findings: list[Finding], diff: BehaviourDiff | None, verdict: IntentVerdict) -> list[Finding]:
    """``findings`` with the behavioural diff's weighed again under another reading of the intent (a model's
    answer that came after the evidence was gathered)."""
    if diff is None:
        return findings
    return [f for f in findings if f.source != "behaviour"] + behaviour_findings(diff, verdict)


def _both_raise(difference: dict) -> bool:
    """Both versions raise on the input, only different errors: an input neither accepts (CrossHair's
    symbolic stand-ins often are one) says little about which is right, and a real fix often changes the
    error a bad input gets."""
    return all(str(difference.get(side, "")).startswith("raises") for side in ("old", "new"))


_FOUND_BY = {"crosshair": "CrossHair", "hypothesis": "Hypothesis", "docstring": "the docstring's example",
             "tests": "a call in the tests", "sequence": "a call sequence on one object",
             "doctest": "the docstring examples run as doctests", "time box": "the child's time box"}


def _difference_text(result: FunctionResult) -> str:
    d = result.difference or {}
    found = _FOUND_BY.get(d.get("found_by", ""), d.get("found_by", ""))
    return f"`{d['input']}`: before the change it {d['old']}, now it {d['new']} (input found by {found})"


def _finding(result: FunctionResult, severity: str, *, message: str, rule: str = RULE,
             metrics: dict[str, float] | None = None) -> Finding:
    function = result.function
    test = (result.difference or {}).get("test") or ""
    return Finding(test="" if rule != RULE or test.startswith("#") else test,  # '# no test: why'
                   dimension="intent_alignment", source="behaviour", rule=rule, severity=severity,  # type: ignore[arg-type]
                   message=redact(message), file=function.path, line=function.line,
                   end_line=function.end_line,
                   quote=f"def {function.qualname.split('.')[-1]}(...)", confidence=1.0,
                   suggestion="" if rule != RULE else (
                       "if the new behaviour is intended, say so in the commit message and update the "
                       "docstring; otherwise restore the old behaviour for this input"),
                   metrics=metrics or {})


def ran_the_same(diff: BehaviourDiff | None) -> dict[str, list[tuple[int, int]]]:
    """Per file, the line spans of the functions the behavioural diff ran and found no difference in: there a
    likelihood guess could only be medium (``backed_or_medium``), so it is not worth its model calls."""
    out: dict[str, list[tuple[int, int]]] = {}
    for result in diff.results if diff else []:
        if result.status == "same":
            out.setdefault(result.function.path, []).append((result.function.line, result.function.end_line))
    return out
