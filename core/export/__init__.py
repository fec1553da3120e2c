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
    from core.export.files import write_export
    from core.export.html import markdown_to_html, pygments_css
    from core.export.markdown import entry_to_markdown

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "FORMATS": "core.export.common",
        "ExportOptions": "core.export.common",
        "PdfWriter": "core.export.export",
        "RenderedExport": "core.export.export",
        "render_export": "core.export.export",
        "save_export": "core.export.export",
        "write_export": "core.export.files",
        "markdown_to_html": "core.export.html",
        "pygments_css": "core.export.html",
        "entry_to_markdown": "core.export.markdown",
    },
)
