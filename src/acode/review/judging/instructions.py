"""The project's plain-language instructions per path (``reviewer.instructions``), as the model steps'
prompts carry them: a step that looks at one file is told the instructions whose globs match that file, the
shared context of the proposals the instructions of the files it shows (each with those files), and a step
about other files nothing. They come from the settings, which for a change to ``.acode/config.yml`` are its
base's (acode.review.service.base_config): a change cannot choose what the model is told about it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from acode.config.review import PathInstruction
from acode.review.evidence.repo_rules import applies


def instructions_for(instructions: Sequence[PathInstruction], path: str) -> list[str]:
    """The texts of the instructions whose globs match ``path``, in the configured order."""
    return [item.text for item in instructions if applies(item, path)]


def instructions_by_files(instructions: Sequence[PathInstruction], paths: Iterable[str]
                          ) -> list[tuple[str, list[str]]]:
    """(text, the files of ``paths`` it applies to) for each instruction that applies to any of them."""
    paths = list(paths)
    out = []
    for item in instructions:
        matched = [path for path in paths if applies(item, path)]
        if matched:
            out.append((item.text, matched))
    return out
