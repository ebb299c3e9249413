"""The ReAct loop: reason (one model call) -> act (its tool calls) -> observe (their results), until the
model answers without a tool call. A reusable service: no CLI, no settings lookups, no printing.

A user prompt first passes ``on_user_prompt`` (may replace it or refuse it). Then each turn, for the
middlewares in order: ``before_model`` -> model call -> ``after_model`` -> per tool
call: approval, ``before_tool``, run, ``after_tool`` -> and, on a plain answer, ``on_final_answer``
(which may send a follow-up user message and keep going). ``on_session_start`` / ``on_session_end``
wrap a session (``start`` / ``end``; ``run`` does all three for one-shot use).

Leaving early is an ``AgentStop`` (limits, Ctrl-C, a middleware's stop); every path returns an
``AgentResult`` and leaves the history consistent, so the session can be resumed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from acode.agent.approval.policy import ApprovalPolicy
from acode.agent.loop.middleware import AgentState, Middleware
from acode.agent.loop.model_reply import interpret
from acode.agent.loop.observer import LoopObserver, Observers
from acode.agent.loop.open_calls import cancel_open_calls
from acode.agent.loop.outcome import ActionNotDone, ChangeNotMade, unmade_change
from acode.agent.loop.result import AgentResult, ModelStep, ToolStep
from acode.agent.loop.solver_door import SolverDoor
from acode.agent.loop.step_guidance import StepGuide
from acode.agent.loop.stops import (
    AgentStop,
    FormatErrorLimitReached,
    TimeLimitReached,
    TurnLimitReached,
    UserInterrupted,
)
from acode.agent.loop.tool_runner import PreparedCall, ToolRunner
from acode.errors import ModelError, ModelOutputError, ModelTimeoutError
from acode.llm.protocol import ChatModel
from acode.llm.types import Completion, Message, ToolCall
from acode.tools.base import ToolContext, ToolRegistry, ToolResult, TurnInterrupted

ModelCall = tuple[Completion, str | None, float]  # the completion, a format problem, seconds


class Solver(Protocol):
    """A strategy tried before the ReAct cycle for a new prompt (test-driven fixing). It works only through
    its door (acode.agent.loop.solver_door); None means "not for this prompt": the cycle runs."""

    def solve(self, door: SolverDoor, request: str) -> str | None: ...


@dataclass
class LoopConfig:
    max_turns: int = 40  # model calls per user prompt
    max_seconds: float = 1800.0  # per user prompt
    max_format_errors: int = 3  # invalid answers in a row
    max_tokens: int = 1024
    temperature: float = 0.0
    seed: int = 0
    model_timeout: float | None = None
    parallel_workers: int = 4
    remind_request: bool = True  # end each successful tool result with the user's request
    # a user's request that orders a run ("... then run it") is run before the answer (requested_run); off
    # where the prompt is generated (the pipeline's steps quote the whole plan and the files)
    requested_run: bool = False
    # one-shot runs: an answer after every edit was refused, or before the run the request ordered, is a
    # failure (acode.agent.loop.outcome)
    judge_outcome: bool = False

    @classmethod
    def from_settings(cls, settings: Any) -> LoopConfig:
        agent, model = settings.agent, settings.model
        return cls(
            max_turns=agent.max_turns,
            max_seconds=agent.max_seconds,
            max_format_errors=agent.max_format_errors,
            max_tokens=model.max_tokens,
            seed=model.seed,
            model_timeout=model.timeout_seconds,
            remind_request=agent.remind_request,
        )


@dataclass
class _Run:
    state: AgentState
    result: AgentResult
    started: float = field(default_factory=time.monotonic)
    last_text: str = ""
    format_errors: list[str] = field(default_factory=list)
    guide: StepGuide | None = None
    answer_only: bool = False  # the current model call may only answer (see turn_guards)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started


class AgentLoop:
    def __init__(
        self,
        model: ChatModel,
        registry: ToolRegistry,
        ctx: ToolContext,
        *,
        config: LoopConfig | None = None,
        middlewares: Sequence[Middleware] = (),
        policy: ApprovalPolicy | None = None,
        observers: Sequence[LoopObserver] = (),
        solver: Solver | None = None,
    ):
        self.model = model
        self.registry = registry
        self.ctx = ctx
        self.config = config or LoopConfig()
        self.middlewares = list(middlewares)
        self.policy = policy or ApprovalPolicy()
        self.observers = Observers(observers)
        self.solver = solver

    # -- session lifecycle -------------------------------------------------------------------
    def new_state(
        self,
        system_prompt: str,
        *,
        session_id: str,
        approval_mode: str = "default",
        interactive: bool = False,
        history: list[Message] | None = None,
    ) -> AgentState:
        messages = list(history) if history else [Message.system(system_prompt)]
        return AgentState(
            session_id=session_id,
            workspace=Path(self.ctx.workspace),
            history=messages,
            approval_mode=approval_mode,
            interactive=interactive,
        )

    def start(self, state: AgentState) -> None:
        for middleware in self.middlewares:
            middleware.on_session_start(state)

    def end(self, state: AgentState, reason: str) -> None:
        for middleware in self.middlewares:
            middleware.on_session_end(state, reason)

    def run(self, state: AgentState, prompt: str | None) -> AgentResult:
        """One-shot: start the session, send one prompt, end the session."""
        self.start(state)
        result = AgentResult(session_id=state.session_id, stop_reason="error")
        try:
            result = self.send(state, prompt)
        finally:
            self.end(state, result.stop_reason)
        return result

    # -- one user prompt ---------------------------------------------------------------------
    def send(self, state: AgentState, prompt: str | None, *, shown: str | None = None) -> AgentResult:
        """Work on ``prompt`` (None: continue from the history as it is) until an answer or a stop.
        ``shown``: what a person sees as their words when the prompt is not what they typed (``/test``)."""
        run = _Run(state, AgentResult(session_id=state.session_id))
        try:
            if prompt is not None:
                typed = prompt
                for middleware in self.middlewares:
                    prompt = middleware.on_user_prompt(state, prompt) or prompt
                if shown is None and prompt != typed:  # a middleware added context to the person's words
                    shown = typed
                self.append(state, Message.user(prompt, shown=shown))
            request = next((m.content for m in reversed(state.history) if m.role == "user"), "")
            run.guide = StepGuide(self.registry, request, remind=self.config.remind_request,
                                  requested_run=self.config.requested_run)
            solver = self.solver if prompt is not None else None
            answer = solver.solve(SolverDoor(self, run), request) if solver else None
            run.result.answer = answer if answer is not None else self._cycle(run)
            self._judge_outcome(run)
        except KeyboardInterrupt:
            self._close_open_calls(run)
            self._stop(run, UserInterrupted("the agent loop", partial=run.last_text))
        except AgentStop as stop:
            self._close_open_calls(run)
            self._stop(run, stop)
        except ModelError as exc:
            self._stop(run, AgentStop(str(exc), partial=run.last_text, reason="model_error"))
        run.result.seconds = run.elapsed
        self.observers.on_stop(state, run.result)
        return run.result

    def _judge_outcome(self, run: _Run) -> None:
        if not self.config.judge_outcome or run.state.approval_mode == "plan":  # a plan changes nothing
            return
        steps = run.result.tool_steps()
        problem = unmade_change(steps, self.registry)
        if problem is not None:
            raise ChangeNotMade(problem, partial=run.result.answer)
        problem = run.guide.requested_run.missing(steps)
        if problem is not None:
            raise ActionNotDone(problem, partial=run.result.answer)

    def _cycle(self, run: _Run) -> str:
        state = run.state
        while True:
            self.begin_turn(run)
            schema = run.guide.answer_only()
            run.answer_only = schema is not None
            schema = schema or run.guide.requested_run.run_only()
            completion, problem, seconds = self.call_model(run, state.history, tools=run.guide.offered(),
                                                           schema=schema)
            text, calls = completion.text, list(completion.tool_calls)
            if problem is None:
                text, calls, problem = interpret(completion, self.registry)
            self.record_model(run, completion, calls, problem, seconds)
            if problem is not None:
                self._format_error(run, completion.text, problem)
                continue
            if calls and run.answer_only:  # a backend that could not hold the model to an answer
                text, calls = text.strip() or run.guide.guards.fallback_answer(), []
            if calls:
                run.last_text = text or run.last_text
                self.append(state, Message.assistant(text, calls))
                steps = self.run_tools(run, calls)
                run.guide.after_turn(steps)
                if all(step.decision == "invalid" for step in steps):
                    self._count_format_error(run, steps[-1].error or "invalid tool call")
                else:
                    run.format_errors.clear()
                continue
            run.last_text = text
            self.append(state, Message.assistant(text))
            follow_up = self._run_reminder(run)
            for middleware in self.middlewares if follow_up is None else ():
                message = middleware.on_final_answer(state, text)
                follow_up = follow_up or message
            if not follow_up:
                return text
            self.append(state, Message.internal(follow_up))

    def _run_reminder(self, run: _Run) -> str | None:
        """Once, when the model answers before running what the request ordered (see acode.agent.loop.
        requested_run): not in plan mode, not when the loop asked for this answer, not on the last turn."""
        if run.state.approval_mode == "plan" or run.answer_only or run.result.turns >= self.config.max_turns:
            return None
        return run.guide.requested_run.reminder(run.result.tool_steps())

    # -- model -------------------------------------------------------------------------------
    def begin_turn(self, run: _Run, *, sends_history: bool = True) -> None:
        """Each model call is a turn: the limits, the count, every middleware's ``before_model``."""
        if run.result.turns >= self.config.max_turns:
            raise TurnLimitReached(run.result.turns, partial=run.last_text)
        if run.elapsed >= self.config.max_seconds:
            raise TimeLimitReached(run.elapsed, self.config.max_seconds, partial=run.last_text)
        run.result.turns += 1
        run.state.turn += 1
        run.state.sends_history = sends_history
        for middleware in self.middlewares:
            middleware.before_model(run.state)
        self.observers.on_history(run.state)

    def call_model(self, run: _Run, messages: list[Message], **options: Any) -> ModelCall:
        """(completion after every ``after_model``, format problem, seconds) within the run's time left;
        ``options`` for ``complete`` (by default the loop's max_tokens, temperature and seed)."""
        config = self.config
        remaining = max(1.0, config.max_seconds - run.elapsed)
        options = {"max_tokens": config.max_tokens, "temperature": config.temperature, "seed": config.seed,
                   "timeout": min(remaining, config.model_timeout or remaining), **options}
        self.observers.on_model_start(run.state)
        started = time.perf_counter()
        try:
            completion = self.model.complete(messages, on_text=self.observers.on_text, **options)
            problem = None
        except KeyboardInterrupt:
            raise UserInterrupted("the model call", partial=run.last_text) from None
        except ModelOutputError as exc:
            completion, problem = Completion(finish_reason="error"), exc.message
        except ModelTimeoutError as exc:
            # a call cut short is still a model step: its seconds, prompt tokens and the text it had
            partial = exc.partial or Completion(finish_reason="timeout")
            seconds = time.perf_counter() - started
            run.result.model_seconds += seconds
            self.record_model(run, partial.model_copy(update={"finish_reason": "timeout"}), [], None, seconds)
            if run.elapsed >= self.config.max_seconds:
                raise TimeLimitReached(run.elapsed, self.config.max_seconds, partial=run.last_text) from None
            raise
        seconds = time.perf_counter() - started
        run.result.model_seconds += seconds
        for middleware in self.middlewares:
            replaced = middleware.after_model(run.state, completion)
            if replaced is not None:
                completion = replaced
        return completion, problem, seconds

    def record_model(
        self, run: _Run, completion: Completion, calls: list[ToolCall], problem: str | None, seconds: float
    ) -> None:
        step = ModelStep(
            turn=run.state.turn,
            seconds=seconds,
            usage=completion.usage,
            finish_reason=completion.finish_reason,
            text=completion.text,
            tool_calls=[c.model_dump() for c in calls],
            format_error=problem,
        )
        run.result.trajectory.append(step)
        run.result.tokens.add(completion.usage)
        self.observers.on_model_step(run.state, step)

    def _format_error(self, run: _Run, raw_text: str, problem: str) -> None:
        """An unparseable answer: show the model its own answer and what was wrong, as JSON."""
        if raw_text:
            self.append(run.state, Message.assistant(raw_text))
        self.append(run.state, Message.internal(json.dumps({"error": problem})))
        self._count_format_error(run, problem)

    def _count_format_error(self, run: _Run, problem: str) -> None:
        run.format_errors.append(problem)
        if len(run.format_errors) >= self.config.max_format_errors:
            raise FormatErrorLimitReached(list(run.format_errors), partial=run.last_text)

    # -- tools -------------------------------------------------------------------------------
    def run_tools(self, run: _Run, calls: list[ToolCall]) -> list[ToolStep]:
        steps: list[ToolStep] = []
        state = run.state

        def done(prepared: PreparedCall, step: ToolStep, result: ToolResult) -> None:
            self.append(state, Message.tool(prepared.call, step.output + run.guide.reminder(step)))
            run.guide.guards.observe(step, result)
            run.result.trajectory.append(step)
            run.result.tool_seconds += step.seconds
            steps.append(step)
            self.observers.on_tool_step(state, step, result)

        runner = ToolRunner(
            self.registry,
            self.ctx,
            self.policy,
            self.middlewares,
            workers=self.config.parallel_workers,
            on_start=lambda call: self.observers.on_tool_start(state, call),
            precheck=run.guide.precheck,
        )
        self.ctx.state["history"] = state.history  # tools that judge the session (reviewer) read it
        try:
            runner.execute(state, calls, done)
        except KeyboardInterrupt:
            name = next((c.name for c in calls if c.id not in {s.call_id for s in steps}), "a tool")
            raise UserInterrupted(f"tool {name}", partial=run.last_text) from None
        except TurnInterrupted as exc:
            raise UserInterrupted(str(exc), partial=run.last_text) from None
        return steps

    def _close_open_calls(self, run: _Run) -> None:
        """Every tool call in the history gets a result, so the session stays valid to resume."""
        run.result.trajectory.extend(cancel_open_calls(run.state.history, run.state.turn))
        self.observers.on_history(run.state)

    # -- helpers -----------------------------------------------------------------------------
    def append(self, state: AgentState, message: Message) -> None:
        state.history.append(message)
        self.observers.on_history(state)

    def _stop(self, run: _Run, stop: AgentStop) -> None:
        run.result.stop_reason = stop.reason
        run.result.message = stop.message
        run.result.answer = stop.partial
