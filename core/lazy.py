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
    package: str, modules: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """The ``__getattr__``, ``__dir__`` and ``__all__`` of a package that re-exports names lazily.

    Args:
        package: the package's ``__name__``.
        modules: a module -> the public names it defines that the package re-exports, separated by
            spaces (``{"core.session.tree": "SessionTree"}``).
    """
    exports = {name: module for module, names in modules.items() for name in names.split()}
    if len(exports) != sum(len(names.split()) for names in modules.values()):
        raise ValueError(f"{package} re-exports a name from two modules")
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
