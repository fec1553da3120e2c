"""The notes commands: ``archive``, ``unarchive``, ``pin``, ``unpin``, ``tag`` and ``notes export/import``.

Notes are the user's words about sessions (:mod:`core.notes`), kept in the user's data folder; none of
these commands writes a session file. A SESSION is read as every FILE argument is (a path, an id, a unique
id prefix or a name: :func:`core.cli.sessions.session_file`), and its notes are keyed by its id, so they
follow the session when its file moves.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from core.cli.output import UsageError, out
from core.cli.sessions import FILE_HELP, session_file
from core.errors import InvalidRequestError

if TYPE_CHECKING:
    from core.notes import Note, SessionRef

__all__ = ["add_commands", "notes_by_key"]


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the notes commands to the ``prime-sessions`` parser."""
    for name, help_text, flag, value in (
        (
            "archive",
            "hide sessions from the list (they stay where they are; unarchive brings them back)",
            "archived",
            True,
        ),
        ("unarchive", "list archived sessions again", "archived", False),
        ("pin", "keep sessions at the top of the list", "pinned", True),
        ("unpin", "stop keeping sessions at the top of the list", "pinned", False),
    ):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("files", nargs="+", metavar="SESSION", type=session_file, help=FILE_HELP)
        p.set_defaults(run=_set_flag, flag=flag, value=value)

    p = sub.add_parser("tag", help="show, add or remove a session's tags (free text, several per session)")
    p.add_argument("file", metavar="SESSION", type=session_file, help=FILE_HELP)
    p.add_argument("tags", nargs="*", metavar="TAG", help="tags to add (none: print the session's tags)")
    p.add_argument("--remove", nargs="+", metavar="TAG", help="tags to take off instead")
    p.set_defaults(run=_tag)

    # One parser with an ACTION word, not sub-parsers: options are read intermixed with the arguments
    # (core.cli.program.parse_arguments), which argparse does not do across sub-parsers.
    p = sub.add_parser(
        "notes",
        help="export every note (archive, pin, tags) as JSON, or import an export",
        description="notes export [-o OUT]: every note as JSON. notes import FILE: take in an export's notes"
        " (archived and pinned as exported, its tags added to those held); all or nothing.",
    )
    p.add_argument("action", choices=("export", "import"), metavar="ACTION", help="export or import")
    p.add_argument("source", nargs="?", metavar="FILE", help="import: the notes export ('-': standard input)")
    p.add_argument(
        "-o", "--output", metavar="OUT", help="export: the file to write (default: standard output)"
    )
    p.add_argument("--force", action="store_true", help="export: replace OUT if it exists")
    p.set_defaults(run=_notes)


def _ref(path: str) -> SessionRef:
    from core.notes import ref_of_file

    if not os.path.isfile(path):
        raise InvalidRequestError(f"{path} is not a session file; its notes are kept by its session id.")
    return ref_of_file(path)


def _set_flag(args: argparse.Namespace) -> int:
    from core.notes import Notes

    refs = list({ref.key: ref for ref in (_ref(f) for f in args.files)}.values())
    Notes().set_flags(refs, **{args.flag: args.value})
    said = {
        ("archived", True): "Archived",
        ("archived", False): "Unarchived",
        ("pinned", True): "Pinned",
        ("pinned", False): "Unpinned",
    }[(args.flag, args.value)]
    for ref in refs:
        out(f"{said}: {ref.path}")
    return 0


def _tag(args: argparse.Namespace) -> int:
    from core.notes import Notes

    if args.tags and args.remove:
        raise UsageError("give either TAGs to add or --remove TAGs, not both")
    ref = _ref(args.file)
    notes = Notes()
    if args.remove:
        held = notes.remove_tags([ref], args.remove)
    elif args.tags:
        held = notes.add_tags([ref], args.tags)
    else:
        held = notes.all()
    note = held.get(ref.key)
    tags = note.tags if note is not None else ()
    if not args.tags and not args.remove:
        for tag in tags:
            out(tag)
        return 0
    out(f"Tags of {ref.path}: {', '.join(tags) if tags else '(none)'}")
    return 0


def _notes(args: argparse.Namespace) -> int:
    if args.action == "import":
        if args.source is None:
            raise UsageError("notes import needs the FILE to import ('-' for standard input)")
        if args.output or args.force:
            raise UsageError("-o and --force are for notes export")
        return _import(args)
    if args.source is not None:
        raise UsageError("notes export takes no FILE; write to one with -o OUT")
    return _export(args)


def _export(args: argparse.Namespace) -> int:
    from core.cli.output import output_file
    from core.notes import Notes, export_notes

    target = output_file(args.output, args.force, [])
    data = export_notes(Notes().all().values())
    if target is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        return 0
    from core.writing import write_file

    write_file(target, data, overwrite=args.force)
    print(f"Notes written to {target}", file=sys.stderr)
    return 0


def _import(args: argparse.Namespace) -> int:
    from core.notes import Notes, parse_notes
    from core.notes.transfer import MAX_IMPORT_BYTES

    source = args.source
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_IMPORT_BYTES + 1)
            source = "standard input"
        else:
            with open(source, "rb") as handle:
                data = handle.read(MAX_IMPORT_BYTES + 1)
    except IsADirectoryError as err:
        raise InvalidRequestError(f"{source} is a folder, not a notes export.") from err
    except OSError as err:
        raise InvalidRequestError(f"{source} cannot be read: {err.strerror or err}.") from err
    imported = parse_notes(data, source)
    Notes().merge(imported)
    count = len(imported)
    out(f"Imported the notes of {count} session{'s' if count != 1 else ''} from {source}.")
    return 0


def notes_by_key() -> dict[str, Note]:
    """Every note, by session key; a notes file that cannot be read says so on stderr and counts as none.

    For ``list`` and ``search``, which still list sessions when the notes cannot be read.
    """
    from core.notes import Notes, NotesError

    try:
        return Notes().all()
    except NotesError as err:
        print(f"prime-sessions: {err}", file=sys.stderr)
        return {}
