"""``acode run``: Planner -> Executor -> Verifier -> Reviewer, with human review, audited override and a
persisted summary. The orchestrator owns transitions, cycle counts and escalation; stages do one job."""
