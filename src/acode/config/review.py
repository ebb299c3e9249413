"""Settings of the reviewer (`acode review` and the Reviewer stage of `acode run`): the ``reviewer:``
section."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Level = Literal["excellent", "good", "acceptable", "needs_work", "poor"]
DIMENSIONS = ("intent_alignment", "code_quality", "completeness", "consistency", "safety")


class DimensionSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="false: the review leaves this dimension out")


class Dimensions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intent_alignment: DimensionSettings = Field(default_factory=DimensionSettings)
    code_quality: DimensionSettings = Field(default_factory=DimensionSettings)
    completeness: DimensionSettings = Field(default_factory=DimensionSettings)
    consistency: DimensionSettings = Field(default_factory=DimensionSettings)
    safety: DimensionSettings = Field(default_factory=DimensionSettings)

    def enabled(self) -> list[str]:
        return [name for name in DIMENSIONS if getattr(self, name).enabled]


class Thresholds(BaseModel):
    """How findings become levels. A model finding counts only when its check (a separate yes/no question)
    gives it at least ``confirm`` probability of being a real defect."""

    model_config = ConfigDict(extra="forbid")

    confirm: float = Field(0.5, ge=0.0, le=1.0, description="P(yes) at which a model finding is confirmed")
    poor: float = Field(
        0.8, ge=0.0, le=1.0, description="P(yes) at which a high/medium finding makes its dimension poor"
    )
    max_needs_work: int = Field(2, ge=0, description="reject when more dimensions than this are needs_work")
    count_context_lines: bool = Field(
        False, description="also count findings about unchanged lines shown as context"
    )
    untested_change_level: Level = Field(
        "acceptable", description="completeness level when code changed but no test file was touched"
    )


class LookAroundSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(False, description="costs one extra reading of the context; off by default")
    max_calls: int = Field(2, ge=0, le=20, description="read-only tool calls the reviewer may make")
    max_result_chars: int = Field(2000, ge=200, description="characters of each look-up's result kept")


class RegressionSettings(BaseModel):
    """The regression check: each changed region's old and new code, scored by the model against the
    documentation and code before it; a change that makes the code clearly less likely is rejected."""

    model_config = ConfigDict(extra="forbid")

    method: Literal["auto", "likelihood", "question", "off"] = Field(
        "auto",
        description="likelihood: the model's log-likelihood of each version (needs a backend that "
        "scores text: the embedded model); question: a yes/no question per version; auto: likelihood when "
        "the backend can, else question",
    )
    # Defaults chosen by benchmarks/review/review_accuracy.py --tune on the bundled 1.5B (even HumanEvalPack
    # tasks and even real commits); the 0.5B chose the same. See benchmarks/results/history/.
    statistic: Literal["sum", "mean"] = Field(
        "mean",
        description="compare the mean log-probability per token of the two versions, or the sum "
        "(the sum penalises every added token)",
    )
    margin: float = Field(
        0.075,
        ge=0.0,
        description="reject when new - old is below -margin (nats, per token with statistic mean)",
    )
    context_lines: int = Field(60, ge=1, le=400, description="lines before a change the model reads first")
    after_lines: int = Field(
        30, ge=0, le=400, description="unchanged lines after a change that are scored too"
    )
    max_regions: int = Field(
        8, ge=1, le=100, description="changed regions checked per review (largest first)"
    )
    max_edit_lines: int = Field(
        4,
        ge=0,
        le=400,
        description="compare only edits: regions where at most this many lines were removed and "
        "at most this many added. A larger rewrite is not compared: new code is less familiar to the model "
        "than the "
        "code it replaces whether it is right or wrong (0: no limit)",
    )
    preamble: bool = Field(
        True,
        description="put the definitions the changed lines use but the lines before them do not show (a "
        "helper further down the file, an import at its top) before both versions, so using them is not new "
        "to the model",
    )
    tests: bool = Field(
        False,
        description="put the project's own tests of the changed function (those of the reviewed version "
        "that call it; the ones the change adds first) before both versions, so each is read against what "
        "the project says the code must do. Off by default: on real commits with the 0.5B it did not change "
        "the accuracy measurably and it adds up to ~400 prompt tokens per compared edit "
        "(benchmarks/results/history/)",
    )
    intent: bool = Field(
        True,
        description="head both versions with the change's stated intent (commit messages, the run's request) "
        "as a comment, so a deliberate change is judged against what it set out to do",
    )
    scope: Literal["differences", "all"] = Field(
        "differences",
        description="differences: where the behavioural diff ran, compare only the edits inside functions "
        "where it found a difference the model's question left open (there the guess decides between high "
        "and medium; where it did not run, every edit is compared, each guess at most medium); all: "
        "every edit, a guess no executed evidence backs counting medium (a reason to look). A likelihood "
        "guess is never high on its own: on real fixes of real projects it rejected sound changes "
        "(benchmarks/results/history/)",
    )
    when_tests_agree: Literal["skip", "run"] = Field(
        "skip",
        description="skip: not run when the project's tests ran on both sides and agree (same outcome for "
        "every test, some passing), whether or not a test names the changed code, nor when they ran out of "
        "time with the change (nothing compared; the project has tests all the same): on real commits of "
        "tested projects the 1.5B's likelihood preferred the buggy version as often as the fix "
        "(benchmarks/results/history/); run: compare anyway",
    )


class BehaviourSettings(BaseModel):
    """The behavioural diff: the old and new version of each changed function run on the same inputs in the
    sandbox (acode.review.evidence.behaviour.diff)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(
        True, description="run the old and the new version of each changed function and compare them (in the "
        "sandbox only, unless run_tests is true)")
    seconds: float = Field(6.0, gt=0, description="Hypothesis' search per function (seconds)")
    crosshair_seconds: float = Field(
        4.0, ge=0, description="CrossHair's symbolic search per annotated function when Hypothesis found "
        "nothing (CPU seconds; 0: not used)")
    plan_seconds: float = Field(
        10.0, gt=0, description="the whole behavioural diff per review: every function's search and "
        "CrossHair share it (each function gets the time left divided by the functions left, at most "
        "`seconds`)")
    max_functions: int = Field(8, ge=1, le=100, description="changed functions compared per review")
    max_examples: int = Field(200, ge=1, le=10_000, description="Hypothesis inputs per function at most")
    question_margin: float = Field(
        1.0, ge=0.0, description="the model's yes/no log-odds for the new outcome minus the old: below "
        "-margin the difference counts high, above +margin it is dismissed, in between medium")
    judge_votes: int = Field(
        0, ge=0, le=2, description="0: one yes/no question per outcome decides a difference "
        "(question_margin); 1-2: the difference is "
        "put several ways instead (the yes/no pair, and that many wordings of 'A or B?' in both orders, "
        "with the specification the code states), and only votes that all lean one way past judge_margin "
        "decide: a model that disagrees with itself decides nothing")
    judge_margin: float = Field(
        0.5, ge=0.0, description="with judge_votes: the mean of the votes (log-odds that the new outcome is "
        "right) must pass it, every vote leaning the same way, for the difference to count high (old right) "
        "or be dismissed (new right)")
    judge_swap: Literal["consistent", "cancelled"] = Field(
        "consistent", description="with judge_votes: consistent: each order of 'A or B?' is a vote of its "
        "own, so an answer that flips when the outcomes swap places decides nothing; cancelled: a wording's "
        "two orders are averaged into one vote, a leaning to one position cancelled instead of vetoing")
    intent_votes: int = Field(
        2, ge=0, le=2, description="wordings of each framing of the question 'does the request ask for a "
        "behaviour change?' (asked only where a difference waits for the model; 0: the word list alone)")
    intent_margin: float = Field(
        0.5, ge=0.0, description="the mean yes/no log-odds each framing must pass for the intent question to "
        "count: both framings beyond it and agreeing, else uncertain (the word list decides)")


