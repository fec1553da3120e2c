"""The commands that write: ``label``, ``rename``, ``fork``, ``clone`` and ``trash``.

``label`` and ``rename`` append one entry; ``fork`` and ``clone`` (``clone --cwd`` is "fork into another
project folder") write a new session file; every write goes through :mod:`core.writing`. ``trash``
moves session files to the trash after a confirmation that names them. Without ``--yes`` on a stdin
that is not a terminal it refuses, naming the sessions, rather than guess.
"""

from __future__ import annotations

import argparse
import os
import sys

from core.cli.output import UsageError, out
from core.cli.sessions import FILE_HELP, session_file
from core.errors import InvalidRequestError, PrimeSessionsError
from core.session import load_session

__all__ = ["add_commands", "session_title"]

_TITLE_WIDTH = 60


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this module's sub-commands to the ``prime-sessions`` parser."""
    p = sub.add_parser("label", help="set or clear the label of an entry (appends a label entry)")
    p.add_argument("file", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("target", help="the entry id to label")
    p.add_argument("text", nargs="?", help="the label")
    p.add_argument("--clear", action="store_true", help="clear the label")
    p.set_defaults(run=_label)

    p = sub.add_parser("rename", help="set or clear the session name (appends a session_info entry)")
    p.add_argument("file", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("name", nargs="?")
    p.add_argument("--clear", action="store_true", help="clear the name")
    p.set_defaults(run=_rename)

    p = sub.add_parser("fork", help="new session holding the path from the root to an entry")
    p.add_argument("file", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("--at", required=True, metavar="ENTRY", help="the last entry to copy")
    p.add_argument("--dest", help="folder for the new file (default: beside the source)")
    p.set_defaults(run=_fork)

    p = sub.add_parser("clone", help="new session with the same content and a new id")
    p.add_argument("file", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("--cwd", help="fork into another project folder (new cwd)")
    p.add_argument("--dest", help="folder for the new file")
    p.set_defaults(run=_clone)

    p = sub.add_parser("trash", help="move session files to the trash (never a permanent delete)")
    p.add_argument("files", nargs="+", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(run=_trash)


def _label(args: argparse.Namespace) -> int:
    from core.writing import append_label

    if args.clear == (args.text is not None):
        raise UsageError("give either a label TEXT or --clear")
    session = load_session(args.file)
    entry_id = append_label(session, args.target, None if args.clear else args.text)
    out(entry_id)
    return 0


def _rename(args: argparse.Namespace) -> int:
    from core.writing import append_session_name

    if args.clear == (args.name is not None):
        raise UsageError("give either a NAME or --clear")
    session = load_session(args.file)
    out(append_session_name(session, "" if args.clear else args.name))
    return 0


def _fork(args: argparse.Namespace) -> int:
    from core.writing import fork_session

    session = load_session(args.file)
    out(str(fork_session(session, args.at, dest_dir=args.dest)))
    return 0


def _clone(args: argparse.Namespace) -> int:
    from core.writing import clone_session

    session = load_session(args.file)
    out(str(clone_session(session, cwd=args.cwd, dest_dir=args.dest)))
    return 0


def session_title(path: str | os.PathLike[str]) -> str:
    """How a session is named to the user: its name, else its first message, else its file name."""
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
