"""Turn proposed findings into checked findings.

1. Grounding: the quoted line must be a line of the diff (an added line, or unchanged context); a finding
   that quotes nothing in the change is kept in the report as "ungrounded" and never counts.
2. Checking: each grounded finding gets a separate, narrow yes/no question ("is this line really
   wrong?"). The probability of "yes" (from the answer token's logprobs; 1/0 from the text when the
   backend gives none) is the finding's confidence. An answer that is neither yes nor no leaves the
   finding "unchecked", which counts against the change: an unreadable answer never approves.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable

from acode.llm.protocol import ChatModel
from acode.llm.types import Completion, Message
from acode.prompts import render
from acode.review.change.diff import parse_diff
from acode.review.judging.proposals import PKG, ProposedFinding, with_task
from acode.review.models import ChangedFile, Finding
from acode.secrets import redact

_SPACE = re.compile(r"\s+")


_NUMBERED = re.compile(r"^\s*(?:L|line\s*)?(\d+)\s*[:|.]?\s*(.*)$", re.IGNORECASE)


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text.strip().lstrip("+").strip())


def _split_number(quote: str) -> tuple[int | None, str]:
    """Quotes may carry the line number the diff showed ("15 +  x = 1", "line 15", "15")."""
    match = _NUMBERED.match(quote)
    if match:
        return int(match.group(1)), _norm(match.group(2))
    return None, _norm(quote)


def ground(quote: str, files: list[ChangedFile], number: int | None = None, file: str = ""
           ) -> tuple[str | None, int | None, str, str]:
    """(file, new line number, "changed" | "context" | "none", the line's text) of the diff line a
    finding is about: by the quoted text (exact, contained, or nearly equal; the given or quoted line
    number breaks ties), else by the line number alone."""
    quoted_number, wanted = _split_number(quote)
    number = number if number else quoted_number
    rows: list[tuple[str, int, str, str, str]] = []  # (file, line, kind, normalised text, text)
    for changed in files:
        for hunk in parse_diff(changed.diff).hunks:
            for line in hunk.lines:
                if line.new_no is not None and _norm(line.text):
                    kind = "changed" if line.kind == "+" else "context"
                    rows.append((changed.path, line.new_no, kind, _norm(line.text), line.text.strip()))
    rows.sort(key=lambda r: (bool(file) and r[0] != file, r[1] != number, r[2] != "changed"))
    if wanted and not wanted.isdigit():
        for matches in (
            lambda text: text == wanted,
            lambda text: len(wanted) >= 6 and (wanted in text or (len(text) >= 6 and text in wanted)),
            lambda text: difflib.SequenceMatcher(None, text, wanted).ratio() >= 0.85,
        ):
            for path, line_no, kind, text, raw in rows:
                if matches(text):
                    return path, line_no, kind, raw
    if number is not None:
        for path, line_no, kind, _, raw in rows:
            if line_no == number:
                return path, line_no, kind, raw
    return None, None, "none", ""


def answer_share(completion: Completion, option: str, other: str) -> float | None:
    """P(option) / (P(option) + P(other)) over the first answer token's log-probabilities (the token and its
    alternatives, lower-cased words); None without log-probabilities or when neither word is among them."""
    if not completion.logprobs:
        return None
    first = completion.logprobs[0]
    candidates = dict(first.top)
    candidates.setdefault(first.token, first.logprob)
    mass = {key: sum(math.exp(lp) for tok, lp in candidates.items() if tok.strip().lower() == key)
            for key in (option, other)}
    total = mass[option] + mass[other]
    return mass[option] / total if total > 0 else None


def yes_probability(completion: Completion) -> float | None:
    """P(yes) / (P(yes) + P(no)) at the first answer token; from the text when there are no logprobs."""
    share = answer_share(completion, "yes", "no")
    if share is not None:
        return share
    word = re.match(r"\W*(\w+)", completion.text or "")
    if word and word.group(1).lower() == "yes":
        return 1.0
    if word and word.group(1).lower() == "no":
        return 0.0
    return None


def log_odds(probability: float) -> float:
    """The log-odds of ``probability``, kept within about ±9.2 (a certain answer is not infinitely sure)."""
    probability = min(max(probability, 1e-4), 1 - 1e-4)
    return math.log(probability / (1 - probability))


def yes_log_odds(completion: Completion) -> float | None:
    """The log-odds of "yes" in ``completion`` (``yes_probability``), None when the answer cannot be read."""
    p_yes = yes_probability(completion)
    return None if p_yes is None else log_odds(p_yes)


def old_side_confidence(new_minus_old: float) -> float:
    """P(the old version is the right one) from the new − old log-odds, as a finding's confidence."""
    return round(1 / (1 + math.exp(max(-50.0, min(50.0, new_minus_old)))), 4)


def check_findings(
    model: ChatModel,
    messages: list[Message],
    proposed: dict[str, list[ProposedFinding]],
    files: list[ChangedFile],
    *,
    confirm_at: float,
    count_context: bool,
    timeout: Callable[[], float],
    progress: Callable[[str], None] = lambda _: None,
    on_checked: Callable[[Finding], None] = lambda _: None,
) -> dict[str, list[Finding]]:
    """Grounded and checked findings per dimension (ModelTimeoutError propagates; ``on_checked`` has
    already seen every finding finished before it)."""
    asked: dict[tuple[str | None, int | None, str], float | None] = {}
    out: dict[str, list[Finding]] = {}
    total = sum(len(items) for items in proposed.values())
    done = 0
    for dimension, items in proposed.items():
        out[dimension] = []
        for item in items:
            path, line, grounding, text = ground(item.line, files, item.line_number, item.file)
            finding = Finding(
                dimension=dimension, source="model", rule=f"review/{dimension}", severity=item.severity,
                message=redact(item.problem), suggestion=redact(item.suggestion),
                quote=redact(text or item.line.strip()),
                file=path, line=line, end_line=line, grounding=grounding,  # type: ignore[arg-type]
            )
            done += 1
            if grounding == "none" or (grounding == "context" and not count_context):
                finding.status = "ungrounded"
            else:
                progress(f"checking finding {done}/{total}")
                key = (path, line, _norm(item.problem).lower())
                if key not in asked:
                    question = render(PKG, "check.j2", file=path or "", line=line, quote=text,
                                      problem=item.problem)
                    answer = model.complete(with_task(messages, question), max_tokens=1, temperature=0.0,
                                            logprobs=10, timeout=timeout())
                    asked[key] = yes_probability(answer)
                confidence = asked[key]
                finding.confidence = None if confidence is None else round(confidence, 4)
                if confidence is None:
                    finding.status = "unchecked"
                else:
                    finding.status = "confirmed" if confidence >= confirm_at else "dismissed"
            out[dimension].append(finding)
            on_checked(finding)
    return out
