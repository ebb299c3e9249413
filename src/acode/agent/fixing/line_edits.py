"""The one wrong line of the shown files, asked for with the one call's prompt (docs/guide/fixing.md): greedy,
then samples; a source of the pipeline (pipeline.py)."""

from __future__ import annotations

from acode.agent.fixing.candidate_source import Candidates, FixSession, Proposal
from acode.agent.fixing.line_edit import LINE_REPLY_TOKENS, LINE_STOP, apply_line_edit, copies_instruction

COPIES_INSTRUCTION = "the reply copies the instruction's example block"
LINE_SEED = 100  # the one-line asks' seeds, apart from the whole-file calls' and the suspects'


class LineEdits:
    """The one call's prompt asking only for the wrong line: greedy, then samples, each new edit a
    candidate. A greedy reply that copies the instruction's example block ends them; a sample that does is
    skipped."""

    name = "line"
    counts_as_attempt, keep_if_partial, needs_model = False, True, True

    def candidates(self, session: FixSession) -> Candidates:
        if not session.views:
            return None
        settings = session.settings
        for sample in range(settings.line_edit_calls):
            if session.over_budget():
                break
            temperature = 0.0 if sample == 0 else settings.sample_temperature
            reply = session.ask(session.line_framing, temperature, seed=LINE_SEED + sample,
                                max_tokens=LINE_REPLY_TOKENS, stop=LINE_STOP)
            if copies_instruction(reply):
                if sample == 0:
                    break  # the greedy ask copies the example: the model does not follow the format
                continue  # one sample that copies it (the 1.5B, now and then) is no reason to stop
            edit = apply_line_edit(reply, session.views)
            if isinstance(edit, str):
                continue  # no line of a target, or an edit that breaks the file
            yield Proposal(edit)
        return None
