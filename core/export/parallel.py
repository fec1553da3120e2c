"""The HTML export of a large session rendered by two processes: the page's last stretch in a forked child.

Rendering the entries (Markdown through cmark, escaping, the JSON of each fragment, the sidebar rows)
is most of an HTML export's time, and each entry's fragment depends only on the entry, with three
exceptions that run through the whole page: the colouring budget, the models seen and the redaction
counts (and the images written beside the page). So right after loading the parent forks; the child
renders the last stretch with its own copy of everything loaded and the colouring budget closed
(:attr:`~core.render.highlight.Highlighter.closed`: once closed, no block is coloured, whatever came
before), and sends back its fragments, rows, models, counts, images and usage through a pipe (pickled: a few
tens of megabytes, mostly bytes objects), while the parent renders the stretch before it and sums the
page's usage. The child's work is taken when the parent's budget closed in its own stretch, and the
page is then the same, byte for byte, as one process makes.

Only for a caller that runs no other thread (the command line): a forked child of a threaded process,
like the app, may find a lock held forever. Where ``os.fork`` is missing or the session is small, the
export stays in one process. A child that fails in any way, or whose stretch a still open budget would
colour, is ignored and its stretch rendered by the parent; the child never writes a file.
"""

from __future__ import annotations

import os
import pickle
import signal
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.export.html import PageEntries

__all__ = ["MIN_BYTES", "export_workers", "render_in_parts"]

MIN_BYTES = 4 * 1024 * 1024  # bytes of entries before a child is worth its fork (and its pickling)
# The child's share of the bytes left: the parent also sums the page's usage and puts the page together,
# so an even cut left it the slower. Measured on the 20,000-message benchmark session.
CHILD_SHARE = 0.6
_WORKERS_VARIABLE = "PRIME_SESSIONS_EXPORT_WORKERS"
_STATS_VARIABLE = "PRIME_SESSIONS_EXPORT_STATS"  # a file the benchmark reads: how the work was split


def export_workers() -> int:
    """Processes the command line's HTML export may use: ``$PRIME_SESSIONS_EXPORT_WORKERS``, else 2 or 1.

    2 where ``os.fork`` exists and what the 1-minute load average says other work takes (the load less
    this process) leaves this export more than one processor's worth, else 1: the child costs about a
    fifth more processor time in all (copied pages, the pickled results), which pays only where a
    processor is at least partly idle. Paired runs on the two shared processors of the project machine
    (two processes against one): load 1.1, 1.10 against 1.36 s; load 1.7, 1.14 against 1.37 s; load
    2.4, 1.59 against 1.38 s; load 3.4, 2.26 against 1.56 s. (The PDF export's rounding,
    ``gui.pdf_export.part_count``, would stay at one process at load 1.7.) An invalid value of the
    variable counts as 1.
    """
    given = os.environ.get(_WORKERS_VARIABLE)
    if given is not None:
        try:
            return max(1, int(given))
        except ValueError:
            return 1
    if not hasattr(os, "fork"):
        return 1
    try:
        processors = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS has no affinity masks
        processors = os.cpu_count() or 1
    try:
        others = max(0.0, os.getloadavg()[0] - 1)
    except OSError:  # no load average
        others = 0.0
    return 2 if processors - others > 1 else 1


def render_in_parts(work: PageEntries, workers: int, meanwhile: Callable[[], None] | None = None) -> None:
    """Render every entry of ``work``, the last stretch in a forked child when that pays (see the module).

    Args:
        work: the page's entries, none rendered yet.
        workers: processes to use; 1 renders everything here (one child at most is ever forked).
        meanwhile: work of the parent's own that needs no rendered entry (summing the usage), run
            while the child renders; run after rendering when there is no child.
    """
    count = len(work.entries)
    if workers > 1 and hasattr(os, "fork") and _bytes(work, 0, count) >= MIN_BYTES:
        split = work.cut_at(_cut(work, 0, count))
        if 0 < split < count:
            _render_with_child(work, 0, split, count, meanwhile)
            return
    work.render(0, count)
    if meanwhile is not None:
        meanwhile()


def _bytes(work: PageEntries, start: int, stop: int) -> int:
    return sum(entry.length for entry in work.entries[start:stop])


def _cut(work: PageEntries, start: int, stop: int) -> int:
    """The index where the child's stretch starts: it gets :data:`CHILD_SHARE` of the bytes left."""
    entries = work.entries
    goal = _bytes(work, start, stop) * (1 - CHILD_SHARE)
    size = 0
    for index in range(start, stop):
        size += entries[index].length
        if size >= goal:
            return index + 1
    return stop


