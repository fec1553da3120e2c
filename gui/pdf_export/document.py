"""A PDF export laid out by Qt's rich text and painted with ``QPdfWriter``, a range of its pages at a time.

The content is exactly the Markdown export's (core renders it; :func:`core.export.markdown_to_html` turns
it into safe HTML), so the PDF and the ``.md`` file never disagree. ``QTextDocument.print_`` cannot add
page numbers, so the pages are painted one by one: each page draws its slice of the laid out document and
then its number in the bottom margin.

Each child process of :mod:`gui.pdf_export` lays out the whole document and paints one range of its
pages. Laying out only a part of the document would be cheaper, but Qt's page breaks are not a function
of where a part starts on its page: started at the very position the whole document gives it, a part broke
a page differently four pages later in two cuts of four (a line left across the page's foot that the
whole document moves to the next page). The whole layout in every child gives every page exactly as one
process would.
"""

from __future__ import annotations

import base64
import math
import os
import re
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
    QTextCursor,
    QTextDocument,
)

from core.export import pygments_css

__all__ = ["Pages", "stylesheet", "without_empty_heads"]

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


def stylesheet() -> str:
    """The document's stylesheet: ours, then Pygments' colours with ``span.k`` for ``.hl .k``.

    Qt's CSS matcher indexes rules by element name: a rule that starts with a class (Pygments' ``.hl .k``)
    is tried on every node of the document, and the 74 of them took a third of ``setHtml`` (2.1 s against
    1.3 s for a quarter of the 20,000-message export). Classes come only from the highlighter, on the
    ``span`` elements inside ``<pre class="hl">`` (message text is escaped), so ``span.k`` picks the same
    elements and gives them the same colours.
    """
    return _STYLE + re.sub(r"^\.hl \.", "span.", pygments_css(dark=False), flags=re.M)


# A table head whose cells are all empty: the Markdown export's metadata table has one (GFM wants a head
# row; "| | |"), which the PDF drew as an empty bordered row above "Session".
_EMPTY_HEAD = re.compile(r"<thead>\s*<tr>\s*(?:<th(?:\s[^>]*)?>\s*</th>\s*)+</tr>\s*</thead>\s*")


def without_empty_heads(html: str) -> str:
    """``html`` without table heads whose every cell is empty."""
    return _EMPTY_HEAD.sub("", html) if "<thead>" in html else html


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

    Letting Qt guess the format makes every image plugin sniff the bytes, and the SVG plugin's sniffing
    connects a signal, which takes a Qt lock (the export once hung that way when it ran in a thread of
    the window's process). Only the named format's handler is asked, and other types are not drawn.
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
    """Qt's text layout needs a QGuiApplication: an offscreen one (a child process has no window)."""
    if QGuiApplication.instance() is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        _ensure_app.app = QGuiApplication(["prime-sessions"])  # type: ignore[attr-defined]


_EDGE = 1 / 64  # pixels: the smallest step of Qt's text layout


class Pages:
    """The export's HTML laid out on numbered A4 pages, ready to paint any range of them."""

    def __init__(self, html: str, title: str) -> None:
        _ensure_app()
        self._data = QByteArray()
        self._buffer = QBuffer(self._data)
        self._buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        writer = QPdfWriter(self._buffer)
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
        self._writer = writer
        document = _Document()
        document.setDocumentMargin(0)
        document.documentLayout().setPaintDevice(writer)  # lay out in the PDF's resolution
        font = QFont("DejaVu Sans")
        font.setPointSizeF(10)
        self._font = font
        document.setDefaultFont(font)
        document.setDefaultStyleSheet(stylesheet())
        document.setHtml(f"<html><body>{without_empty_heads(html)}</body></html>")
        _keep_headings_whole(document)
        page = writer.pageLayout().paintRectPixels(_RESOLUTION)
        self._width = float(page.width())
        self._footer = _FOOTER_MM / 25.4 * _RESOLUTION
        # Qt lays text out in 1/64 pixel steps: a page height it cannot hold exactly drifted the painted
        # slices from the laid-out pages (22 px by page 2,742), and a line on a page boundary was then
        # painted, clipped, on the page before too. A multiple of 1/64 is exact in both.
        self._body = math.floor((page.height() - self._footer) * 64) / 64
        document.setPageSize(QSizeF(self._width, self._body))
        self._document = document
        self.count = max(1, document.pageCount())  # lays the whole document out

    def paint(self, start: int, stop: int, painted: Callable[[int], None] | None = None) -> bytes:
        """Paint pages ``start`` to ``stop`` (0-based, ``stop`` excluded); return that PDF's bytes.

        ``painted`` is told the index of each page once it is painted; it may raise to stop.
        """
        document, writer = self._document, self._writer
        number_font = QFont(self._font)
        number_font.setPointSizeF(8)
        painter = QPainter(writer)
        try:
            for index in range(start, stop):
                if index > start:
                    writer.newPage()
                _paint_page(
                    painter, document, index, self._width, self._body, self._footer, number_font, self.count
                )
                if painted is not None:
                    painted(index)
        finally:
            painter.end()
        self._buffer.close()
        return bytes(self._data.data())


def _keep_headings_whole(document: QTextDocument) -> None:
    """Never split a heading (a message's title, its model and usage) over two pages."""
    block = document.begin()
    while block.isValid():
        if block.blockFormat().headingLevel() > 0:
            cursor = QTextCursor(block)
            fmt = block.blockFormat()
            fmt.setNonBreakableLines(True)
            cursor.setBlockFormat(fmt)
        block = block.next()


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
    # A line that starts exactly on the page's edge belongs to the next page; one that ends on it to
    # this one. Qt draws every line that touches the rectangle (clipped, but its text is in the PDF: a
    # reader copying the page got it twice), so the rectangle stays a hair inside the page.
    document.drawContents(painter, QRectF(0, index * body_height + _EDGE, width, body_height - 2 * _EDGE))
    painter.restore()
    painter.setFont(number_font)
    painter.setPen(Qt.GlobalColor.darkGray)
    painter.drawText(
        QRectF(0, body_height, width, footer),
        Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
        f"Page {index + 1} of {pages}",
    )
