"""Does acode get a change done: bug fixes (one file, real projects, pass@k by candidate shape) against one
model call, and `acode run` on a small task."""
