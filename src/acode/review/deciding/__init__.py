"""From what was judged to a decision: one result per dimension, and the levels that approve or reject
(from findings, the default; or the model's verdict). Nothing here reads git, runs code or asks the model:
the strategies that drive the judging (``running``) hand their results here."""
