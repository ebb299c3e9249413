"""Files that common programs write through their own arguments (not a redirection): ``tee x``,
``git log --output=x``, ``find -delete``, ``sed -i``, ``sort -o x``, ``cp a x``, ``mv``, ``dd of=x``,
``rm``/``touch``/``mkdir`` ... The shell rules judge each like a redirection to that path.

``program_writes(words)`` returns ``(target, tree)`` pairs: ``target`` is the static path (None when
only known at run time) and ``tree`` says the program may change everything below it (``rm -r``,
``find -delete``), so a protected folder inside it counts too.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from acode.tools.shell_env import git_config_call

Word = str | None
Target = tuple[Word, bool]


def _operands(args: tuple[Word, ...], takes_value: frozenset[str] = frozenset()) -> list[Word]:
    """Non-option words (a word known only at run time may be a path, so it counts)."""
    found: list[Word] = []
    only, skip = False, False
    for word in args:
        if skip:
            skip = False
        elif word is None or only or not word.startswith("-") or word == "-":
            found.append(word)
        elif word == "--":
            only = True
        elif word in takes_value:
            skip = True
    return found


def _short(word: str) -> bool:
    return word.startswith("-") and not word.startswith("--")


def _option_values(args: tuple[Word, ...], short: str, long: str) -> list[Word]:
    """Values of ``-o X``, ``-oX`` (also inside a cluster such as ``-uo X``), ``--output X`` and
    ``--output=X``."""
    values: list[Word] = []
    for index, word in enumerate(args):
        following = args[index + 1] if index + 1 < len(args) else None
        if word is None or word == "--":
            continue
        if word == long or (short and _short(word) and word.endswith(short)):
            values.append(following)
        elif word.startswith(long + "="):
            values.append(word[len(long) + 1 :])
        elif short and _short(word) and short in word[1:]:
            values.append(word[word.index(short, 1) + 1 :])
    return values


def _clustered(args: tuple[Word, ...], letters: str, longs: tuple[str, ...]) -> bool:
    return any(
        word is not None
        and (word in longs or (_short(word) and any(c in word[1:] for c in letters)))
        for word in args
    )


def _all_operands(values: frozenset[str] = frozenset(), tree_letters: str = "") -> Callable:
    def judge(args):
        tree = bool(tree_letters) and _clustered(args, tree_letters, ("--recursive",))
        return [(t, tree) for t in _operands(args, values) if t != "-"]
    return judge


def _destination(values: frozenset[str]) -> Callable:
    """cp / install / ln: the last operand, or the ``-t DIR`` / ``--target-directory=DIR``."""
    def judge(args):
        named = _option_values(args, "", "--target-directory") + [
            args[i + 1] if i + 1 < len(args) else None for i, w in enumerate(args) if w == "-t"
        ]
        if named:
            return [(t, False) for t in named]
        operands = _operands(args, values)
        if _clustered(args, "", ("-d", "--directory")):
            return [(t, False) for t in operands]  # install -d DIR...
        if len(operands) == 1:
            return [(os.path.basename(operands[0]) if operands[0] else None, False)]  # ln -s /x: ./x
        return [(operands[-1], False)] if operands else []
    return judge


def _sed(args):
    in_place = _clustered(args, "i", ("--in-place",)) or any(w and w.startswith("--in-place=") for w in args)
    if not in_place:
        return []
    scripted = any(w is not None and (w in ("-e", "-f", "--expression", "--file") or w.startswith(
        ("--expression=", "--file="))) for w in args)
    files = _operands(args, frozenset({"-e", "-f", "-l", "--expression", "--file", "--line-length"}))
    return [(t, False) for t in (files if scripted else files[1:])]


def _find(args):
    starts: list[Word] = []
    for word in args:
        if word is not None and (word.startswith(("-", "(", "!")) or word == ","):
            if word in ("-H", "-L", "-P") or word.startswith("-O"):
                continue
            break
        starts.append(word)
    starts = starts or ["."]
    targets: list[Target] = []
    for index, word in enumerate(args):
        if word == "-delete":
            targets += [(s, True) for s in starts]
        elif word in ("-fprint", "-fprint0", "-fls", "-fprintf"):
            targets.append((args[index + 1] if index + 1 < len(args) else None, False))
    return targets


def _git(args):
    folder: Word = "."
    outputs: list[Word] = []
    for index, word in enumerate(args):
        if word == "-C" and index + 1 < len(args):
            folder = args[index + 1] if folder is not None and args[index + 1] is not None else None
    outputs += _option_values(args, "", "--output") + _option_values(args, "", "--output-directory")
    subcommand = next((w for w in _git_subcommand(args)), None)
    if subcommand == "config":
        writes, target, _key, _value = git_config_call(tuple(args[args.index("config") + 1 :]))
        if writes:
            outputs.append(os.path.expanduser(target) if target is not None else None)
    if subcommand in ("format-patch", "archive", "bundle"):
        outputs += [args[i + 1] if i + 1 < len(args) else None for i, w in enumerate(args) if w == "-o"]
    return [(None if folder is None or out is None else os.path.join(folder, out), False) for out in outputs]


def _git_subcommand(args):
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"):
            skip = True
        elif word is None or not word.startswith("-"):
            yield word
            return


def _dd(args):
    return [(w[3:] if w is not None else None, False) for w in args if w is None or w.startswith("of=")]


def _sort(args):
    return [(t, False) for t in _option_values(args, "o", "--output")]


def _uniq(args):
    values = frozenset({"-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"})
    operands = _operands(args, values)
    return [(operands[1], False)] if len(operands) > 1 else []


_HANDLERS: dict[str, Callable[[tuple[Word, ...]], list[Target]]] = {
    "tee": _all_operands(frozenset({"--output-error"})),
    "rm": _all_operands(tree_letters="rR"),
    "rmdir": _all_operands(),
    "unlink": _all_operands(),
    "shred": _all_operands(frozenset({"-n", "-s", "--iterations", "--size"})),
    "touch": _all_operands(frozenset({"-r", "-d", "-t", "--reference", "--date"})),
    "truncate": _all_operands(frozenset({"-s", "-r", "--size", "--reference"})),
    "mkdir": _all_operands(frozenset({"-m", "--mode"})),
    "mv": lambda args: _all_operands(frozenset({"-S", "--suffix", "-t", "--target-directory"}))(args)
    + [(t, False) for t in _option_values(args, "", "--target-directory") + _option_values(args, "", "-t")],
    "cp": _destination(frozenset({"-S", "--suffix"})),
    "install": _destination(frozenset({"-m", "-o", "-g", "-S", "--mode", "--owner", "--group", "--suffix"})),
    "ln": _destination(frozenset({"-S", "--suffix"})),
    "sed": _sed,
    "find": _find,
    "git": _git,
    "dd": _dd,
    "sort": _sort,
    "uniq": _uniq,
}


def makes_links(words: tuple[Word, ...]) -> bool:
    """``ln -s``, ``cp -a/-d/-P/-r/-s``, ``mv``: the paths the line writes next may lead elsewhere
    than they do when the line is judged."""
    if not words or words[0] is None:
        return False
    base, args = os.path.basename(words[0]), words[1:]
    if base == "ln":
        return _clustered(args, "s", ("--symbolic",))
    if base == "cp":
        return _clustered(args, "adPrRs", ("--archive", "--no-dereference", "--recursive", "--symbolic-link"))
    return base == "mv"


def program_writes(words: tuple[Word, ...]) -> list[Target]:
    if not words or words[0] is None:
        return []
    handler = _HANDLERS.get(os.path.basename(words[0]))
    if handler is None:
        return []
    targets = handler(words[1:])
    if None in words[1:] and (None, False) not in targets:
        targets.append((None, False))  # `git log $x`: $x may be `--output=../y`
    return targets
