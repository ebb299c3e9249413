"""What the behavioural diff runs, read from syntax trees only (nothing of the change is executed here): the
functions a change alters, and the inputs known before any search — the examples of their docstrings, the
literal calls in the project's tests, the literals of both versions' bodies.

A function is compared when it is a top-level function or a method of a top-level class, present in both
versions under the same name, and its code (docstring aside) differs. Values cross to the child process as
Python literals (``repr`` text, read back with ``ast.literal_eval``)."""

from __future__ import annotations

import ast
import doctest
from dataclasses import asdict, dataclass, field
from pathlib import Path

from acode.review.evidence.ast_parts import strip_docstring

MAX_SEEDS = 40
MAX_CALLS = 20
MAX_NEIGHBOURS = 3
MAX_MAKERS = 24  # literal calls from the tests that build the project's objects (all callees together)
MAKERS_PER_NAME = 3
# callees of a test's literal calls that build no object of the project
_NOT_MAKERS = {"parametrize", "raises", "warns", "fixture", "approx", "skip", "skipif", "xfail", "mark",
               "param", "print", "len", "str", "int", "float", "bytes", "list", "dict", "set", "tuple",
               "repr", "range", "isinstance", "getattr", "setattr", "hasattr", "open", "sorted", "type",
               "format", "join", "split", "encode", "decode", "strip", "replace", "startswith", "endswith",
               "append", "extend", "update", "get", "pop", "items", "keys", "values", "write", "read",
               "setenv", "delenv", "chdir", "mkdir", "write_text", "read_text", "exists", "call", "main",
               "run", "invoke"}


@dataclass
class ChangedFunction:
    path: str  # the file, relative to the repository
    module: str  # dotted import name
    qualname: str  # "f" or "Class.method"
    kind: str  # "function" | "method"
    line: int  # the definition's line in the new version
    end_line: int = 0  # its last line
    docstring: str = ""
    seeds: list[str] = field(default_factory=list)
    examples: list[dict] = field(default_factory=list)  # {"args": "(..,)", "kwargs": "{..}", "want": ".."}
    calls: list[dict] = field(default_factory=list)
    annotated: bool = False  # every parameter annotated (CrossHair needs the types)
    neighbours: list[dict] = field(default_factory=list)  # {"name", "docstring"}: other docstrings calling it

    @property
    def name(self) -> str:
        return self.qualname

    def spec(self) -> dict:
        return {**asdict(self), "name": self.qualname}


def module_name(path: str) -> str | None:
    """``src/pkg/mod.py`` -> ``pkg.mod``; None when the path is not an importable module."""
    parts = list(Path(path).with_suffix("").parts)
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts)


