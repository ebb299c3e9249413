"""Control flow that leaves the pipeline: exceptions carrying the final status, exit code and message.
The orchestrator catches them, finishes the summary and returns; the CLI turns the exit code into the
process exit status."""

from __future__ import annotations

from acode.errors import (
    EXIT_FAILURE,
    EXIT_HUMAN_DECLINED,
    EXIT_OK,
    EXIT_REVIEW_REJECTED,
    EXIT_REVIEW_TIMEOUT,
    AcodeError,
)

# Error codes of the review gate (from the specification).
REVIEW_FAILED = "ACODE-REVIEW-001"
DIMENSION_FAILED = "ACODE-REVIEW-002"
REVIEW_TIMEOUT = "ACODE-REVIEW-003"
HUMAN_DECLINED = "ACODE-REVIEW-004"
SUMMARY_FAILED = "ACODE-REVIEW-005"


class RunFinished(Exception):
    """The run is over. ``status`` is the RunState status; ``exit_code`` the process exit status."""

    status = "approved"
    exit_code = EXIT_OK
    code = ""

    def __init__(self, message: str = ""):
        super().__init__(message)
        self.message = message


class Approved(RunFinished):
    pass


class Rejected(RunFinished):
    status = "rejected"
    exit_code = EXIT_REVIEW_REJECTED


class HumanDeclined(RunFinished):
    status = "declined"
    exit_code = EXIT_HUMAN_DECLINED
    code = HUMAN_DECLINED


class ReviewTimedOut(RunFinished):
    status = "timeout"
    exit_code = EXIT_REVIEW_TIMEOUT
    code = REVIEW_TIMEOUT


class RunFailed(RunFinished):
    status = "failed"
    exit_code = EXIT_FAILURE

    def __init__(self, message: str, code: str = ""):
        super().__init__(message)
        self.code = code


class StageTimeout(RunFailed):
    def __init__(self, stage: str, detail: str):
        super().__init__(f"the {stage} stage timed out ({detail}); see pipeline.timeouts", "ACODE-RUN-020")


class RunError(AcodeError):
    """A problem before or around a run that a person must fix (dirty tree, not a repository ...)."""
