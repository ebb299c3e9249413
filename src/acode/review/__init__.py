"""Branch review: git context, diff packing, deterministic evidence, findings checked one by one, and a
decision derived from them. ``review_change`` is the service; the CLI and the pipeline call it."""
