"""How a review spends its time: a plan made to the limit, from the model's measured speed.

The model part of a review has ``reviewer.timeout_seconds``. Its work comes in two stages, in order of
what they are worth:

1. the regression check (old vs new of each small edit; the measured signal of the gate);
2. the proposals and their checks (one prompt with the change's diffs, then one yes/no question per
   proposed finding, which reuses the context the proposal read: see ``CONTEXT_TAIL_TOKENS``).

Before each stage the review estimates its cost in seconds from token counts and the model's speed —
prompt tokens per second and generated tokens per second, measured on the calls already made in this
review (``Pace``), starting from ``reviewer.budget`` priors — and keeps only what fits: the regions to
compare (the most informative first) within ``budget.regression_share`` of the limit, then the diffs
shown to the proposals cut to what the rest of the time can read, or the proposals left out when not even
``budget.min_diff_tokens`` of diff fit. Everything left out is named in the result's plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from acode.llm.types import Usage

CHECK_QUESTION_TOKENS = 90  # the yes/no question about one finding, besides the shared context
# The checks share the proposal's whole prefix (system prompt and context); the KV cache reuses it in whole
# 64-token chunks, so the first check reads at most the context's last partial chunk again.
CONTEXT_TAIL_TOKENS = 64
# one proposed finding as JSON: keys, a line number, a problem (<= 160 chars), a fix (<= 120)
FINDING_TOKENS = 70


@dataclass
class Pace:
    """Prompt and generation speed, measured on this review's calls (priors until there is a measure)."""

    prompt_prior: float
    generate_prior: float
    calls: list[tuple[int, int, float]] = field(default_factory=list)  # (evaluated, generated, seconds)
    known: bool = False  # the priors are the model's own figures (no need to measure before planning)

    @property
    def measured(self) -> bool:
        return self.known or bool(self.calls)

    def observe(self, usage: Usage) -> None:
        if usage.seconds > 0:
            self.calls.append((usage.prompt_tokens_evaluated, usage.completion_tokens, usage.seconds))

    def prompt_rate(self) -> float:
        scored = [(e, s) for e, g, s in self.calls if g == 0 and e >= 16]
        if scored:
            return max(1.0, sum(e for e, _ in scored) / max(1e-3, sum(s for _, s in scored)))
        mixed = [(e, g, s) for e, g, s in self.calls if e >= 16]
        if mixed:  # prompt time = total time - generation at the prior speed
            rest = sum(max(0.2 * s, s - g / self.generate_prior) for _, g, s in mixed)
            return max(1.0, sum(e for e, _, _ in mixed) / max(1e-3, rest))
        return self.prompt_prior

    def generate_rate(self) -> float:
        made = [(e, g, s) for e, g, s in self.calls if g >= 4]
        if not made:
            return self.generate_prior
        p = self.prompt_rate()
        rest = sum(max(0.2 * s, s - e / p) for e, _, s in made)
        return max(0.5, sum(g for _, g, _ in made) / max(1e-3, rest))

    def seconds(self, evaluated: int, generated: int = 0) -> float:
        return evaluated / self.prompt_rate() + generated / self.generate_rate()


def expected_answer_tokens(findings: int, cap: int) -> int:
    """Tokens a proposal answer of ``findings`` findings takes (the cap when that is less)."""
    return min(cap, 20 + FINDING_TOKENS * findings)


def proposal_seconds(pace: Pace, context_tokens: int, *, answer_tokens: int, findings: int, calls: int = 1,
                     task_tokens: int = 150) -> float:
    """Proposals (the context once, each call's task and answer) plus the checks of ``findings`` findings
    (the context's last partial chunk once more, a short question and a one-token answer each)."""
    evaluated = context_tokens + calls * task_tokens + CONTEXT_TAIL_TOKENS + findings * CHECK_QUESTION_TOKENS
    return pace.seconds(evaluated, calls * answer_tokens + findings)


def diff_tokens_for(pace: Pace, seconds: float, overhead_tokens: int, *, answer_tokens: int, findings: int,
                    calls: int = 1, task_tokens: int = 150) -> int:
    """The most diff tokens the proposals and their checks can read in ``seconds`` (may be negative)."""
    fixed = proposal_seconds(pace, overhead_tokens, answer_tokens=answer_tokens, findings=findings,
                             calls=calls, task_tokens=task_tokens)
    # every diff token is read once, by the proposal prompt (the checks reuse it)
    return int((seconds - fixed) * pace.prompt_rate())
