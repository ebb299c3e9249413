"""The behavioural diff: the old and the new version of each function a change alters run on the same inputs
in the sandbox (``diff``), the inputs read from syntax trees (``inputs``), the child processes (``child``)
and the script they run (``runner`` and its ``runner_*`` modules, standard library and Hypothesis only,
loaded by path inside the child), and from a difference to a finding (``findings``, ``withheld``)."""
