"""The ``prime-sessions`` command line. No Qt is imported on this path.

Every user error (bad arguments, unreadable files, unknown entries) ends as one line on stderr and
a non-zero exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import orjson

from core.errors import PrimeSessionsError
from core.session import Session, load_session

# Modules only some commands need are imported inside those commands: `check` on a large file is
# measured against a bare parse, whole process, so start-up time counts.

PROG = "prime-sessions"


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one clear line instead of usage + error
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def _json_bytes(value: object, indent: bool = False) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    except (TypeError, orjson.JSONEncodeError):
        # Lone surrogates (from a "\ud800" escape, which JSON.parse accepts) cannot be UTF-8. Write them
        # back as the same escapes, as JSON.stringify does; everything else is written as orjson would.
        import json

        text = json.dumps(value, indent=2 if indent else None, ensure_ascii=False)
        return text.encode("utf-8", "backslashreplace")


def _emit_json(value: object) -> None:
    data = _json_bytes(value, indent=True)
    sys.stdout.flush()
    sys.stdout.buffer.write(data + b"\n")


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _local_time(iso: str | None) -> str:
    """``2026-03-05 12:12`` in the user's time zone for an ISO UTC time (blank padding when unknown)."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso or "").astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return " " * 16


# ---------------------------------------------------------------------------- list
def _scan_summaries(roots: list, problems: list[str]) -> list:
    """Summaries by reading every file (no catalogue): the fallback when the catalogue is unusable."""
    from core.session import find_session_files, summarize

    summaries = []
    seen: set[str] = set()
    for root in roots:
        for path in find_session_files(root):
            key = os.path.realpath(path)
            if key in seen:
                continue
            seen.add(key)
            try:
                session = load_session(path, checksum=False)
            except PrimeSessionsError as err:
                problems.append(str(err))
                continue
            if session.header is None:
                continue  # not a session file (the reference hides these too)
            summaries.append(summarize(session, path.stat().st_mtime_ns / 1e6))  # as the catalogue does
    summaries.sort(key=lambda s: s.path)  # ties in path order, as the catalogue gives them
    summaries.sort(key=lambda s: s.modified or "", reverse=True)
    return summaries


def _open_catalogue(args: argparse.Namespace) -> object:
    from core.catalogue import Catalogue

    catalogue = Catalogue(args.catalogue)
    if catalogue.rebuilt_reason:
        print(
            f"{PROG}: the catalogue was unusable ({catalogue.rebuilt_reason}); it is being rebuilt.",
            file=sys.stderr,
        )
    return catalogue


def _roots(args: argparse.Namespace) -> list:
    from pathlib import Path

    from core.session import default_roots

    for root in args.roots or []:
        if not Path(root).exists():
            raise PrimeSessionsError(f"{root} does not exist.")
    return [Path(r) for r in args.roots] if args.roots else default_roots()


def _list(args: argparse.Namespace) -> int:
    from core.catalogue import CatalogueError

    roots = _roots(args)
    problems: list[str] = []
    if args.no_catalogue:
        summaries = _scan_summaries(roots, problems)
    else:
        try:
            catalogue = _open_catalogue(args)
            try:
                if not args.no_refresh:
                    problems += catalogue.refresh(roots).errors
                summaries = catalogue.summaries(roots)
            finally:
                catalogue.close()
        except CatalogueError as err:
            print(f"{PROG}: {err} Reading the session files directly instead.", file=sys.stderr)
            summaries = _scan_summaries(roots, problems)
    for problem in problems:
        print(f"{PROG}: {problem}", file=sys.stderr)
    if args.json:
        _emit_json([s.to_json() for s in summaries])
        return 0
    if not summaries:
        where = ", ".join(str(r) for r in roots)
        _out(f"No sessions found in {where}.")
        return 0
    for s in summaries:
        title = " ".join(s.title.split())[:60]
        _out(
            f"{_local_time(s.modified)}  {s.messageCount:5d} msgs  "
            f"{s.totalTokens:>9,} tok  ${s.cost:7.2f}  {title}  [{s.cwd}]"
        )
    _out(f"{len(summaries)} sessions")
    return 0


# ---------------------------------------------------------------------------- index and search
class StatusLine:
    """One line redrawn in place on a terminal's stderr, at most ten times a second.

    Nothing is written when stderr is not a terminal: a pipe or a log gets no carriage returns.
    """

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self._last = 0.0
        self._shown = False

    def show(self, text: str, final: bool = False) -> None:
        """Draw ``text`` over the line, unless one was drawn under 0.1 s ago (``final`` always draws)."""
        import time

        now = time.monotonic()
        if not self.enabled or (not final and self._shown and now - self._last < 0.1):
            return
        self._last = now
        self._shown = True
        sys.stderr.write(f"\r{text}")
        sys.stderr.flush()

    def finish(self) -> None:
        """End the line, if anything was drawn."""
        if self._shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


