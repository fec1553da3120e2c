"""Draw the demo's screenshot of a browser console and put it in the demo sessions that show it.

``python packaging/demo_image.py`` (offscreen Qt; run from the repository root). The linear demo session
(``019cadd3-….jsonl``, entry ``2e6dba69``: "Here's a screenshot of the console, is this warning
related?") and its fork (``019cbd70-….jsonl``, which copied that entry) held a 1 x 1 placeholder PNG, so
the message view and the exports showed a dot. This draws a small console with the warning the
conversation is about (a form submitted twice), as a 16-colour PNG, and writes it in place of the
placeholder in both files, byte for byte otherwise. Running it again changes nothing.
"""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "resources" / "demo"
FILES = ("019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl", "019cbd70-9d00-7654-b79e-0404ef27578f.jsonl")
PLACEHOLDER = (  # the 1 x 1 PNG the generator wrote
    b"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
SIZE = (520, 150)
LINES = (
    ("log", "[vite] connected."),
    ("log", "LoginForm mounted"),
    ("warn", "Warning: Form submission canceled because the form is not connected"),
    ("warn", "POST /api/login 200 (412 ms)   POST /api/login 200 (398 ms)"),
    ("error", "Uncaught (in promise) Error: session already exists (409)"),
)


def draw() -> bytes:
    """The console as PNG bytes (16 colours, no dithering: the same bytes on every run)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, Qt
    from PySide6.QtGui import QColor, QFont, QGuiApplication, QImage, QPainter

    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    image = QImage(*SIZE, QImage.Format.Format_RGB32)
    image.fill(QColor("#202124"))
    painter = QPainter(image)
    font = QFont("DejaVu Sans Mono")
    font.setPixelSize(11)
    painter.setFont(font)
    painter.fillRect(QRect(0, 0, SIZE[0], 22), QColor("#35363a"))
    painter.setPen(QColor("#e8eaed"))
    painter.drawText(QRect(10, 0, 200, 22), int(Qt.AlignmentFlag.AlignVCenter), "Console")
    painter.setPen(QColor("#9aa0a6"))
    painter.drawText(QRect(80, 0, 300, 22), int(Qt.AlignmentFlag.AlignVCenter), "Issues: 2 warnings, 1 error")
    colours = {
        "log": ("#202124", "#e8eaed"),
        "warn": ("#413c26", "#fdd663"),
        "error": ("#4e3534", "#f28b82"),
    }
    top = 24
    for kind, text in LINES:
        back, fore = colours[kind]
        painter.fillRect(QRect(0, top, SIZE[0], 24), QColor(back))
        painter.setPen(QColor("#3c4043"))
        painter.drawLine(0, top + 23, SIZE[0], top + 23)
        painter.setPen(QColor(fore))
        mark = {"log": " ", "warn": "▲", "error": "✖"}[kind]
        row = QRect(8, top, SIZE[0] - 16, 24)
        painter.drawText(row, int(Qt.AlignmentFlag.AlignVCenter), f"{mark} {text}")
        top += 24
    painter.end()
    indexed = image.convertToFormat(QImage.Format.Format_Indexed8, Qt.ImageConversionFlag.ThresholdDither)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    indexed.save(buffer, "PNG")
    buffer.close()
    del app
    return bytes(data.data())


def main() -> int:
    """Write the drawn console in place of the placeholder; the exit code."""
    encoded = base64.b64encode(draw())
    for name in FILES:
        path = DEMO / name
        before = path.read_bytes()
        after = before.replace(PLACEHOLDER, encoded)
        if after != before:
            path.write_bytes(after)
            print(f"{path.relative_to(REPO)}: the console screenshot ({len(encoded):,} base64 bytes)")
        elif encoded not in before:
            where = path.relative_to(REPO)
            print(f"{where}: neither the placeholder nor this image; left alone", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
