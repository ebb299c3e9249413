"""Verifier: the project's checks (``pipeline.verify_commands``, else detected: pytest when tests exist,
ruff when configured) plus each step's own check command. The orchestrator sends a failure back to the
executor with this output, up to ``pipeline.max_verify_retries`` times."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from acode.child_signals import shell_argv, with_default_signals
from acode.command_sandbox import CommandSandbox, command_sandbox
from acode.pipeline import gitops
from acode.pipeline.models import CheckResult, Verification
from acode.pipeline.stages import RunContext, Stage, StageResult
from acode.test_files import is_pytest_module

OUTPUT_TAIL = 2500
PYTEST_NO_TESTS = 5
SHELL_NOT_FOUND = 127
_SHELL_META = set(";&|`$<>\n\\")


class VerifierStage(Stage):
    name = "verify"

    def execute(self, ctx: RunContext) -> StageResult:
        options = ctx.settings.pipeline
        sandbox = command_sandbox(ctx.settings.sandbox)  # the checks run the model's code
        checks: list[CheckResult] = []
        commands = project_checks(ctx.root, options.verify_commands)
        for command, shell in commands:
            checks.append(run_check(ctx.root, command, "project", timeout=options.timeouts.verifier,
                                    shell=shell, sandbox=sandbox))
        plan = ctx.state.plan
        for step in plan.steps if plan else []:
            command = step.check_command.strip()
            if not command or command in {c for c, _ in commands} | {c.command for c in checks}:
                continue
            refusal = step_command_refusal(command, options.check_command_prefixes)
            if refusal:
                checks.append(CheckResult(command=command, source="step", passed=True, skipped=refusal))
                continue
            checks.append(run_check(ctx.root, command, "step", timeout=options.timeouts.verifier, shell=False,
                                    sandbox=sandbox))
        verification = Verification(
            attempt=ctx.state.verify_attempt, passed=all(c.passed for c in checks), checks=checks
        )
        ctx.state.verifications.append(verification)
        ctx.events.emit("verification", **verification.model_dump())
        for check in checks:
            if check.timed_out:
                ctx.events.emit(
                    "timeout", stage="verify", command=check.command, seconds=options.timeouts.verifier
                )
        ran = [c for c in checks if not c.skipped]
        failed = [c for c in ran if not c.passed]
        if failed:  # the outcome says "failed" already: the message names what
            return StageResult("failed", "; ".join(f"`{c.command}` {how_it_failed(c)}" for c in failed))
        return StageResult("ok", f"{len(ran)} check(s) passed" if ran else "no checks to run")


def how_it_failed(check: CheckResult) -> str:
    if check.timed_out:
        return f"did not finish in {check.duration_s:.0f} s (pipeline.timeouts.verifier)"
    if not check.started:
        return check.output or "could not start"
    return f"exit {check.exit_code}"


def project_checks(root: Path, configured: list[str] | None) -> list[tuple[str, bool]]:
    """(command, run through a shell) pairs: configured commands as written, else detected ones."""
    if configured is not None:
        return [(c, True) for c in configured if c.strip()]
    found: list[tuple[str, bool]] = []
    files = gitops.git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    if any(is_pytest_module(f) for f in files):
        found.append(("python -m pytest -q", False))
    if _ruff_configured(root):
        found.append(("python -m ruff check .", False))
    return found


def _ruff_configured(root: Path) -> bool:
    if (root / "ruff.toml").is_file() or (root / ".ruff.toml").is_file():
        return True
    pyproject = root / "pyproject.toml"
    try:
        return pyproject.is_file() and "[tool.ruff" in pyproject.read_text(encoding="utf-8")
    except OSError:
        return False


def step_command_refusal(command: str, prefixes: list[str]) -> str:
    """Why a plan step's check command will not run ("" when it may): model-written commands run only
    when they start with an allowed prefix and use no shell syntax."""
    if _SHELL_META & set(command):
        return "not run: shell syntax in a model-written check command"
    normalized = " ".join(command.split())
    if not any(normalized == p or normalized.startswith(p + " ") for p in prefixes):
        return "not run: not an allowed check command (pipeline.check_command_prefixes)"
    return ""


def check_environment() -> dict[str, str]:
    """The user's PATH first, then acode's own environment (which has pytest and ruff) as a fallback."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(p for p in (env.get("PATH", ""), str(Path(sys.executable).parent)) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTEST_ADDOPTS"] = (env.get("PYTEST_ADDOPTS", "") + " -p no:cacheprovider").strip()
    return env


def check_argv(command: str) -> list[str]:
    """Detected and step commands: a leading ``python`` is acode's own interpreter (it has pytest and ruff);
    configured ``verify_commands`` run as written, through the shell."""
    argv = shlex.split(command)
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


def run_check(root: Path, command: str, source: str, *, timeout: float, shell: bool,
              sandbox: CommandSandbox | None = None) -> CheckResult:
    started = time.monotonic()
    argv = shell_argv(command) if shell else with_default_signals(check_argv(command))
    env = check_environment()
    if sandbox is not None:
        argv, env = sandbox.wrap(argv, env, cwd=root, workspace=root)
    try:
        proc = subprocess.Popen(
            argv,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,  # a check that reads input gets end of file, not the user's terminal
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,
        )
    except (OSError, ValueError) as exc:
        return CheckResult(command=command, source=source, passed=False, output=f"could not start: {exc}",
                           started=False, shell=shell)
    timed_out = False
    try:
        output, _ = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        output += f"\n[timed out after {timeout:.0f} s (pipeline.timeouts.verifier)]"
        code = None
        timed_out = True
    except KeyboardInterrupt:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    why = sandbox.explain_failure(output) if sandbox is not None and code not in (0, None) else None
    output += f"\n{why}" if why else ""
    passed = code == 0 or (code == PYTEST_NO_TESTS and "pytest" in command)
    # through the shell, a command that is not there is the shell's exit 127: it did not start
    found = not (shell and code == SHELL_NOT_FOUND)
    return CheckResult(
        command=command,
        source=source,  # type: ignore[arg-type]
        passed=passed,
        exit_code=code,
        output=output[-OUTPUT_TAIL:],
        duration_s=round(time.monotonic() - started, 3),
        timed_out=timed_out,
        started=found,
        shell=shell,
    )
