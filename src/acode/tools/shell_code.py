"""The part of reading a bash line that finds code hidden in data (a mixin of the walker in
``acode.tools.shell_parse``):

- words bash evaluates as names or arithmetic (``acode.tools.shell_eval``);
- assignments of variables that make programs run other code (``acode.tools.shell_env``);
- commands that run a program taken from data: a shell reading its program from stdin, ``source``
  of a pipe, ``trap``, ``hash -p``, ``enable -f``, ``alias``, ``mapfile -C``, ``git -c alias.x=!...``;
- files programs write through their own options (``acode.tools.shell_writes``).

What can be read is analysed like ``bash -c``; what cannot goes to ``script.hidden``.
"""

from __future__ import annotations

from typing import Any

from acode.tools.shell_env import env_effect, git_config_call, git_config_effect
from acode.tools.shell_eval import (
    ARITHMETIC_TESTS,
    DECLARATIONS,
    arithmetic_names,
    builtin_names,
    expansion_arithmetic,
    is_number,
    split_name_word,
)
from acode.tools.shell_options import option_commands, sed_writes
from acode.tools.shell_words import Word, destinations, static_word, text_of
from acode.tools.shell_writes import program_writes

_STDIN_FILES = {"/dev/stdin", "-", "/dev/fd/0", "/proc/self/fd/0"}
_NAME_BUILTINS = {"let", "printf", "read", "mapfile", "readarray", "unset", "getopts", "wait", "test", "["}


