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

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "PROG": "core.cli.output",
        "build_parser": "core.cli.program",
        "main": "core.cli.program",
        "tree_json": "core.cli.reading",
        "StatusLine": "core.cli.status",
    },
)