class _ProgressBar(StatusLine):
    """A catalogue pass as ``[####    ] 12/40 files  3.1/9.9 MB``."""

    def __call__(self, files_done: int, files_total: int, bytes_done: int, bytes_total: int) -> None:
        share = bytes_done / bytes_total if bytes_total else 1.0
        bar = "#" * int(share * 30)
        sizes = f"{bytes_done / 1e6:,.1f}/{bytes_total / 1e6:,.1f} MB"
        self.show(f"[{bar:<30}] {files_done}/{files_total} files  {sizes}", final=files_done >= files_total)


def _index(args: argparse.Namespace) -> int:
    import threading

    roots = _roots(args)
    catalogue = _open_catalogue(args)
    bar = _ProgressBar()
    cancel = threading.Event()
    try:
        stats = catalogue.refresh(roots, progress=bar, cancel=cancel)
    except KeyboardInterrupt:
        cancel.set()
        raise
    finally:
        bar.finish()
        catalogue.close()
    for error in stats.errors:
        print(f"{PROG}: {error}", file=sys.stderr)
    helped = ""
    if stats.readers:
        helped = f" ({stats.files_from_readers} of them by {stats.readers} reader process(es))"
    _out(
        f"{stats.files_seen} session files: {stats.files_indexed} read whole{helped}, {stats.files_appended} "
        f"read from where they grew, {stats.files_removed} removed; {stats.bytes_read / 1e6:,.1f} MB read in "
        f"{stats.seconds:.2f} s. Catalogue: {catalogue.path}"
    )
    return 1 if stats.errors else 0


def _search(args: argparse.Namespace) -> int:
    catalogue = _open_catalogue(args)
    try:
        if not args.no_refresh:
            for problem in catalogue.refresh(_roots(args)).errors:
                print(f"{PROG}: {problem}", file=sys.stderr)
        hits = catalogue.search(
            args.query,
            cwd=args.cwd,
            since=args.since,
            until=args.until,
            role=args.role,
            tool=args.tool,
            model=args.model,
            named_only=args.named,
            limit=args.limit,
        )
    finally:
        catalogue.close()
    if args.json:
        _emit_json({"query": args.query, "count": len(hits), "hits": [h.to_json() for h in hits]})
        return 0
    if not hits:
        _out("No matches.")
        return 0
    for hit in hits:
        branch = "" if hit.onCurrentBranch else "  (abandoned branch)"
        title = hit.name or (hit.sessionId or "")[:8]
        _out(f"{_local_time(hit.timestamp)}  {title}  {hit.entryId}  {hit.role}{branch}")
        _out(f"    {hit.snippet}")
        _out(f"    {hit.path}")
    return 0


# ---------------------------------------------------------------------------- show
def _show(args: argparse.Namespace) -> int:
    from core.render import entry_preview
    from core.session import summarize

    session = load_session(args.file, checksum=False)
    s = summarize(session)
    _out(f"Session   {s.id}")
    _out(f"File      {s.path}")
    _out(f"Project   {s.cwd}")
    if s.name:
        _out(f"Name      {s.name}")
    if s.parentSessionPath:
        _out(f"Parent    {s.parentSessionPath}")
    _out(f"Created   {s.created}    Modified {s.modified}")
    _out(f"Version   {s.version}    Entries {s.entryCount}    Messages {s.messageCount}")
    _out(f"Models    {', '.join(s.models) or '-'}")
    _out(f"Usage     {s.totalTokens:,} tokens    ${s.cost:.4f}")
    if s.problems:
        _out(f"Problems  {s.problems} (run '{PROG} check {args.file}')")
    _out("")
    path = session.path_to(session.leaf_id)
    for entry, body in zip(path, session.bodies(path), strict=True):
        label = session.label_for(entry.id)
        badge = f" [{label}]" if label else ""
        _out(f"{entry.id}{badge}  {entry_preview(entry, body, width=args.width)}")
    return 0


# ---------------------------------------------------------------------------- context
def _context(args: argparse.Namespace) -> int:
    from core.session import DEFAULT_LEAF, iter_context

    session = load_session(args.file, checksum=False)
    leaf: object = DEFAULT_LEAF
    if args.leaf is not None:
        leaf = None if args.leaf == "null" else args.leaf
    settings, messages = iter_context(session, leaf)
    # Written message by message (one per line): a 20,000-message context never sits in memory whole.
    out = sys.stdout.buffer
    sys.stdout.flush()
    out.write(b'{"messages": [')
    for index, message in enumerate(messages):
        out.write(b"\n" if index == 0 else b",\n")
        out.write(_json_bytes(message))
    out.write(b"]")
    for key, value in settings.items():
        out.write(b', "' + key.encode() + b'": ' + _json_bytes(value))
    out.write(b"}\n")
    return 0


