"""Sessions heavy with images (issue 18): what a session of mostly base64 screenshots costs us.

Users report sessions whose bytes are 95% screenshots: a browser or computer-use agent takes one after
every step. The session made here holds ``--shots`` screenshot tool results (PNG images of
incompressible pixels, ``--kib`` KiB each, as pi stores them: an ``image`` block with base64 ``data``
and its ``mimeType``) between short assistant turns, plus a few images pasted into user messages.

Measured, each in a fresh process (peak RSS from ``os.wait4``):

* ``bare parse``: read the file and ``orjson.loads`` every line (``bare_parse.py``), the floor;
* ``check``: ``prime-sessions check FILE``;
* ``index``: ``prime-sessions index`` of a folder holding only this session, into a fresh catalogue,
  and the catalogue's size on disk against the session's; the catalogue's bytes are searched for
  every image's base64 (any 64-character run of one found in them counts as indexed);
* ``window``: the window (offscreen) opening the session at its leaf, the leaf's message shown;
* ``export --images beside``: the HTML page and its image files, the page's size against the
  session's.

Usage::

    python benchmarks/image_heavy.py [--shots 200] [--kib 480]

The session is written to ``benchmarks/out/image-heavy-SHOTSxKIB.jsonl`` (made once, kept).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

sys.path.insert(0, str(REPO / "benchmarks"))

from run_core import Command, run_once  # noqa: E402  (the benchmarks' whole-process timer)

from tests.helpers import private_environment  # noqa: E402  (HOME and XDG folders of its own, offscreen)

OUT = REPO / "benchmarks" / "out"
MIB = 1024 * 1024


def window_child(root: str, catalogue: str, target: str) -> int:
    """In a fresh process: open ``target`` in the window (offscreen); print ``RESULT seconds stall_ms``.

    The stall is the longest gap, from the open to the leaf's message shown, between two runs of a
    5 ms timer on the GUI thread, less those 5 ms: how long the window could not answer.
    """
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow

    app = QApplication([sys.argv[0]])
    window = MainWindow(roots=[Path(root)], catalogue_dir=Path(catalogue))
    window.show()
    started = [0.0]
    last = [0.0]
    stall = [0.0]

    def tick() -> None:
        now = time.perf_counter()
        if started[0]:
            stall[0] = max(stall[0], now - last[0] - 0.005)
        last[0] = now

    ticker = QTimer()
    ticker.setInterval(5)
    ticker.timeout.connect(tick)
    ticker.start()

    def loaded(_session: object) -> None:
        app.processEvents()  # the leaf's message shown
        tick()
        print(f"RESULT {time.perf_counter() - started[0]:.3f} {stall[0] * 1000:.0f}", flush=True)
        window.close()
        app.quit()

    def open_it() -> None:
        started[0] = last[0] = time.perf_counter()
        window.files.open_path(Path(target))

    window.context.session_loaded.connect(loaded)
    QTimer.singleShot(0, open_it)
    QTimer.singleShot(120_000, app.quit)
    app.exec()
    return 0


def png(width: int, height: int, rng: random.Random) -> bytes:
    """A PNG of noise (so it does not compress, like a photo-rich screenshot), RGB, ``width x height``."""
    rows = b"".join(b"\x00" + rng.randbytes(width * 3) for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 1))
        + chunk(b"IEND", b"")
    )


def make_session(path: Path, shots: int, kib: int) -> list[str]:
    """Write the session; return every image's base64 (to look for in the catalogue)."""
    rng = random.Random(18)
    side = max(8, int((kib * 1024 / 3) ** 0.5))
    stamp = 1767225600000
    header = {"type": "session", "version": 3, "id": "image-heavy", "timestamp": "2026-01-01T00:00:00.000Z"}
    header["cwd"] = "/home/dev/browser-agent"
    lines: list[dict[str, object]] = [header]
    images: list[str] = []
    parent: str | None = None

    def add(message: dict[str, object]) -> None:
        nonlocal parent
        entry_id = f"{len(lines):08x}"
        iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime((stamp + len(lines) * 1000) / 1000)) + ".000Z"
        lines.append(
            {"type": "message", "id": entry_id, "parentId": parent, "timestamp": iso, "message": message}
        )
        parent = entry_id

    def image() -> dict[str, str]:
        data = base64.b64encode(png(side, side, rng)).decode("ascii")
        images.append(data)
        return {"type": "image", "data": data, "mimeType": "image/png"}

    add(
        {
            "role": "user",
            "content": [{"type": "text", "text": "Check the sign-up page in the browser."}, image()],
        }
    )
    for i in range(shots):
        call = {"type": "toolCall", "id": f"call{i}", "name": "screenshot", "arguments": {"step": i}}
        add(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"Step {i}: clicking."}, call],
                "usage": {"input": 900, "output": 40, "totalTokens": 940, "cost": {"total": 0.004}},
            }
        )
        add(
            {
                "role": "toolResult",
                "toolCallId": f"call{i}",
                "toolName": "screenshot",
                "content": [{"type": "text", "text": f"Screenshot {i}"}, image()],
                "isError": False,
            }
        )
        if i % 50 == 49:
            add({"role": "user", "content": [{"type": "text", "text": "Like this one?"}, image()]})
    add({"role": "assistant", "content": [{"type": "text", "text": "The form works."}]})
    with path.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")
    return images


