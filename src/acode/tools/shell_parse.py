"""What a bash command line would run and write, read with a real shell grammar (tree-sitter-bash).

``analyze(command)`` returns every *invocation* (a simple command with its words), wherever it sits:
in a list (``&&``, ``||``, ``;``, ``&``, newline), a pipeline, a subshell, a ``{ ...; }`` group, a
function body, a loop, a ``case``, a command substitution (``$(...)`` or backticks), a process
substitution (``<(...)``), an arithmetic expansion or an unquoted here-document. Wrappers that run
their arguments as a command (``env``, ``timeout``, ``xargs``, ``bash -c``, ``eval``, ``find -exec`` ...)
add the inner command as an invocation of its own. Every redirection that writes a file is listed with
its target. Words whose value is only known when the shell runs (``$x``, ``$(...)``, globs) are None.

Anything the grammar cannot read makes ``parsed`` False; callers treat that as unknown, never as safe.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace

from acode.tools.shell_code import CodeRules, replaced_by_data, stdin_of, xargs_placeholder
from acode.tools.shell_eval import DATA_VARS
from acode.tools.shell_grammar import read_tree
from acode.tools.shell_words import Word, destinations, static_word, text_of

__all__ = ["Invocation", "ShellScript", "Word", "Write", "analyze", "static_word"]

# Redirection operators that open a file for writing (``>&`` only when its target is not an fd).
_WRITE_OPS = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}
# Commands that run their arguments (after options) as another command.
_TRANSPARENT = {"command", "builtin", "exec", "nohup", "time", "env", "nice", "timeout", "stdbuf",
                "xargs", "setsid", "chrt", "ionice", "taskset", "unbuffer", "sudo", "doas", "watch", "flock"}
_SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "ash"}
_FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}
# Options of wrappers that take a separate value (``nice -n 5 cmd``, ``timeout -s KILL 5 cmd``).
_OPTION_VALUES = {
    "env": {"-u", "--unset", "-C", "--chdir"},
    "nice": {"-n", "--adjustment"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "xargs": {"-a", "-d", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "-P", "-s", "--arg-file", "--delimiter",
              "--max-args", "--max-procs", "--max-chars", "--replace", "--max-lines"},
    "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"},
    "doas": {"-u", "-C"},
    "ionice": {"-c", "-n", "-p", "-t"},
    "chrt": {"-p"},
    "watch": {"-n", "--interval", "-d", "--differences"},
    "flock": {"-w", "--wait", "--timeout", "-E", "--conflict-exit-code"},
}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
_MAX_DEPTH = 8  # bash -c "bash -c '...'" nesting we are willing to follow


@dataclass(frozen=True)
class Invocation:
    """One command that runs: its words (``words[0]`` is the program); ``wrapped_by`` names the
    wrapper it was found in (``timeout``, ``bash -c`` ...), or '' for a command as written."""

    words: tuple[Word, ...]
    text: str
    wrapped_by: str = ""
    wrapper: bool = False  # it only runs another invocation (listed too), e.g. `timeout 5 pytest`
    assignments: tuple[Word, ...] = ()  # `A=1 cmd`, `env A=1 cmd`: "A=1" (None when the value is not static)

    @property
    def name(self) -> Word:
        return self.words[0] if self.words else None


@dataclass(frozen=True)
class Write:
    """A redirection that writes a file: ``target`` is its static path, or None when it depends on
    the shell (``> $f``, ``> ~/x``, ``> *.log``)."""

    target: str | None
    text: str
    tree: bool = False  # it may change everything below target (`rm -r`, `find -delete`)
    by_program: bool = False  # an option of the program (`tee x`, `sort -o x`), not a redirection


@dataclass
class ShellScript:
    parsed: bool = True
    invocations: list[Invocation] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    cd_targets: list[Word] = field(default_factory=list)  # arguments of cd/pushd, in order
    opaque: list[str] = field(default_factory=list)  # why some command cannot be known
    problem: str = ""  # why it did not parse
    hidden: list[str] = field(default_factory=list)  # code bash evaluates that the rules cannot read
    risky_env: list[str] = field(default_factory=list)  # variables set that make programs run code
    tainted: set[str] = field(default_factory=set)  # variables set to something other than a number
    arithmetic_refs: list[tuple[str, str]] = field(default_factory=list)  # (variable, where)


def analyze(command: str) -> ShellScript:
    script = ShellScript()
    _analyze_into(command, script, depth=0, wrapped_by="")
    for name, text in script.arithmetic_refs:
        if name in script.tainted or name in DATA_VARS or not _IDENT.match(name):
            script.hidden.append(
                f"`{text}` evaluates the value of {name} (as arithmetic, a name or a prompt), "
                "and a `$(...)` in it runs commands"
            )
            break
    return script


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _analyze_into(command: str, script: ShellScript, depth: int, wrapped_by: str) -> None:
    tree, problem = read_tree(command)
    if tree is None:
        script.parsed, script.problem = False, problem
        return
    _Walker(script, depth, wrapped_by).visit(tree.root_node)



class _Walker(CodeRules):
    def __init__(self, script: ShellScript, depth: int, wrapped_by: str):
        self.script, self.depth, self.wrapped_by = script, depth, wrapped_by
        self.stdin: tuple[str, str | None] = ("unknown", None)

    def visit(self, node) -> None:
        """Record what ``node`` runs and writes, then look inside it: every child, so commands in
        substitutions, bodies, assignments and redirect targets are found wherever they are."""
        kind = node.type
        if kind == "command":
            self._command(node)
        elif kind == "file_redirect":
            self._redirect(node)
        elif kind in ("declaration_command", "unset_command"):
            self.add((text_of(node.children[0]),), text_of(node))
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            if (body is None or body.type != "command") and _extra_destinations(node):
                self.script.opaque.append(f"unexpected words after a redirection in `{text_of(node)}`")
        self.visit_code(node)
        for child in node.children:
            self.visit(child)

    def _redirect(self, node) -> None:
        op = next((text_of(c) for c in node.children if not c.is_named), "")
        targets = destinations(node)
        if op not in _WRITE_OPS or not targets:
            return
        target = static_word(targets[0])
        if op == ">&" and (targets[0].type == "number" or target == "-"):
            return  # 2>&1, >&- : duplicating or closing a descriptor
        self.script.writes.append(Write(target, text_of(node)))

    def add_write(self, target: Word, text: str, tree: bool) -> None:
        self.script.writes.append(Write(target, text, tree=tree, by_program=True))

    def _command(self, node) -> None:
        skipped = ("variable_assignment", "file_redirect", "herestring_redirect", "comment")
        nodes = [c for c in node.children if c.is_named and c.type not in skipped]
        parent = node.parent
        redirected = parent is not None and parent.type == "redirected_statement"
        if redirected and parent.child_by_field_name("body") == node:
            nodes += _extra_destinations(parent)  # tree-sitter reads `cmd >out arg` as two targets
        nodes.sort(key=lambda n: n.start_byte)
        assignments = tuple(_assignment_word(c) for c in node.children if c.type == "variable_assignment")
        self.stdin = stdin_of(node)
        self.add(tuple(static_word(n) for n in nodes), text_of(node), assignments=assignments)

    def add(
        self,
        words: tuple[Word, ...],
        text: str,
        wrapped_by: str | None = None,
        assignments: tuple[Word, ...] = (),
    ) -> None:
        if not words:
            return
        wrapped = self.wrapped_by if wrapped_by is None else wrapped_by
        index = len(self.script.invocations)
        self.script.invocations.append(Invocation(words, text, wrapped, assignments=assignments))
        name = words[0]
        if name is None:
            self.script.opaque.append(f"the command name in `{text}` is only known at run time")
            return
        base = os.path.basename(name)
        unwrapped = False
        self.program_code(base, words, text)
        if base in ("cd", "pushd"):
            self.script.cd_targets.append(words[1] if len(words) > 1 else None)
        elif base in ("eval", *_SHELLS):
            unwrapped = self._inline_script(base, words, text)
        elif base == "busybox" and len(words) > 1:  # `busybox rm x` runs the applet rm
            self.add(words[1:], text, "busybox")
            unwrapped = True
        elif base in _TRANSPARENT:
            inner = _after_options(base, words[1:])
            if inner is None:
                self.script.opaque.append(f"cannot tell which command `{text}` runs")
            elif inner and base == "watch":
                unwrapped = self._run_string(None if None in inner else " ".join(inner), text, "watch")  # type: ignore[arg-type]
            elif inner and base == "flock" and inner[0] in ("-c", "--command"):
                unwrapped = self._run_string(inner[1] if len(inner) > 1 else None, text, "flock -c")
            elif inner:
                between = words[1 : len(words) - len(inner)]
                env = tuple(w for w in between if w is not None and _assigns(base, w))
                for word in env:
                    self.assign(word.split("=", 1)[0].split("[", 1)[0], word.split("=", 1)[1], text)
                if base == "xargs":  # its input becomes arguments: in place of {} or after the last word
                    placeholder = xargs_placeholder(between)
                    inner = replaced_by_data(inner, placeholder) if placeholder else [*inner, None]
                self.add(tuple(inner), text, base, assignments=assignments + env)
                unwrapped = True
        elif base == "find":
            self._find_exec(words, text)
        if unwrapped and base not in ("sudo", "doas"):
            self.script.invocations[index] = replace(self.script.invocations[index], wrapper=True)

    def _inline_script(self, base: str, words: tuple[Word, ...], text: str) -> bool:
        if base == "eval":
            args = words[1:]
            return self._run_string(None if None in args else " ".join(args), text, "eval")  # type: ignore[arg-type]
        rest = list(words[1:])
        while rest and rest[0] is not None and rest[0].startswith("-") and rest[0] != "-c":
            if rest[0] in ("-o", "+o"):
                rest = rest[1:]
            rest = rest[1:]
        if rest and rest[0] == "-c":
            return self._run_string(rest[1] if len(rest) > 1 else None, text, f"{base} -c")
        if rest and rest[0] is None:
            self.script.opaque.append(f"cannot tell what `{text}` runs")
        if not rest or rest[0] in ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"):
            self.program_from_stdin(text, base)  # `echo 'rm x' | bash`, `bash <<< 'rm x'`
        return False  # `bash script.sh` runs a file, like `python x.py`: the rules judge `bash` itself

    def _run_string(self, inner: str | None, text: str, wrapper: str) -> bool:
        if inner is None:
            self.script.opaque.append(f"`{text}` runs a command only known at run time")
            return False
        if self.depth >= _MAX_DEPTH:
            self.script.opaque.append(f"`{text}` nests shells too deeply to check")
            return False
        before = len(self.script.invocations)
        _analyze_into(inner, self.script, self.depth + 1, wrapper)
        for i in range(before, len(self.script.invocations)):
            inv = self.script.invocations[i]
            if not inv.wrapped_by:
                self.script.invocations[i] = replace(inv, wrapped_by=wrapper)
        return True

    def _find_exec(self, words: tuple[Word, ...], text: str) -> None:
        i = 1
        while i < len(words):
            if words[i] in _FIND_EXEC:
                j = i + 1
                while j < len(words) and words[j] not in (";", "+"):
                    j += 1
                if j > i + 1:
                    self.add(tuple(replaced_by_data(list(words[i + 1 : j]), "{}")), text, "find -exec")
                i = j
            i += 1


def _after_options(wrapper: str, rest: tuple[Word, ...]) -> list[Word] | None:
    """The command a wrapper runs (its words), [] when it runs none, None when it cannot be told."""
    takes_value = _OPTION_VALUES.get(wrapper, set())
    i = 0
    while i < len(rest):
        word = rest[i]
        if word is None:
            return None
        if wrapper == "env" and word.startswith(("-S", "--split-string")):
            return None  # env -S splits a string into a command line
        if wrapper == "env" and "=" in word and not word.startswith("-"):
            i += 1
            continue
        if word == "--":
            i += 1
            break
        builtin = wrapper in ("command", "builtin")
        if (word.startswith("-") and len(word) > 1 and not builtin) or (builtin and word in ("-p",)):
            if builtin and word in ("-v", "-V"):
                return []  # `command -v x` only looks x up
            i += 2 if word in takes_value else 1
            continue
        break
    rest = rest[i:]
    if wrapper in ("timeout", "chrt", "taskset", "flock") and rest:
        rest = rest[1:]  # the duration, the priority, the CPU mask, the lock file
    while rest and rest[0] is not None and _ASSIGNMENT.match(rest[0]):
        rest = rest[1:]  # `time A=1 cmd` (conservatively for every wrapper): the program comes after
    return list(rest)


def _extra_destinations(statement) -> list:
    """Words tree-sitter attached to a redirect after its target: in bash they are arguments."""
    extra = []
    for child in statement.children:
        if child.type == "file_redirect":
            extra += destinations(child)[1:]
    return extra


def _assigns(wrapper: str, word: str) -> bool:
    """``env`` takes any NAME=VALUE (also ``BASH_FUNC_x%%=...``, which bash imports as a function)."""
    if wrapper == "env":
        return "=" in word and not word.startswith("-")
    return bool(_ASSIGNMENT.match(word))


def _assignment_word(node) -> Word:
    value = node.child_by_field_name("value")
    static = static_word(value) if value is not None else ""
    name = node.child_by_field_name("name")
    return None if static is None or name is None else f"{text_of(name)}={static}"
