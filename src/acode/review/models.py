"""The data a review reads (ReviewContext) and writes (ReviewResult). Plain pydantic models, so the
pipeline can build a context itself and the store can keep a result as JSON."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from acode.config.review import Level

ChangeType = Literal["added", "modified", "deleted", "renamed", "binary"]
Severity = Literal["critical", "high", "medium", "low", "info"]
FindingSource = Literal["model", "ruff", "structural", "secrets", "risky-call", "tests", "test-command",
                        "types", "history", "behaviour", "rules"]
# waived: dismissed by the team (.acode/review-dismissed.yml); dismissed: did not survive its check
FindingStatus = Literal["confirmed", "dismissed", "ungrounded", "unchecked", "waived"]
Grounding = Literal["changed", "context", "none"]

LEVELS: tuple[Level, ...] = ("excellent", "good", "acceptable", "needs_work", "poor")


def worse(a: Level, b: Level) -> Level:
    return a if LEVELS.index(a) >= LEVELS.index(b) else b


class Commit(BaseModel):
    sha: str
    author: str = ""
    subject: str = ""
    body: str = ""


class ChangedFile(BaseModel):
    path: str
    old_path: str | None = None  # set for renames
    change_type: ChangeType
    additions: int = 0
    deletions: int = 0
    diff: str = ""  # unified diff of this file, possibly cut at max_diff_chars with a marker
    truncated: bool = False
    full_diff: str = ""  # the uncut diff when ``diff`` was cut: the evidence reads every added line

    @property
    def whole_diff(self) -> str:
        """The diff the deterministic evidence reads: never cut (the cut is only for what the model sees)."""
        return self.full_diff or self.diff


class ReviewContext(BaseModel):
    """Everything the reviewer looks at. Built from git (branch, uncommitted changes, a commit) or by the
    pipeline, which adds the request, plan and results as ``sections``."""

    target: Literal["branch", "uncommitted", "staged", "commit", "pipeline"] = "branch"
    root: Path
    base_ref: str = ""
    base_sha: str = ""
    head_ref: str = ""
    head_sha: str = ""
    head_rev: str | None = None  # git revision holding the new file contents; None = the working tree
    intent: str = ""
    commits: list[Commit] = Field(default_factory=list)
    files: list[ChangedFile] = Field(default_factory=list)
    sections: dict[str, str] = Field(default_factory=dict)  # e.g. {"plan": ..., "verification": ...}

    def effective_intent(self) -> str:
        """The stated intent, else what the commit messages say."""
        if self.intent.strip():
            return self.intent.strip()
        return "\n".join(f"{c.subject}\n{c.body}".strip() for c in self.commits).strip()

    def content_hash(self) -> str:
        """Same changes, commits, intent and sections -> same hash (used to reuse a stored review)."""
        payload = {
            "intent": self.intent,
            "commits": [c.model_dump() for c in self.commits],
            "files": [f.model_dump() for f in self.files],
            "sections": self.sections,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class TextEdit(BaseModel):
    """One edit of a fix: 1-based lines and columns (columns count characters), the end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str = ""


class SuggestedFix(BaseModel):
    """A fix the evidence carries (ruff's own), as its edits and as the whole lines it replaces: lines
    ``line``..``end_line`` of the file become ``replacement`` (GitHub's suggestion semantics; empty: the
    lines go). ``file_sha256``: the text the fix was made for, so it is never applied to another."""

    source: Literal["ruff"] = "ruff"
    applicability: Literal["safe", "unsafe", "display-only"]
    message: str = ""
    edits: list[TextEdit] = Field(default_factory=list)
    line: int
    end_line: int
    replacement: str
    file_sha256: str


class Finding(BaseModel):
    dimension: str
    source: FindingSource
    rule: str
    severity: Severity
    message: str
    file: str | None = None
    line: int | None = None
    end_line: int | None = None
    quote: str = ""  # the changed line the finding is about
    suggestion: str = ""
    test: str = ""  # a pytest test that shows it (behaviour: fails on the new code, passes on the old)
    grounding: Grounding = "changed"
    confidence: float | None = None  # P(real defect) from the check question; 1.0 for deterministic evidence
    status: FindingStatus = "confirmed"
    metrics: dict[str, float] = Field(default_factory=dict)  # the numbers a check measured (regression check)
    fingerprint: str = ""  # rule + file + normalised code (evidence.dismissed): what a dismissal names
    fix: SuggestedFix | None = None  # a fix the evidence carries (ruff's): suggestion blocks, `review --fix`

    @property
    def counts(self) -> bool:
        """Confirmed, or unchecked (the check's answer was unreadable: conservative, it counts)."""
        return self.status in ("confirmed", "unchecked")