# ---------------------------------------------------------------------------- tree
def tree_json(session: Session) -> dict:
    """The tree as the oracle prints it: ``{roots, order, nodes{id: {type, parentId, children, ...}}}``."""
    tree = session.tree
    nodes: dict[str, dict] = {}
    for entry_id in tree.order:
        entry = session.by_id[entry_id]
        node: dict = {
            "type": entry.type,
            "parentId": entry.parent_id,
            "children": [c.id for c in tree.children_of(entry_id)],
        }
        if entry.kind == "message":
            node["role"] = entry.role
        label = session.label_for(entry_id)
        if label is not None:
            node["label"] = label
            node["labelTimestamp"] = session.label_timestamp(entry_id)
        nodes[entry_id] = node
    return {"roots": [e.id for e in tree.roots], "order": tree.order, "nodes": nodes}


def _tree(args: argparse.Namespace) -> int:
    from core.render import entry_preview

    session = load_session(args.file, checksum=False)
    if args.json:
        _emit_json(tree_json(session))
        return 0
    on_path = {e.id for e in session.path_to(session.leaf_id)}
    leaf = session.leaf_id
    entries = session.tree.walk()
    wanted = [(e, d) for e, d in entries]
    lines = []
    for (entry, depth), body in zip(wanted, session.bodies(e for e, _ in wanted), strict=True):
        marker = "@" if entry.id == leaf else ("*" if entry.id in on_path else " ")
        label = session.label_for(entry.id)
        badge = f"[{label}] " if label else ""
        lines.append(
            f"{marker} {'  ' * depth}{entry.id} {badge}{entry_preview(entry, body, width=args.width)}"
        )
    sys.stdout.write("\n".join(lines) + ("\n" if lines else ""))
    return 0


# ---------------------------------------------------------------------------- check
def _check(args: argparse.Namespace) -> int:
    status = 0
    for file in args.files:
        try:
            session = load_session(file, checksum=False)
        except PrimeSessionsError as err:
            print(f"{PROG}: {err}", file=sys.stderr)
            status = 1
            continue
        found = session.diagnostics
        problems = [d for d in found if d.is_problem]
        shown = found if args.verbose else problems
        for diagnostic in shown:
            _out(diagnostic.format(file))
        if problems:
            status = 1
        verdict = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}" if problems else "ok"
        # Every distinct id is one tree node (loops are cut, duplicates resolved), so by_id is the count.
        _out(f"{file}: {verdict} ({len(session.entries)} entries, {len(session.by_id)} in the tree)")
    return status


# ---------------------------------------------------------------------------- edits
def _label(args: argparse.Namespace) -> int:
    from core.writing import append_label

    if args.clear == (args.text is not None):
        raise _UsageError("give either a label TEXT or --clear")
    session = load_session(args.file)
    entry_id = append_label(session, args.target, None if args.clear else args.text)
    _out(entry_id)
    return 0


def _rename(args: argparse.Namespace) -> int:
    from core.writing import append_session_name

    if args.clear == (args.name is not None):
        raise _UsageError("give either a NAME or --clear")
    session = load_session(args.file)
    _out(append_session_name(session, "" if args.clear else args.name))
    return 0


def _fork(args: argparse.Namespace) -> int:
    from core.writing import fork_session

    session = load_session(args.file)
    _out(str(fork_session(session, args.at, dest_dir=args.dest)))
    return 0


def _clone(args: argparse.Namespace) -> int:
    from core.writing import clone_session

    session = load_session(args.file)
    _out(str(clone_session(session, cwd=args.cwd, dest_dir=args.dest)))
    return 0


