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

from acode.review.evidence.behaviour_diff import BehaviourDiff, FunctionResult
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


def ran_the_same(diff: BehaviourDiff | None) -> dict[str, list[tuple[int, int]]]:
    """Per file, the line spans of the functions the behavioural diff ran and found no difference in: there a
    likelihood guess could only be medium (``backed_or_medium``), so it is not worth its model calls."""
    out: dict[str, list[tuple[int, int]]] = {}
    for result in diff.results if diff else []:
        if result.status == "same":
            out.setdefault(result.function.path, []).append((result.function.line, result.function.end_line))
    return out
