"""The middlewares: every aid that keeps an agent (above all a small local model) on track, each in one
module: plan mode, compression, loop detection, the next-speaker check, hooks, checkpoints, the validation
nudge and per-prompt model routing. ``acode.agent.session.builder`` lists them in order."""
