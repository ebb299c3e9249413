"""What the changed lines use that the regression check's prefix does not show.

The regression check reads each version of a changed region after the same prefix (the lines before the
change). A name the changed lines use but the prefix never shows — a helper defined further down the
file, a name imported at the top of a long file — is new to the model, so the version that uses it reads
as less likely whether it is right or wrong (measured on real fixes: a fix that calls a helper was
"less right" than the code it replaced). The preamble puts the definitions of those names (a function's
or class's signature and the first line of its docstring, or the import that binds the name) before the
prefix, the same for both versions, so the contrast compares the two versions with what they use known.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import tokenize

MAX_ENTRIES = 8
MAX_CHARS = 1200
_BUILTINS = set(dir(builtins)) | {"self", "cls"}


def names_in(code: str) -> list[str]:
    """Identifiers in ``code`` (in order, once each), without keywords and builtins; tolerant of fragments."""
    found: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if (token.type == tokenize.NAME and not keyword.iskeyword(token.string)
                    and token.string not in _BUILTINS and token.string not in found):
                found.append(token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def _defined(code: str) -> list[ast.AST]:
    """def/class statements that start in ``code`` (a fragment: each line parsed on its own)."""
    out = []
    for line in code.splitlines():
        stripped = line.strip()
        if stripped.startswith(("def ", "async def ", "class ")):
            try:
                node = ast.parse(stripped.rstrip(":") + ": ...").body[0]
            except (SyntaxError, ValueError, IndexError):
                name = (stripped.split()[1 if not stripped.startswith("async") else 2]
                        .split("(")[0].rstrip(":"))
                node = ast.FunctionDef(name=name)  # type: ignore[call-arg]
            out.append(node)
    return out


def definitions(source: str) -> dict[str, str]:
    """Name -> the text that defines it in ``source``: def/class headers (with the first docstring line) at
    any depth, and module-level imports. Empty for code that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    lines = source.splitlines()
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name not in out:
            body_start = node.body[0].lineno if node.body else node.lineno + 1
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            header = [line.rstrip() for line in lines[first - 1 : max(node.lineno, body_start - 1)]]
            doc = ast.get_docstring(node, clean=True)
            if doc:
                indent = " " * (len(lines[node.lineno - 1]) - len(lines[node.lineno - 1].lstrip()) + 4)
                header.append(f'{indent}"""{doc.splitlines()[0][:100]}"""')
            indent = " " * (len(lines[node.lineno - 1]) - len(lines[node.lineno - 1].lstrip()) + 4)
            out[node.name] = "\n".join(header + [f"{indent}..."])
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            text = "\n".join(lines[node.lineno - 1 : (node.end_lineno or node.lineno)])
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                out.setdefault(name, text)
    return out


def preamble(prefix: str, changed_code: str, new: str, old: str, mark: str = "#") -> str:
    """Definitions of the names ``changed_code`` uses that ``prefix`` does not show, from the ``new`` and
    ``old`` file: a definition both versions share, or one only one version has; never one the change
    itself alters (that would show one side of the change to both). '' when there is none."""
    known = set(names_in(prefix))
    defined_here = {n.name for n in _defined(changed_code)}
    wanted = [name for name in names_in(changed_code) if name not in known and name not in defined_here]
    if not wanted:
        return ""
    in_new, in_old = definitions(new), definitions(old)
    found: dict[str, str] = {}
    for name in wanted:
        a, b = in_new.get(name), in_old.get(name)
        if a is not None and b is not None and a != b:
            continue
        if a is not None or b is not None:
            found[name] = a if a is not None else b  # type: ignore[assignment]
    blocks = list(dict.fromkeys(found.values()))[:MAX_ENTRIES]
    text, size = [], 0
    for block in blocks:
        if size + len(block) > MAX_CHARS:
            break
        text.append(block)
        size += len(block)
    if not text:
        return ""
    return f"{mark} Defined elsewhere in this file (used by the lines below):\n" + "\n".join(text) + "\n\n"
