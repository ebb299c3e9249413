"""The human at the gate. Policy ``reviewer.human_review``: auto (the reviewer decides), prompt (ask when
interactive), require (always ask; non-interactive runs stop with exit 51 unless --approve). A rejection
is overridden only explicitly: a yes to "Override review rejection?" plus a reason, or
--override-reason. Every choice is logged in the event log and the audit log."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from acode.pipeline import gitops
from acode.pipeline.events import now_iso
from acode.pipeline.models import HumanDecision
from acode.pipeline.stops import HumanDeclined, RunError
from acode.pipeline.summary import build_summary, render_summary
from acode.secrets import redact, redact_data
from acode.store.audit import AuditLog

if TYPE_CHECKING:
    from acode.pipeline.stages import RunContext

Policy = Literal["auto", "prompt", "require"]
MAX_REASON_ASKS = 3


def require_reason(reason: str | None) -> str | None:
    """A given --override-reason must say something."""
    if reason is not None and not reason.strip():
        raise RunError(
            "ACODE-RUN-011",
            "--override-reason is empty",
            hint='say why the rejection is overridden, e.g. --override-reason "reviewed by hand; false '
                 'positive"',
            exit_code=2,
        )
    return reason


@dataclass
class HumanGate:
    policy: Policy = "auto"
    interactive: bool = False
    approve_flag: bool = False
    override_reason: str | None = None
    console: Console = field(default_factory=Console)
    ask: Callable[[str], str] | None = None  # reads one answer; default: the console

    def __post_init__(self) -> None:
        require_reason(self.override_reason)

    def _ask(self, prompt: str) -> str:
        try:
            if self.ask is not None:
                return self.ask(prompt).strip()
            return self.console.input(escape(prompt)).strip()  # "[y/N]" is not rich markup
        except EOFError:
            return ""

    # -- after an APPROVED review ---------------------------------------------------------------
    def final_gate(self, ctx: RunContext) -> None:
        """Return to approve; raise HumanDeclined to stop with exit 51."""
        if self.policy == "auto" or (self.policy == "prompt" and not self.interactive):
            return
        if not self.interactive:  # require, nobody to ask
            if self.approve_flag:
                self._record(ctx, "approve", "flag")
                return
            self._record(
                ctx, "reject", "policy", "reviewer.human_review is 'require' and no one can be asked"
            )
            raise HumanDeclined(
                "reviewer.human_review is 'require' but the run is not interactive; pass --approve to accept"
            )
        self._show_summary(ctx)
        while True:
            choice = self._ask("[A]pprove [R]eject [V]iew changes [D]etails: ").lower()[:1]
            if choice == "a":
                self._record(ctx, "approve", "prompt")
                return
            if choice == "r":
                self._record(ctx, "reject", "prompt")
                raise HumanDeclined("rejected by the human reviewer")
            if choice == "v":
                self._show_diff(ctx)
            elif choice == "d":
                self._show_details(ctx)

    # -- after a rejection at the cycle limit, or a review timeout -----------------------------
    def escalate(self, ctx: RunContext, why: str) -> bool:
        """True when the human overrides ``why`` (a rejection or a timeout) with a reason."""
        reason = self.override_reason
        if reason:
            self._override(ctx, reason, "flag")
            return True
        if not self.interactive:
            return False
        self._show_summary(ctx)
        self.console.print(f"[bold red]{why}[/]")
        if self._ask("Override review rejection? [y/N] ").lower() not in ("y", "yes"):
            self._record(ctx, "decline_override", "prompt")
            return False
        for _ in range(MAX_REASON_ASKS):
            reason = self._ask("Reason for the override (required): ")
            if reason:
                self._override(ctx, reason, "prompt")
                return True
            self.console.print("[red]An override needs a reason; an empty one is refused.[/]")
        self._record(ctx, "decline_override", "prompt", "no reason given")
        return False

    # -- records -------------------------------------------------------------------------------
    def _record(self, ctx: RunContext, choice: str, via: str, reason: str = "") -> None:
        decision = HumanDecision(at=now_iso(), choice=choice, via=via, reason=redact(reason))  # type: ignore[arg-type]
        ctx.state.human.append(decision)
        ctx.events.emit("human_decision", **decision.model_dump())
        if ctx.db_path is not None:
            AuditLog(ctx.db_path).append(
                "human_decision",
                ctx.state.session_id,
                choice,
                reason=decision.reason,
                review=self._review(ctx),
            )
        ctx.save_state()

    def _override(self, ctx: RunContext, reason: str, via: str) -> None:
        review = self._review(ctx)
        ctx.state.override = {
            "reason": redact(reason),
            "at": now_iso(),
            "via": via,
            "rejected_decision": review["decision"] if review else None,
        }
        ctx.state.human.append(
            HumanDecision(at=ctx.state.override["at"], choice="override", via=via, reason=redact(reason))
        )  # type: ignore[arg-type]
        ctx.events.emit("override", **ctx.state.override, review=review)
        if ctx.db_path is not None:
            AuditLog(ctx.db_path).append(
                "override", ctx.state.session_id, "override", reason=redact(reason), review=review
            )
        ctx.save_state()

    @staticmethod
    def _review(ctx: RunContext) -> dict | None:
        review = ctx.state.last_review
        return redact_data(review.model_dump(mode="json")) if review else None

    # -- showing things --------------------------------------------------------------------------
    def _show_summary(self, ctx: RunContext) -> None:
        render_summary(build_summary(ctx.state, ctx.root), self.console)

    def _show_diff(self, ctx: RunContext) -> None:
        diff = redact(gitops.diff_since(ctx.root, ctx.state.start_commit)) or "(no changes)"
        self.console.print(Syntax(diff, "diff", word_wrap=True))

    def _show_details(self, ctx: RunContext) -> None:
        state = ctx.state
        if state.plan:
            self.console.print(f"[bold]Plan v{len(state.plans)}[/] {state.plan.summary}")
            for n, step in enumerate(state.plan.steps, 1):
                self.console.print(f"  {n}. {step.description}")
        for result in state.step_results:
            self.console.print(f"  {result.label}: {result.status} {', '.join(result.files_changed)}")
        if state.verifications:
            for check in state.verifications[-1].checks:
                mark = "skipped" if check.skipped else ("passed" if check.passed else "FAILED")
                self.console.print(f"  check {check.command}: {mark}")
        review = state.last_review
        if review:
            for issue in review.issues:
                self.console.print(
                    f"  [{issue.dimension}] {issue.file}:{issue.lines} {issue.message} {issue.suggestion}"
                )
