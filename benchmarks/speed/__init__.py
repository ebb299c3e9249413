"""How long things take: model speed per backend, the agent's own time per step, review latency and fan-out,
start-up, search, the sandbox, a fresh CI runner, a review made to exhaust its bounds."""
