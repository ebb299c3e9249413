"""codebase_investigator with the real embedded 0.5B model: read-only tools, and a report that validates
against its schema (handed in through complete_task, or decoded in the grace turn)."""

from __future__ import annotations

import pytest

from acode.agent.loop.agent_loop import LoopConfig
from acode.agent.subagents.definitions import load_agents
from acode.agent.subagents.runner import InvestigationReport, SubagentRunner
from acode.tools.base import ToolContext
from acode.tools.builtin import default_registry


@pytest.mark.real_model
def test_investigator_reports_where_login_lives(tmp_path, real_model):
    (tmp_path / "auth.py").write_text("def login(user, password):\n    return password == 'secret'\n")
    investigator = load_agents(None)["codebase_investigator"].model_copy(update={"max_turns": 3})
    runner = SubagentRunner(real_model, default_registry(), loop_config=LoopConfig(max_tokens=200))
    result = runner.run(investigator, "Where is the login function defined? The file is auth.py.",
                        ToolContext(workspace=tmp_path))
    assert result.termination in ("goal", "max_turns"), result.message
    assert result.completed, result.message
    report = InvestigationReport.model_validate(result.report)
    assert report.summary.strip()
    assert (tmp_path / "auth.py").read_text().startswith("def login")  # nothing was changed
