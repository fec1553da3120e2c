"""CLI sub-commands for export (Markdown, HTML, PDF); registered by :func:`core.cli.build_parser`.

``prime-sessions export FILE --format md|html|pdf [--leaf ID | --tree] [options] -o OUT``. Redaction
counts go to stderr (``-o -`` writes the document to stdout). PDF needs Qt, which core must not
import: :data:`pdf_writer` is set by ``gui.launcher`` before the CLI runs; without it the command
says so in one sentence.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

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
    p.add_argument("file", metavar="FILE")
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
    p.add_argument("-o", "--output", metavar="OUT", required=True, help="the file to write, or - for stdout")
    p.add_argument("--force", action="store_true", help="replace OUT (and its images) if they exist")
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

    fmt = args.format
    if fmt is None:
        ext = os.path.splitext(args.output)[1].lower()
        fmt = _EXTENSIONS.get(ext)
        if fmt is None:
            raise InvalidRequestError("Say which format with --format md, html or pdf.")
    to_stdout = args.output == "-"
    if to_stdout and fmt == "pdf":
        raise InvalidRequestError("A PDF cannot go to standard output; give a file name with -o.")
    if to_stdout and args.images == "beside":
        raise InvalidRequestError("Images cannot go beside standard output; use --images embed or omit.")
    if fmt == "pdf" and pdf_writer is None:
        raise InvalidRequestError("PDF export needs the app's Qt libraries, which are not available here.")
    if not to_stdout and not args.force and os.path.exists(args.output):
        # Checked before rendering, which can take a while on a large session.
        raise InvalidRequestError(f"{args.output} already exists; use --force to replace it.")
    # The cyclic garbage collector finds nothing to free here (parsed JSON, strings and lists hold no
    # cycles), but the 20,000-message export made it walk every live object over and over: about 5%
    # of the time. Paused for this one command, not in render_export, which the app runs beside a GUI.
    with collection_paused():
        return _load_and_export(args, fmt, to_stdout)


def _load_and_export(args: argparse.Namespace, fmt: str, to_stdout: bool) -> int:
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
    )
    rendered = render_export(
        session,
        fmt,
        options,
        leaf_id=leaf_id,
        whole_tree=args.tree,
        target=None if to_stdout else args.output,
        pdf_writer=pdf_writer,
        # The command line runs no other thread, so the HTML export may fork a child to render part
        # of the page (core.export.parallel); the app calls render_export with one worker.
        workers=export_workers() if fmt == "html" else 1,
        report_found=True,  # without --redact: what is written as it is, said on stderr
    )
    if options.redacting:
        print(f"Redacted: {_counts_line(rendered.counts)}", file=sys.stderr)
    if to_stdout:
        sys.stdout.flush()
        for part in rendered.parts:
            sys.stdout.buffer.write(part)
    else:
        written = save_export(rendered, args.output, overwrite=args.force)
        extra = len(written) - 1
        print(f"Wrote {args.output}" + (f" and {extra} image file(s)" if extra else ""), file=sys.stderr)
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
