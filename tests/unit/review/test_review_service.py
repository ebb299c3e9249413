"""The review service end to end on a scripted model: findings are grounded, checked one by one, and
the decision follows from them; unreadable answers never approve; timeouts keep the partial result."""

from __future__ import annotations

import os

import pytest
from pydantic import BaseModel
from tests.helpers.review_fakes import BUGGY, SOUND, finding, repo_with_branch, reviewer, yes_no

from acode.config.review import ReviewerSettings
from acode.errors import ModelOutputError, ModelTimeoutError
from acode.llm.chat_template import ChatTemplate
from acode.llm.scripted import ScriptedModel
from acode.llm.types import Completion
from acode.review.change.git_context import branch_context
from acode.review.service import review_change
from acode.tools.base import Tool, ToolError, ToolRegistry, ToolResult


@pytest.fixture
def bug_context(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"pages.py": SOUND, "tests/test_pages.py": "def test(): pass\n"},
                            {"pages.py": BUGGY, "tests/test_pages.py": "def test():\n    pass\n"})
    return branch_context(repo)


def per_dim(**kwargs) -> ReviewerSettings:
    """Proposals per dimension; the regression check off (its own tests are in test_review_regression)."""
    kwargs.setdefault("regression", {"method": "off"})
    return ReviewerSettings(strategy="per_dimension", **kwargs)


def model_of(step, n: int = 40) -> ScriptedModel:
    return ScriptedModel([step] * n)


def test_confirmed_finding_on_the_changed_line_rejects(bug_context):
    model = model_of(reviewer({"code_quality": [finding("start = number * size", "page 1 is skipped")]}, p_yes=0.92))
    result = review_change(bug_context, model, per_dim(require_candidates=False))
    [f] = [f for f in result.all_findings() if f.source == "model"]
    assert (f.file, f.line, f.grounding, f.status) == ("pages.py", 3, "changed", "confirmed")
    assert f.confidence == pytest.approx(0.92, abs=1e-3)
    levels = {d.name: d.level for d in result.dimensions}
    assert levels["code_quality"] == "poor" and levels["safety"] == "excellent"
    assert result.decision.verdict == "REJECTED" and result.decision.strategy == "findings"
    assert "pages.py:3" in result.decision.reasons[0]


def test_the_check_decides_a_finding_it_rejects_does_not_count(bug_context):
    model = model_of(reviewer({"code_quality": [finding("start = number * size")]}, p_yes=0.2))
    result = review_change(bug_context, model, per_dim(require_candidates=False))
    [f] = [f for f in result.all_findings() if f.source == "model"]
    assert f.status == "dismissed" and f.confidence == pytest.approx(0.2, abs=1e-3)
    assert {d.name: d.level for d in result.dimensions}["code_quality"] == "good"
    assert result.decision.verdict == "APPROVED"


def test_a_middling_confidence_is_advice_and_never_rejects(bug_context):
    """Three proposals at P(yes) 0.65 in three dimensions: shown, but no dimension needs work for them (on
    real commits the 1.5B's checks gave fixes and reverted fixes the same 0.51-0.69)."""
    found = {name: [finding("start = number * size")] for name in ("code_quality", "completeness", "consistency")}
    model = model_of(reviewer(found, p_yes=0.65))
    result = review_change(bug_context, model, per_dim(require_candidates=False))
    levels = {d.name: d.level for d in result.dimensions}
    assert levels["code_quality"] == levels["completeness"] == levels["consistency"] == "acceptable"
    assert result.decision.verdict == "APPROVED"
    assert sum(f.source == "model" and f.status == "confirmed" for f in result.all_findings()) == 3


def test_findings_may_only_point_at_added_lines(bug_context):
    """The schema offers the added line numbers only; an answer naming another line is not readable,
    and an unreadable answer never approves."""
    model = model_of(reviewer({"safety": [finding("return items[start : start + size]", number=4)]}, p_yes=0.99))
    result = review_change(bug_context, model, per_dim(require_candidates=False))
    schema = model.calls[0]["schema"]
    item = schema["$defs"]["Finding"]["properties"]
    assert item["line_number"]["enum"] == [1, 2, 3]  # added lines of pages.py and tests/test_pages.py
    assert item["file"]["enum"] == ["pages.py", "tests/test_pages.py"]
    safety = {d.name: d for d in result.dimensions}["safety"]
    assert safety.status == "failed" and safety.level is None
    assert result.decision.verdict == "REJECTED"


def test_dimension_prompts_share_one_prefix_and_checks_are_narrow(bug_context):
    model = model_of(reviewer({"code_quality": [finding("start = number * size", "skips page 1")]},
                              default=[finding("", "doubtful", "low")]))
    review_change(bug_context, model, per_dim())
    proposals = [c for c in model.calls if c["schema"] is not None]
    checks = [c for c in model.calls if c["schema"] is None]
    # two distinct claims about line 3: each is checked once, however many dimensions raise it
    assert len(proposals) == 5 and len(checks) == 2
    shared = proposals[0]["messages"][-1].content.split("Task: review")[0]
    assert "+    start = number * size" in shared
    for call in model.calls:
        assert call["messages"][0].content == proposals[0]["messages"][0].content
        assert call["messages"][-1].content.startswith(shared)
    assert "skips page 1" in "".join(c["messages"][-1].content for c in checks)
    assert "start = number * size" in checks[0]["messages"][-1].content  # the real line, quoted from the diff
    assert checks[0]["messages"][-1].content.rstrip().endswith("yes or no.")
    # every proposal schema demands at least one candidate (require_candidates) and bounds the list
    findings_schema = proposals[0]["schema"]["properties"]["findings"]
    assert findings_schema["minItems"] == 1 and findings_schema["maxItems"] == 3


