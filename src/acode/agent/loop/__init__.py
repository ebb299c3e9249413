"""The ReAct loop and what it is made of: the loop itself, the tool runner, the middleware and observer
protocols, the stops that leave the loop early, the result it returns, and the step guidance that keeps a
small model on task."""
