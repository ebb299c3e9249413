"""Nothing acode prints for people acts on the terminal: text on its consoles (a rich render hook) and its
log lines (a formatter) go through ``acode.shown.visible``, so control sequences from a model, a tool or a
repository are shown as ``^[...``, not obeyed; under GitHub Actions no line of theirs reads as a workflow
command (``acode.shown.workflow_safe``). rich's own styling and cursor controls are separate
segments and stay as they are."""

from __future__ import annotations

import logging
import sys
from typing import Any

from rich.console import Console, RenderHook
from rich.segment import Segment

from acode.shown import under_github_actions, visible, workflow_safe


class _Visible:
    """A renderable whose text is printed through ``acode.shown.visible`` (rich's own styling and cursor
    controls are segments apart and stay as they are), and under GitHub Actions ``workflow_safe``."""

    def __init__(self, renderable: Any):
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: Any):
        in_actions, line_start = under_github_actions(), True
        for segment in console.render(self.renderable, options):
            if segment.control:
                yield segment
                continue
            text = visible(segment.text)
            if in_actions:
                text = workflow_safe(text, line_start=line_start)
                line_start = _ends_at_line_start(text, line_start)
            yield segment if text is segment.text else Segment(text, segment.style)


def _ends_at_line_start(text: str, line_start: bool) -> bool:
    """Whether what follows ``text`` still begins its line (only blanks since the last newline)."""
    _, newline, after = text.rpartition("\n")
    return after.strip(" \t") == "" and (bool(newline) or line_start)


class ShowControls(RenderHook):
    """Every renderable printed on the console goes through ``_Visible``."""

    def process_renderables(self, renderables: list) -> list:
        return [_Visible(r) for r in renderables]


class _VisibleFormatter(logging.Formatter):
    """Log lines name files, git output and model text: shown, never obeyed (acode.shown)."""

    def format(self, record: logging.LogRecord) -> str:
        shown = visible(super().format(record))
        return workflow_safe(shown) if under_github_actions() else shown


class _StderrHandler(logging.StreamHandler):
    """Writes to ``sys.stderr`` as it is at each record (a test may have replaced it)."""

    @property  # type: ignore[override]
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def log_to_stderr(verbose: bool) -> None:
    """Log records on stderr with control characters shown: acode's warnings, or everything from debug
    up with ``--verbose``."""
    handler = _StderrHandler()
    if verbose:
        acode_logger = logging.getLogger("acode")  # `acode review -v`: the warnings-only handler goes
        for old in [h for h in acode_logger.handlers if isinstance(h, _StderrHandler)]:
            acode_logger.removeHandler(old)
        handler.setFormatter(_VisibleFormatter("%(levelname)s %(name)s: %(message)s"))
        logging.basicConfig(level=logging.DEBUG, handlers=[handler])
        return
    logger = logging.getLogger("acode")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler.setLevel(logging.WARNING)
        handler.setFormatter(_VisibleFormatter("%(message)s"))
        logger.addHandler(handler)
