"""`acode --help` without the imports typer's help renderer makes for paths acode's help never takes.

typer.rich_utils imports, at its top, rich.markdown (markdown-it, pygments) for help text in markdown
mode (acode's help is in rich markup mode) and rich.traceback (rich.pretty, attrs) for typer's pretty
tracebacks: about a third of what `acode --help` imported (issue 28: --help at 16-18x a bare Python
start). While typer.rich_utils is imported, those two modules (when not imported already) are stand-ins
whose one class imports the real module when it is first called or asked for an attribute; then the
stand-ins leave ``sys.modules``, so any later import gets the real module. Should anything imported
meanwhile want more from them, typer.rich_utils is imported again the ordinary way.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

DEFERRED = {"rich.markdown": "Markdown", "rich.traceback": "Traceback"}


class _ImportedOnUse(type):
    """The metaclass of a stand-in: calling it or reading an attribute uses the real class."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls.real()(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        return getattr(cls.real(), name)


def _stand_in(module: str, name: str) -> type:
    def real() -> type:
        return getattr(importlib.import_module(module), name)

    return _ImportedOnUse(name, (), {"real": staticmethod(real)})


def import_help_renderer() -> None:
    """Import typer.rich_utils (once per process) with the stand-ins in place."""
    if "typer.rich_utils" in sys.modules:
        return
    placed: dict[str, types.ModuleType] = {}
    for module, name in DEFERRED.items():
        if module not in sys.modules:
            stand = placed[module] = types.ModuleType(module, "stand-in: see acode.cli.help_imports")
            setattr(stand, name, _stand_in(module, name))
            sys.modules[module] = stand
    try:
        import typer.rich_utils
    except ImportError:  # something imported meanwhile wanted more of a stand-in: the ordinary way below
        pass
    finally:
        for module, stand in placed.items():
            if sys.modules.get(module) is stand:
                del sys.modules[module]
    import typer.rich_utils  # noqa: F401 - nothing to do when the import above succeeded
