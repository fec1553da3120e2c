"""The ``prime-sessions`` command line (Qt-free; ``python -m core.cli``).

``program`` (the parser and ``main``), ``reading`` (list, index, search, show, context, tree, check),
``edit`` (label, rename, fork, clone, trash), ``export`` and ``diff`` (their sub-commands), ``status``
(a status line and progress bar on the terminal) and ``output`` (how the commands print).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.cli.output import PROG
    from core.cli.program import build_parser, main
    from core.cli.reading import tree_json
    from core.cli.status import StatusLine

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.cli.output": "PROG",
        "core.cli.program": "build_parser main",
        "core.cli.reading": "tree_json",
        "core.cli.status": "StatusLine",
    },
)
