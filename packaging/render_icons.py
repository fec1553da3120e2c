"""Render the application icon to PNG and ICO: ``python packaging/render_icons.py``.

Reads ``resources/icons/prime-sessions.svg`` and writes, next to it, ``prime-sessions-<N>.png`` for every
size of :data:`SIZES` (the hicolor theme sizes, used by ``gui/app.py`` and the desktop entry),
``prime-sessions.png`` (256 px, for the README and desktop installs) and ``prime-sessions.ico`` (all sizes,
the executable's icon in a Windows build).
The outputs are committed; run this again after changing the SVG. ``--check`` only tells whether they are up
to date (exit status 1 when not), without writing.
"""

from __future__ import annotations

import argparse
import io
import os
import struct
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SOURCE = ICONS / "prime-sessions.svg"
SIZES = (256, 128, 64, 48, 32, 16)


def render_png(renderer: QSvgRenderer, size: int) -> bytes:
    """The SVG drawn on a transparent ``size`` x ``size`` image, as PNG bytes."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise RuntimeError(f"cannot encode the {size} px icon as PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICO file holding the PNG images (PNG-in-ICO, read by Windows Vista and later)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    directory = io.BytesIO()
    for size in sizes:
        png = pngs[size]
        side = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        directory.write(struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset))
        offset += len(png)
    return header + directory.getvalue() + b"".join(pngs[size] for size in sizes)


def outputs() -> dict[Path, bytes]:
    """Every file rendered from the SVG, by path."""
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: {SOURCE} is not an SVG that QtSvg can draw")
    pngs = {size: render_png(renderer, size) for size in SIZES}
    files = {ICONS / f"prime-sessions-{size}.png": png for size, png in pngs.items()}
    files[ICONS / "prime-sessions.png"] = pngs[256]
    files[ICONS / "prime-sessions.ico"] = ico_bytes(pngs)
    return files


def _write(path: Path, data: bytes) -> None:
    # Temporary file, then rename: an interrupted run never leaves half an icon under the real name.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes it 0600; a committed file is readable by all
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv: list[str] | None = None) -> int:
    """Write the icon files (or, with ``--check``, report the stale ones); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the files are up to date")
    args = parser.parse_args(argv)
    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    files = outputs()
    stale = [path for path, data in files.items() if not path.is_file() or path.read_bytes() != data]
    if args.check:
        for path in stale:
            print(f"render_icons: {path.relative_to(ICONS.parent.parent)} is out of date", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        _write(path, files[path])
        print(f"wrote {path.relative_to(ICONS.parent.parent)} ({len(files[path])} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