def run(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run ``argv`` in a fresh process (``run_core.run_once``): (wall s, peak RSS MiB, stdout)."""
    command = Command("run", " ".join(argv[:3]), argv, REPO, env or os.environ.copy(), "ours")
    sample, out, err = run_once(command, capture=True)
    if sample.status != 0:
        raise SystemExit(f"{argv[:4]} failed: {(out + err)[-400:]}")
    return sample.wall_s, sample.maxrss_kib / 1024, out


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--shots", type=int, default=200)
    parser.add_argument("--kib", type=int, default=480, help="size of one screenshot's PNG")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"image-heavy-{args.shots}x{args.kib}.jsonl"
    # Made by a child process: a process's peak RSS survives exec, so the children measured below
    # would inherit this one's if it had held the images (they are forked from it).
    make = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--make",
        str(path),
        str(args.shots),
        str(args.kib),
    ]
    subprocess.run(make, check=True)
    made = json.loads(path.with_suffix(".images.json").read_text())
    marks: list[list[str]] = made["marks"]
    size = path.stat().st_size
    print(f"session: {size / MIB:.0f} MiB, {len(marks)} images, {made['share']:.1%} of its bytes images\n")
    python = sys.executable
    cli = [python, "-m", "core.cli"]
    rows: list[tuple[str, float, float, str]] = []
    wall, rss, _ = run([python, str(REPO / "benchmarks" / "bare_parse.py"), str(path)])
    rows.append(("bare parse (read + orjson.loads)", wall, rss, ""))
    wall, rss, _ = run([*cli, "check", str(path)])
    rows.append(("prime-sessions check", wall, rss, ""))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sessions"
        root.mkdir()
        os.link(path, root / path.name)
        catalogue = Path(tmp) / "catalogue"
        wall, rss, _ = run([*cli, "index", "--catalogue", str(catalogue), str(root)])
        on_disk = folder_size(catalogue)
        blob = b"".join(p.read_bytes() for p in catalogue.rglob("*") if p.is_file())
        indexed = sum(1 for pair in marks if any(mark.encode() in blob for mark in pair))
        rows.append(
            (
                "prime-sessions index (cold)",
                wall,
                rss,
                f"catalogue {on_disk / MIB:.1f} MiB = {on_disk / size:.1%} of the session; "
                f"{indexed} of {len(marks)} images found in it",
            )
        )
        # A home of its own: the window remembers the folders of what it opens, and must not read ours.
        env = private_environment(Path(tmp) / "home")
        child = [python, str(Path(__file__).resolve()), "--window-child", str(root), str(catalogue)]
        child.append(str(root / path.name))
        wall, rss, text = run(child, env)
        opened = next((x.split()[1] for x in text.splitlines() if x.startswith("RESULT")), "?")
        rows.append(
            ("window: open at the leaf (offscreen)", wall, rss, f"open took {opened} s in the window")
        )
        page = Path(tmp) / "export" / "page.html"
        page.parent.mkdir()
        wall, rss, _ = run(
            [*cli, "export", str(path), "--format", "html", "--images", "beside", "-o", str(page)]
        )
        beside = [p for p in page.parent.rglob("*") if p.is_file() and p != page]
        rows.append(
            (
                "export --format html --images beside",
                wall,
                rss,
                f"page {page.stat().st_size / MIB:.2f} MiB, {len(beside)} image files "
                f"({sum(p.stat().st_size for p in beside) / MIB:.0f} MiB)",
            )
        )
    print("| what | wall s | peak RSS MiB | peak / session | notes |")
    print("|---|---:|---:|---:|---|")
    for what, wall, rss, notes in rows:
        print(f"| {what} | {wall:.2f} | {rss:,.0f} | {rss * MIB / size:.2f} | {notes} |")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make"]:
        made_path, shots, kib = Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
        data = make_session(made_path, shots, kib)
        # Two 64-character runs of each image's base64 (its start and middle), to look for later.
        found = [[d[:64], d[len(d) // 2 : len(d) // 2 + 64]] for d in data]
        share = sum(len(d) for d in data) / made_path.stat().st_size
        made_path.with_suffix(".images.json").write_text(json.dumps({"marks": found, "share": share}))
        sys.exit(0)
    if sys.argv[1:2] == ["--window-child"]:
        sys.exit(window_child(*sys.argv[2:5]))
    sys.exit(main())
