"""PDF export: the Markdown export laid out and printed by Qt in child processes, the parts joined.

The window used to lay out the PDF in a worker thread; Qt's layout then ran beside the GUI thread, and
a worker holding the GIL while Qt took a lock the GUI thread held (or the other way round) hung the
export once. Now no Qt runs in the process that asks: :func:`markdown_to_pdf` starts child processes
(``spawn``, as the catalogue's readers do; the frozen app's ``freeze_support`` in ``gui.launcher`` turns
its own binary into the child), each lays out the whole export and paints its share of the pages
(:mod:`gui.pdf_export.child`, :mod:`gui.pdf_export.document`), and the parts are joined
(:mod:`gui.pdf_export.join`). Cancelling kills the children; nothing is returned then.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection, wait

from core.errors import PrimeSessionsError

__all__ = ["PdfCancelled", "PdfFailed", "install_cli_hook", "markdown_to_pdf", "part_count"]

# progress(stage, done, total): stage "layout" (done = total = 0) then "page" (pages done, page count).
PdfProgress = Callable[[str, int, int], None]

# Below this much Markdown one process paints every page: a second costs about 0.5 s to start and
# lays out the whole document again, which pays only where painting takes seconds.
SPLIT_ABOVE = 2_000_000
MAX_PARTS = 4  # each child holds the whole layout (about 0.9 GB for the 20,000-message export)
PARTS_VARIABLE = "PRIME_SESSIONS_PDF_PARTS"
_POLL = 0.1  # seconds between looks at the cancel flag


class PdfCancelled(Exception):
    """The PDF was cancelled while it was being laid out or painted; nothing was returned."""


class PdfFailed(PrimeSessionsError):
    """A process making the PDF failed or died; the sentence says how."""


def part_count(markdown_length: int) -> int:
    """How many child processes make the PDF of so much Markdown: one, or one per idle processor (4 at most).

    Every child lays out the whole document, so a second child pays only on a processor nothing else
    wants: on the two shared processors of the project machine, busy with other work (load 2.4), two
    children took 31.8 s against 22.3 s for one. The processors counted are those the 1-minute load
    average leaves idle (this process counts as one of the load). ``PRIME_SESSIONS_PDF_PARTS`` overrides
    it (benchmarks compare one child with several).
    """
    override = os.environ.get(PARTS_VARIABLE, "")
    if override.isdigit() and int(override) > 0:
        return min(MAX_PARTS, int(override))
    if markdown_length < SPLIT_ABOVE:
        return 1
    try:
        processors = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity masks
        processors = os.cpu_count() or 1
    try:
        others = max(0.0, os.getloadavg()[0] - 1)
    except OSError:  # no load average (Windows)
        others = 0.0
    return max(1, min(MAX_PARTS, round(processors - others)))


def markdown_to_pdf(
    markdown: str,
    title: str = "",
    progress: PdfProgress | None = None,
    cancel: threading.Event | None = None,
    parts: int | None = None,
) -> bytes:
    """Lay out Markdown on numbered A4 pages in child processes and return the PDF's bytes.

    A 20,000-message session makes about 2,700 pages; each child lays them all out (Qt's page breaks
    depend on everything before them) and paints its share, so the painting, most of the time, is split.

    Args:
        markdown: the Markdown export (images as data URIs).
        title: the PDF's document title.
        progress: told the stage, then each page painted (by any child).
        cancel: when set, the children are killed and :class:`PdfCancelled` raised.
        parts: how many child processes (default: :func:`part_count`).

    Raises:
        PdfCancelled: ``cancel`` was set.
        PdfFailed: a child failed or died.
    """
    count = parts or part_count(len(markdown))
    context = multiprocessing.get_context("spawn")
    children: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
    try:
        from gui.pdf_export.child import run

        for index in range(count):
            ours, theirs = context.Pipe()
            process = context.Process(
                target=run, args=(theirs,), name=f"prime-sessions-pdf-{index}", daemon=True
            )
            process.start()
            theirs.close()
            children.append((process, ours))
        if progress is not None:
            progress("layout", 0, 0)
        for index, (_process, connection) in enumerate(children):
            try:
                connection.send((markdown, title, index, count))
            except OSError as err:  # it died before reading (killed, out of memory)
                raise PdfFailed("The PDF could not be made: its layout process stopped.") from err
        pieces = _collect(children, progress, cancel)
    finally:
        for child, connection in children:
            if child.is_alive():
                child.kill()  # cancelled or failed: its pages are not wanted
            child.join()
            connection.close()
    from gui.pdf_export.join import join_pdfs

    return join_pdfs(pieces)


def _collect(
    children: list[tuple[multiprocessing.process.BaseProcess, Connection]],
    progress: PdfProgress | None,
    cancel: threading.Event | None,
) -> list[bytes]:
    """Each child's PDF, in order, while telling ``progress`` the pages painted."""
    pieces: dict[int, bytes] = {}
    by_connection = {id(connection): index for index, (_p, connection) in enumerate(children)}
    open_connections = [connection for _process, connection in children]
    total = done = 0
    while len(pieces) < len(children):
        if cancel is not None and cancel.is_set():
            raise PdfCancelled
        for ready in wait(open_connections, timeout=_POLL):
            if cancel is not None and cancel.is_set():
                raise PdfCancelled  # told after any page: no later page is reported
            assert isinstance(ready, Connection)
            index = by_connection[id(ready)]
            try:
                message = ready.recv()
            except (EOFError, OSError):  # it died (killed, out of memory)
                process = children[index][0]
                process.join()
                raise PdfFailed(
                    f"The PDF could not be made: its layout process stopped (exit code {process.exitcode})."
                ) from None
            kind = message[0]
            if kind == "pages":
                total = message[1]
            elif kind == "page":
                done += 1
                if progress is not None:
                    progress("page", done, total)
            elif kind == "pdf":
                pieces[index] = message[1]
                open_connections.remove(ready)
            else:
                raise PdfFailed(message[1])
    return [pieces[index] for index in range(len(children))]


def install_cli_hook() -> None:
    """Let ``prime-sessions export --format pdf`` use :func:`markdown_to_pdf` (called by gui.launcher)."""
    import core.cli.export

    core.cli.export.pdf_writer = markdown_to_pdf
