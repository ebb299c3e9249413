"""Typed errors with stable codes (``ACODE-<AREA>-<NNN>``) and the exit codes every command shares."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_REVIEW_REJECTED = 50
EXIT_HUMAN_DECLINED = 51
EXIT_REVIEW_TIMEOUT = 52
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


class AcodeError(Exception):
    """An error meant for a person: what went wrong, and how to fix it. Never shown as a traceback."""

    exit_code = EXIT_FAILURE

    def __init__(self, code: str, message: str, *, hint: str | None = None, exit_code: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        text = f"[{self.code}] {self.message}"
        return f"{text}\n  hint: {self.hint}" if self.hint else text


class UsageError(AcodeError):
    exit_code = EXIT_USAGE


class NothingToReview(UsageError):
    """The target of a review has no change (nothing staged, a branch level with its base): not a failure
    for a hook or a CI job (``acode review`` says so in one line and exits 0)."""


class ConfigError(AcodeError):
    exit_code = EXIT_USAGE


class ModelError(AcodeError):
    """Anything about loading or talking to a model."""


class ModelNotInstalledError(ModelError):
    exit_code = EXIT_USAGE


class ModelOutputError(ModelError):
    """The model's answer never matched the schema it was asked for, even after one re-ask."""


class ModelTimeoutError(ModelError):
    """A call cut by its time limit; ``partial`` (an ``acode.llm.types.Completion``, set by a backend that
    knows it) is what the call had done: its prompt tokens, the text generated so far."""

    partial = None


class ServerError(ModelError):
    """An OpenAI-compatible server was unreachable, answered garbage, or failed."""