class CodeRules:
    script: Any  # the walker's ShellScript (acode.tools.shell_parse imports this module)
    stdin: tuple[str, str | None]  # ("text", program) / ("file", None) / ("unknown", None)

    def _run_string(self, inner: str | None, text: str, wrapper: str) -> bool:  # the walker's
        raise NotImplementedError

    def add_write(self, target: Word, text: str, tree: bool) -> None:  # the walker's
        raise NotImplementedError

    # -- what the walker calls -------------------------------------------------------------------
    def hide(self, reason: str) -> None:
        self.script.hidden.append(reason)

    def visit_code(self, node) -> None:
        kind, text = node.type, text_of(node)
        if kind == "arithmetic_expansion":
            self.arithmetic(text, text)
        elif kind == "compound_statement" and text.startswith("(("):
            self.arithmetic(text[2:-2], text)
        elif kind == "c_style_for_statement":
            body = node.child_by_field_name("body")
            for child in node.named_children:
                if child != body:
                    self.arithmetic(text_of(child), text)
        elif kind == "subscript":
            index = node.child_by_field_name("index")
            if index is not None:
                self.arithmetic(text_of(index), text)
        elif kind == "expansion":
            offset, indirect = expansion_arithmetic(text)  # indirect: ${!x}, and ${x@P} (a prompt)
            if offset is not None:
                self.arithmetic(offset, text)
            if indirect is not None:
                self.script.arithmetic_refs.append((indirect, text))
        elif kind == "test_command":
            self._test(node, double=text.startswith("[["))
        elif kind == "variable_assignment":
            self._assignment(node)
        elif kind == "for_statement":
            variable = node.child_by_field_name("variable")
            values = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "value"]
            if variable is not None and not (values and all(is_number(static_word(v)) for v in values)):
                self.script.tainted.add(text_of(variable))  # `for i in 1 2 3` leaves it a number
        elif kind in ("declaration_command", "unset_command"):
            self._declaration(node)

    def program_code(self, base: str, words: tuple[Word, ...], text: str) -> None:
        for target, tree in program_writes(words):
            self.add_write(target, text, tree)
        for command in option_commands(words):  # git rebase -x CMD, tar --to-command=CMD ...
            self._run_string(command, text, f"{base} option")
        if base == "sed" and sed_writes(words):
            self.add_write(None, text, False)  # sed 'w FILE'
        if base in _NAME_BUILTINS:
            names, arithmetic, callback = builtin_names(base, words)
            for name in names:
                self.name_word(name, text, assigns=base not in ("unset", "test", "["))
            for expression in arithmetic:
                if expression is None:
                    self.hide(f"`{text}` evaluates arithmetic only known at run time")
                else:
                    self.arithmetic(expression, text)
            if callback != "":
                self._run_string(callback, text, f"{base} -C")
        elif base in DECLARATIONS:  # read as a plain command (after `!`, `command`, `builtin`)
            self._declaration_words(words[1:], text, assigns=True)
        elif base == "trap":
            self._trap(words, text)
        elif base in ("compgen", "complete"):
            for index, word in enumerate(words):
                if word == "-C":
                    self._run_string(words[index + 1] if index + 1 < len(words) else None, text, f"{base} -C")
        elif base == "hash" and any(w is None or (w.startswith("-") and "p" in w) for w in words[1:]):
            self.hide(f"`{text}` gives a program another name, so later names cannot be told")
        elif base == "enable" and any(w is None or (w.startswith("-") and "f" in w) for w in words[1:]):
            self.hide(f"`{text}` loads a builtin from a shared library")
        elif base == "alias":
            for word in words[1:]:
                if word is None:
                    self.hide(f"`{text}` defines an alias only known at run time")
                elif "=" in word:
                    self._run_string(word.split("=", 1)[1], text, "alias")
        elif base in ("source", "."):
            self._source(words, text)
        elif base == "git":
            self._git_options(words, text)

    def program_from_stdin(self, text: str, wrapper: str) -> None:
        kind, program = self.stdin
        if kind == "text":
            self._run_string(program, text, wrapper)
        elif kind == "unknown":
            self.hide(f"`{text}` runs a program it reads from its input")

    # -- pieces ----------------------------------------------------------------------------------
    def arithmetic(self, expression: str, where: str) -> None:
        names = arithmetic_names(expression)
        if names is None:
            self.hide(f"`{where}` evaluates the output of a command as arithmetic")
            return
        self.script.arithmetic_refs += [(name, where) for name in sorted(names)]

    def name_word(self, word: Word, text: str, *, assigns: bool) -> None:
        """A word bash reads as a variable name (``printf -v NAME``): its subscript is arithmetic."""
        if word is None:
            self.hide(f"`{text}` uses a variable name only known at run time")
            return
        parts = split_name_word(word)
        if parts is None:
            return  # not a name: bash refuses it
        name, subscript, value = parts
        if subscript is not None:
            if "$" in subscript or "`" in subscript:
                self.hide(f"`{text}` has a subscript bash expands and evaluates ({word!r})")
            else:
                self.arithmetic(subscript, text)
        if assigns:
            self.assign(name, value, text)

    def assign(self, name: str, value: Word, text: str) -> None:
        if not is_number(value):
            self.script.tainted.add(name)
        effect = env_effect(name)
        if effect is None:
            return
        self.script.risky_env.append(name)
        if effect == "command" and value is not None:
            self._run_string(value.lstrip("|"), text, f"{name}=")
        elif effect != "loads":
            self.hide(f"`{text}` sets {name}, which makes programs run code the shell rules cannot read")

    def _assignment(self, node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        if name_node.type == "subscript":
            name_node = name_node.child_by_field_name("name") or name_node
        value = node.child_by_field_name("value")
        if value is not None and value.type == "arithmetic_expansion":
            self.assign(text_of(name_node), "0", text_of(node))  # `i=$((i + 1))` is a number
            return
        self.assign(text_of(name_node), static_word(value) if value is not None else "", text_of(node))

    def _declaration(self, node) -> None:
        words = [static_word(c) for c in node.children[1:]
                 if c.type not in ("variable_assignment", "variable_name")]  # visited on their own
        self._declaration_words(words, text_of(node), assigns=node.type == "declaration_command")

    def _declaration_words(self, words, text: str, *, assigns: bool) -> None:
        """The arguments of ``declare``/``export``/``unset``...: names whose subscripts are arithmetic,
        and the flags that make later assignments code."""
        for value in words:
            if value is not None and value.startswith(("-", "+")):
                if assigns and any(flag in value for flag in "in"):
                    self.hide(f"`{text}` makes later assignments evaluate as code (-i / -n)")
                continue
            self.name_word(value, text, assigns=assigns)

    def _test(self, node, *, double: bool) -> None:
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            operator = child.child_by_field_name("operator")
            op = text_of(operator) if operator is not None else ""
            if child.type == "binary_expression" and double and op in ARITHMETIC_TESTS:
                for side in ("left", "right"):
                    part = child.child_by_field_name(side)
                    if part is not None:
                        self.arithmetic(text_of(part), text_of(node))
            elif child.type == "unary_expression" and op == "-v" and child.named_children:
                self.name_word(static_word(child.named_children[-1]), text_of(node), assigns=False)
            if child.type in ("binary_expression", "unary_expression", "parenthesized_expression"):
                stack.extend(child.named_children)

    def _trap(self, words: tuple[Word, ...], text: str) -> None:
        args = [w for w in words[1:] if w not in ("--", "-p", "-l", "-P")]
        if len(args) >= 2 and args[0] not in ("-", ""):
            self._run_string(args[0], text, "trap")

    def _source(self, words: tuple[Word, ...], text: str) -> None:
        path = words[1] if len(words) > 1 else None
        if path in _STDIN_FILES:
            self.program_from_stdin(text, "source")
        elif path is None or path.startswith(("/dev/fd/", "/proc/")):
            self.hide(f"`{text}` runs a program from a pipe or a path only known at run time")

    def _git_options(self, words: tuple[Word, ...], text: str) -> None:
        index = 1
        while index < len(words):
            word = words[index]
            if word is None:
                self.hide(f"`{text}` passes git an option only known at run time")
                return
            if not word.startswith("-"):
                if word == "config":
                    self._git_config_command(words[index + 1 :], text)
                return
            if word == "-c":
                pair = words[index + 1] if index + 1 < len(words) else None
                self._git_config(pair, text)
                index += 1
            elif word.startswith("--config-env"):
                key = word.split("=", 2)[1] if word.count("=") >= 1 else ""
                if git_config_effect(key, None)[0] is not None:
                    self.hide(f"`{text}` sets a git command from the environment")
            elif word.startswith(("--exec-path", "--git-dir", "--work-tree")):
                self.script.risky_env.append(word.split("=", 1)[0])  # another repository's config
                index += word in ("--git-dir", "--work-tree")
            elif word in ("-C", "--namespace"):
                index += 1
            index += 1

    def _git_config_command(self, args: tuple[Word, ...], text: str) -> None:
        """`git config alias.z '!rm x'` stores a command the next git call runs: read it now."""
        writes, _file, key, value = git_config_call(args)
        if writes:
            self._git_config(None if key is None else f"{key}={value}" if value is not None else key, text)

    def _git_config(self, pair: Word, text: str) -> None:
        if pair is None:
            self.hide(f"`{text}` sets a git option only known at run time")
            return
        key, has_value, value = pair.partition("=")
        effect, program = git_config_effect(key, value if has_value else "true")
        if effect == "command":
            self._run_string(program, text, f"git -c {key}")
        elif effect == "code":
            self.hide(f"`{text}` sets {key}, which makes git run code the shell rules cannot read")


def stdin_of(command) -> tuple[str, str | None]:
    """Where a command's input comes from: a here-string or here-document whose text is known
    ("text"), a file ("file"), or a pipe / the terminal / anything else ("unknown")."""
    kinds = ("heredoc_redirect", "herestring_redirect", "file_redirect")
    redirects = [c for c in command.children if c.type in kinds]
    parent = command.parent
    statement = parent if parent is not None and parent.type == "redirected_statement" else None
    if statement is not None and statement.child_by_field_name("body") == command:
        redirects += [c for c in statement.children if c.type in kinds]
    for redirect in reversed(redirects):
        if redirect.type == "herestring_redirect":
            if not redirect.named_children:
                return "unknown", None
            return "text", static_word(redirect.named_children[-1])
        if redirect.type == "heredoc_redirect":
            return heredoc_text(redirect)
        op = next((text_of(c) for c in redirect.children if not c.is_named), "")
        if op == "<":
            source = next(iter(destinations(redirect)), None)
            path = static_word(source) if source is not None else None
            known = path is not None and not path.startswith(("/dev/", "/proc/"))
            return ("file", None) if known else ("unknown", None)
    return "unknown", None


def heredoc_text(redirect) -> tuple[str, str | None]:
    start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
    body = next((c for c in redirect.children if c.type == "heredoc_body"), None)
    if start is None or body is None:
        return "unknown", None
    text, quoted = text_of(body), text_of(start).startswith(("'", '"', "\\"))
    if quoted or not any(ch in text for ch in "$`\\"):
        return "text", text
    return "unknown", None


def xargs_placeholder(options: tuple[Word, ...]) -> str | None:
    for index, word in enumerate(options):
        if word in ("-I", "--replace") and index + 1 < len(options):
            return options[index + 1]
        if word is not None and word.startswith("-I") and len(word) > 2:
            return word[2:]
        if word is not None and (word == "-i" or word.startswith(("-i", "--replace="))):
            return word.split("=", 1)[1] if "=" in word else (word[2:] or "{}")
    return None


def replaced_by_data(words: list[Word], placeholder: str | None) -> list[Word]:
    """Words holding xargs' / find's placeholder become data (a file name, an input line) at run time."""
    if not placeholder:
        return words
    return [None if w is not None and placeholder in w else w for w in words]
