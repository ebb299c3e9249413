"""``acode config show|path``: the settings in force and where they come from."""

from __future__ import annotations

import json
import os

import typer

from acode.cli.common import console, print_json, project_root, settings_for

app = typer.Typer(help="Show the settings in force and the files they are read from.", no_args_is_help=True)


@app.command("show")
def show(
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    all_values: bool = typer.Option(False, "--all", help="Also list the settings left at their defaults."),
) -> None:
    """The settings in force and where each value comes from (like git config --show-origin): defaults <
    user file < project file < ACODE_* variables < flags. Values left at their defaults are counted, not
    listed, unless --all. Then which hosts acode may contact (the local-only guarantee)."""
    from acode.command_sandbox import command_sandbox
    from acode.netpolicy import contact_report

    settings = settings_for()
    network = contact_report(settings)
    sandbox = command_sandbox(settings.sandbox)
    if json_out:
        print_json({**settings.model_dump(mode="json"), "network": network,
                    "sandbox_in_force": sandbox.as_dict()})
        return
    rows = [(key, value, settings.origin(key)) for key, value in leaves(settings.model_dump(mode="json"))]
    shown = rows if all_values else [row for row in rows if row[2] != "default"]
    console.print("# settings in force, each with where it comes from"
                  + ("" if all_values else " (only those not at their defaults)"), markup=False)
    for key, value, origin in shown:
        console.print(f"{key}: {json.dumps(value, ensure_ascii=False)}  # {origin}", markup=False,
                      highlight=False, soft_wrap=True)
    if not all_values:
        console.print(f"# {len(rows) - len(shown)} more at their defaults: acode config show --all",
                      markup=False)
    _print_network(network)
    console.print(f"\n# sandbox of the model's commands: {sandbox.describe()}", markup=False, soft_wrap=True)
    if not sandbox.active and sandbox.mode != "off":
        console.print(f"#   {sandbox.unavailable_line()}", markup=False, soft_wrap=True)


def leaves(data: object, prefix: str = "") -> list[tuple[str, object]]:
    """(dotted key, value) for every setting; lists and empty mappings count as one value."""
    if isinstance(data, dict) and data:
        out: list[tuple[str, object]] = []
        for key, value in data.items():
            out += leaves(value, f"{prefix}{key}.")
        return out
    return [(prefix.rstrip("."), data)]


def _print_network(network: dict) -> None:
    console.print("\n# network: acode may contact only these hosts", markup=False)
    for entry in network["may_contact"]:
        console.print(f"#   {entry}", markup=False)
    if network["embedded_model"]:
        console.print(
            "#   the model runs embedded (model.backend: embedded): no model server is contacted",
            markup=False,
        )
    for item in network["endpoints"]:
        state = "allowed" if item["allowed"] else "REFUSED"
        console.print(f"#   {item['setting']} {item['url']}: {state} ({item['why']})", markup=False)


def _sources() -> dict[str, object]:
    from acode.paths import ENV_PREFIX, ProjectPaths, user_config_dir

    user_file = user_config_dir() / "config.yml"
    project_file = ProjectPaths(project_root()).config_file
    variables = sorted(name for name in os.environ if name.startswith(ENV_PREFIX) and "__" in name)
    return {
        "files": [
            {"layer": "user", "path": str(user_file), "exists": user_file.is_file()},
            {"layer": "project", "path": str(project_file), "exists": project_file.is_file()},
        ],
        "environment": variables,
    }


@app.command("path")
def path(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Which config files are read (lowest precedence first) and which ACODE_* variables are set."""
    sources = _sources()
    if json_out:
        print_json(sources)
        return
    for entry in sources["files"]:  # type: ignore[union-attr]
        state = "" if entry["exists"] else "  (not present)"
        console.print(f"{entry['layer']:>8}: {entry['path']}{state}", markup=False)
    names = sources["environment"]
    console.print(f"     env: {', '.join(names) if names else '(no ACODE_* variables set)'}", markup=False)  # type: ignore[arg-type]