def test_disabled_dimensions_are_not_assessed(bug_context):
    settings = per_dim(require_candidates=False)
    settings.dimensions.consistency.enabled = False
    settings.dimensions.completeness.enabled = False
    model = model_of(reviewer())
    result = review_change(bug_context, model, settings)
    assert [d.name for d in result.dimensions] == ["intent_alignment", "code_quality", "safety"]
    assert len(model.calls) == 3


def test_single_call_strategy_asks_once_and_files_findings_by_dimension(bug_context):
    answer = {"json": {"findings": [{**finding("start = number * size"), "dimension": "intent_alignment"}]}}
    model = ScriptedModel([answer, yes_no(0.9)])
    result = review_change(bug_context, model, ReviewerSettings(strategy="single_call"))
    assert len(model.calls) == 2 and model.remaining == 0
    by_name = {d.name: d for d in result.dimensions}
    assert by_name["intent_alignment"].level == "poor" and by_name["safety"].level == "excellent"
    assert result.decision.verdict == "REJECTED"


@pytest.mark.parametrize("strategy", ["single_call", "per_dimension"])
def test_the_checks_share_the_proposals_whole_prompt_up_to_the_task(bug_context, strategy):
    """As the embedded backend formats them (the same template, KV cache by prefix): the proposal's JSON
    schema is explained after its task, so a check differs from the proposal only after the context."""
    claim = finding("start = number * size", "skips page 1")
    model = (ScriptedModel([{"json": {"findings": [{**claim, "dimension": "code_quality"}]}}, yes_no(0.9)])
             if strategy == "single_call" else model_of(reviewer({"code_quality": [claim]})))
    review_change(bug_context, model, ReviewerSettings(strategy=strategy, regression={"method": "off"}))
    template = ChatTemplate(None)
    prompts = [(c["schema"] is not None, template.prompt(c["messages"], c["tools"], c["schema"],
                                                         c["instructions_at"])) for c in model.calls]
    proposal = next(text for asked_json, text in prompts if asked_json)
    checks = [text for asked_json, text in prompts if not asked_json]
    assert checks
    task = proposal.index("Task: review")
    assert "+    start = number * size" in proposal[:task] and '"findings"' in proposal[task:]
    for check in checks:
        assert os.path.commonprefix([proposal, check]) == proposal[:task]


@pytest.mark.parametrize("bad", ["", "I think it is fine.", '{"verdict": "APPROVED"}', "{}", '{"findings": [{"line": 1}]}'])
def test_an_unreadable_or_empty_answer_never_approves(bug_context, bad):
    model = ScriptedModel([bad] * 20)
    result = review_change(bug_context, model, per_dim(require_candidates=False))
    assert result.decision.verdict == "REJECTED"
    assert all(d.level is None and d.status == "failed" for d in result.dimensions)
    assert "could not be assessed" in result.decision.reasons[0]


def test_unreadable_answer_is_a_typed_failure_when_configured(bug_context):
    with pytest.raises(ModelOutputError) as err:
        review_change(bug_context, ScriptedModel(["nonsense"] * 20), per_dim(on_model_failure="error"))
    assert err.value.code == "ACODE-REVIEW-020"


def test_a_check_answer_that_is_neither_yes_nor_no_counts_against_the_change(bug_context):
    def step(messages, tools, schema):
        if schema is None:
            return Completion(text="Maybe")
        return {"json": {"findings": [finding("start = number * size")]}}

    result = review_change(bug_context, ScriptedModel([step] * 20), per_dim())
    statuses = {f.status for f in result.all_findings() if f.source == "model"}
    assert statuses == {"unchecked"}
    assert result.decision.verdict == "REJECTED"  # five dimensions need work: more than two


def test_verdict_strategy_is_the_naive_baseline(bug_context):
    approve = ScriptedModel([{"json": {"verdict": "APPROVED", "reason": "fine"}}])
    result = review_change(bug_context, approve, per_dim(decision_strategy="verdict"))
    assert result.decision.verdict == "APPROVED" and result.decision.strategy == "verdict"
    assert result.dimensions == []
    unreadable = ScriptedModel(["no idea", "still no idea"])
    assert review_change(bug_context, unreadable, per_dim(decision_strategy="verdict")).decision.verdict == "REJECTED"


