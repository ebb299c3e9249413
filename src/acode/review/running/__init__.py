"""One review from its evidence to its decision: the run's shared state (``review_run.ReviewRun``) and the
strategies that drive the model's steps (``judging``) and hand what was judged to ``deciding``:
``findings_strategy`` (the default) and ``verdict_strategy`` (the model's overall verdict, the baseline)."""
