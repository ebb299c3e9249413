"""The ReAct agent: loop, history, approval, and the middlewares that keep it under control."""
