"""Ask the model for findings, one dimension at a time (per_dimension) or all at once (single_call).

Every prompt is the same system message and the same shared context, followed by the task (and the
explanation of the answer's JSON schema, ``SCHEMA_AT``): with the embedded backend the context is evaluated
once and then reused from the KV cache, by the other dimensions and by the checks; with a server the
dimension requests may run in parallel. The model's answer is only a list of proposed findings; levels
and the decision are derived later from the findings that survive a check.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from acode.errors import ModelOutputError, ModelTimeoutError
from acode.llm.protocol import ChatModel
from acode.llm.structured import complete_json
from acode.llm.types import InstructionsAt, Message
from acode.prompts import render
from acode.review.change.diff import added_lines
from acode.review.models import ChangedFile

PKG = "acode.review"
# The proposals' JSON schema is explained after the task, not in the system message: the checks (no
# schema) then share the proposal's whole prefix (system prompt and context) and read it from the KV cache.
SCHEMA_AT: InstructionsAt = "end"

TITLES = {
    "intent_alignment": "intent alignment (does it do what was asked?)",
    "code_quality": "code quality (defects and clarity of the added code)",
    "completeness": "completeness (is anything required left undone?)",
    "consistency": "consistency (with the surrounding code and its documentation)",
    "safety": "safety (security and robustness)",
}


class _Slim(BaseModel):
    """Schemas without pydantic's "title" keys: the schema text is part of every prompt."""

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return _strip_titles(super().model_json_schema(*args, **kwargs))


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


class ProposedFinding(_Slim):
    """One proposed finding. Its line is chosen by number among the added lines (the decoding grammar
    only allows those when the backend constrains), and the report quotes that line from the diff."""

    file: str = ""
    line_number: int = Field(ge=0, description="the number shown before an added (+) line")
    line: str = ""  # the quoted text, when a model gives one
    problem: str = Field(max_length=160)
    severity: Literal["high", "medium", "low"]
    suggestion: str = Field(max_length=120)


MAX_LINE_CHOICES = 300  # larger diffs get a plain integer instead of an enum of added lines


class Verdict(_Slim):
    verdict: Literal["APPROVED", "REJECTED"]
    reason: str = Field(max_length=300)


@lru_cache(maxsize=64)
def proposal_model(max_items: int, dimensions: tuple[str, ...] | None = None, min_items: int = 0,
                   lines: tuple[int, ...] | None = None,
                   files: tuple[str, ...] | None = None) -> type[BaseModel]:
    """``{"findings": [...]}`` with ``min_items``..``max_items`` items. Each item names its dimension
    (when ``dimensions``), its file (when several ``files`` are shown) and an added line by number
    (one of ``lines`` when given), then the problem, a severity and a fix."""
    fields: dict[str, Any] = {}
    if dimensions:
        fields["dimension"] = (Literal[dimensions], ...)  # type: ignore[valid-type]
    if files and len(files) > 1:
        fields["file"] = (Literal[files], ...)  # type: ignore[valid-type]
    if lines and len(lines) <= MAX_LINE_CHOICES:
        fields["line_number"] = (Literal[lines],  # type: ignore[valid-type]
                                 Field(description="the number shown before an added (+) line"))
    else:
        fields["line_number"] = (int, ProposedFinding.model_fields["line_number"])
    for name in ("problem", "severity", "suggestion"):
        field = ProposedFinding.model_fields[name]
        fields[name] = (field.annotation, field)
    item = create_model("Finding", __base__=_Slim, **fields)
    # required: an empty object must not read as "no findings"
    return create_model("Findings", __base__=_Slim,
                        findings=(list[item], Field(..., min_length=min_items, max_length=max_items)))


