"""PDF export: the Markdown export laid out by Qt's rich text and printed with ``QPdfWriter``.

The content is exactly the Markdown export's (core renders it; :func:`core.export.markdown_to_html`
turns it into safe HTML), so the PDF and the ``.md`` file never disagree. ``QTextDocument.print_``
cannot add page numbers, so the pages are painted one by one: each page draws its slice of the laid
out document and then its number in the bottom margin. Runs on the offscreen platform (no display).
"""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Callable

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSizeF, Qt, QUrl
from PySide6.QtGui import (
    QFont,
    QGuiApplication,
    QImage,
    QImageReader,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextDocument,
)

from core.export import markdown_to_html, pygments_css

__all__ = ["PdfCancelled", "install_cli_hook", "markdown_to_pdf"]

# progress(stage, done, total): stage "layout" (done = total = 0) then "page" (page done, page count).
PdfProgress = Callable[[str, int, int], None]


class PdfCancelled(Exception):
    """The PDF was cancelled while it was being laid out or painted; nothing was returned."""


_RESOLUTION = 300  # dpi of the PDF's coordinate space; text stays vector either way
_FOOTER_MM = 8
_STYLE = """
body { color: #1f2328; font-size: 10pt; }
h1 { font-size: 16pt; } h3 { font-size: 11pt; color: #444c56; margin-top: 14px; }
pre { background-color: #f6f8fa; font-family: monospace; font-size: 8pt; white-space: pre-wrap; }
code { font-family: monospace; background-color: #f6f8fa; }
blockquote { color: #57606a; margin-left: 12px; }
table { border-collapse: collapse; } th, td { border: 1px solid #d0d7de; padding: 2px; }
a { color: #0969da; }
"""


class _Document(QTextDocument):
    """A text document that decodes ``data:`` image URIs itself and loads nothing else."""

    def loadResource(self, kind: int, url: QUrl | str) -> object:
        text = url.toString() if isinstance(url, QUrl) else str(url)
        if kind == QTextDocument.ResourceType.ImageResource.value and text.startswith("data:image/"):
            head, _sep, payload = text.partition(";base64,")
            image = _decode(head.removeprefix("data:image/").lower(), payload)
            if image is not None:
                if image.width() > 1600:  # page width at 300 dpi is ~2200 px; keep memory modest
                    image = image.scaledToWidth(1600, Qt.TransformationMode.SmoothTransformation)
                return image
        return None  # never a file or network resource


_FORMATS = {"png": b"png", "jpeg": b"jpeg", "jpg": b"jpeg", "gif": b"gif", "webp": b"webp"}


def _decode(subtype: str, payload: str) -> QImage | None:
    """A raster image of the type its data URI names, read by that format's handler alone.

    Letting Qt guess the format makes every image plugin sniff the bytes; the SVG plugin's sniffing
    connects a signal, which takes a Qt lock while this worker holds the GIL. A GUI thread deleting a
    widget at that moment holds the lock and waits for the GIL: the export hung once in CI that way.
    Only the named format's handler is asked, and types other than the raster ones are not drawn.
    """
    fmt = _FORMATS.get(subtype)
    if fmt is None or not payload:
        return None
    try:
        data = QByteArray(base64.b64decode(payload))
    except ValueError:
        return None
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer, QByteArray(fmt))
    reader.setAutoDetectImageFormat(False)
    image = reader.read()
    buffer.close()
    return None if image.isNull() else image


def _ensure_app() -> None:
    """Qt's text layout needs a QGuiApplication; the CLI has none, so make an offscreen one."""
    if QGuiApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        _ensure_app.app = QGuiApplication(["prime-sessions"])  # type: ignore[attr-defined]


def markdown_to_pdf(
    markdown: str,
    title: str = "",
    progress: PdfProgress | None = None,
    cancel: threading.Event | None = None,
) -> bytes:
    """Lay out Markdown on A4 pages with page numbers and return the PDF's bytes.

    A 20,000-message session makes about 2,700 pages and takes 20 s or more (Qt parses the HTML,
    lays it out, then paints about 4 ms a page), so the dialog shows the stage and the page, and
    can stop it between pages.

    Args:
        markdown: the Markdown export (images as data URIs).
        title: the PDF's document title.
        progress: told the stage, then each page painted.
        cancel: when set, the next check raises :class:`PdfCancelled`.

    Raises:
        PdfCancelled: ``cancel`` was set.
    """
    _ensure_app()
    if progress is not None:
        progress("layout", 0, 0)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(_RESOLUTION)
    writer.setTitle(title)
    writer.setCreator("Prime Sessions")
    writer.setPageLayout(
        QPageLayout(
            QPageSize(QPageSize.PageSizeId.A4),
            QPageLayout.Orientation.Portrait,
            QMarginsF(15, 15, 15, 15),
            QPageLayout.Unit.Millimeter,
        )
    )
    document = _Document()
    document.setDocumentMargin(0)
    document.documentLayout().setPaintDevice(writer)  # lay out in the PDF's resolution
    font = QFont("DejaVu Sans")
    font.setPointSizeF(10)
    document.setDefaultFont(font)
    document.setDefaultStyleSheet(_STYLE + pygments_css(dark=False))
    document.setHtml(f"<html><body>{markdown_to_html(markdown)}</body></html>")
    if cancel is not None and cancel.is_set():
        raise PdfCancelled
    page = writer.pageLayout().paintRectPixels(_RESOLUTION)
    footer = _FOOTER_MM / 25.4 * _RESOLUTION
    body_height = page.height() - footer
    document.setPageSize(QSizeF(page.width(), body_height))
    pages = max(1, document.pageCount())
    painter = QPainter(writer)
    try:
        number_font = QFont(font)
        number_font.setPointSizeF(8)
        for index in range(pages):
            if cancel is not None and cancel.is_set():
                raise PdfCancelled
            if index:
                writer.newPage()
            _paint_page(painter, document, index, page.width(), body_height, footer, number_font, pages)
            if progress is not None:
                progress("page", index + 1, pages)
    finally:
        painter.end()
    buffer.close()
    return bytes(data.data())


def _paint_page(
    painter: QPainter,
    document: QTextDocument,
    index: int,
    width: float,
    body_height: float,
    footer: float,
    number_font: QFont,
    pages: int,
) -> None:
    """Draw the slice of ``document`` that falls on page ``index``, and the page number below it."""
    painter.save()
    painter.translate(0, -index * body_height)
    document.drawContents(painter, QRectF(0, index * body_height, width, body_height))
    painter.restore()
    painter.setFont(number_font)
    painter.setPen(Qt.GlobalColor.darkGray)
    painter.drawText(
        QRectF(0, body_height, width, footer),
        Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
        f"Page {index + 1} of {pages}",
    )


def install_cli_hook() -> None:
    """Let ``prime-sessions export --format pdf`` use :func:`markdown_to_pdf` (called by gui.launcher)."""
    import core.cli.export

    core.cli.export.pdf_writer = markdown_to_pdf