def _render_with_child(
    work: PageEntries, start: int, split: int, stop: int, meanwhile: Callable[[], None] | None
) -> None:
    """Entries ``start``-``split`` here, ``split``-``stop`` in a forked child, then the child's merged in."""
    began = time.perf_counter()
    try:
        read_end, write_end = os.pipe()
    except OSError:  # out of file descriptors: one process it is
        work.render(start, stop)
        if meanwhile is not None:
            meanwhile()
        return
    try:
        pid = os.fork()
    except OSError:  # no memory or process for a child: one process it is
        os.close(read_end)
        os.close(write_end)
        work.render(start, stop)
        if meanwhile is not None:
            meanwhile()
        return
    if pid == 0:  # the child: render, send, and leave without running anything of the parent's
        status = 1
        try:
            os.close(read_end)
            _child(work, split, stop, write_end)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    payload = None
    finished = False
    try:
        work.render(start, split)
        own = time.perf_counter()
        if meanwhile is not None:
            meanwhile()
        meanwhile_done = time.perf_counter()
        try:
            with os.fdopen(read_end, "rb") as pipe:
                read_end = -1
                payload = pickle.load(pipe)
        except (EOFError, OSError, pickle.UnpicklingError, ValueError, TypeError):
            payload = None
        received = time.perf_counter()
        finished = True
    finally:
        if read_end >= 0:
            os.close(read_end)  # the child's write then fails and it ends
        if not finished:  # the parent failed (or was interrupted): the child's work is not wanted
            os.kill(pid, signal.SIGKILL)
        _pid, wait_status, usage = os.wait4(pid, 0)
    # The child rendered with the budget closed: right only if it is closed here too by now (see _child).
    usable = work.renderer.highlighter.closed and os.waitstatus_to_exitcode(wait_status) == 0
    if not usable or not _merge(work, split, stop, payload):
        work.render(split, stop)  # as without a child: the page is the same either way
    _record_stats(
        {
            "entries": len(work.entries),
            "start": start,
            "split": split,
            "child_used": usable and payload is not None,
            "child_peak_kib": usage.ru_maxrss,
            "parent_render_s": round(own - began, 3),
            "meanwhile_s": round(meanwhile_done - own, 3),
            "waited_s": round(received - meanwhile_done, 3),
            "child_render_s": round(payload[0], 3) if isinstance(payload, tuple) and payload else None,
            "merged_s": round(time.perf_counter() - received, 3),
        }
    )


def _child(work: PageEntries, start: int, stop: int, write_end: int) -> None:
    """In the child: render ``start``-``stop`` from fresh models, counts and images, and pickle them out.

    The child starts at once, before the parent has rendered the stretch before it, so it cannot know
    the colouring budget left at ``start``: it renders with the budget closed. That is what one
    process does too when the budget closes before ``start``, as it does early in any session with
    much code (the 20,000-message benchmark session: at entry 129); the parent checks, and renders
    the child's stretch itself when the budget is still open at the end of its own.
    """
    renderer = work.renderer
    renderer.highlighter.closed = True
    renderer.models = []
    redactor = renderer.redactor
    if redactor is not None:
        redactor.counts, redactor.found = Counter(), Counter()
    if renderer.images is not None:
        renderer.images.files = {}
    work.shown_under = {}
    if work.usage is not None:
        work.usage = type(work.usage)()
    began = time.perf_counter()
    work.render(start, stop)
    payload = (
        time.perf_counter() - began,
        work.fragments[start:stop],
        work.nodes[start:stop],
        work.shown_under,
        renderer.models,
        (redactor.counts, redactor.found) if redactor is not None else None,
        renderer.images.files if renderer.images is not None else None,
        work.usage.rows if work.usage is not None else None,
    )
    with os.fdopen(write_end, "wb") as pipe:
        pickle.dump(payload, pipe, protocol=pickle.HIGHEST_PROTOCOL)


def _merge(work: PageEntries, start: int, stop: int, payload: object) -> bool:
    """Put the child's results where one process would have put them; False when they do not fit."""
    if not isinstance(payload, tuple) or len(payload) != 8:
        return False
    _seconds, fragments, nodes, under, models, counts, images, usage = payload
    if len(fragments) != stop - start or len(nodes) != stop - start:
        return False
    work.fragments[start:stop] = fragments
    work.nodes[start:stop] = nodes
    work.shown_under.update(under)
    renderer = work.renderer
    # In the order one process meets them: the parent's first, then the child's new ones.
    renderer.models.extend(m for m in models if m not in renderer.models)
    if counts and renderer.redactor is not None:
        replaced, found = counts
        renderer.redactor.counts.update(replaced)
        renderer.redactor.found.update(found)
    if images and renderer.images is not None:
        renderer.images.files.update(images)
    if usage and work.usage is not None:
        work.usage.rows.update(usage)  # by line: finish() puts them in file order
    return True


def _record_stats(record: dict[str, object]) -> None:
    """Append how the work was split to ``$PRIME_SESSIONS_EXPORT_STATS`` (for the benchmark), if set."""
    target = os.environ.get(_STATS_VARIABLE)
    if not target:
        return
    import json

    try:
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
    except OSError:
        pass
