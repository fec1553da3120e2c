"""The catalogue: every session's summary and full-text index in one SQLite file, kept current incrementally.

``catalogue`` (the :class:`Catalogue` object: refresh, summaries, search), ``schema`` (the SQLite file:
schema, opening, rebuilding a stale or damaged one), ``update`` (which files changed, batches, whole-file
rows), ``append`` (reading what was appended), ``search`` (FTS5 queries and hits), ``reading`` (one file
read whole into rows), ``pool`` (those reads in worker processes), ``search_text`` (what is indexed per
entry) and ``snippets`` (hit snippets and query terms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.catalogue.catalogue import Catalogue, default_catalogue_dir
    from core.catalogue.schema import CatalogueBusyError, CatalogueError
    from core.catalogue.search import Hit, QueryError, SearchFilters
    from core.catalogue.touches import SessionTouches
    from core.catalogue.update import RefreshStats

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.catalogue.catalogue": "Catalogue default_catalogue_dir",
        "core.catalogue.schema": "CatalogueBusyError CatalogueError",
        "core.catalogue.search": "Hit QueryError SearchFilters",
        "core.catalogue.touches": "SessionTouches",
        "core.catalogue.update": "RefreshStats",
    },
)
