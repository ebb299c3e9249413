"""Words for the model and words for people are different strings; this module is the one place that
names the wording meant only for the model.

A denial or a refusal carries advice only the model needs ("Do not retry this call."): it travels as a
``model_note`` beside the reason (``ToolDecision.model_note``, ``ToolResult.model_note``), joined to it
only in what the model reads (``ToolResult.for_model``). A note acode writes into the conversation in
the user's place ("I ran a shell command myself ...") or a reminder of its own ("Please continue.") is a
user message whose ``Message.shown`` says what a person sees instead: the command they typed
(``!git log``, ``/test``), or nothing.

``MODEL_DIRECTED_PHRASES`` lists that wording, so that a printer can recognise it in sessions recorded
before the split (acode.agent.session.said) and a test can check that no printer shows any of it.
"""

from __future__ import annotations

DO_NOT_RETRY = "Do not retry this call."
ASK_INSTEAD = "Do not retry it; ask or try another way."
SHELL_NOTE = "I ran a shell command myself (for context, no action needed yet):"
SHELL_ACK = "Noted the command and its output."
EDITS_UNDONE_NOTE = "Note: I undid your last"
RESTORED_ACK = "Understood: I will take the restored files into account."

# Wording of the loop's own messages to the model (templates in acode/agent/prompts): a distinctive
# phrase of each, enough to recognise it.
REMINDER_PHRASES = (
    "You have not run anything",  # run_reminder.j2
    "You seem to be repeating yourself",  # loop_nudge.j2
    "but have not run anything since",  # validate_nudge.j2
    "You answered without calling a tool",  # subagent_nudge.j2
    "Take the next step, or answer if the task is done",  # the reminder line after each tool result
    "your previous step was exactly this call",  # the repeat guard
)

MODEL_DIRECTED_PHRASES: tuple[str, ...] = (
    DO_NOT_RETRY,
    ASK_INSTEAD,
    "ask or try another way",
    "Do not retry",
    SHELL_NOTE,
    "no action needed yet",
    *REMINDER_PHRASES,
)


def model_directed(text: str) -> bool:
    """Whether ``text`` holds wording meant only for the model."""
    return any(phrase in text for phrase in MODEL_DIRECTED_PHRASES)


def for_model(reason: str, note: str | None) -> str:
    """``reason`` as the model reads it: followed by the advice meant for it alone."""
    if not note:
        return reason
    return f"{reason.rstrip().rstrip('.')}. {note}"
