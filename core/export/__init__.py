"""Sharing a session: Markdown, a self-contained HTML page, PDF (through a writer the app supplies), redacted.

``export`` (the one entry point: render, then save), ``common`` (options, scope, metadata, text helpers),
``markup`` (the Markdown primitives the HTML export swaps), ``markdown`` (entries as Markdown),
``records`` (settings, usage records, context edits, system messages and Prime Agent's state entries),
``safe_markdown`` (raw HTML and script links out of the Markdown export's message text), ``html`` (the
page's entries and assembly), ``page`` (its shell, policy and assets), ``island`` (its sidebar rows and
fragments as JSON), ``cmark`` (message Markdown as HTML) and ``pieces`` (huge Markdown a piece at a time),
``highlighter`` (code), ``parallel`` (the command line's page rendered by two processes), ``files``
(writing the results atomically) and ``redact``. The HTML page's stylesheet and script are in
``assets/``. Tool calls are paired with their results by :mod:`core.kinds.pairing`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.export.common import FORMATS, ExportOptions
    from core.export.export import PdfWriter, RenderedExport, render_export, save_export
    from core.export.files import check_targets, input_at, write_export
    from core.export.markdown import entry_to_markdown
    from core.render.highlight import pygments_css
    from core.render.markdown import markdown_to_html

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.render.markdown": "markdown_to_html",
        "core.export.common": "ExportOptions FORMATS",
        "core.export.export": "PdfWriter render_export RenderedExport save_export",
        "core.export.files": "check_targets input_at write_export",
        "core.render.highlight": "pygments_css",
        "core.export.markdown": "entry_to_markdown",
    },
)