class BudgetSettings(BaseModel):
    """How a review plans its work to ``timeout_seconds`` (see acode.review.judging.time_plan)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(
        True,
        description="plan the work to the time limit (regions, diff shown, proposals) "
        "and name what was left out; off: do everything and stop at the limit",
    )
    prompt_tokens_per_second: float = Field(
        50.0,
        gt=0,
        description="prior prompt speed until the review has measured the model (the bundled 1.5B "
        "on 2 cores reads about 50 tokens/s)",
    )
    generated_tokens_per_second: float = Field(8.0, gt=0, description="prior generation speed")
    regression_share: float = Field(
        0.5,
        gt=0.0,
        le=1.0,
        description="share of the limit the regression check may plan for when proposals "
        "follow (all of it with strategy checks_only)",
    )
    safety: float = Field(
        0.85,
        gt=0.0,
        le=1.0,
        description="share of the limit that is planned (the rest absorbs estimation error)",
    )
    min_diff_tokens: int = Field(
        300,
        ge=0,
        description="leave the proposals out when less diff than this fits the remaining time",
    )
    on_partial: Literal["decide", "reject"] = Field(
        "decide",
        description="a partial review (the plan left something out, or the limit passed mid-plan) "
        "decides on what it assessed, or rejects whatever it found",
    )


class RepoRule(BaseModel):
    """A project rule for the review: an ast-grep pattern scoped to paths (review.evidence.repo_rules)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[\w.-]+$", description="named in findings as rules/<id>")
    paths: list[str] = Field(default_factory=lambda: ["*"], description="globs of the files it applies to "
                             "(fnmatch on the repository-relative path: * crosses folders, src/payments/*)")
    pattern: str = Field(description="an ast-grep pattern, e.g. requests.get($$$)")
    language: str = Field("python", description="the language ast-grep parses the files as")
    message: str = Field(description="what the finding says")
    severity: Literal["critical", "high", "medium", "low", "info"] = Field(
        "high", description="critical/high reject, medium needs work, low/info are noted")
    dimension: Literal["intent_alignment", "code_quality", "completeness", "consistency", "safety"] = Field(
        "consistency", description="the dimension the finding counts against")


