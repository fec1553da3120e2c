"""The catalogue: every session's summary and full-text index in one SQLite file, kept current incrementally.

``catalogue`` (the :class:`Catalogue` object: refresh, summaries, search), ``reading`` (one file read whole
into rows), ``pool`` (those reads in worker processes), ``search_text`` (what is indexed per entry) and
``snippets`` (hit snippets and query terms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.catalogue.catalogue import (
        Catalogue,
        CatalogueError,
        Hit,
        QueryError,
        RefreshStats,
        default_catalogue_dir,
    )

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "Catalogue": "core.catalogue.catalogue",
        "CatalogueError": "core.catalogue.catalogue",
        "Hit": "core.catalogue.catalogue",
        "QueryError": "core.catalogue.catalogue",
        "RefreshStats": "core.catalogue.catalogue",
        "default_catalogue_dir": "core.catalogue.catalogue",
    },
)
