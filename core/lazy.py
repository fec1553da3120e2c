"""Lazy re-exports for package ``__init__`` modules.

A package names its public API once, as ``name -> defining module``; the module is imported on first use
of the name, so importing a package (or one small module inside it) never loads the rest. ``import
core.cli`` stays fast for the command line, and a GUI model that needs only ``core.session.summary`` does
not load the session reader.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """The ``__getattr__``, ``__dir__`` and ``__all__`` of a package that re-exports ``exports`` lazily.

    Args:
        package: the package's ``__name__``.
        exports: public name -> the module that defines it.
    """
    names = sorted(exports)

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(importlib.import_module(package), name, value)  # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return list(names)

    return __getattr__, __dir__, names
