"""The generated reference pages (docs/reference/) match the code, and the check names what drifted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from acode.config.agent import AgentSettings
from acode.config.settings import Settings
from acode.docs.pages import default_sources, generate, problems, write

REPO = Path(__file__).resolve().parents[3]


def test_the_committed_pages_match_the_code():
    done = subprocess.run([sys.executable, "-m", "acode.docs", "--check"], check=False, cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


class _AgentWithANewKey(AgentSettings):
    model_config = ConfigDict(extra="forbid")

    made_up_limit: int = Field(7, description="a key nobody documented yet")
    made_up_switch: bool = False


class _SettingsWithANewKey(Settings):
    agent: _AgentWithANewKey = Field(default_factory=_AgentWithANewKey)


def test_a_config_key_without_a_reference_entry_fails_the_check(tmp_path):
    _, app, src = default_sources()
    write(tmp_path, generate(Settings, app, src))
    assert problems(tmp_path, Settings, app, src) == []

    found = problems(tmp_path, _SettingsWithANewKey, app, src)

    assert found == [
        f"{tmp_path / 'config.md'}: config key agent.made_up_limit has no reference entry",
        f"{tmp_path / 'config.md'}: config key agent.made_up_switch has no reference entry",
        "_SettingsWithANewKey: config key agent.made_up_switch has no meaning: give its Field a description=",
        f"{tmp_path / 'config.md'} is stale: it differs from what the code generates",
    ]
    write(tmp_path, generate(_SettingsWithANewKey, app, src))
    assert "| `agent.made_up_limit` | int | 7 | a key nobody documented yet |" in (
        tmp_path / "config.md").read_text()


def test_a_new_error_code_and_an_edited_page_fail_the_check(tmp_path):
    settings, app, _ = default_sources()
    src = tmp_path / "acode"
    src.mkdir()
    (src / "thing.py").write_text(
        'from acode.errors import UsageError\n\n'
        'def check(name):\n'
        '    raise UsageError("ACODE-THING-001", f"no thing called {name}", hint="list them first")\n'
    )
    pages = tmp_path / "reference"
    write(pages, generate(settings, app, tmp_path / "elsewhere"))
    (pages / "cli.md").write_text((pages / "cli.md").read_text() + "\nan edit by hand\n")

    found = problems(pages, settings, app, src)

    assert found == [
        f"{pages / 'exit-codes.md'}: error code ACODE-THING-001 has no reference entry",
        f"{pages / 'cli.md'} is stale: it differs from what the code generates",
        f"{pages / 'exit-codes.md'} is stale: it differs from what the code generates",
    ]
    write(pages, generate(settings, app, src))
    assert ("| `ACODE-THING-001` | no thing called {…} | list them first | `acode.thing` |"
            in (pages / "exit-codes.md").read_text())


class _Event(BaseModel):
    matcher: str = Field("", description="which calls")


class _OddEvent(BaseModel):
    matcher: str = Field("*", description="which calls")  # another default: not the same settings


class _Events(BaseModel):
    Before: list[_Event] = []
    After: list[_Event] = []
    Start: list[_Event] = []
    Odd: list[_OddEvent] = []


class _Pair(BaseModel):
    One: list[_Event] = []
    Two: list[_Event] = []


def test_sections_of_the_same_settings_are_written_once_naming_each_key():
    from acode.docs.config_reference import keys, render

    assert keys(_Events) == ["<key>[].matcher", "Odd[].matcher"]
    page = render(_Events)
    assert "`<key>` is each of `Before`, `After`, `Start`: the same settings under each." in page
    assert "| `Odd[].matcher` | str | \"*\" | which calls |" in page
    assert keys(_Pair) == ["One[].matcher", "Two[].matcher"]  # two alike are written out
    assert keys(Settings).count("hooks.<key>[].matcher") == 1
    assert not any(key.startswith("hooks.BeforeTool") for key in keys(Settings))