# ---------------------------------------------------------------------------- parser
def _catalogue_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--catalogue", metavar="DIR", help="catalogue folder (default: the user cache)")
    parser.add_argument("--no-refresh", action="store_true", help="use the catalogue as it is")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and for the app's own entry point)."""
    parser = _Parser(prog=PROG, description="Find, read, check and safely edit Prime Agent sessions.")
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("list", help="list sessions from the catalogue (default: every known session folder)")
    p.add_argument("roots", nargs="*", metavar="ROOT", help="a session folder or file")
    p.add_argument("--json", action="store_true", help="print a JSON array of summaries")
    _catalogue_options(p)
    p.add_argument("--no-catalogue", action="store_true", help="read every file instead of the catalogue")
    p.set_defaults(run=_list)

    p = sub.add_parser("index", help="build or update the session catalogue (full-text search index)")
    p.add_argument("roots", nargs="*", metavar="ROOT", help="a session folder or file")
    p.add_argument("--catalogue", metavar="DIR", help="catalogue folder (default: the user cache)")
    p.set_defaults(run=_index)

    p = sub.add_parser("search", help="full-text search over every catalogued session")
    p.add_argument("query", help='words, "exact phrases", prefix*, AND / OR / NOT')
    p.add_argument("--root", dest="roots", action="append", metavar="ROOT", help="session folder to refresh")
    p.add_argument("--cwd", help="only sessions of this project folder (and its sub-folders)")
    p.add_argument("--since", metavar="DATE", help="only entries from this date (YYYY-MM-DD or ISO)")
    p.add_argument("--until", metavar="DATE", help="only entries up to this date (inclusive)")
    p.add_argument("--role", help="only messages of this role (user, assistant, toolResult, ...)")
    p.add_argument("--tool", help="only entries calling or answering this tool")
    p.add_argument("--model", help="only assistant messages of this model (substring)")
    p.add_argument("--named", action="store_true", help="only sessions that have a name")
    p.add_argument("--limit", type=int, default=50, help="at most this many hits (default 50)")
    p.add_argument("--json", action="store_true", help="print {query, count, hits} as JSON")
    _catalogue_options(p)
    p.set_defaults(run=_search)

    p = sub.add_parser("show", help="summary and the current branch of one session")
    p.add_argument("file")
    p.add_argument("--width", type=int, default=100, help="preview width in characters")
    p.set_defaults(run=_show)

    p = sub.add_parser("context", help="print what the model saw, as JSON")
    p.add_argument("file")
    p.add_argument("--leaf", help="entry id, or 'null' for the explicit empty leaf")
    p.set_defaults(run=_context)

    p = sub.add_parser("tree", help="print the entry tree")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print {roots, order, nodes} as JSON")
    p.add_argument("--width", type=int, default=100, help="preview width in characters")
    p.set_defaults(run=_tree)

    p = sub.add_parser("check", help="report damaged lines, orphans, cycles; exit 1 on problems")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("-v", "--verbose", action="store_true", help="also show informative notes")
    p.set_defaults(run=_check)

    p = sub.add_parser("label", help="set or clear the label of an entry (appends a label entry)")
    p.add_argument("file")
    p.add_argument("target", help="the entry id to label")
    p.add_argument("text", nargs="?", help="the label")
    p.add_argument("--clear", action="store_true", help="clear the label")
    p.set_defaults(run=_label)

    p = sub.add_parser("rename", help="set or clear the session name (appends a session_info entry)")
    p.add_argument("file")
    p.add_argument("name", nargs="?")
    p.add_argument("--clear", action="store_true", help="clear the name")
    p.set_defaults(run=_rename)

    p = sub.add_parser("fork", help="new session holding the path from the root to an entry")
    p.add_argument("file")
    p.add_argument("--at", required=True, metavar="ENTRY", help="the last entry to copy")
    p.add_argument("--dest", help="folder for the new file (default: beside the source)")
    p.set_defaults(run=_fork)

    p = sub.add_parser("clone", help="new session with the same content and a new id")
    p.add_argument("file")
    p.add_argument("--cwd", help="fork into another project folder (new cwd)")
    p.add_argument("--dest", help="folder for the new file")
    p.set_defaults(run=_clone)

    # Commands that live in their own modules (export, diff, trash): imported here, not at the top,
    # because they use this module's helpers. Each keeps its heavy imports inside its handlers.
    from core.cli import diff as diff_cli
    from core.cli import edit as edit_cli
    from core.cli import export as export_cli

    for module in (edit_cli, export_cli, diff_cli):
        module.add_commands(sub)
    return parser


class _VersionAction(argparse.Action):
    # argparse's own "version" action needs the string when the parser is built; looking it up in the
    # package metadata costs ~30 ms, so do it only when --version is given.
    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        _out(f"{PROG} {_version()}")
        parser.exit()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("prime-sessions")
    except Exception:
        return "0+unknown"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 problems found or failed, 2 bad usage, 70 a bug)."""
    parser = build_parser()
    for stream in (sys.stdout, sys.stderr):
        # Text from damaged files may hold lone surrogates; print them as escapes, never crash on them.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            parser.print_help()
            return 0
        status = args.run(args)
        sys.stdout.flush()  # inside the try: a reader that went away is not an error
        return status
    except _UsageError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 2
    except PrimeSessionsError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # `prime-sessions tree big.jsonl | head` closed the pipe; that is not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as err:  # e.g. the disk filled up while writing the output
        where = f" ({err.filename})" if err.filename else ""
        print(f"{PROG}: {err.strerror or err}{where}.", file=sys.stderr)
        return 1
    except Exception as err:
        # A bug, not a user error: still one line, and the traceback only when asked for.
        if os.environ.get("PRIME_SESSIONS_DEBUG"):
            raise
        print(
            f"{PROG}: internal error: {type(err).__name__}: {err} (set PRIME_SESSIONS_DEBUG=1 for details)",
            file=sys.stderr,
        )
        return 70


if __name__ == "__main__":
    sys.exit(main())
