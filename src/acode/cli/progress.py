"""Progress of ``acode run`` while a model works: stage, cycle, step, elapsed time and tokens/s.

``RunProgress`` listens to the pipeline's events and wraps the model (``meter(model)``) to see each call
start and end. In a terminal, while a model call runs, one live line is redrawn four times a second
under the event lines (and removed when the call ends):

    ▶ execute · cycle 1 · step 2/3 · 1m 04s · model 18 s (12.4 tokens/s)

To a pipe or a file there is no live line; each model call ends with one plain line instead
(``model call 7: 11.8 s, 146 tokens out, 12.4 tokens/s``), so a log still shows the run is moving.
Tokens/s is the output rate: streamed pieces while a call streams, else the last finished call's.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from rich.console import Console
from rich.text import Text


def clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class Elapsed:
    """A spinner label that counts the seconds since it was made:
    ``thinking (turn 2) · 14s · Ctrl-C stops``."""

    def __init__(self, label: str, hint: str = "Ctrl-C stops"):
        self.label = label
        self.hint = hint
        self.started = time.monotonic()

    def __rich__(self) -> Text:
        return Text(f"{self.label} · {clock(time.monotonic() - self.started)} · {self.hint}")


class MeteredChatModel:
    """Delegates to ``inner``; tells ``progress`` when each ``complete`` starts, streams and ends."""

    def __init__(self, inner: Any, progress: RunProgress):
        self._inner = inner
        self._progress = progress

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def complete(self, messages, **kwargs: Any):
        on_text = kwargs.get("on_text")

        def counted(piece: str) -> None:
            self._progress.model_piece()
            if on_text is not None:
                on_text(piece)

        if on_text is not None:
            kwargs["on_text"] = counted
        self._progress.model_started()
        tokens = 0
        try:
            completion = self._inner.complete(messages, **kwargs)
            tokens = completion.usage.completion_tokens
            return completion
        finally:
            self._progress.model_finished(tokens)


class RunProgress:
    def __init__(self, console: Console, *, live: bool | None = None):
        self.console = console
        self.live_enabled = console.is_terminal if live is None else live
        self.stage = ""
        self.cycle = 0
        self.step = ""
        self.stage_started = time.monotonic()
        self.calls = 0
        self.call_started: float | None = None
        self.pieces = 0
        self.last_rate: float | None = None
        self._lock = threading.Lock()
        self._live: Any = None

    # -- the model side ---------------------------------------------------------------------------
    def meter(self, model: Any) -> MeteredChatModel:
        return MeteredChatModel(model, self)

    def model_started(self) -> None:
        with self._lock:
            self.calls += 1
            self.call_started = time.monotonic()
            self.pieces = 0
        self.start()

    def model_piece(self) -> None:
        with self._lock:
            self.pieces += 1

    def model_finished(self, tokens: int) -> None:
        with self._lock:
            seconds = time.monotonic() - (self.call_started or time.monotonic())
            self.call_started = None
            rate = tokens / seconds if seconds > 0 and tokens else None
            self.last_rate = rate if rate is not None else self.last_rate
            number = self.calls
        self.stop()
        if not self.live_enabled:
            speed = f", {rate:.1f} tokens/s" if rate else ""
            where = f" ({self.stage}{', ' + self.step if self.step else ''})" if self.stage else ""
            self.console.print(
                f"  model call {number}{where}: {seconds:.1f} s, {tokens} tokens out{speed}",
                highlight=False,
                markup=False,
            )

    # -- the pipeline side ------------------------------------------------------------------------
    def on_event(self, event: dict[str, Any]) -> None:
        kind = event["event"]
        if kind == "stage_enter":
            self.stage, self.cycle, self.step = event["stage"], event["cycle"], ""
            self.stage_started = time.monotonic()
        elif kind == "step_start":
            total = f"/{event['total']}" if event.get("total") else ""
            self.step = f"step {event['index']}{total}" if event["index"] else "fix step"

    def __rich__(self) -> Text:
        with self._lock:
            busy = self.call_started
            pieces = self.pieces
            rate = self.last_rate
        parts = [f"▶ {self.stage or 'starting'}", f"cycle {self.cycle}"] if self.stage else ["▶ starting"]
        if self.step:
            parts.append(self.step)
        parts.append(clock(time.monotonic() - self.stage_started))
        if busy is not None:
            running = time.monotonic() - busy
            live_rate = pieces / running if pieces and running > 0 else rate
            speed = f" ({live_rate:.1f} tokens/s)" if live_rate else ""
            parts.append(f"model {clock(running)}{speed}")
        elif rate:
            parts.append(f"last call {rate:.1f} tokens/s")
        return Text(" · ".join(parts), style="dim")

    def start(self) -> None:
        if self.live_enabled and self._live is None:
            from rich.live import Live

            # shown only while a model call runs: approval questions and the human gate never overlap it
            self._live = Live(
                self,
                console=self.console,
                refresh_per_second=4,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
