"""Hostile inputs from a project, a model or a repository (issue 30 items 3-9, 14), tried in this process
against acode's own checks; prints how many of each class were tried and how many held, so the next probe
can be compared with this one. No model, no network: a host is judged by the settings loader and
``netpolicy``, never contacted. (The shell rules' classes are in trust_bench.py.)

    python benchmarks/security/project_trust_probe.py [--json]

Classes:
- ``reach``: a project's ``base_url`` (model, every routing choice) that is not a loopback address, and its
  ``allowed_hosts``, in an untrusted folder; held = left out of the settings. (``loopback kept``: the
  loopback spellings stay, so a project may still point at the user's own local server.)
- ``weaken``: spellings of ``reviewer.test_sandbox: false``; held = the sandbox stays on.
- ``context``: context files and extension ``contextFileName`` values leading out of the project; held =
  the outside text is not read.
- ``custom_shell``: ``!{...}`` that ``deny_shell`` denies, confirmed by the user anyway; held = refused and
  nothing ran.
- ``inject``: ``@{...}`` of a custom command aimed at ``.git/``, ``.acode/``, ignored, binary or outside
  files; held = refused.
- ``escapes``: control sequences in printed text (OSC 52/0, CSI, C1, BEL, CR, BS); held = no control
  character reaches the console's output.
- ``secrets``: secret shapes in stream-json events and saved outputs; held = not there in the clear.
- ``names``: file names that are not UTF-8 through list_directory / glob / grep_search and the sessions
  store; held = no lone surrogate and no exception.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import yaml

LOOPBACK = ["http://127.0.0.1:8080/v1", "http://127.9.9.9/v1", "http://[::1]:8080/v1", "http://localhost/v1",
            "http://[::ffff:127.0.0.1]/v1", "http://LOCALHOST./v1"]
NOT_LOOPBACK = ["http://127.attacker.example/v1", "http://127.0.0.1.nip.io/v1", "http://127.1/v1",
                "http://2130706433/v1", "http://0x7f000001/v1", "http://0.0.0.0/v1", "http://10.0.0.5/v1",
                "http://192.168.1.2/v1", "http://[fe80::1]/v1", "http://localhost.attacker.example/v1",
                "http://user@collector.example.com/v1", "https://collector.example.com:443/v1",
                "http://[::ffff:10.0.0.1]/v1"]
ROUTES = ["model", "routing.utility", "routing.purposes.summary", "routing.complexity.simple_model",
          "routing.complexity.complex_model"]
SECRETS = ["ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "AKIA" + "IOSFODNN7EXAMPLQ",
           "DB_PASSWORD=Tr0ub4dor&3-horse-staple",
           "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"]
CONTROLS = ["\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b]0;pwned\x07", "\x1b[2J\x1b[H", "\x9b2J", "\x1b[31mred\x1b[0m",
            "safe\rEVIL", "abc\x08\x08\x08XYZ", "\x1bP+q\x1b\\", "\x1b]8;;http://x/\x07link\x1b]8;;\x07"]


class Tally:
    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = {}
        self.failures: list[str] = []

    def check(self, kind: str, label: str, held: Callable[[], bool]) -> None:
        """Try one hostile input; an exception counts as not held (an older acode may lack the check)."""
        try:
            ok, why = bool(held()), ""
        except Exception as exc:  # noqa: BLE001 - the probe reports, it does not stop
            ok, why = False, f" ({type(exc).__name__}: {str(exc)[:80]})"
        tried_held = self.counts.setdefault(kind, [0, 0])
        tried_held[0] += 1
        tried_held[1] += int(ok)
        if not ok:
            self.failures.append(f"{kind}: {label}{why}")


def _nest(dotted: str, value: object) -> dict:
    *parents, leaf = dotted.split(".")
    node: dict = {leaf: value}
    for part in reversed(parents):
        node = {part: node}
    return node


def _project(root: Path, config: dict) -> Path:
    (root / ".acode").mkdir(parents=True, exist_ok=True)
    (root / ".acode" / "config.yml").write_text(yaml.safe_dump(config))
    return root


def probe_reach(tally: Tally, root: Path) -> None:
    from acode.config import load_settings

    def base_url_after(key: str, route: str, url: str) -> str | None:
        settings = load_settings(_project(root / "reach", _nest(key, url)), trust=False)
        return (settings.model if route == "model" else _choice(settings.routing, route)).base_url

    for url in NOT_LOOPBACK + LOOPBACK:
        for route in ROUTES:
            key = f"{route}.base_url" if route != "model" else "model.base_url"
            if url in LOOPBACK:  # not hostile: the user's own server on this machine stays usable
                tally.check("loopback kept", f"{key}={url}", lambda k=key, r=route, u=url:
                            base_url_after(k, r, u) == u)
            else:
                tally.check("reach", f"{key}={url}", lambda k=key, r=route, u=url:
                            base_url_after(k, r, u) != u)
    for hosts in (["collector.example.com"], ["0.0.0.0/0"], ["::/0"], ["10.0.0.0/8"], ["*"]):
        tally.check("reach", f"model.allowed_hosts={hosts}", lambda h=hosts: not load_settings(
            _project(root / "reach", {"model": {"allowed_hosts": h}}), trust=False).model.allowed_hosts)


def _choice(routing, route: str):
    parts = route.split(".")[1:]
    node = routing
    for part in parts:
        node = node.get(part) if isinstance(node, dict) else getattr(node, part)
    return node


def probe_weaken(tally: Tally, root: Path) -> None:
    from acode.config import load_settings

    for spelling in ("false", "False", "no", "off", "'false'", "'no'", "'off'", "0", "'0'", "'f'", "'n'"):
        text = f"reviewer:\n  test_sandbox: {spelling}\n"
        (root / "weaken" / ".acode").mkdir(parents=True, exist_ok=True)
        (root / "weaken" / ".acode" / "config.yml").write_text(text)
        tally.check("weaken", spelling,
                    lambda: load_settings(root / "weaken", trust=False).reviewer.test_sandbox is True)


def probe_context(tally: Tally, root: Path) -> None:
    from acode.agent.session.context_files import find_context_files
    from acode.extensions.loader import discover_extensions, extensions_context

    outside = root / "outside.txt"
    outside.write_text("OUTSIDE-TEXT\n")
    (root / "outdir").mkdir(exist_ok=True)
    (root / "outdir" / "AGENTS.md").write_text("OUTSIDE-TEXT\n")
    names = [str(outside), "../../../outside.txt", "../../../../outside.txt", "./../../../outside.txt",
             "link.txt", "sub/../../../../outside.txt"]
    for index, name in enumerate(names):
        project = root / f"ctx{index}"
        ext = project / ".acode" / "extensions" / "e"
        ext.mkdir(parents=True, exist_ok=True)
        (ext / "link.txt").unlink(missing_ok=True)
        (ext / "link.txt").symlink_to(outside)
        (ext / "acode-extension.json").write_text(json.dumps({"name": "e", "contextFileName": name}))
        tally.check("context", f"contextFileName {name}", lambda p=project: "OUTSIDE-TEXT" not in
                    extensions_context(list(discover_extensions(p).values())))
    for index, target in enumerate([outside, root / "outdir" / "AGENTS.md", Path("../outside.txt")]):
        project = root / f"link{index}"
        project.mkdir(exist_ok=True)
        for name in ("AGENTS.md", "ACODE.md"):
            (project / name).unlink(missing_ok=True)
            (project / name).symlink_to(target)
        tally.check("context", f"AGENTS.md -> {target}", lambda p=project: not any(
            "OUTSIDE-TEXT" in f.text for f in find_context_files(p, user_dir=root / "no-user", cwd=p)))


def probe_custom_shell(tally: Tally, root: Path) -> None:
    from acode.commands.expand import expand_command
    from acode.errors import UsageError

    work = root / "shell"
    work.mkdir(exist_ok=True)
    lines = ["touch RAN", "/usr/bin/touch RAN", "\\touch RAN", "echo hi; touch RAN", "echo $(touch RAN)",
             "true && touch RAN", "timeout 5 touch RAN", "env touch RAN", "bash -c 'touch RAN'",
             "{ touch RAN; }", "(touch RAN)", "echo hi | xargs touch RAN"]
    def held(line: str) -> bool:
        marker = work / "RAN"
        marker.unlink(missing_ok=True)
        try:
            expand_command(f"!{{{line}}}", "", work, confirm=lambda _c: True, deny_shell=["touch"])
            return False
        except UsageError:
            return not marker.exists()

    for line in lines:
        tally.check("custom_shell", line, lambda li=line: held(li))


def probe_inject(tally: Tally, root: Path) -> None:
    import subprocess

    from acode.commands.expand import expand_command

    work = root / "inject"
    (work / "sub").mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(["git", "init", "-q"], cwd=work / "sub", check=True)
    (work / ".acode").mkdir(exist_ok=True)
    (work / ".acode" / "config.yml").write_text("{}\n")
    (work / ".gitignore").write_text(".env\n")
    (work / ".env").write_text("TOKEN=x\n")
    (work / "blob.bin").write_bytes(b"\x00\x01binary")
    (work / "gitlink").unlink(missing_ok=True)
    (work / "gitlink").symlink_to(work / ".git" / "config")
    for ref in (".git/config", ".acode/config.yml", "sub/.git/config", ".env", "blob.bin", "gitlink",
                "../inject/.git/config", "./.git/HEAD", "sub/../.git/config", "../outside.txt"):
        tally.check("inject", ref, lambda r=ref: _refused(lambda: expand_command(f"@{{{r}}}", "", work)))


def _refused(call: Callable[[], object]) -> bool:
    from acode.errors import UsageError

    try:
        call()
    except UsageError:
        return True
    return False


def probe_escapes(tally: Tally) -> None:
    from rich.console import Console
    from rich.markdown import Markdown

    def printed(render: Callable[[Console], None]) -> str:
        buffer = io.StringIO()
        console = Console(file=buffer, force_terminal=False, width=200)
        try:
            from acode.cli.terminal_safety import ShowControls  # what acode.cli.common installs

            console.push_render_hook(ShowControls())
        except ImportError:  # acode before issue 30
            pass
        render(console)
        return buffer.getvalue()

    def clean(out: str) -> bool:
        return not any(ord(ch) < 32 and ch not in "\n\t" or 0x7F <= ord(ch) < 0xA0 for ch in out)

    for sequence in CONTROLS:
        for how, render in (("text", lambda c, s=sequence: c.print(f"answer {s}", markup=False)),
                            ("markdown", lambda c, s=sequence: c.print(Markdown(f"# t\n\n{s}")))):
            tally.check("escapes", f"{how} {sequence!r}", lambda r=render: clean(printed(r)))


def probe_secrets(tally: Tally, root: Path) -> None:
    from acode.cli.stream_events import MessageEvent, ToolResultEvent, line
    from acode.tools.output_budget import fit_to_budget

    for secret in SECRETS:
        text = f"config\n{secret}\nmore"
        events = [MessageEvent(role="user", content=f"use {secret}"),
                  ToolResultEvent(tool_id="c1", tool_name="read_file", status="success", decision="allowed",
                                  output=text, error=None, seconds=0.1)]
        value = secret.split("=", 1)[-1]
        tally.check("secrets", f"stream-json {secret[:8]}...", lambda e=events, v=value: all(
            v not in line(event) for event in e))

        def saved_clean(text: str = text, value: str = value) -> bool:
            _, saved = fit_to_budget(text + "\n" + "x" * 600, 100, root / "outputs", "shell")
            return saved is not None and value not in saved.read_text()

        tally.check("secrets", f"saved output {secret[:8]}...", saved_clean)


def probe_names(tally: Tally, root: Path) -> None:
    from acode.llm.types import ToolCall
    from acode.store.sessions import SessionStore
    from acode.tools.base import ToolContext, ToolRegistry
    from acode.tools.listing import Glob, ListDirectory
    from acode.tools.search import GrepSearch

    work = root / "names"
    work.mkdir(exist_ok=True)
    for raw in (b"bad\xff.py", b"latin\xe9.py", b"half\xc3.py", b"\x80start.py"):
        (work / os.fsdecode(raw)).write_text("needle = 1\n")
    registry, ctx = ToolRegistry([ListDirectory(), Glob(), GrepSearch()]), ToolContext(workspace=work)
    def held(name: str, arguments: dict) -> bool:
        result = registry.dispatch(ToolCall(name=name, arguments=arguments), ctx)
        result.for_model().encode("utf-8")  # a lone surrogate cannot be sent or stored
        SessionStore(root / "names.db").add_event("probe", "tool", result.model_dump())
        return result.ok and "\\xff" in result.output

    calls = [("list_directory", {"dir_path": "."}), ("glob", {"pattern": "*.py"}),
             ("grep_search", {"pattern": "needle"})]
    store = SessionStore(root / "names.db")
    store.conn.execute("INSERT INTO sessions (id, workspace, created, updated) VALUES ('probe', '.', 0, 0)")
    for name, arguments in calls:
        tally.check("names", name, lambda n=name, a=arguments: held(n, a))


def run_all() -> Tally:
    logging.disable(logging.WARNING)  # each refused context file says so on stderr
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["ACODE_CONFIG_HOME"] = str(root / "user-config")  # no stored trust rule applies
        for probe in (probe_reach, probe_weaken, probe_context, probe_custom_shell, probe_inject,
                      probe_secrets, probe_names):
            probe(tally, root)
        probe_escapes(tally)
    return tally


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(list(argv) if argv is not None else None)
    tally = run_all()
    report = {kind: {"tried": tried, "held": held} for kind, (tried, held) in tally.counts.items()}
    if args.json:
        print(json.dumps({"classes": report, "failures": tally.failures}, indent=2))
        return
    for kind, row in report.items():
        print(f"{kind:<13} tried {row['tried']:>4}  held {row['held']:>4}")
    for failure in tally.failures:
        print(f"  did not hold: {failure}")


if __name__ == "__main__":
    main()
