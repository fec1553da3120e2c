"""Sharing a session: Markdown, a self-contained HTML page, PDF (through a writer the app supplies), redacted.

``export`` (the one entry point: render, then save), ``common`` (options, scope, pairing, metadata),
``markdown``, ``html``, ``files`` (writing the results atomically) and ``redact``. The HTML page's
stylesheet and script are in ``assets/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.export.common import FORMATS, ExportOptions
    from core.export.export import PdfWriter, RenderedExport, render_export, save_export

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "FORMATS": "core.export.common",
        "ExportOptions": "core.export.common",
        "PdfWriter": "core.export.export",
        "RenderedExport": "core.export.export",
        "render_export": "core.export.export",
        "save_export": "core.export.export",
    },
)