def top_functions(tree: ast.Module) -> dict[str, tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Qualified name -> (kind, node) for top-level functions and the methods of top-level classes."""
    out: dict[str, tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = ("function", node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{node.name}.{item.name}"] = ("method", item)
    return out


def _code_of(node: ast.AST) -> str:
    copy = ast.parse(ast.unparse(node)).body[0]
    body = strip_docstring(copy)
    copy.body = body.body or [ast.Pass()]  # type: ignore[attr-defined]
    return ast.dump(copy)


def changed_functions(path: str, old: str, new: str) -> list[ChangedFunction]:
    """The functions of ``path`` present on both sides whose code differs (docstrings aside)."""
    module = module_name(path)
    try:
        before, after = top_functions(ast.parse(old)), top_functions(ast.parse(new))
    except (SyntaxError, ValueError):
        return []
    out = []
    tree = ast.parse(new)
    documented = docstrings_with_examples(tree)
    constants = module_constants(tree)
    for qualname, (kind, node) in after.items():
        if qualname not in before or _code_of(before[qualname][1]) == _code_of(node):
            continue
        if qualname.split(".")[-1].startswith("__") and qualname.endswith("__"):
            continue  # dunder methods are exercised through the class, not called on their own
        doc = ast.get_docstring(node) or ""
        out.append(ChangedFunction(
            path=path, module=module or "", qualname=qualname, kind=kind, line=node.lineno,
            end_line=node.end_lineno or node.lineno, docstring=doc,
            seeds=literal_seeds([before[qualname][1], node], constants),
            examples=docstring_examples(doc, node.name),
            annotated=_annotated(node, kind), neighbours=neighbours(documented, qualname)))
    return out


def _docstring_with_examples(node: ast.AST) -> str:
    doc = ast.get_docstring(node) if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                                       ast.AsyncFunctionDef)) else None
    return doc if doc and ">>>" in doc else ""


def docstrings_with_examples(tree: ast.Module) -> dict[str, tuple[str, set[str]]]:
    """Qualified name ('' for the module) -> (docstring, the names its code calls), for the docstrings that
    hold examples."""
    out = {"": (_docstring_with_examples(tree), set())}
    defined = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    nodes = [(n.name, n) for n in tree.body if isinstance(n, defined)]
    nodes += [(f"{c.name}.{i.name}", i) for c in tree.body if isinstance(c, ast.ClassDef) for i in c.body
              if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for name, node in nodes:
        called = {getattr(c.func, "id", None) or getattr(c.func, "attr", "") for c in ast.walk(node)
                  if isinstance(c, ast.Call)}
        out[name] = (_docstring_with_examples(node), called)
    return {name: item for name, item in out.items() if item[0]}


def neighbours(documented: dict[str, tuple[str, set[str]]], qualname: str,
               most: int = MAX_NEIGHBOURS) -> list[dict]:
    """The other docstrings with examples that exercise ``qualname``: the module's, those that call it by
    name, those of the functions that call it. Their examples run on both sides like its own."""
    short = qualname.split(".")[-1]
    out = [{"name": name or "the module", "docstring": doc} for name, (doc, called) in documented.items()
           if name != qualname and (not name or f"{short}(" in doc or short in called)]
    return out[:most]


def _annotated(node: ast.FunctionDef | ast.AsyncFunctionDef, kind: str) -> bool:
    params = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    if kind == "method" and params:
        params = params[1:]
    return bool(params) and all(p.annotation is not None for p in params)


def module_constants(tree: ast.Module) -> dict[str, object]:
    """``NAME = literal`` at the top of a module or of its classes: name -> value (a number, text, bytes)."""
    out: dict[str, object] = {}
    bodies = [tree.body] + [node.body for node in tree.body if isinstance(node, ast.ClassDef)]
    for body in bodies:
        for node in body:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else (
                node.target if isinstance(node, ast.AnnAssign) else None)
            value = getattr(node, "value", None)
            if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(
                    value.value, (int, float, str, bytes)) and not isinstance(value.value, bool):
                out[target.id] = value.value
    return out


def literal_seeds(nodes: list[ast.AST], constants: dict[str, object] | None = None) -> list[str]:
    """The literals of the bodies (numbers, strings, bytes) and the values of the module's constants they
    name (``LIMIT``, ``self.LIMIT``), numbers also one above and below: the values a condition in the code is
    most likely to turn on."""
    constants = constants or {}
    seen: dict[str, None] = {}
    for node in nodes:
        for item in ast.walk(node):
            named = getattr(item, "id", None) or getattr(item, "attr", None)
            if isinstance(named, str) and named in constants:
                item = ast.Constant(constants[named])
            if not isinstance(item, ast.Constant) or isinstance(item.value, bool) or item.value is None:
                continue
            value = item.value
            if isinstance(value, str) and (len(value) > 40 or "\n" in value):
                continue  # docstrings and messages: not values a condition compares with
            if isinstance(value, (int, float)):
                for near in (value - 1, value, value + 1):
                    seen[repr(near)] = None
            elif isinstance(value, (str, bytes)):
                seen[repr(value)] = None
    return list(seen)[:MAX_SEEDS]


def _literal_call(call: ast.Call) -> dict | None:
    """{"args", "kwargs"} as literal text when every argument is a literal, else None."""
    try:
        args = tuple(ast.literal_eval(a) for a in call.args if not isinstance(a, ast.Starred))
        if len(args) != len(call.args) or any(k.arg is None for k in call.keywords):
            return None
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return {"args": repr(args), "kwargs": repr(kwargs)}


def _called(call: ast.Call, name: str) -> bool:
    func = call.func
    return (isinstance(func, ast.Name) and func.id == name) or (
        isinstance(func, ast.Attribute) and func.attr == name)


def docstring_examples(docstring: str, name: str) -> list[dict]:
    """``>>> name(literal, ...)`` examples of a docstring, with the output they show (if a literal)."""
    out = []
    try:
        examples = doctest.DocTestParser().get_examples(docstring)
    except ValueError:
        return []
    for example in examples:
        try:
            tree = ast.parse(example.source.strip(), mode="eval")
        except SyntaxError:
            continue
        if not isinstance(tree.body, ast.Call) or not _called(tree.body, name):
            continue
        call = _literal_call(tree.body)
        if call is None:
            continue
        want = example.want.strip()
        try:
            ast.literal_eval(want)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            want = ""
        out.append({**call, "want": want})
    return out


def defined_names(source: str) -> set[str]:
    """The functions and classes a module defines or imports at its top."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    defined = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    out = {n.name for n in tree.body if isinstance(n, defined)}
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    return out | {(a.asname or a.name).split(".")[0] for n in imports for a in n.names}


def test_makers(sources: list[str], prefer: set[str] = frozenset()) -> list[dict]:
    """Literal calls in test files of any function or class (``parse('select 1')``, ``Markdown()``), as
    {"name", "args", "kwargs"}: how the project's tests build its objects, those of the names in ``prefer``
    (what the changed modules and their package define) first. The runner makes each on both sides and
    keeps what is of the project's own types (``runner_made``)."""
    found: dict[str, dict] = {}
    per_name: dict[str, int] = {}
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if not isinstance(name, str) or name.startswith(("_", "assert", "test")) or name in _NOT_MAKERS:
                continue
            call = _literal_call(node)
            if call is None or per_name.get(name, 0) >= MAKERS_PER_NAME:
                continue
            key = name + call["args"] + call["kwargs"]
            if key not in found:
                found[key] = {"name": name, **call}
                per_name[name] = per_name.get(name, 0) + 1
    return sorted(found.values(), key=lambda maker: maker["name"] not in prefer)[:MAX_MAKERS]


def test_calls(sources: list[str], name: str) -> list[dict]:
    """Literal calls of ``name`` in test files (cheap inputs the project already thought of)."""
    found: dict[str, dict] = {}
    short = name.split(".")[-1]
    for source in sources:
        if short not in source:
            continue
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _called(node, short):
                call = _literal_call(node)
                if call is not None:
                    found.setdefault(call["args"] + call["kwargs"], call)
            if len(found) >= MAX_CALLS:
                return list(found.values())
    return list(found.values())