def test_timeout_keeps_the_partial_result(bug_context):
    slow = {"sleep": 0.6, "json": {"findings": []}}
    model = ScriptedModel([{"json": {"findings": []}}, slow] + [{"json": {"findings": []}}] * 5)
    result = review_change(bug_context, model, per_dim(require_candidates=False, timeout_seconds=0.5))
    assert result.status == "partial"
    by_name = {d.name: d for d in result.dimensions}
    assert (by_name["intent_alignment"].status, by_name["intent_alignment"].level) == ("assessed", "excellent")
    # not reached by the model: decided on its deterministic evidence alone, and marked partial
    assert by_name["safety"].status == "partial" and by_name["safety"].level == "excellent"
    assert "not finished before the time limit" in by_name["safety"].explanation
    assert result.decision.verdict == "APPROVED" and result.approved
    assert any("time limit" in item for item in result.plan.skipped)


def test_timeout_when_the_model_assessed_nothing_never_approves(bug_context):
    model = ScriptedModel([ModelTimeoutError("ACODE-MODEL-030", "the model took too long")])
    result = review_change(bug_context, model, per_dim(require_candidates=False, timeout_seconds=0.5))
    assert result.status == "timeout" and not result.approved
    assert all(d.status == "timeout" and d.level is None for d in result.dimensions)


def test_tokens_are_counted_and_secrets_in_findings_are_redacted(bug_context):
    leaky = finding("start = number * size", 'the password = "hunter2hunter2" is exposed')
    model = model_of(reviewer({"safety": [leaky]}))
    result = review_change(bug_context, model, per_dim(require_candidates=False))
    assert result.tokens.calls == len(model.calls) and result.tokens.evaluated > 0
    [f] = [f for f in result.all_findings() if f.source == "model"]
    assert "hunter2" not in f.message


class _ReadArgs(BaseModel):
    path: str


class FakeRead(Tool):
    """A read-only tool over a dict, failing for unknown paths (the failure must reach the model)."""

    name = "read_file_part"
    description = "Read a file."
    Args = _ReadArgs

    def run(self, args, ctx):
        if args.path != "helpers.py":
            raise ToolError(f"no such file: {args.path}")
        return ToolResult(output="def helper():\n    return 42\n")


def test_look_around_reads_with_read_only_tools_and_failures_are_messages(bug_context):
    steps = [
        {"tool": "read_file_part", "arguments": {"path": "missing.py"}},
        {"tool": "read_file_part", "arguments": {"path": "helpers.py"}},
    ] + [reviewer()] * 10
    model = ScriptedModel(steps)
    settings = per_dim(require_candidates=False)
    settings.lookaround.enabled = True
    result = review_change(bug_context, model, settings, ToolRegistry([FakeRead()]))
    assert result.tool_calls == ['read_file_part {"path": "missing.py"}', 'read_file_part {"path": "helpers.py"}']
    second_call = model.calls[1]["messages"]
    assert second_call[-2].role == "tool" and "no such file" in second_call[-2].content
    proposal = model.calls[2]["messages"][-1].content
    assert "return 42" in proposal and "no such file" in proposal
    assert result.decision.verdict == "APPROVED"


@pytest.mark.parametrize(("p_yes", "shown"), [(0.5, "medium"), (0.79, "medium"), (0.92, "high"), (0.2, "medium")])
def test_a_model_finding_is_high_only_when_its_check_firmly_confirms_it(bug_context, p_yes, shown):
    """Today's quickstart printed an invented p=0.50 finding as high; it is medium unless P(yes) reaches
    thresholds.poor. The level it gives does not change."""
    model = model_of(reviewer({"safety": [finding("start = number * size", "injection", "high")]}, p_yes=p_yes))
    result = review_change(bug_context, model, per_dim(require_candidates=False))
    [f] = [f for f in result.all_findings() if f.source == "model"]
    assert f.severity == shown
    level = {d.name: d.level for d in result.dimensions}["safety"]
    assert level == {0.5: "acceptable", 0.79: "acceptable", 0.92: "poor", 0.2: "good"}[p_yes]


def test_both_front_ends_store_one_identity_so_a_run_review_is_found_by_the_same_settings(bug_context, tmp_path):
    from acode.config.model import ModelSettings
    from acode.review.service import ReviewService

    settings, db = per_dim(require_candidates=False), tmp_path / "reviews.db"
    run = ReviewService(settings, ModelSettings(backend="scripted"), run_tests=False, db_path=db, source="run")
    model = model_of(reviewer({"code_quality": [finding("start = number * size", "page 1 is skipped")]}, p_yes=0.92))
    result = run.review(bug_context, model)
    review_id = run.store(result)
    same = ReviewService(settings, ModelSettings(backend="scripted"), run_tests=False, db_path=db, source="review")
    stored = same.reusable(bug_context)
    assert stored is not None and (stored.id, stored.source) == (review_id, "run")
    assert stored.result.decision == result.decision
    other_model = ReviewService(settings, ModelSettings(backend="scripted", name="other"), run_tests=False,
                                db_path=db, source="review")
    assert other_model.reusable(bug_context) is None
    nowhere = ReviewService(settings, ModelSettings(backend="scripted"), run_tests=False, db_path=None,
                            source="run")
    assert nowhere.store(result) is None and nowhere.reusable(bug_context) is None
