"""Where the commands acode runs on a model's behalf run: the ``sandbox`` setting made into a policy.

The shell tool (and so the test runs of test-driven fixing and sub-agents, which call it), ``acode run``'s
verify commands and the queue's workers wrap every command with ``CommandSandbox.wrap``:

- ``workspace-write`` (default): bubblewrap (acode.sandbox) with the workspace writable except
  ``.git/config``, ``.git/hooks`` and ``.acode`` (read-only: a command cannot plant a hook or a setting
  that later runs outside the sandbox), a private ``/tmp``, the rest of the file system read-only, the
  credential folders of the home directory hidden, the environment without tokens and keys, and no
  network but the sandbox's own loopback (``sandbox.network: true`` keeps the host's network);
- ``read-only``: the same with nothing writable but the private ``/tmp``;
- ``off``: as the user, as before.

Where bubblewrap is missing or cannot start, commands run as the user under the rules and approval modes
alone; ``unavailable_line`` says so once. The user's own ``!`` commands, hooks, MCP servers and acode's own
git calls are not wrapped (docs/guide/tools.md, "Sandbox").
"""

from __future__ import annotations

import atexit
import functools
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acode.sandbox import INSTALL_HINT, Sandbox, find_sandbox, sandbox_env

if TYPE_CHECKING:
    from acode.config.sandbox import SandboxSettings

# Inside the workspace, read-only even in workspace-write: what acode or git later runs outside the sandbox.
PROTECTED_IN_WORKSPACE = (".git/config", ".git/hooks", ".acode")
# Beyond the review's reduced environment (acode.sandbox.KEPT_ENV): what builds, test runners and package
# tools read (CI changes how pytest cuts its assertion diffs and makes npm non-interactive; it is no secret).
EXTRA_ENV = ("CI", "SHELL", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "PYTEST_ADDOPTS", "JAVA_HOME",
             "GOPATH", "GOFLAGS", "CARGO_HOME", "RUSTUP_HOME", "NODE_PATH")
EXTRA_ENV_PREFIXES = ("PYTHON", "PIP_", "npm_config_", "NPM_CONFIG_", "UV_")
# however a kept variable is named, these parts mark a secret
SECRET_PARTS = re.compile(r"TOKEN|SECRET|PASSW|KEY|AUTH|CREDENTIAL|COOKIE|SESSION", re.IGNORECASE)
NETWORK_SETTING = "sandbox.network: true in your user settings (~/.config/acode/config.yml)"
_NETWORK_FAILURES = re.compile(
    r"Temporary failure in name resolution|Network is unreachable|Could not resolve host|getaddrinfo "
    r"(?:ENOTFOUND|EAI_AGAIN)|Name or service not known|No address associated with hostname|"
    r"Failed to establish a new connection|nodename nor servname|Connection refused|ECONNREFUSED",
    re.IGNORECASE)
_READ_ONLY_LINE = re.compile(r"^.*Read-only file system.*$", re.IGNORECASE | re.MULTILINE)
_QUOTED_PATH = re.compile(r"['\u2018\u2019\"](/[^'\u2018\u2019\"]+)['\u2018\u2019\"]|(/\S+?):? Read-only")


@dataclass(frozen=True)
class CommandSandbox:
    """The sandbox setting as it applies here: the mode asked for, whether bubblewrap runs it."""

    mode: str = "workspace-write"
    network: bool = False
    sandbox: Sandbox | None = None  # None: off, or not available here (``why_not``)
    why_not: str = ""

    @property
    def active(self) -> bool:
        return self.sandbox is not None

    def describe(self) -> str:
        """One line for the chat's header and ``config show``."""
        if self.mode == "off":
            return "off (commands run as you; the rules and approval mode decide)"
        if not self.active:
            return f"{self.mode} asked, NOT active: {self.why_not}; commands run as you under the rules"
        network = "network on" if self.network else "no network"
        where = "workspace writable" if self.mode == "workspace-write" else "nothing writable but /tmp"
        return f"{self.mode} (bubblewrap: {where}, {network}, credentials and tokens hidden)"

    def as_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "network": self.network, "active": self.active,
                "protection": "bubblewrap sandbox" if self.active else "rules and approval mode only",
                "why_not": self.why_not, "summary": self.describe()}

    def unavailable_line(self) -> str | None:
        """Where the sandbox was asked for and cannot run: the one line to show (once), else None."""
        if self.mode == "off" or self.active:
            return None
        return (f"acode: no sandbox for the model's commands ({self.why_not}); they run as you, under the "
                f"approval mode and rules only. To get it: {INSTALL_HINT}")

    def wrap(self, argv: list[str], env: dict[str, str], *, cwd: Path, workspace: Path
             ) -> tuple[list[str], dict[str, str]]:
        """(argv, env) of ``argv`` run in ``cwd`` on behalf of a model working in ``workspace``; unchanged
        when there is no sandbox."""
        if self.sandbox is None:
            return argv, env
        writable = [workspace, shared_scratch()] if self.mode == "workspace-write" else [shared_scratch()]
        protected = protected_paths(workspace) if self.mode == "workspace-write" else []
        shown = _shown_under_tmp(workspace, cwd, writable)
        wrapped = self.sandbox.command(argv, writable=writable, cwd=cwd, env=env, protected=protected,
                                       network=self.network, readable=shown)
        return wrapped, command_env(env)

    def explain_failure(self, output: str) -> str | None:
        """A note for a failed command's output when the sandbox is the likely cause, naming the setting."""
        if self.sandbox is None:
            return None
        found = _READ_ONLY_LINE.search(output)
        if found:
            named = _QUOTED_PATH.search(found.group(0))
            path = next((g for g in named.groups() if g), "") if named else ""
            path = path or "outside the workspace"
            setting = "sandbox: workspace-write" if self.mode == "read-only" else "sandbox: off"
            return (f"[sandbox: read-only file system: {path} - only the workspace is writable (not "
                    f"{', '.join(PROTECTED_IN_WORKSPACE)}); {setting} in your user settings changes that]")
        if not self.network and _NETWORK_FAILURES.search(output):
            return (f"[sandbox: no network inside (not even servers on this machine's localhost; package "
                    f"downloads neither); {NETWORK_SETTING} allows it, or install what is needed yourself "
                    "with a ! command]")
        return None


