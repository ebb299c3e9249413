"""acode's benchmarks, by role (see README.md): ``harness`` (what every runner shares: process groups, the
local model server, result records, grading), ``tasks`` (the task sets and their builders), ``fix`` (does
acode get a change done), ``review`` (does `acode review` decide right), ``speed`` (how long things take)
and ``security`` (what the trust checks and the redaction hold)."""