class DimensionResult(BaseModel):
    name: str
    level: Level | None = None  # None: not assessed (model failure, timeout)
    explanation: str = ""
    findings: list[Finding] = Field(default_factory=list)
    # partial: the time limit passed before the model's part of it was finished; the level is from what was
    # assessed (its checked findings and the deterministic evidence)
    status: Literal["assessed", "partial", "failed", "timeout"] = "assessed"
    error: str = ""


class Decision(BaseModel):
    verdict: Literal["APPROVED", "REJECTED"]
    strategy: str
    reasons: list[str] = Field(default_factory=list)

    @property
    def approved(self) -> bool:
        return self.verdict == "APPROVED"


class TokenStats(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    evaluated: int = 0
    reused: int = 0
    generated: int = 0

    def add(self, usage) -> None:
        self.calls += 1
        self.prompt_tokens += usage.prompt_tokens
        self.evaluated += usage.prompt_tokens_evaluated
        self.reused += usage.prompt_tokens_reused
        self.generated += usage.completion_tokens


class PackingSummary(BaseModel):
    budget_tokens: int = 0
    used_tokens: int = 0
    compacted: bool = False
    included: list[str] = Field(default_factory=list)
    omitted: dict[str, str] = Field(default_factory=dict)  # path -> why (lock, generated, binary, budget ...)


class ReviewPlan(BaseModel):
    """What the review planned to do within its limit, and what it left out (reported with the result)."""

    limit_seconds: float = 0.0
    prompt_tokens_per_second: float = 0.0
    generated_tokens_per_second: float = 0.0
    regions_found: int = 0
    regions_planned: int = 0
    regions_compared: int = 0
    regression_seconds_estimated: float = 0.0
    proposals: bool = True
    diff_tokens: int = 0
    proposal_seconds_estimated: float = 0.0
    skipped: list[str] = Field(default_factory=list)  # each: what was left out and why
    regression_note: str = ""  # why the regression check did not run (not a part left out for time)

    def note_rates(self, prompt_rate: float, generate_rate: float) -> None:
        self.prompt_tokens_per_second = round(prompt_rate, 1)
        self.generated_tokens_per_second = round(generate_rate, 1)


class ReviewResult(BaseModel):
    # complete: the plan was carried out; partial: the time limit passed mid-plan, the decision is made from
    # what was assessed (the plan names what was not); timeout: the model assessed nothing in time
    status: Literal["complete", "partial", "timeout"] = "complete"
    decision: Decision
    dimensions: list[DimensionResult] = Field(default_factory=list)
    evidence: list[Finding] = Field(default_factory=list)
    tests: dict | None = None  # the test runs on both sides of the change (evidence.test_runs) when tests ran
    behaviour: dict | None = None  # the behavioural diff (behaviour_diff): functions compared, not run
    packing: PackingSummary = Field(default_factory=PackingSummary)
    tokens: TokenStats = Field(default_factory=TokenStats)
    model: str = ""
    duration_seconds: float = 0.0
    target: str = ""
    base_ref: str = ""
    base_sha: str = ""
    head_ref: str = ""
    head_sha: str = ""
    context_hash: str = ""
    tool_calls: list[str] = Field(default_factory=list)  # look-around calls made, for the report
    plan: ReviewPlan | None = None  # what the review planned within its time limit and what it left out
    cut: dict[str, str] = Field(default_factory=dict)  # path -> how its diff was cut for the model

    @property
    def approved(self) -> bool:
        return self.decision.approved and self.status != "timeout"

    def all_findings(self) -> list[Finding]:
        """Model findings of every dimension, then the deterministic evidence."""
        return [f for d in self.dimensions for f in d.findings] + list(self.evidence)


def nothing_to_review(why: str, target: str, base: str = "") -> ReviewResult:
    """The report of a review that found no change (a hook on an empty commit, a push of the base itself):
    approved, no findings, the reason as its one line, so a CI job's report file exists and parses.
    ``target``: staged, uncommitted, commit or branch."""
    return ReviewResult(decision=Decision(verdict="APPROVED", strategy="nothing_to_review",
                                          reasons=[f"nothing to review: {why}"]),
                        target=target, head_ref="HEAD" if target == "branch" else "", base_ref=base)
