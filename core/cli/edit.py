"""CLI sub-commands for editing that the core CLI lacks; registered by :func:`core.cli.build_parser`.

``label``, ``rename``, ``fork`` and ``clone`` (``clone --cwd`` is "fork into another project folder") live in
``core.cli.program``.
This module adds ``trash``: move session files to the trash after a confirmation that names
them. Without ``--yes`` on a stdin that is not a terminal it refuses, naming the sessions, rather than
guess.
"""

from __future__ import annotations

import argparse
import os
import sys

from core.errors import InvalidRequestError, PrimeSessionsError

__all__ = ["add_commands", "session_title"]

_TITLE_WIDTH = 60


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Add this module's sub-commands to the ``prime-sessions`` parser."""
    p = sub.add_parser("trash", help="move session files to the trash (never a permanent delete)")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(run=_trash)


def session_title(path: str | os.PathLike[str]) -> str:
    """How a session is named to the user: its name, else its first message, else its file name."""
    from core.session import load_session

    name = os.path.basename(os.fspath(path))
    try:
        session = load_session(path, checksum=False)
    except PrimeSessionsError:
        return name
    title = " ".join((session.name or session.first_message or "").split())
    if not title:
        return name
    if len(title) > _TITLE_WIDTH:
        title = title[: _TITLE_WIDTH - 1] + "…"
    return f'"{title}" ({name})'


def _trash(args: argparse.Namespace) -> int:
    from core.writing import trash_sessions

    paths = [os.path.abspath(f) for f in args.files]
    for path in paths:
        if not os.path.lexists(path):
            raise InvalidRequestError(f"{path} does not exist; nothing was moved to the trash.")
    titles = [session_title(p) for p in paths]
    what = titles[0] if len(titles) == 1 else f"these {len(titles)} sessions: " + "; ".join(titles)
    if not args.yes:
        if not sys.stdin.isatty():
            raise InvalidRequestError(
                f"Not moving {what} to the trash without confirmation; run it again with --yes."
            )
        sys.stderr.write(f"Move {what} to the trash? [y/N] ")
        sys.stderr.flush()
        answer = sys.stdin.readline().strip().lower()
        if answer not in ("y", "yes"):
            print("Nothing was moved to the trash.", file=sys.stderr)
            return 1
    status = 0
    for result in trash_sessions(paths):
        if result.ok:
            print(f"Moved to the trash: {result.path}")
        else:
            print(f"prime-sessions: {result.error}", file=sys.stderr)
            status = 1
    return status
