"""``/test`` and ``/lint`` (aider's): run the project's command; when it fails, the failure goes to the
agent to fix (for ``/test`` the test-driven fixer, acode.agent.fixing, takes the request: it reruns the
tests on every candidate). ``/init`` writes a starter ACODE.md from what the project shows.

The commands run like ``!command`` (acode.cli.shell_mode): through the shell tool's rules, approval mode
and hooks, and their output joins the conversation."""

from __future__ import annotations

from pathlib import Path

from acode.cli.slash import ChatContext, register
from acode.tools.ignore import candidate_files

OUTPUT_TAIL = 3000


def test_command(chat: ChatContext) -> str | None:
    """``agent.fix.test_command``, else pytest when the project has Python tests."""
    from acode.agent.fixing.detect import discover_test_command

    return chat.session.settings.agent.fix.test_command or discover_test_command(chat.session.workspace)


def lint_command(chat: ChatContext) -> str | None:
    """``agent.lint_command``, else the first of the project's checks (``pipeline.verify_commands``, else
    ruff when configured) that does not run the tests, else ruff when it is installed and the project has
    Python files (the linter ``acode review`` runs)."""
    from acode.pipeline.verifier import project_checks

    settings = chat.session.settings
    if settings.agent.lint_command:
        return settings.agent.lint_command
    checks = project_checks(chat.session.workspace, settings.pipeline.verify_commands)
    configured = next((c for c, _ in checks if "pytest" not in c and "unittest" not in c), None)
    return configured or _installed_ruff(chat.session.workspace)


def _installed_ruff(root: Path) -> str | None:
    import importlib.util
    import shlex
    import shutil
    import sys

    if not any(path.endswith(".py") for path in candidate_files(root)):
        return None
    if shutil.which("ruff"):
        return "ruff check ."
    if importlib.util.find_spec("ruff") is not None:  # installed beside acode, as the review runs it
        return f"{shlex.quote(sys.executable)} -m ruff check ."
    return None


SETTINGS = {"test": "agent.fix.test_command", "lint": "agent.lint_command"}


def _check(chat: ChatContext, command: str | None, what: str, request: str, typed: str) -> None:
    """Run the project's ``what`` command as the user's own; on a failure send ``request`` (with the
    command and the output's tail) to the agent. ``typed``: the slash command as the person typed it."""
    from acode.agent.fixing.outcome import read_outcome
    from acode.cli.shell_mode import run_user_shell

    if not command:
        chat.console.print(f"no {what} command found: /{what} COMMAND, or set {SETTINGS[what]} in "
                           ".acode/config.yml", highlight=False)
        return
    step = run_user_shell(chat, command, typed=typed)
    if step is None or step.decision != "allowed":
        return
    if read_outcome(step.output).exit_code == 0:
        chat.console.print(f"[green]{what} passed[/] ({command})", highlight=False)
        return
    chat.console.print(f"[yellow]{what} failed[/] ({command}): asking the agent to deal with it",
                       highlight=False)
    chat.submit(request.format(command=command) + f"\n\nOutput:\n{step.output[-OUTPUT_TAIL:]}", shown=typed)


@register("test", "Run the project's tests (or /test COMMAND); failures go to the agent to fix")
def run_tests(chat: ChatContext, args: str) -> None:
    _check(chat, args or test_command(chat), "test", "The tests fail (run them with: `{command}`). Fix the "
           "bug so that the tests pass. Do not change the tests.", f"/test {args}".strip())


@register("lint", "Run the project's linter (or /lint COMMAND); problems go to the agent")
def run_lint(chat: ChatContext, args: str) -> None:
    _check(chat, args or lint_command(chat), "lint", "The linter reports problems (run it with: "
           "`{command}`). Change the code so that it reports none; keep the behaviour the same.",
           f"/lint {args}".strip())


def starter_context(root: Path, tests: str | None, lint: str | None) -> str:
    """A starter ACODE.md from the project's files: its layout and its commands."""
    files = candidate_files(root)
    folders: dict[str, int] = {}
    for path in files:
        top = path.split("/", 1)[0] + "/" if "/" in path else ""
        if top:
            folders[top] = folders.get(top, 0) + 1
    top_files = [p for p in files if "/" not in p]
    suffixes: dict[str, int] = {}
    for path in files:
        suffix = Path(path).suffix
        if suffix:
            suffixes[suffix] = suffixes.get(suffix, 0) + 1
    languages = ", ".join(f"{s} ({n})" for s, n in sorted(suffixes.items(), key=lambda x: -x[1])[:5])
    lines = [f"# {root.name}", "", "Project notes for acode (loaded into every session's system prompt).", "",
             "## Layout", ""]
    lines += [f"- `{folder}` ({count} files)" for folder, count in sorted(folders.items())]
    if top_files:
        lines.append(f"- top level: {', '.join(f'`{p}`' for p in top_files[:12])}")
    if languages:
        lines.append(f"- files by kind: {languages}")
    lines += ["", "## Commands", ""]
    lines.append(f"- tests: `{tests}`" if tests else "- tests: (none found; name the command here)")
    lines.append(f"- lint: `{lint}`" if lint else "- lint: (none found; name the command here)")
    lines += ["", "## Conventions", "", "- (what the agent should keep to: style, things to avoid)", ""]
    return "\n".join(lines)


@register("init", "Write a starter ACODE.md from the project (layout, test and lint commands)")
def init(chat: ChatContext, args: str) -> None:
    root = chat.session.workspace
    target = root / "ACODE.md"
    if target.exists():
        chat.console.print(f"{target.name} exists already: edit it, or /memory add a fact", highlight=False)
        return
    target.write_text(starter_context(root, test_command(chat), lint_command(chat)), encoding="utf-8")
    chat.console.print(f"wrote {target} (read from the next session, or /memory refresh)", highlight=False)
