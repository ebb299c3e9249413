"""Metrics over stored run summaries: approval rate, cycles per task, the most common issue categories."""

from __future__ import annotations

from collections import Counter
from typing import Any


def compute_metrics(summaries: list[dict[str, Any]], top: int = 5) -> dict[str, Any]:
    finished = [s for s in summaries if s["status"] not in ("running", "interrupted")]
    approved = [s for s in finished if s["status"] == "approved"]
    overridden = [s for s in approved if s.get("override")]
    first_pass = [s for s in approved if s["cycles"] == 1 and not s.get("override")]
    cycles = [s["cycles"] for s in finished]
    categories: Counter[str] = Counter()
    for summary in summaries:
        for review in summary.get("reviews", []):
            if review["decision"] == "REJECTED":
                categories.update(d or "unspecified" for d in review["issue_dimensions"])
    statuses = Counter(s["status"] for s in summaries)
    return {
        "runs": len(summaries),
        "finished": len(finished),
        "approval_rate": _ratio(len(approved), len(finished)),
        "approved_without_override": len(approved) - len(overridden),
        "overridden": len(overridden),
        "first_cycle_approval_rate": _ratio(len(first_pass), len(finished)),
        "cycles_per_task": round(sum(cycles) / len(cycles), 2) if cycles else None,
        "max_cycles_seen": max(cycles) if cycles else None,
        "statuses": dict(statuses),
        "common_issue_categories": [{"category": c, "count": n} for c, n in categories.most_common(top)],
    }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None
