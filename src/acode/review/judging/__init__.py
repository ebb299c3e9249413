"""The model's judgement of the change, within a time plan: the regression check (old against new by
likelihood or a question), the proposed findings and the verification of each, the question about a
behavioural difference, the optional look around with tools. The run they share and the order they run in
are ``running``'s."""
