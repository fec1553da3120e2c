"""CLI sub-commands for export (Markdown, HTML, PDF); registered by :func:`core.cli.build_parser`.

``prime-sessions export FILE --format md|html|pdf [--leaf ID | --tree] [options] [-o OUT]``. Redaction
counts go to stderr; without ``-o`` (or with ``-o -``) the document goes to stdout, unless stdout is a
terminal, and ``-o``/``--force`` follow the same rule as ``diff`` (:func:`core.cli.output.output_file`).
PDF needs Qt, which core must not
import: :data:`pdf_writer` is set by ``gui.launcher`` before the CLI runs; without it the command
says so in one sentence.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from core.cli.output import output_file
from core.cli.sessions import FILE_HELP, session_file
from core.collector import collection_paused
from core.errors import InvalidRequestError

if TYPE_CHECKING:
    from core.export import PdfWriter
    from core.session import Session

__all__ = ["add_commands", "pdf_writer"]

pdf_writer: PdfWriter | None = None
"""``(markdown, title) -> PDF bytes``, installed by ``gui.launcher``; None where Qt is unavailable."""

_EXTENSIONS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".pdf": "pdf"}


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this module's sub-commands to the ``prime-sessions`` parser."""
    p = sub.add_parser(
        "export",
        help="export a session to Markdown, a self-contained HTML page or PDF",
        description=(
            "Export the path to the current leaf (or to --leaf ID, or with --tree every branch) as Markdown, "
            "one offline HTML page or PDF. --redact replaces credentials with [REDACTED:kind] markers and "
            "prints how many of each kind it found; without it, a warning on stderr names the credentials "
            "written as they are."
        ),
    )
    p.add_argument("file", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument(
        "--format", choices=("md", "html", "pdf"), help="output format (default: from OUT's extension)"
    )
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--leaf", metavar="ID", help="export the path to this entry (id or unique prefix)")
    scope.add_argument("--tree", action="store_true", help="export every branch")
    p.add_argument("--no-thinking", action="store_true", help="leave out thinking blocks")
    p.add_argument(
        "--no-tools", action="store_true", help="leave out tool calls, their results and shell runs"
    )
    p.add_argument("--no-custom", action="store_true", help="leave out extension entries")
    p.add_argument("--no-bookkeeping", action="store_true", help="leave out model changes, labels, names...")
    p.add_argument(
        "--images",
        choices=("embed", "beside", "omit"),
        default="embed",
        help="images as data URIs (default), as files in OUT_images/ beside OUT, or left out",
    )
    p.add_argument("--redact", action="store_true", help="replace credentials found with markers")
    p.add_argument(
        "--redact-literal",
        metavar="TEXT",
        action="append",
        default=[],
        help="also replace TEXT wherever it occurs (repeatable)",
    )
    p.add_argument(
        "--unsafe-markdown",
        action="store_true",
        help="Markdown and PDF: keep raw HTML and javascript:/vbscript:/data: links in message text as "
        "written (by default they are escaped and neutralised)",
    )
    p.add_argument(
        "--remote-images",
        action="store_true",
        help="Markdown and PDF: keep images from the web in message text as images, which a previewer "
        "fetches (by default they are written as links)",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="the file to write (- or none: standard output, when it is not a terminal)",
    )
    p.add_argument(
        "--force", action="store_true", help="replace OUT (and its images) if they exist; never a session"
    )
    p.set_defaults(run=_export)


def resolve_entry(session: Session, ref: str) -> str:
    """An entry id from a full id, a unique prefix or ``leaf``; InvalidRequestError otherwise."""
    if ref == "leaf":
        if session.leaf_id is None:
            raise InvalidRequestError(f"{session.path} has no entries.")
        return session.leaf_id
    if session.get(ref) is not None:
        return ref
    matches = [entry_id for entry_id in session.by_id if entry_id.startswith(ref)] if ref else []
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise InvalidRequestError(f"{ref} matches {len(matches)} entries; give more of the id.")
    raise InvalidRequestError(f"There is no entry {ref} in {session.path}.")


def _export(args: argparse.Namespace) -> int:
    import os

    # The same -o/--force rule as diff, checked before rendering (which can take a while on a large
    # session): standard output unless -o names a file; never over an existing file without --force,
    # never over the session itself.
    target = output_file(args.output, args.force, [args.file], terminal=False)
    to_stdout = target is None
    fmt = args.format
    if fmt is None:
        fmt = "md" if to_stdout else _EXTENSIONS.get(os.path.splitext(args.output)[1].lower())
        if fmt is None:
            raise InvalidRequestError("Say which format with --format md, html or pdf.")
    if to_stdout and fmt == "pdf":
        raise InvalidRequestError("A PDF cannot go to standard output; give a file name with -o.")
    if to_stdout and args.images == "beside":
        raise InvalidRequestError("Images cannot go beside standard output; use --images embed or omit.")
    if fmt == "pdf" and pdf_writer is None:
        raise InvalidRequestError("PDF export needs the app's Qt libraries, which are not available here.")
    # The cyclic garbage collector finds nothing to free here (parsed JSON, strings and lists hold no
    # cycles), but the 20,000-message export made it walk every live object over and over: about 5%
    # of the time. Paused for this one command, not in render_export, which the app runs beside a GUI.
    with collection_paused():
        return _load_and_export(args, fmt, target)


def _load_and_export(args: argparse.Namespace, fmt: str, target: str | None) -> int:
    from core.export import ExportOptions, render_export, save_export
    from core.export.parallel import export_workers
    from core.session import load_session

    session = load_session(args.file, checksum=False, keep_bodies=True)  # read once, rendered at once
    leaf_id = resolve_entry(session, args.leaf) if args.leaf else None
    options = ExportOptions(
        thinking=not args.no_thinking,
        tools=not args.no_tools,
        custom=not args.no_custom,
        bookkeeping=not args.no_bookkeeping,
        images=args.images,
        redact=args.redact,
        literals=tuple(t for t in args.redact_literal if t),
        safe_markdown=not args.unsafe_markdown,
        remote_images=args.remote_images,
    )
    rendered = render_export(
        session,
        fmt,
        options,
        leaf_id=leaf_id,
        whole_tree=args.tree,
        target=target,
        pdf_writer=pdf_writer,
        # The command line runs no other thread, so the HTML export may fork a child to render part
        # of the page (core.export.parallel); the app calls render_export with one worker.
        workers=export_workers() if fmt == "html" else 1,
        report_found=True,  # without --redact: what is written as it is, said on stderr
    )
    if options.redacting:
        print(f"Redacted: {_counts_line(rendered.counts)}", file=sys.stderr)
    if target is None:
        sys.stdout.flush()
        for part in rendered.parts:
            sys.stdout.buffer.write(part)
    else:
        written = save_export(rendered, target, overwrite=args.force)  # never over the session itself
        extra = len(written) - 1
        print(f"Wrote {target}" + (f" and {extra} image file(s)" if extra else ""), file=sys.stderr)
    if rendered.found:
        print(unredacted_warning(rendered.found), file=sys.stderr)
    return 0


def unredacted_warning(found: dict[str, int]) -> str:
    """``Warning: 3 credentials written as is (1 github-token, ...); --redact replaces them``."""
    total = sum(found.values())
    what, them = ("1 credential", "it") if total == 1 else (f"{total:,} credentials", "them")
    return f"Warning: {what} written as is ({_counts_line(found)}); --redact replaces {them}"


def _counts_line(counts: dict[str, int]) -> str:
    """``2 github-token, 1 private-key`` (most first), or ``nothing found``."""
    if not counts:
        return "nothing found"
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
