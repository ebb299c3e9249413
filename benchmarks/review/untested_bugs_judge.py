"""How the model judged the behavioural differences it was asked about in ``untested_bugs`` records (issue
49): per half and source, the differences asked, what the judge decided (``old`` right: the difference
counts high; ``new`` right: dismissed; ``none``: left open), how many of its decisions were right
(``old`` on a bug, ``new`` on a sound change), and how often its lean pointed the right way whatever its
size (the sign of the yes/no pair's new − old log-odds, or of the votes' mean): what a margin could make
of it; and what the one pair alone (at margin 1.0), and the votes with the swap cancelled (at margin 0),
would have decided from the same answers.

    python benchmarks/review/untested_bugs.py --summarise records.jsonl     # "judge" is part of the report
"""

from __future__ import annotations

PAIR_MARGIN = 1.0  # reviewer.behaviour.question_margin's default


def asked(row: dict) -> list[dict]:
    """The differences of ``row`` the model's outcome question (one pair, or the votes) answered."""
    out = []
    for finding in row["findings"]:
        metrics = finding.get("metrics") or {}
        lean = metrics.get("votes_mean", metrics.get("delta"))
        if finding.get("rule") != "behaviour/changed" or lean is None:
            continue
        decided = ("old" if finding["severity"] in ("critical", "high")
                   else "new" if finding.get("status") == "dismissed" else "none")
        right_side = "old" if row["expected"] == "REJECTED" else "new"
        pair = metrics.get("vote_yes_no", metrics.get("delta"))  # the one yes/no pair, alone
        out.append({"name": row["name"], "file": finding.get("file"), "line": finding.get("line"),
                    "decided": decided, "right": None if decided == "none" else decided == right_side,
                    "lean_right": (lean < 0) == (right_side == "old") if lean else None,
                    "pair_alone": _alone(pair, right_side),
                    "cancelled_at_0": _cancelled(metrics, right_side),
                    "lean": lean, "votes": {k.removeprefix("vote_"): v for k, v in metrics.items()
                                            if k.startswith("vote_")}})
    return out


def _alone(pair: float | None, right_side: str) -> str:
    """What the one yes/no pair would decide on its own at the default margin (``question_margin``, 1.0):
    right, wrong or none."""
    if pair is None or abs(pair) <= PAIR_MARGIN:
        return "none"
    return "right" if (pair < 0) == (right_side == "old") else "wrong"


def _cancelled(metrics: dict, right_side: str) -> str:
    """What the recorded votes would decide with ``judge_swap: cancelled`` at margin 0 (right, wrong or
    none; '' for a record without votes in both orders)."""
    from acode.review.judging.behaviour_votes import Votes

    votes = Votes({k.removeprefix("vote_"): v for k, v in metrics.items() if k.startswith("vote_")},
                  swap="cancelled")
    if not any(name.endswith("_old_first") for name in votes.votes):
        return ""
    verdict = votes.verdict(0.0)
    return "none" if verdict is None else "right" if verdict == right_side else "wrong"


def _tally(items: list[dict]) -> dict:
    return {"asked": len(items),
            "decided_old": sum(i["decided"] == "old" for i in items),
            "decided_new": sum(i["decided"] == "new" for i in items),
            "no_decision": sum(i["decided"] == "none" for i in items),
            "decisions_right": sum(i["right"] is True for i in items),
            "decisions_wrong": sum(i["right"] is False for i in items),
            "lean_right": sum(i["lean_right"] is True for i in items),
            "lean_wrong": sum(i["lean_right"] is False for i in items),
            "pair_alone_right": sum(i["pair_alone"] == "right" for i in items),
            "pair_alone_wrong": sum(i["pair_alone"] == "wrong" for i in items),
            "cancelled_at_0_right": sum(i["cancelled_at_0"] == "right" for i in items),
            "cancelled_at_0_wrong": sum(i["cancelled_at_0"] == "wrong" for i in items)}


def judged(rows: list[dict]) -> dict:
    items = {id(row): asked(row) for row in rows}
    out: dict = {}
    for half in dict.fromkeys(r["half"] for r in rows):
        for source in dict.fromkeys(r["source"] for r in rows if r["half"] == half):
            out[f"{half}, {source}"] = _tally([i for r in rows if (r["half"], r["source"]) == (half, source)
                                               for i in items[id(r)]])
    out["differences"] = [i for r in rows for i in items[id(r)]]
    return out
