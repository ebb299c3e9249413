"""From what was judged to a decision: the strategies (from findings, the default; or the model's verdict),
one result per dimension, and the levels that approve or reject. Nothing here reads git or runs code."""
