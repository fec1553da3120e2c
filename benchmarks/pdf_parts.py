"""PDF export in child processes, timed next to Qt's floor for the same page count, in one run.

Whole processes, taking turns run after run so a busy machine slows them alike (wall time around
``Popen`` + ``os.wait4``, peak RSS of the process and its children from ``ru_maxrss``):

* ``ours-1``: ``prime-sessions export FILE --tree -o OUT.pdf`` (this checkout) with
  ``PRIME_SESSIONS_PDF_PARTS=1``: one child process lays out and paints every page;
* ``ours-2``: the same with two child processes, each painting half of the pages (without the variable
  the export uses as many as the load leaves processors idle, see ``gui.pdf_export.part_count``);
* ``before``: the same command in another checkout (``--repo``, e.g. ``git archive`` of the commit
  before), which laid the PDF out in its own process;
* ``floor``: ``benchmarks/pdf_floor.py --pages N`` with N the export's page count (its own figure: QPdfWriter
  alone, after Qt started).

The outputs of the last run are compared page by page (count, text, and every 25th page drawn). Then,
in this process, where the time of one child goes: the Markdown turned into HTML, the HTML parsed and
laid out (``gui.pdf_export.document.Pages``), each half of the pages painted, and the halves joined.

Usage::

    python benchmarks/pdf_parts.py [--session benchmarks/out/large-20000.jsonl] [--runs 3] [--repo DIR]

The session is made by ``benchmarks/run_core.py`` when missing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SESSION = REPO / "benchmarks" / "out" / "large-20000.jsonl"


def run_once(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """Run one process; return (wall seconds, peak RSS MiB of it and its children, stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err)
        # wait4's peak covers the process and the children it waited for (the PDF's child processes).
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(
                f"failed ({proc.returncode}): {' '.join(argv)}\n{err.read().decode(errors='replace')}"
            )
        return wall, usage.ru_maxrss / 1024, out.read().decode(errors="replace")


def _load(load: tuple[float, float, float]) -> str:
    return " ".join(f"{value:.2f}" for value in load)


def count_pages(pdf: Path) -> int:
    """Page objects in a PDF file (``/Type /Page``, not ``/Pages``)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf.read_bytes()))


def breakdown(session: Path) -> list[str]:
    """Where one child's time goes, measured in this process."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(REPO))
    from core.export import markdown_to_html, render_export
    from core.session import load_session
    from gui.pdf_export.document import Pages
    from gui.pdf_export.join import join_pdfs

    captured: list[str] = []

    def keep(markdown: str, _title: str) -> bytes:
        captured.append(markdown)
        return b""

    render_export(
        load_session(session, checksum=False, keep_bodies=True), "pdf", whole_tree=True, pdf_writer=keep
    )
    markdown = captured[0]
    lines = []
    started = time.perf_counter()
    html = markdown_to_html(markdown)
    lines.append(f"| Markdown to HTML ({len(html) / 1e6:.1f} MB) | {time.perf_counter() - started:.2f} s |")
    started = time.perf_counter()
    first = Pages(html, "t")
    lines.append(
        f"| HTML parsed and laid out ({first.count:,} pages) | {time.perf_counter() - started:.2f} s |"
    )
    half = first.count // 2
    started = time.perf_counter()
    a = first.paint(0, half)
    lines.append(f"| pages 1-{half:,} painted | {time.perf_counter() - started:.2f} s |")
    second = Pages(html, "t")
    started = time.perf_counter()
    b = second.paint(half, second.count)
    lines.append(f"| pages {half + 1:,}-{second.count:,} painted | {time.perf_counter() - started:.2f} s |")
    started = time.perf_counter()
    joined = join_pdfs([a, b])
    lines.append(f"| halves joined ({len(joined) / 1e6:.1f} MB) | {time.perf_counter() - started:.2f} s |")
    return lines