def line_choices(files: list[ChangedFile]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The added line numbers (all files together) and the file names a finding may point at."""
    numbers = sorted({n for f in files for n, _ in added_lines(f.diff)})
    return tuple(numbers), tuple(f.path for f in files if added_lines(f.diff))


@dataclass
class Proposals:
    """Proposed findings per dimension, and the dimensions whose answer could not be read."""

    findings: dict[str, list[ProposedFinding]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)  # dimension -> why


def base_messages(system: str, context_text: str) -> list[Message]:
    return [Message.system(system), Message.user(context_text)]


def with_task(messages: list[Message], task: str) -> list[Message]:
    """The shared messages with ``task`` appended to the last user message (so the prefix is shared)."""
    out = list(messages)
    last = out[-1]
    out[-1] = Message(role=last.role, content=f"{last.content}\n\n{task}")
    return out


def propose(
    model: ChatModel,
    messages: list[Message],
    dimensions: list[str],
    *,
    strategy: str,
    max_findings: int,
    max_tokens: int,
    timeout: Callable[[], float],
    min_findings: int = 0,
    choices: tuple[tuple[int, ...], tuple[str, ...]] = ((), ()),
    stop_on_failure: bool = False,
    parallel: int = 1,
    progress: Callable[[str], None] = lambda _: None,
) -> Proposals:
    """Findings proposed per dimension (or for all in one call); each call's task is appended to ``messages``
    (``with_task``), so every call shares their prefix."""
    out = Proposals()
    if strategy == "single_call":
        output = proposal_model(max_findings, tuple(dimensions), min_findings, *_nonempty(choices))
        task = render(PKG, "single_call.j2", dimensions=[(d, TITLES[d]) for d in dimensions],
                      max_findings=max_findings, candidates=min_findings > 0,
                      several_files=len(choices[1]) > 1)
        progress("asking for findings on all dimensions at once")
        try:
            answer = complete_json(model, with_task(messages, task), output, max_tokens=max_tokens,
                                   timeout=timeout(), instructions_at=SCHEMA_AT)
        except ModelOutputError as exc:
            out.failed = {d: exc.message for d in dimensions}
            return out
        out.findings = {d: [] for d in dimensions}
        for item in answer.findings:  # type: ignore[attr-defined]
            out.findings[item.dimension].append(ProposedFinding(**item.model_dump(exclude={"dimension"})))  # type: ignore[attr-defined]
        return out

    output = proposal_model(max_findings, None, min_findings, *_nonempty(choices))

    def one(dimension: str) -> tuple[str, list[ProposedFinding] | str]:
        progress(f"assessing {dimension.replace('_', ' ')}")
        task = render(PKG, "dimension.j2", name=dimension, title=TITLES[dimension], max_findings=max_findings,
                      candidates=min_findings > 0, several_files=len(choices[1]) > 1)
        try:
            answer = complete_json(
                model, with_task(messages, task), output, max_tokens=max_tokens, timeout=timeout(),
                instructions_at=SCHEMA_AT,
            )
        except ModelOutputError as exc:
            return dimension, exc.message
        return dimension, [ProposedFinding(**item.model_dump()) for item in answer.findings]  # type: ignore[attr-defined]

    if parallel > 1:
        with ThreadPoolExecutor(max_workers=parallel) as pool:
            results = list(pool.map(one, dimensions))
    else:
        results = []
        for dimension in dimensions:
            try:
                results.append(one(dimension))
                if stop_on_failure and isinstance(results[-1][1], str):
                    break  # the caller fails the review anyway: spare the model the other dimensions
            except ModelTimeoutError:
                out.failed.update({d: "timed out" for d in dimensions if d not in dict(results)})
                _collect(out, results)
                raise PartialProposals(out) from None
    _collect(out, results)
    return out


def _nonempty(choices: tuple[tuple[int, ...], tuple[str, ...]]) -> tuple:
    lines, files = choices
    return (lines or None, files or None)


def _collect(out: Proposals, results: list[tuple[str, list[ProposedFinding] | str]]) -> None:
    for dimension, value in results:
        if isinstance(value, str):
            out.failed[dimension] = value
        else:
            out.findings[dimension] = value


class PartialProposals(Exception):
    """The deadline passed while proposing; carries what was proposed so far."""

    def __init__(self, proposals: Proposals):
        super().__init__("timed out while proposing findings")
        self.proposals = proposals


def ask_verdict(model: ChatModel, messages: list[Message], *, timeout: float,
                max_tokens: int) -> Verdict | str:
    """The naive baseline: the model's overall verdict. Returns the reason text when it is unreadable."""
    try:
        return complete_json(model, with_task(messages, render(PKG, "verdict.j2")), Verdict,
                             max_tokens=max_tokens, timeout=timeout)
    except ModelOutputError as exc:
        return exc.message
