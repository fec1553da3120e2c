"""The ``files`` command: the files one session's tools read, edited, wrote, ran or searched.

Read from the session file itself (:func:`core.kinds.touches.session_touches`), the same extraction the
catalogue stores for ``search --touched`` and the window's *Files* view shows. Never writes anything.
"""

from __future__ import annotations

import argparse

from core.cli.output import emit_json, out
from core.cli.sessions import FILE_HELP, session_file

__all__ = ["add_commands"]


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``files`` to the ``prime-sessions`` parser."""
    p = sub.add_parser(
        "files", help="the files a session's tools read, edited, wrote or ran on, with how often"
    )
    p.add_argument("file", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("--json", action="store_true", help="print {file, cwd, count, files} as JSON")
    p.set_defaults(run=_files)


def _files(args: argparse.Namespace) -> int:
    from core.errors import SessionReadError
    from core.kinds.touches import session_touches, touch_words, touched_files
    from core.session import load_session

    session = load_session(args.file, checksum=False)
    if session.not_a_session:
        raise SessionReadError(session.diagnostics[0].message)
    cwd = session.header.get("cwd") if session.header is not None else None
    cwd = cwd if isinstance(cwd, str) else ""
    files = touched_files(session_touches(session), cwd)
    if args.json:
        emit_json(
            {"file": session.path, "cwd": cwd, "count": len(files), "files": [f.to_json() for f in files]}
        )
        return 0
    if not files:
        out("No files touched.")
        return 0
    width = max(len(touch_words(f.counts)) for f in files)
    for f in files:
        out(f"{touch_words(f.counts):<{width}}  {f.shown}")
    inside = sum(1 for f in files if f.shown != f.path)
    where = f" ({inside} in {cwd})" if cwd and inside != len(files) else ""
    out(f"{len(files)} file{'s' if len(files) != 1 else ''}{where}")
    return 0
