"""CLI sub-commands for diff (two branches or two sessions); registered by :func:`core.cli.build_parser`."""

from __future__ import annotations

import argparse
import sys

from core.cli.output import output_file
from core.cli.sessions import FILE_HELP, session_file

__all__ = ["add_commands"]

_FORMATS = ("text", "html", "json")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this module's sub-commands to the ``prime-sessions`` parser."""
    p = sub.add_parser(
        "diff",
        help="compare two branches of a session, or a path of one session with one of another",
        description=(
            "Compare the path to LEFT with the path to RIGHT from where they part. LEFT and RIGHT are entry "
            "ids, unique id prefixes or 'leaf'. With --other-file, RIGHT is looked up in FILE2 (a fork "
            "against its parent, or any two sessions)."
        ),
    )
    p.add_argument("file", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("left", metavar="LEFT", help="entry id (or unique prefix, or 'leaf') of the left side")
    p.add_argument("right", metavar="RIGHT", help="entry id (or unique prefix, or 'leaf') of the right side")
    p.add_argument(
        "--other-file", metavar="FILE2", type=session_file, help="the session RIGHT belongs to (as FILE)"
    )
    p.add_argument("--format", choices=_FORMATS, default="text", help="output format (default: text)")
    p.add_argument("-o", "--output", metavar="OUT", help="the file to write (- or none: standard output)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists; never a session")
    p.add_argument("--width", type=int, default=100, help="preview width of the text format")
    p.set_defaults(run=_diff)


def _diff(args: argparse.Namespace) -> int:
    from core.diff import diff_paths, diff_sessions, render_html, render_json, render_text, resolve_entry
    from core.export import write_export
    from core.session import load_session

    # The same -o/--force rule as export, checked before the sessions are read and compared.
    target = output_file(args.output, args.force, [args.file, args.other_file])
    left_session = load_session(args.file, checksum=False)
    left_id = resolve_entry(left_session, args.left)
    if args.other_file:
        right_session = load_session(args.other_file, checksum=False)
        right_id = resolve_entry(right_session, args.right)
        diff = diff_sessions(left_session, left_id, right_session, right_id)
    else:
        right_session = left_session
        right_id = resolve_entry(left_session, args.right)
        diff = diff_paths(left_session, left_id, right_id)
    if args.format == "json":
        data = render_json(diff)
    elif args.format == "html":
        data = render_html(diff).encode("utf-8", "backslashreplace")
    else:
        data = render_text(diff, width=max(20, args.width)).encode("utf-8", "backslashreplace")
    if target is not None:
        write_export(target, data, overwrite=args.force, inputs=[left_session.path, right_session.path])
        return 0
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    return 0
