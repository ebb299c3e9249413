"""`acode review --describe`: a pull-request description of a change. The facts (files and functions
changed, behaviour differences, tests, risk) come from the review's deterministic evidence and need no model
(``facts``); the model writes only a short summary (``summary``), left out with its reason when it cannot;
``describe`` joins them and ``render`` writes Markdown or JSON."""
