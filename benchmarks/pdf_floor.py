"""The least time Qt's PDF writer needs per page: a floor for any PDF export through QPdfWriter.

The issue asks for PDF export through Qt's own printing (QTextDocument/QPdfWriter) no slower than
the reference's HTML export of the same session. This measures what no layout work can go below:
a QPdfWriter page with nothing but ``--lines`` plain ``drawText`` calls of 100 characters (about
what a page of the export holds), in one process, after Qt has started. With pre-shaped glyph
runs (``--glyph-runs``) the text shaping is taken out too. Multiply by the page count of a real
export (``--count-pages FILE.pdf``) to get the floor for that export.

Usage::

    QT_QPA_PLATFORM=offscreen python benchmarks/pdf_floor.py [--pages 500] [--lines 70] [--glyph-runs]
                                                             [--count-pages OUT.pdf]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

LINE = "The quick brown fox jumps over the lazy dog, then reads src/server/cache/lru.ts line 42 again."


def count_pages(pdf: Path) -> int:
    """Page objects in a PDF file (``/Type /Page``, not ``/Pages``)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf.read_bytes()))


def floor(pages: int, lines: int, glyph_runs: bool) -> float:
    """Seconds to write ``pages`` pages of ``lines`` lines each with QPdfWriter."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QFont, QGuiApplication, QPageSize, QPainter, QPdfWriter, QTextLayout

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        writer = QPdfWriter(str(Path(folder) / "floor.pdf"))
        writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
        writer.setResolution(72)
        painter = QPainter(writer)
        font = QFont("DejaVu Sans", 9)
        painter.setFont(font)
        runs = []
        if glyph_runs:
            layout = QTextLayout(LINE, font)
            layout.beginLayout()
            layout.createLine().setLineWidth(10_000)
            layout.endLayout()
            runs = layout.glyphRuns()
        for page in range(pages):
            if page:
                writer.newPage()
            for row in range(lines):
                at = QPointF(40, 40 + row * 11)
                if glyph_runs:
                    for run in runs:
                        painter.drawGlyphRun(at, run)
                else:
                    painter.drawText(at, f"{page} {row} {LINE}")
        painter.end()
        seconds = time.perf_counter() - started
    del app
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--lines", type=int, default=70)
    parser.add_argument("--glyph-runs", action="store_true", help="draw pre-shaped glyph runs, not text")
    parser.add_argument("--count-pages", type=Path, help="a PDF whose pages to count and price")
    args = parser.parse_args(argv)
    seconds = floor(args.pages, args.lines, args.glyph_runs)
    per_page = seconds / args.pages
    how = "glyph runs" if args.glyph_runs else "drawText"
    print(
        f"{args.pages} pages of {args.lines} lines ({how}): {seconds:.2f} s, {per_page * 1e3:.2f} ms a page"
    )
    if args.count_pages:
        pages = count_pages(args.count_pages)
        print(f"{args.count_pages}: {pages} pages; floor {pages * per_page:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