def same_pages(paths: list[Path]) -> list[str]:
    """Whether the PDFs have the same pages: count, text (Qt's PDF reader, pdfium) and look (every 25th)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSize
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtPdf import QPdfDocument

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    documents = []
    for path in paths:
        document = QPdfDocument()
        document.load(str(path))
        documents.append(document)
    reference, *others = documents
    lines = []
    for path, document in zip(paths[1:], others, strict=True):
        count = document.pageCount()
        same_text = count == reference.pageCount() and all(
            document.getAllText(page).text() == reference.getAllText(page).text() for page in range(count)
        )
        sampled = range(0, min(count, reference.pageCount()), 25)
        size = QSize(298, 421)  # 36 dpi
        same_look = all(document.render(page, size) == reference.render(page, size) for page in sampled)
        lines.append(
            f"{path.name} against {paths[0].name}: {count:,} pages against {reference.pageCount():,}, "
            f"text of every page {'the same' if same_text else 'DIFFERENT'}, "
            f"{len(sampled)} pages drawn {'the same' if same_look else 'DIFFERENTLY'}"
        )
    for document in documents:
        document.close()
    del app
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--session", type=Path, default=DEFAULT_SESSION)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repo", type=Path, help="another checkout to time as 'before'")
    parser.add_argument("--no-breakdown", action="store_true")
    args = parser.parse_args(argv)
    session = args.session.resolve()
    if not session.exists():
        subprocess.run([sys.executable, str(REPO / "benchmarks" / "run_core.py"), "--runs", "1"], check=True)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env.pop("PRIME_SESSIONS_PDF_PARTS", None)
    work = Path(tempfile.mkdtemp(prefix="pdf-parts-"))
    export = [sys.executable, "-m", "gui.launcher", "export", str(session), "--tree", "--force", "-o"]
    commands: dict[str, tuple[list[str], dict[str, str], Path]] = {
        "ours-1": ([*export, str(work / "ours-1.pdf")], dict(env, PRIME_SESSIONS_PDF_PARTS="1"), REPO),
        "ours-2": ([*export, str(work / "ours-2.pdf")], dict(env, PRIME_SESSIONS_PDF_PARTS="2"), REPO),
    }
    if args.repo:
        commands["before"] = ([*export, str(work / "before.pdf")], env, args.repo.resolve())
    samples: dict[str, list[tuple[float, float]]] = {key: [] for key in [*commands, "floor"]}
    floor_seconds: list[float] = []
    load_before = os.getloadavg()
    pages = 0
    for run in range(args.runs):
        for key, (argv, command_env, cwd) in commands.items():
            wall, peak, _out = run_once(argv, command_env, cwd)
            samples[key].append((wall, peak))
            print(f"run {run + 1}: {key} {wall:.2f} s", file=sys.stderr, flush=True)
            if not pages:
                pages = count_pages(work / "ours-1.pdf")
        floor = [sys.executable, str(REPO / "benchmarks" / "pdf_floor.py"), "--pages", str(pages)]
        wall, peak, out = run_once(floor, env, REPO)
        samples["floor"].append((wall, peak))
        floor_seconds.append(float(re.search(r": ([\d.]+) s,", out).group(1)))  # type: ignore[union-attr]
        print(f"run {run + 1}: floor {floor_seconds[-1]:.2f} s (process {wall:.2f} s)", file=sys.stderr)
    floor_median = statistics.median(floor_seconds)
    lines = [
        f"# PDF export of {session.name}: {pages:,} pages, {args.runs} runs, {os.cpu_count()} processors",
        "",
        f"load average (1, 5, 15 min) before: {_load(load_before)}, after: {_load(os.getloadavg())}",
        "",
        "| command | median (min) | peak RSS | / floor |",
        "|---|---:|---:|---:|",
    ]
    for key, runs in samples.items():
        walls = [wall for wall, _peak in runs]
        median = statistics.median(walls)
        ratio = f"{median / floor_median:.2f}x" if key != "floor" else "1"
        lines.append(
            f"| {key} | {median:.2f} s ({min(walls):.2f} s) | {max(p for _w, p in runs):,.0f} MiB | {ratio} |"
        )
    lines.append(f"| floor (pdf_floor.py's own figure) | {floor_median:.2f} s | | |")
    outputs = [work / "before.pdf"] if args.repo else []
    outputs += [work / "ours-1.pdf", work / "ours-2.pdf"]
    lines += ["", *same_pages(outputs)]
    shutil.rmtree(work, ignore_errors=True)
    if not args.no_breakdown:
        lines += ["", "| one child's work (in process) | seconds |", "|---|---:|", *breakdown(session)]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
