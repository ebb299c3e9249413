"""What every benchmark shares: a command in its own process group, the local model server, a run kept
as a dated record, and the grading of a fix (FAIL_TO_PASS / PASS_TO_PASS, as SWE-bench names them)."""