def command_sandbox(settings: SandboxSettings | None) -> CommandSandbox:
    """The policy for ``settings`` (None: the default), with bubblewrap found and tried once per process."""
    mode = settings.mode if settings is not None else "workspace-write"
    network = bool(settings.network) if settings is not None else False
    if mode == "off":
        return CommandSandbox(mode, network)
    sandbox, why_not = find_sandbox()
    return CommandSandbox(mode, network, sandbox, why_not)


@functools.cache
def shared_scratch() -> Path:
    """A folder of this acode process that sandboxed commands may write to at the same path: where acode
    asks a command to leave a file for it (the fixer's test spectrum record), since /tmp inside is private.
    Removed when acode exits."""
    folder = Path(tempfile.mkdtemp(prefix="acode-shared-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def protected_paths(workspace: Path) -> list[Path]:
    """The files and folders of ``PROTECTED_IN_WORKSPACE`` under ``workspace``. ``.acode`` and a git
    folder's ``hooks`` are made first when missing (empty; git and acode make them anyway), so that no
    command can create them with something in."""
    git, acode = workspace / ".git", workspace / ".acode"
    try:
        if git.is_dir() and not git.is_symlink():
            (git / "hooks").mkdir(exist_ok=True)
        if not acode.exists() and not acode.is_symlink():
            acode.mkdir()
    except OSError:  # a workspace the user cannot write to: nothing can be planted there either
        pass
    return [workspace / name for name in PROTECTED_IN_WORKSPACE if (workspace / name).exists()]


def command_env(env: dict[str, str]) -> dict[str, str]:
    """A sandboxed command's environment: the review's reduction (acode.sandbox.sandbox_env) and what
    builds read (``EXTRA_ENV``), never a variable whose name marks a secret; acode's shell settings
    (``ACODE``, pagers) stay."""
    kept = sandbox_env(env)
    kept.update({k: v for k, v in env.items() if k in EXTRA_ENV or k.startswith(EXTRA_ENV_PREFIXES)})
    kept.update({k: env[k] for k in ("ACODE", "PAGER", "GIT_PAGER", "GIT_TERMINAL_PROMPT") if k in env})
    return {k: v for k, v in kept.items() if not SECRET_PARTS.search(k)}


def _shown_under_tmp(workspace: Path, cwd: Path, writable: list[Path]) -> list[Path]:
    """``cwd`` and the workspace when they lie under /tmp (fresh inside) and are not bound writable."""
    tmp = Path("/tmp").resolve()
    out = []
    for folder in dict.fromkeys([workspace.resolve(), cwd.resolve()]):
        if folder.is_relative_to(tmp) and not any(folder.is_relative_to(w.resolve()) for w in writable):
            out.append(folder)
    return out


def sandbox_summary(policy: CommandSandbox | None) -> str:
    return policy.describe() if policy is not None else CommandSandbox("off").describe()


_said: set[str] = set()


def say_once(policy: CommandSandbox, echo: Callable[[str], Any]) -> None:
    """Show ``unavailable_line`` the first time in this process (a chat builds several sessions)."""
    line = policy.unavailable_line()
    if line and line not in _said:
        _said.add(line)
        echo(line)
