"""How the command line speaks: its name in messages, usage errors, lines, JSON, local times."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import orjson

PROG = "prime-sessions"


class UsageError(Exception):
    """The command line itself is wrong; ``main`` prints it as one line and exits with status 2."""


def json_bytes(value: object, indent: bool = False) -> bytes:
    """``value`` as JSON bytes; lone surrogates are written as escapes, as ``JSON.stringify`` does."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    except (TypeError, orjson.JSONEncodeError):
        # Lone surrogates (from a "\ud800" escape, which JSON.parse accepts) cannot be UTF-8. Write them
        # back as the same escapes, as JSON.stringify does; everything else is written as orjson would.
        import json

        text = json.dumps(value, indent=2 if indent else None, ensure_ascii=False)
        return text.encode("utf-8", "backslashreplace")


def emit_json(value: object) -> None:
    """Write ``value`` to standard output as indented JSON and a newline."""
    data = json_bytes(value, indent=True)
    sys.stdout.flush()
    sys.stdout.buffer.write(data + b"\n")


def out(text: str) -> None:
    """Write one line to standard output."""
    sys.stdout.write(text + "\n")


def local_time(iso: str | None) -> str:
    """``2026-03-05 12:12`` in the user's time zone for an ISO UTC time (blank padding when unknown)."""
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(iso or "")
    except ValueError:
        return " " * 16
    try:
        moment = moment.astimezone()
    except (OverflowError, OSError):  # year 1 or 9999 moved into the local zone: shown as written
        pass
    return moment.strftime("%Y-%m-%d %H:%M")


def output_file(
    output: str | None, force: bool, inputs: Sequence[str | None], *, terminal: bool = True
) -> str | None:
    """Where ``export`` and ``diff`` write (``-o OUT``, ``--force``): the file, or None for standard output.

    One rule for both commands, checked before any work is done: no ``-o`` or ``-o -`` is standard output
    (without ``-o``, on a terminal only when ``terminal``: a page or a PDF is no use there); ``OUT`` must
    not exist unless ``force``; and it is never one of the ``inputs`` (the sessions read), ``force`` or not.

    Raises:
        UsageError: no ``-o`` and standard output is a terminal that ``terminal`` refuses.
        SessionWriteError: ``OUT`` is a folder, a session read, or exists without ``force``.
    """
    if output is None and not terminal and sys.stdout.isatty():
        raise UsageError("Say where to write the export: -o FILE, or -o - to print it on the terminal.")
    if output is None or output == "-":
        return None
    from core.export.files import check_targets

    check_targets([output], inputs=[i for i in inputs if i], overwrite=force)
    return output
