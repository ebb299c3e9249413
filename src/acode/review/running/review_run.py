"""What one review shares across its steps: the change, the metered model, the settings, the clock, the
deterministic evidence, the diffs packed for the model and the result being filled. A strategy
(``findings_strategy``, ``verdict_strategy``) reads and fills it;
``service.review_change`` starts and finishes it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, TypeVar

from acode.config.review import PathInstruction, ReviewerSettings
from acode.errors import ModelTimeoutError
from acode.llm.protocol import ChatModel
from acode.llm.types import Message
from acode.prompts import render
from acode.review.change.git_context import read_new_text
from acode.review.change.packing import PackedDiffs, omitted_note, pack_diffs
from acode.review.change.surroundings import Around, related_test_command, surroundings_of
from acode.review.evidence.behaviour.diff import Limits
from acode.review.evidence.dismissed import Dismissal, apply_dismissals, with_fingerprints
from acode.review.evidence.gathering import BehaviourPlan, Evidence, cut_notes, gather_evidence
from acode.review.evidence.locating import locate
from acode.review.evidence.test_runs import SuiteContrast, SuitePlan, plan_test_run
from acode.review.judging.exploring import explore
from acode.review.judging.instructions import instructions_by_files
from acode.review.judging.metered import MeteredModel
from acode.review.judging.proposals import PKG, base_messages, line_choices, proposal_model
from acode.review.judging.time_plan import Pace
from acode.review.models import ChangedFile, Decision, Finding, ReviewContext, ReviewPlan, ReviewResult
from acode.sandbox import find_sandbox
from acode.secrets import redact
from acode.tools.base import ToolRegistry

Progress = Callable[[str], None]
PlanT = TypeVar("PlanT", SuitePlan | None, BehaviourPlan | None)
# Until a strategy decides (every strategy does): what the naive verdict strategy says of no answer.
UNDECIDED = Decision(verdict="REJECTED", strategy="verdict", reasons=[
    "the model's verdict could not be read (not decided yet); it never approves"])


@dataclass
class ReviewRun:
    context: ReviewContext
    model: MeteredModel
    settings: ReviewerSettings
    say: Progress
    started: float
    evidence: Evidence
    around: Around
    system: str
    plan: ReviewPlan
    result: ReviewResult
    model_started: float
    tools: ToolRegistry | None = None  # read-only tools for the model's own look around
    looked: str = ""  # notes of that look around
    # packed on first use: counting tokens needs the model's tokenizer (llama.cpp for the embedded model),
    # and a review whose checks decide must not need a model backend at all
    _packed: PackedDiffs | None = None
    _overhead: int = 0  # prompt tokens besides the diffs
    dismissed: Sequence[Dismissal] = ()  # the team's dismissals, as the base of the change has them

    @classmethod
    def start(cls, context: ReviewContext, model: ChatModel, settings: ReviewerSettings, *,
              run_tests: bool | Literal["auto"], behaviour: bool = False,
              progress: Progress | None, tools: ToolRegistry | None = None,
              tests_ran: Sequence[SuiteContrast] = (), dismissed: Sequence[Dismissal] = ()) -> ReviewRun:
        """The evidence and the packed diffs; the time limit counts from the end of this. ``tests_ran``:
        test runs on both sides the caller made already (evidence like the review's own). ``dismissed``:
        the team's dismissals (evidence.dismissed), read from the base of the change."""
        say = progress or (lambda _: None)
        started = time.monotonic()
        own = getattr(model, "tokens_per_second", None)
        prior = own or (settings.budget.prompt_tokens_per_second, settings.budget.generated_tokens_per_second)
        metered = MeteredModel(model, Pace(*prior, known=own is not None))
        say("looking at the project around the change (callers, tests)")
        around = surroundings_of(context)
        # The tests are code of the change under review: in the sandbox, or as the user only when asked.
        # The related tests first, then the whole suite when they show no difference.
        tests, not_run = plan_test_run(run_tests, [related_test_command(around.tests, settings.test_command),
                                                   related_test_command([], settings.test_command)],
                                       use_sandbox=settings.test_sandbox, related=bool(around.tests))
        behaviour_plan, behaviour_not_run = (plan_behaviour_diff(settings, run_tests, say) if behaviour
                                             else (None, ""))
        tests, behaviour_plan = (_hiding_git_of(context.root, tests),
                                 _hiding_git_of(context.root, behaviour_plan))
        say("collecting evidence (ruff, structural check, secrets" + (", tests" if tests else "")
            + (", behavioural diff)" if behaviour_plan else ")"))
        evidence = gather_evidence(context, tests=tests, test_timeout=settings.test_timeout_seconds,
                                   ran=tests_ran, behaviour=behaviour_plan, tested_by=around.tests,
                                   rules=settings.rules)
        if context.target in ("staged", "uncommitted"):
            evidence.findings = [_advice_before_commit(f) for f in evidence.findings]
        system = render(PKG, "system.j2")
        if not_run and not tests_ran:  # not a part of the review left out (not partial for it): a note
            evidence.tests = {"command": None, "note": not_run, "ran": []}
        plan = ReviewPlan(limit_seconds=settings.timeout_seconds)
        result = ReviewResult(
            decision=UNDECIDED.model_copy(deep=True), evidence=evidence.findings,
            tests=evidence.tests, behaviour=_behaviour_record(evidence, behaviour_not_run),
            model=model.name, target=context.target,
            base_ref=context.base_ref, base_sha=context.base_sha, head_ref=context.head_ref,
            head_sha=context.head_sha, context_hash=context.content_hash(), plan=plan, cut=cut_notes(context),
        )
        run = cls(context=context, model=metered, settings=settings, say=say, started=started,
                  evidence=evidence, around=around, system=system, plan=plan, result=result,
                  model_started=time.monotonic(), tools=tools, dismissed=dismissed)
        run.evidence.findings = run.result.evidence = run.dismiss(evidence.findings)
        return run

    def dismiss(self, findings: list[Finding]) -> list[Finding]:
        """``findings`` placed (a file, and a line where one exists: a broken test at its test function, the
        change as a whole at its first changed file), fingerprinted, and those the team dismissed waived."""
        def read(path: str) -> str | None:
            return read_new_text(self.context, path)

        placed = locate(findings, self.context, self.evidence.tests, read)
        return apply_dismissals(with_fingerprints(placed, read), self.dismissed)

    @property
    def packed(self) -> PackedDiffs:
        """The diffs within the model's window (packed on first use, which counts tokens)."""
        if self._packed is None:
            self._packed, self._overhead = _pack(self.context, self.evidence.findings, self.model,
                                                 self.settings, self.system, self.around.text())
            self.result.packing = self._packed.summary
        return self._packed

    @property
    def overhead(self) -> int:
        """Prompt tokens besides the diffs."""
        _ = self.packed
        return self._overhead

    def remaining(self) -> float:
        """Seconds left before the limit; raises ModelTimeoutError when none are."""
        left = self.model_started + self.settings.timeout_seconds - time.monotonic()
        if left <= 0:
            raise ModelTimeoutError("ACODE-REVIEW-030",
                                    f"the review took longer than {self.settings.timeout_seconds:g} s")
        return left

    def plannable(self) -> float | None:
        """Seconds the plan may still spend (None: no planning)."""
        if not self.settings.budget.enabled:
            return None
        return self.settings.timeout_seconds * self.settings.budget.safety - (
            time.monotonic() - self.model_started)

    def explore(self) -> None:
        """The model's own look at the repository with read-only tools, when configured."""
        tools = self.tools
        if tools is None or not self.settings.lookaround.enabled:
            return
        self.say("looking around the repository")
        lookaround = self.settings.lookaround
        found = explore(self.model, self.messages(), tools, self.context.root,
                            max_calls=lookaround.max_calls, max_result_chars=lookaround.max_result_chars,
                            timeout=self.remaining, progress=self.say)
        self.looked, self.result.tool_calls = found.notes, found.calls

    def messages(self, *, with_callers: bool = False) -> list[Message]:
        """The shared prefix of every model call: system prompt, then the change as context."""
        around = self.around.text() if with_callers else ""
        return base_messages(self.system, context_text(self.context, self.packed, self.evidence.findings,
                                                       self.looked, around, self.settings.instructions))

    def shown_files(self) -> list[ChangedFile]:
        """The files whose diffs the model saw (findings are grounded against these only)."""
        shown = set(self.packed.summary.included)
        return [f for f in self.context.files if f.path in shown]

    def repack(self, token_budget: int, why: str) -> None:
        _ = self.packed  # the overhead is measured with the first packing
        self._packed = pack_diffs(redacted_files(self.context), self.model.count_tokens, token_budget,
                                  over_budget=why)
        self.result.packing = self.packed.summary

    def finish(self) -> ReviewResult:
        self.result.evidence = self.dismiss(self.result.evidence)
        for dimension in self.result.dimensions:
            dimension.findings = self.dismiss(dimension.findings)
        self.result.tokens = self.model.stats
        self.result.duration_seconds = round(time.monotonic() - self.started, 3)
        return self.result


def plan_behaviour_diff(settings: ReviewerSettings, run_tests: bool | Literal["auto"], say: Progress
                        ) -> tuple[BehaviourPlan | None, str]:
    """(the plan, "") or (None, why the behavioural diff does not run). It runs the change's code: in the
    sandbox, or as the user only when they asked to run the change's tests without one."""
    options = settings.behaviour
    if not options.enabled:
        return None, ""
    sandbox, why_not = find_sandbox() if settings.test_sandbox else (None, "reviewer.test_sandbox is off")
    if sandbox is None and run_tests is not True:
        return None, f"not run: it would run without a sandbox ({why_not}); --run-tests runs it anyway"
    limits = Limits(seconds=options.seconds, crosshair_seconds=options.crosshair_seconds,
                    max_functions=options.max_functions, max_examples=options.max_examples,
                    plan_seconds=options.plan_seconds)
    return BehaviourPlan(sandbox, limits, say), ""


def _hiding_git_of(checkout: Path, plan: PlanT) -> PlanT:
    """``plan`` whose sandbox does not show the checkout's git credentials to the change's code."""
    if plan is None or plan.sandbox is None:
        return plan
    return replace(plan, sandbox=plan.sandbox.hiding_git_of(checkout))


def _behaviour_record(evidence: Evidence, not_run: str) -> dict | None:
    if evidence.behaviour is not None:
        return evidence.behaviour.record()
    return {"functions": [], "note": not_run} if not_run else None


_IN_THE_MESSAGE = "in the commit message"


def _advice_before_commit(finding: Finding) -> Finding:
    """Advice to say something in the commit message, for a change whose commit does not exist yet."""
    if _IN_THE_MESSAGE not in finding.suggestion:
        return finding
    return finding.model_copy(update={"suggestion": finding.suggestion.replace(
        _IN_THE_MESSAGE, "in the commit message you are about to write")})


def redacted_files(context: ReviewContext) -> list[ChangedFile]:
    return [f.model_copy(update={"diff": redact(f.diff)}) for f in context.files]


def context_text(context: ReviewContext, packed: PackedDiffs, evidence: list[Finding], looked: str = "",
                 around: str = "", instructions: Sequence[PathInstruction] = ()) -> str:
    """The change as the model steps share it; ``instructions`` (reviewer.instructions): those of the files
    the diffs show, each with its files."""
    shown = packed.summary.included or [f.path for f in context.files]
    return render(
        PKG, "context.j2", intent=redact(context.effective_intent()), commits=context.commits,
        sections={k: redact(v) for k, v in context.sections.items()}, files=context.files,
        omitted=omitted_note(packed.summary),
        evidence=[f for f in evidence if f.file or f.rule.startswith("tests/")], looked=looked,
        around=redact(around), diffs=packed.text or "(no diff could be shown)",
        instructions=instructions_by_files(instructions, shown),
    )


def _pack(context: ReviewContext, evidence: list[Finding], model: ChatModel, settings: ReviewerSettings,
          system: str, around: str = "") -> tuple[PackedDiffs, int]:
    """Diffs within (window - output reserve - everything else in the prompt), and the tokens of everything
    else in the prompt."""
    files = redacted_files(context)
    empty = PackedDiffs("", pack_diffs([], model.count_tokens, 0).summary)
    lines, names = line_choices(files)
    schema = json.dumps(proposal_model(settings.max_findings_per_dimension,
                                       tuple(settings.dimensions.enabled()), 1, lines[:300] or None, names
                                       or None).model_json_schema())
    overhead = sum(model.count_tokens(text) for text in (
        system, schema,
        render(PKG, "single_call.j2", dimensions=[], max_findings=9, candidates=True, several_files=True),
        render(PKG, "dimension.j2", name="code_quality", title="x", max_findings=9, candidates=True,
               several_files=True),
        context_text(context.model_copy(update={"files": files}), empty, evidence, around=around,
                     instructions=settings.instructions),
    )) + 64
    if settings.lookaround.enabled:
        overhead += settings.lookaround.max_calls * settings.lookaround.max_result_chars // 3
    reserve = int(model.context_window * settings.output_reserve)
    budget = max(200, model.context_window - reserve - overhead)
    return pack_diffs(files, model.count_tokens, budget), overhead
