"""The whole-file edit format: the prompt that shows the files and the failing tests, and the reading of
the model's reply (a path line, then a fenced block with the complete file). Whole files are what a
small model reproduces reliably; an exact ``old_string`` is what it does not."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.merge import merge_partial
from acode.llm.types import Message
from acode.prompts import render

_FENCE = re.compile(r"^```[ \t]*([\w+.-]*)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_DEFINITION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


UNCHANGED = "the reply is the file unchanged; the tests still fail, so something must change"


def one_call_messages(request: str, files: list[FileView], context: list[FileView], command: str,
                      output: str, failing: bool, *, partial: bool = False,
                      line_edit: bool = False, function: tuple[str, str] | None = None) -> list[Message]:
    """One call of the model as anyone would make it: no system prompt; the request, the file(s), the
    tests, what the test command prints, the instruction last (the layout of the one call that
    benchmarks/fix/fix_success.py measures acode against). The fixer's first candidate, so the tests can
    never leave it worse than that one call. ``partial``: ask only for the functions/classes that
    change (long files; merged by name). ``line_edit``: the same prompt but for its last instruction,
    which asks for the one wrong line as a diff (line_edit.py), so a prompt cache reuses all the rest;
    ``function`` (a path and a function name): the same prompt, asking for only that function back
    (function_asks.py)."""
    user = render("acode.agent", "fix_one_call.j2", request=request, files=files, context=context,
                  command=command, output=output.rstrip(), failing=failing, partial=partial,
                  line_edit=line_edit, function=function)
    return [Message.user(user)]


def task_messages(request: str, files: list[FileView], context: list[FileView], command: str,
                  output: str, failing: bool, *, partial: bool = False) -> list[Message]:
    """The fixer's own framing: a system prompt with the reply's format, the file(s) first, then the tests
    and the failure. A second, different candidate: on the same bug one framing often echoes the file
    where the other fixes it (both seen with the 0.5B and the 1.5B)."""
    example = files[0] if files else FileView("app.py", "")
    system = render("acode.agent", "fix_system.j2", example_path=example.path, language=example.language)
    user = render("acode.agent", "fix_task.j2", request=request, files=files, context=context,
                  command=command, output=output.rstrip(), failing=failing, partial=partial)
    return [Message.system(system), Message.user(user)]


def feedback_message(files: list[FileView], command: str, output: str = "", *, examples: str = "",
                     broke: str = "", partial: bool = False) -> Message:
    """Why a candidate failed: the test output, or (tests passing) the other tests of their files it
    broke (``broke``: that run's output) or its failing docstring examples."""
    return Message.user(render("acode.agent", "fix_feedback.j2", files=files, command=command,
                               output=output.rstrip(), examples=examples.rstrip(), broke=broke.rstrip(),
                               partial=partial))


def reply_stop(files: list[FileView], partial: bool) -> list[str]:
    """Where generation can end: right after the closing fence of the one file asked for (the reply's
    only block). Text after it (explanations, copies of the prompt's tests and output) is most of a small
    model's time. Several files or functions come in several blocks: no stop. Nor for a file whose
    language has no fence tag (``notes.txt``, ``setup.cfg``): its opening fence is a bare ```` ``` ````
    too, and the stop would end the reply before the file."""
    return ["\n```\n"] if len(files) == 1 and not partial and files[0].language else []


def close_fence(reply: str) -> str:
    """A reply cut at its stop string ends inside the block it opened: close it."""
    fences = sum(1 for line in reply.splitlines() if line.lstrip().startswith("```"))
    return reply.rstrip("\n") + "\n```\n" if fences % 2 else reply


def _path_before(reply: str, start: int) -> str:
    """The path written on the last non-empty line before a fence, without markdown decoration."""
    for line in reversed(reply[:start].splitlines()[-3:]):
        cleaned = line.strip().strip("*`#:").strip()
        cleaned = re.sub(r"^(?:file|path)\s*:\s*", "", cleaned, flags=re.IGNORECASE).strip("`* ")
        if cleaned:
            return cleaned
    return ""


def parse_reply(reply: str, targets: list[FileView], shown: Sequence[FileView] = ()) -> dict[str, str] | str:
    """{path: new text} for the targets the reply rewrites, or the problem to tell the model. A block that
    copies one of the ``shown`` files (the tests in the prompt) is never taken for a target."""
    by_path = {t.path: t for t in targets}
    blocks = list(_FENCE.finditer(reply))
    if not blocks:
        return "no fenced code block: put the whole file in a ``` block after its path"
    found: dict[str, str] = {}
    for block in blocks:
        named = _path_before(reply, block.start())
        path = named if named in by_path else next((p for p in by_path if named.endswith(p)), None)
        if path is None and len(by_path) == 1 and not found:
            path = next(iter(by_path))  # one file asked for: an unlabelled block is that file
        if any(_same_code(block.group(2), s.text) for s in shown):
            continue
        if path is not None and path not in found:
            found[path] = block.group(2)
    if not found:
        return f"the reply names none of {', '.join(by_path)}"
    for path, text in found.items():
        text = _without_self_import(path, by_path[path].text, text)
        text = found[path] = _without_copied_definitions(path, by_path[path].text, text, shown)
        problem = check_candidate(path, by_path[path].text, text)
        if problem:
            return problem
        if path.endswith(".py"):
            found[path] = merge_partial(by_path[path].text, text, shown=by_path[path].shown_part)
    if all(_same_code(found[p], by_path[p].text) for p in found):
        return UNCHANGED
    return found


def check_candidate(path: str, old: str, new: str) -> str | None:
    """Why ``new`` must not be written over ``old`` (a syntax error, a file cut short), or None. A Python
    reply that holds only some of the file's definitions is merged in by name instead (merge.py)."""
    if path.endswith(".py"):
        try:
            ast.parse(new)
        except SyntaxError as exc:
            return f"{path} has a syntax error at line {exc.lineno}: {exc.msg}"
        if _defines(old):
            if not _defines(new):
                return f"{path} came back without any of its functions: reply with the whole file"
            return None
    old_lines, new_lines = len(old.splitlines()), len(new.splitlines())
    if old_lines >= 10 and new_lines < old_lines // 2:
        return (f"{path} came back with {new_lines} of its {old_lines} lines: reply with the whole file, "
                "not only the changed part")
    return None


def _without_self_import(path: str, old: str, new: str) -> str:
    """``new`` without top-level imports of its own module that ``old`` did not have: the tests' import
    line copied into the module (seen with the 0.5B and the 1.5B), a circular import that would fail
    an otherwise sound fix."""
    if not path.endswith(".py"):
        return new
    module = Path(path).stem

    def self_import(node: ast.stmt, text: str) -> bool:
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        return any(n.split(".")[-1] == module for n in names) and text.strip() not in old

    kept = _without_statements(new, self_import)
    return new if kept is None else kept.lstrip("\n")


def _without_copied_definitions(path: str, old: str, new: str, shown: Sequence[FileView]) -> str:
    """``new`` without top-level functions and classes copied from the ``shown`` files (the tests) that
    ``old`` did not define: a small model continues a file with the prompt's tests (seen with the 0.5B),
    which changes nothing the tests could see but passed for a change."""
    if not path.endswith(".py") or not shown:
        return new
    copied = {d for s in shown for d in _definitions(s.text)} - set(_definitions(old))
    kept = _without_statements(
        new, lambda node, _text: isinstance(node, _DEFINITION) and ast.dump(node) in copied
    )
    return new if kept is None or kept == new else kept.rstrip() + "\n"


def _without_statements(source: str, drop: Callable[[ast.stmt, str], bool]) -> str | None:
    """``source`` without the top-level statements ``drop(node, its text)`` picks (with their decorators);
    None when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    lines = source.splitlines(keepends=True)
    for node in reversed(tree.body):
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        if drop(node, "".join(lines[start - 1 : node.end_lineno])):
            del lines[start - 1 : node.end_lineno]
    return "".join(lines)


def _definitions(source: str) -> list[str]:
    """The dumped trees of the top-level functions and classes of Python source (none if it does not
    parse)."""
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return []
    return [ast.dump(n) for n in body if isinstance(n, _DEFINITION)]


def _defines(source: str) -> bool:
    """Whether Python source has a top-level function or class (source that does not parse: no)."""
    try:
        return any(isinstance(n, _DEFINITION) for n in ast.parse(source).body)
    except SyntaxError:
        return False


def _same_code(a: str, b: str) -> bool:
    """The same program: Python that parses to the same tree without its docstrings (a reply that changes
    only comments, layout or docs changes nothing the tests could see), else equal lines but for
    trailing spaces and blank lines at the end."""
    trees = [_tree_without_docs(a), _tree_without_docs(b)]
    if None not in trees:
        return trees[0] == trees[1]
    return [line.rstrip() for line in a.rstrip().splitlines()] == [
        line.rstrip() for line in b.rstrip().splitlines()
    ]


def _tree_without_docs(source: str) -> str | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)
