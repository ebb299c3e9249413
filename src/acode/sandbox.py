"""A sandbox for code acode runs on the user's behalf but did not write: a branch's tests under review.

bubblewrap (``bwrap``, a small maintained setuid-free sandbox used by Flatpak) runs the command with:
- no network (a new network namespace with only its own loopback);
- the whole file system read-only, except the folders the caller names (the extracted trees) and a fresh
  ``/tmp``;
- the usual credential folders of the home directory hidden (``~/.ssh``, ``~/.aws``, ...), and of the
  checkout under review (``hiding_git_of``) its git configuration and credentials (``acode.sandbox_git``);
- an environment reduced to what a test run needs (no tokens from the user's shell);
- no capabilities, its own process, PID and IPC namespaces, ended with its parent.

So a test suite from a branch cannot send anything anywhere, change the user's files, or read their keys.
Where bubblewrap is missing or cannot start (macOS, a container without user namespaces) ``find_sandbox``
says why, and callers decide whether to run without one.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from acode.sandbox_git import hidden_git_files

# folders and files under $HOME that hold credentials; hidden (an empty folder / an empty file) inside
HIDDEN_IN_HOME = (".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".config/gcloud", ".config/gh",
                  ".config/hub", ".password-store", ".local/share/keyrings", ".netrc", ".git-credentials",
                  ".pypirc", ".npmrc", ".cargo/credentials.toml", ".config/acode", ".config/git/credentials")
# environment variables a test run keeps; everything else (API tokens, cloud credentials) stays outside
KEPT_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "VIRTUAL_ENV",
            "CONDA_PREFIX", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "SOURCE_DATE_EPOCH",
            "MYPYPATH")
KEPT_ENV_PREFIXES = ("LC_",)
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)"


@dataclass(frozen=True)
class Sandbox:
    executable: str
    checkout: Path | None = None  # whose git configuration and credentials the run must not read

    def hiding_git_of(self, checkout: Path) -> Sandbox:
        """This sandbox, showing ``checkout``'s git configuration without its credentials (sandbox_git)."""
        return replace(self, checkout=checkout)

    def command(self, argv: list[str], *, writable: list[Path], cwd: Path,
                readable: Sequence[Path] = (), env: dict[str, str] | None = None,
                protected: Sequence[Path] = (), network: bool = False) -> list[str]:
        """``argv`` wrapped so that it runs in the sandbox, in ``cwd``, able to write only to ``writable``.
        ``readable``: folders under ``/tmp`` (which is fresh inside) to show read-only; the Python
        environment and the ``PATH`` folders of ``env`` (default: this process's) that lie there are
        shown too (``tools_under_tmp``). ``protected``: existing files and folders inside ``writable``
        shown read-only. ``network``: keep the host's network (otherwise only a loopback of its own)."""
        args = [self.executable, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp", "--unshare-all", *(["--share-net"] if network else []),
                "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        tools = [p for p in tools_under_tmp(dict(os.environ) if env is None else env)
                 if not any(p.is_relative_to(Path(w).resolve()) for w in writable)]
        for folder in [*tools, *readable]:  # after the /tmp tmpfs, so a folder under /tmp is the real one
            args += ["--ro-bind", str(folder), str(folder)]
        for folder in writable:
            args += ["--bind", str(folder), str(folder)]
        for path in protected:  # after the writable binds they lie in
            args += ["--ro-bind", str(path), str(path)]
        home = Path(os.path.expanduser("~"))
        for name in HIDDEN_IN_HOME:  # last: nothing bound above shows them again
            path = home / name
            if path.is_dir():
                args += ["--tmpfs", str(path)]
            elif path.exists():
                args += ["--ro-bind", _empty_file(), str(path)]
        if self.checkout is not None:
            args += _git_credentials_hidden(self.checkout, [*tools, *readable, *writable])
        return [*args, "--chdir", str(cwd), "--", *argv]

    def wrap(self, argv: list[str], env: dict[str, str], *, cwd: Path, writable: Path
             ) -> tuple[list[str], dict[str, str]]:
        """(argv, env) of a run in ``cwd`` that may write only to ``writable``: ``cwd`` shown read-only
        unless it lies in ``writable``, the environment reduced (``sandbox_env``)."""
        inside = cwd.resolve().is_relative_to(writable.resolve())
        return (self.command(argv, writable=[writable], cwd=cwd, readable=[] if inside else [cwd], env=env),
                sandbox_env(env))


def _git_credentials_hidden(checkout: Path, bound: Sequence[Path]) -> list[str]:
    """bwrap arguments showing a harmless copy over each of ``checkout``'s git configuration and credentials
    files the run can see: anything outside ``/tmp`` (bound from the host's ``/``) or in a bound folder."""
    tmp = Path("/tmp").resolve()
    shown = [Path(b).resolve() for b in bound]
    args: list[str] = []
    for path, instead in hidden_git_files(checkout):
        real = path.resolve()
        if not real.is_relative_to(tmp) or any(real.is_relative_to(b) for b in shown):
            args += ["--ro-bind", str(instead), str(real)]
    return args


def tools_under_tmp(env: dict[str, str]) -> list[Path]:
    """The Python environment and ``PATH`` folders that lie under ``/tmp``, which the fresh ``/tmp`` inside
    would hide (a checkout cloned into /tmp, as CI does, has its .venv there): shown read-only. A venv's
    ``bin`` brings the whole venv. acode's own import root is shown too: an editable install's source lies
    outside its venv, and commands acode runs import from it (the fixer's test spectrum runner)."""
    tmp = Path("/tmp").resolve()
    own_root = str(Path(__file__).resolve().parents[1])
    candidates = [sys.prefix, own_root, env.get("VIRTUAL_ENV", ""), *env.get("PATH", "").split(os.pathsep)]
    found: list[Path] = []
    for raw in candidates:
        if not raw:
            continue
        path = Path(raw).resolve()
        if not path.is_relative_to(tmp) or path == tmp or not path.is_dir():
            continue
        if (path.parent / "pyvenv.cfg").is_file():
            path = path.parent
        if not any(path.is_relative_to(seen) for seen in found):
            found = [seen for seen in found if not seen.is_relative_to(path)] + [path]
    return found


@functools.cache
def _empty_file() -> str:
    """An empty file to show instead of a credentials file (binding /dev/null is refused in containers)."""
    fd, path = tempfile.mkstemp(prefix="acode-sandbox-empty-")
    os.close(fd)
    os.chmod(path, 0o444)
    atexit.register(os.unlink, path)
    return path


def sandbox_env(env: dict[str, str]) -> dict[str, str]:
    """The environment a sandboxed run gets: ``KEPT_ENV`` and the locale, nothing else."""
    return {k: v for k, v in env.items() if k in KEPT_ENV or k.startswith(KEPT_ENV_PREFIXES)}


@functools.cache
def find_sandbox() -> tuple[Sandbox | None, str]:
    """(the sandbox, "") when bubblewrap is here and starts a process, else (None, why not)."""
    executable = shutil.which("bwrap")
    if executable is None:
        return None, f"bubblewrap (bwrap) is not installed; {INSTALL_HINT}"
    sandbox = Sandbox(executable)
    probe = sandbox.command(["true"], writable=[], cwd=Path("/"))
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bubblewrap could not start ({exc})"
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return None, f"bubblewrap could not start a sandbox here ({reason[:200]})"
    return sandbox, ""
