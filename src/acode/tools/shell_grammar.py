"""Reading a bash command line into a syntax tree (tree-sitter-bash) that says what bash would run.

``read_tree(command)`` returns the tree, or why it cannot be trusted: a grammar error, a NUL character,
or a word the grammar glued together where bash splits it. The grammar does not know the ``time``
keyword, so it is blanked out and the line read again. What the tree runs and writes is
``acode.tools.shell_parse``'s walk.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from acode.tools.shell_words import ESCAPE, text_of


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def read_tree(command: str):
    """(the tree, '') for a command bash reads as the grammar does, else (None, why not)."""
    if "\x00" in command:
        return None, "the command contains a NUL character"
    source = command.encode("utf-8", errors="surrogateescape")
    tree = _parser().parse(source)
    for _ in range(16):  # the grammar does not know the `time` keyword: blank it out and read again
        spans = [] if tree.root_node.has_error else _time_keywords(tree.root_node)
        if not spans:
            break
        for start, end in spans:
            source = source[:start] + b" " * (end - start) + source[end:]
        tree = _parser().parse(source)
    if tree.root_node.has_error:
        return None, f"bash grammar error near: {_first_error(tree.root_node)}"
    root = tree.root_node
    odd = _misread_word(root) or _reserved_name(root) or _split_command(root, source)
    if odd is not None:  # the grammar glued what bash splits (seen: a newline before `\\rm`)
        return None, f"ambiguous word {odd!r}"
    return tree, ""


_METACHAR = re.compile(r"[\s;&|()<>]")


def _misread_word(root) -> str | None:
    """A plain word holding an unescaped shell metacharacter: bash would have split it, so the tree
    does not describe what bash runs."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "word" and _METACHAR.search(ESCAPE.sub("", text_of(node))):
            return text_of(node)
        stack.extend(node.children)
    return None


_RESERVED = {"{", "}", "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until",
             "for", "in", "function", "select", "[[", "]]", "!", "time", "coproc"}


def _commands(root):
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "command":
            yield node
        stack.extend(node.children)


def _raw_name(command) -> str | None:
    name = command.child_by_field_name("name")
    return text_of(name) if name is not None else None


def _time_keywords(root) -> list[tuple[int, int]]:
    """Byte spans of ``time`` (and its ``-p``) used as the keyword at the start of a command."""
    spans = []
    for command in _commands(root):
        if _raw_name(command) != "time":
            continue
        name = command.child_by_field_name("name")
        end = name.end_byte
        for arg in command.children[command.children.index(name) + 1 :]:
            if arg.type == "word" and text_of(arg) in ("-p", "--"):
                end = arg.end_byte
                continue
            break
        spans.append((name.start_byte, end))
    return spans


_GAP = re.compile(rb"(?:[ \t]|\\\n)*")


def _split_command(root, source: bytes) -> str | None:
    """A command whose words are separated by more than blanks (a newline, an operator): bash ends
    the command there, so the grammar read two commands as one."""
    for command in _commands(root):
        children = command.children
        for left, right in itertools.pairwise(children):
            if not _GAP.fullmatch(source[left.end_byte : right.start_byte]):
                return text_of(command)
    return None


def _reserved_name(root) -> str | None:
    """A reserved word read as a command name: the grammar misread a construct bash knows."""
    for command in _commands(root):
        if _raw_name(command) in _RESERVED:
            return _raw_name(command)
    return None


def _first_error(node) -> str:
    stack = [node]
    while stack:
        current = stack.pop(0)
        if current.type == "ERROR" or current.is_missing:
            return text_of(current)[:60] or f"(missing {current.type})"
        stack.extend(current.children)
    return "?"
