"""``/memory show|add|refresh|list`` in the chat (see acode.agent.session.memory)."""

from __future__ import annotations

from acode.cli.slash import ChatContext, register


def refresh(chat: ChatContext) -> int:
    """Re-read the context files into this session's system prompt; returns how many were loaded."""
    from acode.agent.session.context_files import find_context_files
    from acode.llm.types import Message

    session = chat.session
    session.state.history[0] = Message.system(session.system_prompt(session.state.approval_mode))
    session.recorder.on_history(session.state)
    return len(find_context_files(session.workspace, names=session.options.context_file_names))


def _show(chat: ChatContext) -> None:
    from acode.agent.session.context_files import find_context_files

    files = find_context_files(chat.session.workspace, names=chat.session.options.context_file_names)
    if not files:
        chat.console.print(
            'no memory loaded: no context files (add one with /memory add "...", or write ACODE.md)'
        )
        return
    total = sum(len(f.text) for f in files)
    chat.console.print(
        f"memory in the system prompt: {len(files)} file(s), {total:,} characters", highlight=False
    )
    for item in files:
        cut = " (cut at the size cap)" if item.truncated else ""
        chat.console.rule(f"{item.label}{cut}")
        chat.console.print(item.text, markup=False, highlight=False)
    chat.console.rule()


def _list(chat: ChatContext) -> None:
    from acode.agent.session.memory import hierarchy

    for place in hierarchy(chat.session.workspace, chat.session.options.context_file_names):
        if place.scope in ("project", "above project", "working folder") and not place.exists:
            continue
        state = (
            ("loaded" if place.loaded else "on demand: @" + _rel(chat, place.path))
            if place.exists
            else "not present"
        )
        chat.console.print(f"  {place.scope:<14} {place.path}  ({state})", markup=False, highlight=False)


def _rel(chat: ChatContext, path) -> str:
    try:
        return path.relative_to(chat.session.workspace).as_posix()
    except ValueError:
        return str(path)


@register("memory", "Memory: /memory show | add <fact> | refresh | list")
def memory(chat: ChatContext, args: str) -> None:
    verb, _, rest = args.strip().partition(" ")
    if verb in ("", "show"):
        _show(chat)
    elif verb == "add":
        from acode.agent.session.memory import add_memory

        path = add_memory(rest)
        refresh(chat)
        chat.console.print(f"remembered in {path}: {' '.join(rest.split())}", markup=False, highlight=False)
    elif verb == "refresh":
        count = refresh(chat)
        chat.console.print(f"memory refreshed: {count} context file(s) loaded", highlight=False)
    elif verb == "list":
        _list(chat)
    else:
        chat.console.print("usage: /memory show | add <fact> | refresh | list")
