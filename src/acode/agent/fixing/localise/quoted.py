"""Where a failing test's output quotes the code: the lines of a file whose string literals appear in what
the tests printed. An error message raised deep inside a long class reaches the output as pytest's
"Actual message: ..." with no traceback line into that class (marshmallow 3.21.0->3.21.1: the message's
``{field_name}`` was not filled in, in a method the test never calls by name). A long file's excerpt
shows the definitions holding such lines, as it does for a traceback's lines."""

from __future__ import annotations

import ast

MIN_CHARS = 16  # a literal this long with a space in it is a message, not a key or a format like "utf-8"


def quoted_lines(text: str, output: str) -> set[int]:
    """The line numbers of ``text``'s string literals (docstrings aside) that ``output`` contains."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    lines = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in docstrings:
            continue
        piece = node.value.strip()
        if len(piece) >= MIN_CHARS and " " in piece and piece in output:
            lines.add(node.lineno)
    return lines
