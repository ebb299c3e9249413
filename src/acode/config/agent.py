"""Settings of the interactive / one-shot agent."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ApprovalMode = Literal["default", "auto_edit", "yolo", "plan"]


class ToolRules(BaseModel):
    """Allow or deny tools by name, and shell commands by prefix (deny wins)."""

    model_config = ConfigDict(extra="forbid")

    allow_tools: list[str] = Field(default_factory=list, description="tools run without asking")
    deny_tools: list[str] = Field(default_factory=list, description="tools always refused")
    allow_shell: list[str] = Field(default_factory=list, description="command prefixes run without asking")
    deny_shell: list[str] = Field(default_factory=list, description="command prefixes always refused")


class FixConfig(BaseModel):
    """Test-driven fixing (docs/guide/fixing.md): for a request to fix or change code when a test command is
    known, the harness runs the tests, asks for whole corrected files and lets the tests choose."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="try test-driven fixing before the tool loop")
    test_command: str | None = Field(
        None, description="the tests to run (default: from the request, else pytest)"
    )
    max_attempts: int = Field(4, ge=1, le=20, description="candidate fixes written and tested per request")
    # More calls help the 0.5B (it echoes on most greedy calls, fixes on some samples) but not the 1.5B:
    # on 8 unseen tasks its calls 5 and 6 solved nothing and cost a third of the time
    max_model_calls: int = Field(
        4, ge=1, le=40,
        description="model calls per request (a reply that is no candidate uses one, and is not tested)"
    )
    greedy_attempts: int = Field(
        3, ge=0, description="greedy calls: the one call, the fixer's framing, the last failure fed back"
    )
    line_edit_calls: int = Field(
        8, ge=0, le=40,
        description="after the first call: calls asking only for the wrong line (greedy, then samples; "
                    "a short reply, so several cost less than one whole file); 0: none",
    )
    token_budget: float = Field(
        2.0, ge=0, le=40,
        description="the fixer's model calls together generate at most about this many times the first "
                    "call's completion tokens (the first call is the one call anyone would make: a request "
                    "the fixer cannot solve costs about this many of it); 0: no budget, only the call limits",
    )
    function_asks: int = Field(
        4, ge=0, le=20,
        description="right after the first call: asks for only the function the failing test reaches (the "
                    "first call's prompt but for its last sentence; greedy, then samples at 0.4 and 0.8), "
                    "each reply merged back by name, while function_time_budget lasts (their tokens count "
                    "against token_budget); 0: none",
    )
    # Off by default: on the Novel tune half the greedy ask then the line asks solved 6/17 against the line
    # asks' 4/17 within 2x, but on the held-out half it solved the same 6/16 tasks as without it, ~22 s more
    # a failing task (benchmarks/results/2026-11-28-fix-policy-held-out.md)
    large_function_asks: int = Field(
        0, ge=0, le=20,
        description="the same asks where the function the failing test reaches is more than half its file "
                    "(and no smaller one is reached): this many (1: the greedy ask alone), while "
                    "function_time_budget lasts; their tokens, about a whole file's, do not count against "
                    "token_budget, so the line asks after them keep theirs; 0: none",
    )
    function_time_budget: float = Field(
        2.0, ge=0, le=40,
        description="the function asks are made while the time since the first call began, with what the "
                    "next ask is expected to take, stays within this many times the first call's seconds",
    )
    check_neighbours: bool = Field(
        True, description="when the test command names tests inside files, a candidate that makes them "
                          "pass must not break another test of those files that passed before (the files run "
                          "whole once before any edit, and for each candidate that passes)",
    )
    spectrum: bool = Field(
        True, description="when the test command names tests inside files, their files' run before any "
                          "edit also records which functions each test executes; what the failing tests "
                          "execute and the passing ones do not is shown to the model too (spectrum-based "
                          "localisation)",
    )
    suspect_asks: int = Field(
        3, ge=0, le=10,
        description="after the first call and its one-line edits: one greedy call for each of this many "
                    "of the test spectrum's suspect functions, each shown alone and asked for corrected (a "
                    "short prompt and reply, in a file of any length; their tokens do not count against "
                    "token_budget); 0: none",
    )
    suspect_samples: int = Field(
        2, ge=0, le=10,
        description="then, while token_budget lasts, the one-line ask about each suspect function the greedy "
                    "ask gave back unchanged, and this many rounds of samples (of the function ask where it "
                    "changed the function, else of the line ask; the prompts are in the KV cache); once "
                    "suspects were asked about, no more whole files are asked for",
    )
    mutants: int = Field(
        24, ge=0, le=200,
        description="after the one-line asks: at most this many one-edit variants of the shown functions "
                    "(of the suspect functions on a real project) tested, no model call: a comparison, "
                    "an operator, `and`/`or`, a constant or a range's end off by one, a condition negated; "
                    "0: none",
    )
    deletions: int = Field(
        12, ge=0, le=200,
        description="after the one-edit variants: at most this many variants with one statement of those "
                    "functions deleted (a call or an assignment too many), tested the same way; 0: none",
    )
    crash_edits: int = Field(
        6, ge=0, le=50,
        description="after the one-line asks, before the one-edit variants: at most this many edits of the "
                    "statements a failing test's traceback crashed in, no model call: the exception the "
                    "test expects raised instead, or a guard (`hasattr`, `is not None`, `in`); 0: none",
    )
    static_fixes: bool = Field(
        True, description="before any model call, test the fixes of ruff's findings that change behaviour "
                          "(a string missing its f prefix, a mutable default, `is` against a literal) in the "
                          "code the prompt shows and the suspect functions",
    )
    sample_after_echoes: bool = Field(
        False, description="sample a framing whose reply was the file unchanged (the 0.5B: yes; the 1.5B: no)"
    )
    check_examples: bool = Field(
        True, description="a candidate must also pass the docstring examples of the files it changes"
    )
    sample_temperature: float = Field(
        0.7, ge=0, le=2, description="temperature of the sampled (non-greedy) calls"
    )
    max_file_lines: int = Field(
        4000, ge=1, le=20000,
        description="larger files are shown only as the test spectrum's suspect functions (none: the tool "
                    "loop fixes them)"
    )
    whole_file_lines: int = Field(150, ge=1, description="above this, ask only for the functions that change")
    excerpt_file_lines: int = Field(
        400, ge=1, description="above this, the prompt shows only the definitions the failing tests reach"
    )
    excerpt_file_chars: int = Field(
        6000, ge=500, description="above this many characters too (a file under excerpt_file_lines)"
    )
    test_seconds_min: float = Field(
        20.0, gt=0,
        description="a candidate's test run stops at 5x the first run's seconds, never sooner than this",
    )
    files_seconds_min: float = Field(
        300.0, gt=0,
        description="the named tests' files' first run (whole, recording the spectrum) may take 10x the "
                    "named tests' seconds, never less than this: a long test file still gets its suspects",
    )
    fallback_to_loop: bool = Field(False, description="after failed attempts, go on with the tool loop")


class AgentSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approval_mode: ApprovalMode = Field(
        "default", description="default: ask before edits and commands; auto_edit: edits without asking; "
        "yolo: everything without asking; plan: read-only tools and a plan to approve first"
    )
    max_turns: int = Field(40, ge=1, description="model turns per request at most")
    max_seconds: float = Field(1800.0, gt=0, description="seconds per request at most")
    max_format_errors: int = Field(
        3, ge=1, description="unreadable answers in a row before the request stops"
    )
    shell_inactivity_timeout: float = Field(
        120.0, gt=0, description="seconds without output after which a shell command is stopped (its whole "
        "process group)"
    )
    output_budget_chars: int = Field(8000, ge=500, description="tool output kept for the model")
    remind_request: bool = Field(
        True, description="end each successful tool result with the request and the steps done (small models)"
    )
    nudge_validation: bool = Field(
        False, description="ask once to run something when a turn ends with edits and no command run since"
    )
    # Opt-in: measured on the 0.5B, the two extra tool descriptions made it skip running hello.py in the
    # one-shot create-and-run task; turn them on with the 1.5B or a server model.
    reviewer_tool: bool = Field(
        False, description="offer the `reviewer` tool (a second opinion on the changes)"
    )
    subagents: bool = Field(
        False, description="offer `invoke_agent` (built-in and .acode/agents/*.md sub-agents)"
    )
    rules: ToolRules = Field(default_factory=ToolRules)
    fix: FixConfig = Field(default_factory=FixConfig)
    lint_command: str | None = Field(
        None,
        description="what /lint runs (default: a check of pipeline.verify_commands that is no test run, else "
                    "ruff when the project configures it, or has Python files and ruff is installed)",
    )