class PathInstruction(BaseModel):
    """Plain-language guidance for the review's model steps about the files of some paths
    (review.judging.instructions): told to the model only where it looks at a change to those files."""

    model_config = ConfigDict(extra="forbid")

    paths: list[str] = Field(min_length=1, description="globs of the files it is for (fnmatch on the "
                             "repository-relative path, as reviewer.rules: * crosses folders, src/api/**)")
    text: str = Field(min_length=1, max_length=600, description="what the model is told, e.g. \"handlers "
                      "must check the caller's permission before reading the database\"")


class ReviewerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dimensions: Dimensions = Field(default_factory=Dimensions)
    strategy: Literal["per_dimension", "single_call", "checks_only"] = Field(
        "checks_only",
        description="checks_only: no model proposals, only the regression check and the deterministic "
        "evidence (seconds on a CPU; what the accuracy figures measure); single_call: also one call in which "
        "the model proposes findings, each checked by a yes/no question (advice unless firmly confirmed; "
        "about 30 s more with the 1.5B on two cores); per_dimension: one proposal call per dimension, all "
        "sharing the context prefix (KV reuse) or run in parallel on a server",
    )
    decision_strategy: Literal["findings", "verdict"] = Field(
        "findings", description="findings: derived from checked findings; verdict: the model's overall answer"
    )
    min_quality: Literal["excellent", "good", "acceptable"] | None = Field(
        None, description="a dimension rated below this rejects the change"
    )
    thresholds: Thresholds = Field(default_factory=Thresholds)
    on_model_failure: Literal["reject", "error"] = Field(
        "reject", description="an unreadable model answer rejects the change, or fails the review"
    )
    timeout_seconds: float = Field(120.0, gt=0, description="seconds the whole review may take")
    human_review: Literal["auto", "prompt", "require"] = Field(
        "auto", description="acode run: auto: the reviewer decides; prompt: ask when interactive; require: "
        "always ask (non-interactive runs stop with exit 51 unless --approve)"
    )
    max_diff_chars: int = Field(10_000, ge=200, description="per-file diff cut, with a visible marker")
    rules: list[RepoRule] = Field(default_factory=list, description="the project's own rules: ast-grep "
                                  "patterns scoped to paths; a match on a changed line is a finding")
    instructions: list[PathInstruction] = Field(
        default_factory=list, description="the project's plain-language instructions per path glob, passed "
        "into the model steps' prompts (proposals and their checks, the behaviour question, the regression "
        "check) about changes to those files only; a change that edits .acode/config.yml is reviewed with "
        "its base's")
    context_lines: int = Field(3, ge=0, le=50, description="unchanged lines around each change")
    output_reserve: float = Field(0.25, gt=0.0, lt=0.9, description="share of the window kept for answers")
    max_findings_per_dimension: int = Field(
        3, ge=1, le=10, description="findings the model may propose per dimension"
    )
    require_candidates: bool = Field(
        True,
        description="the model must name its most doubtful line per dimension; the check then decides "
        "(small models otherwise answer 'no findings' to everything)",
    )
    max_tokens_per_answer: int = Field(320, ge=32, description="tokens of each model answer at most")
    test_command: str | None = Field(
        None,
        description="`acode review` runs it only with --run-tests (default: python -m pytest -q on the "
        "tests related to the change); `{tests}` in it stands for those test files (e.g. "
        "\"python -m pytest -q -m 'not slow' {tests}\"), without it the whole command runs; "
        "`acode run` runs it when set; from a project's config only in a trusted folder",
    )
    test_timeout_seconds: float = Field(120.0, gt=0, description="per side and per test command")
    run_tests: bool | Literal["auto"] = Field(
        "auto",
        description="`acode review` runs the related tests on both sides of the change: auto = only inside "
        "the sandbox (bubblewrap: no network, read-only files, credentials hidden), so nowhere without one; "
        "true = also without a sandbox (as --run-tests); false = never (as --no-run-tests). true from a "
        "project's config only in a trusted folder (the branch under review is code that runs)",
    )
    test_sandbox: bool = Field(
        True, description="run the review's tests in the sandbox when there is one; false runs them as you "
        "(then only with run_tests: true or --run-tests)",
    )
    parallel_requests: int = Field(
        1, ge=1, le=16, description="dimension requests sent at once (useful with a server backend)"
    )
    lookaround: LookAroundSettings = Field(default_factory=LookAroundSettings)
    regression: RegressionSettings = Field(default_factory=RegressionSettings)
    behaviour: BehaviourSettings = Field(default_factory=BehaviourSettings)
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    reuse_unchanged: bool = Field(True, description="an unchanged context reuses the stored review")
