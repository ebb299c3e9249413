"""The static value of a word of the bash grammar (tree-sitter-bash), after quote removal."""

from __future__ import annotations

import re

Word = str | None  # None: the value depends on the shell at run time


def text_of(node) -> str:
    return node.text.decode("utf-8", errors="surrogateescape")


ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_GLOB = re.compile(r"[*?\[]")
_BRACES = re.compile(r"\{[^}]*(,|\.\.)[^}]*\}")


def static_word(node) -> Word:
    """The value bash gives this word after quote removal, or None when it needs expansion."""
    kind = node.type
    if kind in ("word", "number", "variable_name", "special_variable_name", "file_descriptor",
                "command_name"):
        if kind == "command_name":
            return static_word(node.named_children[0]) if node.named_child_count == 1 else None
        raw = text_of(node).replace("\\\n", "")
        bare = ESCAPE.sub("", raw)
        if raw.startswith("~") or _GLOB.search(bare) or _BRACES.search(bare) or "$" in bare or "`" in bare:
            return None
        return ESCAPE.sub(r"\1", raw)
    if kind == "raw_string":
        return text_of(node)[1:-1]
    if kind == "string":
        parts = []
        for child in node.named_children:
            if child.type != "string_content":
                return None
            parts.append(re.sub(r'\\([$`"\\\n])', r"\1", text_of(child)).replace("\n", "\n"))
        return "".join(parts)
    if kind == "ansi_c_string":
        raw = text_of(node)[2:-1]
        return None if "\\" in raw else raw
    if kind == "concatenation":
        values = [static_word(child) for child in node.children]
        return None if any(v is None for v in values) else "".join(values)  # type: ignore[arg-type]
    return None


def destinations(redirect) -> list:
    return [c for i, c in enumerate(redirect.children) if redirect.field_name_for_child(i) == "destination"]
