"""The ``prime-sessions`` command line (Qt-free; ``python -m core.cli``).

``program`` (the parser, the reading commands and ``main``), ``edit`` (trash), ``export`` and ``diff``
(their sub-commands).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.cli.program import PROG, StatusLine, build_parser, main, tree_json

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "PROG": "core.cli.program",
        "StatusLine": "core.cli.program",
        "build_parser": "core.cli.program",
        "main": "core.cli.program",
        "tree_json": "core.cli.program",
    },
)
