"""The reading commands: ``list``, ``index``, ``search``, ``show``, ``context``, ``tree`` and ``check``.

None of them writes a session file (``index``, ``list`` and ``search`` write the catalogue, a cache).
``list`` and ``search`` read the user's notes (:mod:`core.notes`): archived sessions are left out of
``list`` unless asked for, pinned ones come first, and ``--tag`` keeps the sessions with a tag.
Modules only some commands need are imported inside those commands: ``check`` on a large file is
measured against a bare parse, whole process, so start-up time counts.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from core.cli.notes import notes_by_key
from core.cli.output import PROG, emit_json, json_bytes, local_time, out
from core.cli.sessions import FILE_HELP, session_file
from core.errors import PrimeSessionsError, SessionReadError
from core.formatting import total_cost, whole_tokens
from core.session import Session, load_session

if TYPE_CHECKING:
    from pathlib import Path

    from core.catalogue import Catalogue, RefreshStats, SessionTouches
    from core.notes import Note
    from core.session import SessionSummary
    from core.session.context import DefaultLeaf

__all__ = ["add_commands", "tree_json"]


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the reading commands to the ``prime-sessions`` parser."""
    p = sub.add_parser("list", help="list sessions from the catalogue (default: every known session folder)")
    p.add_argument("roots", nargs="*", metavar="ROOT", help="a session folder or file")
    p.add_argument("--json", action="store_true", help="print a JSON array of summaries")
    _catalogue_options(p)
    p.add_argument("--no-catalogue", action="store_true", help="read every file instead of the catalogue")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--archived", action="store_true", help="list only the archived sessions")
    shown.add_argument("--all", action="store_true", help="list archived sessions too")
    p.add_argument(
        "--tag", action="append", metavar="TAG", help="only sessions with this tag (repeat: all of them)"
    )
    p.set_defaults(run=_list)

    p = sub.add_parser("index", help="build or update the session catalogue (full-text search index)")
    p.add_argument("roots", nargs="*", metavar="ROOT", help="a session folder or file")
    p.add_argument("--catalogue", metavar="DIR", help="catalogue folder (default: the user cache)")
    p.set_defaults(run=_index)

    p = sub.add_parser("search", help="full-text search over every catalogued session")
    p.add_argument(
        "query",
        nargs="?",
        help='text as written, "exact phrases", prefix*, AND / OR / NOT (optional with --touched)',
    )
    p.add_argument(
        "roots",
        nargs="*",
        metavar="ROOT",
        help="session folders to search (default: the same folders as list); a file too",
    )
    p.add_argument("--root", dest="more_roots", action="append", metavar="ROOT", help=argparse.SUPPRESS)
    p.add_argument("--cwd", help="only sessions of this project folder (and its sub-folders)")
    p.add_argument("--since", metavar="DATE", help="only entries from this date (YYYY-MM-DD or ISO)")
    p.add_argument("--until", metavar="DATE", help="only entries up to this date (inclusive)")
    p.add_argument("--role", help="only messages of this role (user, assistant, toolResult, ...)")
    p.add_argument("--tool", help="only entries calling or answering this tool")
    p.add_argument("--model", help="only assistant messages of this model (substring)")
    p.add_argument("--named", action="store_true", help="only sessions that have a name")
    p.add_argument(
        "--touched",
        metavar="PATH",
        help="only sessions whose tools touched this file or folder (absolute, or relative to their project);"
        " without a query, list those sessions and the files",
    )
    p.add_argument(
        "--tag", action="append", metavar="TAG", help="only sessions with this tag (repeat: all of them)"
    )
    p.add_argument("--limit", type=int, default=50, help="at most this many hits (default 50)")
    p.add_argument("--json", action="store_true", help="print {query, count, hits} as JSON")
    _catalogue_options(p)
    p.set_defaults(run=_search)

    p = sub.add_parser("show", help="summary and the current branch of one session")
    p.add_argument("file", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("--width", type=int, default=100, help="preview width in characters")
    p.set_defaults(run=_show)

    p = sub.add_parser("context", help="print what the model saw, as JSON")
    p.add_argument("file", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("--leaf", help="entry id, or 'null' for the explicit empty leaf")
    p.set_defaults(run=_context)

    p = sub.add_parser("tree", help="print the entry tree")
    p.add_argument("file", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("--json", action="store_true", help="print {roots, order, nodes} as JSON")
    p.add_argument("--width", type=int, default=100, help="preview width in characters")
    p.set_defaults(run=_tree)

    p = sub.add_parser("check", help="report damaged lines, orphans, cycles; exit 1 on problems")
    p.add_argument("files", nargs="+", metavar="FILE", type=session_file, help=FILE_HELP)
    p.add_argument("-v", "--verbose", action="store_true", help="also show informative notes")
    p.set_defaults(run=_check)


def _catalogue_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--catalogue", metavar="DIR", help="catalogue folder (default: the user cache)")
    parser.add_argument("--no-refresh", action="store_true", help="use the catalogue as it is")


# ---------------------------------------------------------------------------- list
def _scan_summaries(roots: list[Path], problems: list[str]) -> list[SessionSummary]:
    """Summaries by reading every file (no catalogue): the fallback when the catalogue is unusable."""
    from core.catalogue.summary import scan_summaries
    from core.cli.families import Families
    from core.session.discovery import search_roots

    families = Families()  # child sessions, as the catalogue records them
    return families.apply(scan_summaries(search_roots(roots), problems, each=families.note))


# A command says at once that another process holds the catalogue (SQLite's own wait would be silent);
# ``list`` then reads the files, ``index`` and ``search`` wait this much longer, saying so.
QUICK_LOCK_WAIT = 0.5
LONG_LOCK_WAIT = 60.0


def _open_catalogue(args: argparse.Namespace, *, waiting: bool = False) -> Catalogue:
    """The catalogue, waiting :data:`QUICK_LOCK_WAIT` for another process's lock.

    When that passes: with ``waiting``, a note and :data:`LONG_LOCK_WAIT` more; else CatalogueBusyError.
    """
    from core.catalogue import Catalogue, CatalogueBusyError

    try:
        catalogue = Catalogue(args.catalogue, lock_wait=QUICK_LOCK_WAIT)
    except CatalogueBusyError as err:
        if not waiting:
            raise
        _waiting_note(err)
        catalogue = Catalogue(args.catalogue, lock_wait=LONG_LOCK_WAIT)
    if catalogue.rebuilt_reason:
        print(
            f"{PROG}: the catalogue was unusable ({catalogue.rebuilt_reason}); it is being rebuilt.",
            file=sys.stderr,
        )
    return catalogue


def _waiting_note(err: Exception) -> None:
    print(f"{PROG}: {err} Waiting for it (up to {LONG_LOCK_WAIT:g} s)...", file=sys.stderr, flush=True)


def _refresh_waiting(catalogue: Catalogue, roots: list[Path], **options: Any) -> RefreshStats:
    """``catalogue.refresh``; when another process holds the catalogue, a note, then a longer wait."""
    from core.catalogue import CatalogueBusyError

    try:
        return catalogue.refresh(roots, **options)
    except CatalogueBusyError as err:
        _waiting_note(err)
        catalogue.wait_for_lock(LONG_LOCK_WAIT)
        return catalogue.refresh(roots, **options)


def _roots(args: argparse.Namespace) -> list[Path]:
    from pathlib import Path

    from core.session import default_roots

    for root in args.roots or []:
        if not Path(root).exists():
            raise PrimeSessionsError(f"{root} does not exist.")
    return [Path(r) for r in args.roots] if args.roots else default_roots()


def _list(args: argparse.Namespace) -> int:
    from core.catalogue import CatalogueError
    from core.catalogue.lookup import SessionKey, short_ids

    roots = _roots(args)
    problems: list[str] = []
    keys: list[SessionKey] | None = None  # every catalogued session: short ids are unique among them
    if args.no_catalogue:
        summaries = _scan_summaries(roots, problems)
    else:
        try:
            catalogue = _open_catalogue(args)
            try:
                if not args.no_refresh:
                    problems += catalogue.refresh(roots).errors
                summaries = catalogue.summaries(roots)
                keys = catalogue.session_keys()
            finally:
                catalogue.close()
        except CatalogueError as err:
            print(f"{PROG}: {err} Reading the session files directly instead.", file=sys.stderr)
            summaries = _scan_summaries(roots, problems)
    for problem in problems:
        print(f"{PROG}: {problem}", file=sys.stderr)
    notes = notes_by_key()
    summaries, hidden = _noted(summaries, notes, args)
    if args.json:
        emit_json([{**s.to_json(), **_note_json(notes, s)} for s in summaries])
        return 0
    if not summaries:
        where = ", ".join(str(r) for r in roots)
        what = "archived sessions" if args.archived else "sessions"
        tagged = f" tagged {', '.join(args.tag)}" if args.tag else ""
        more = f" ({hidden} archived: --all lists them)" if hidden else ""
        out(f"No {what}{tagged} found in {where}{more}.")
        return 0
    if keys is None:
        keys = [SessionKey(s.path, s.id, s.name) for s in summaries]
    shorts = short_ids(keys)
    width = max(len(shorts.get(s.path, "")) for s in summaries)
    for s in summaries:
        title = " ".join(s.title.split())[:60]
        if s.subagentDepth:  # a child session: whose it is shows in `list --json` (subagentOf)
            title = "↳ " + title
        if s.subagents:
            title += f" (+{s.subagents} subagent{'s' if s.subagents != 1 else ''})"
        short = shorts.get(s.path) or "-"
        # A parent's cost holds its children's, each counted once (issue 28).
        out(
            f"{short:<{width}}  {local_time(s.modified)}  {s.messageCount:5d} msgs  "
            f"{s.totalTokens:>9,} tok  ${s.family_cost:7.2f}  {title}  [{s.cwd}]{_marks(notes, s)}"
        )
    more = f" ({hidden} archived not shown: --archived lists them)" if hidden else ""
    out(f"{len(summaries)} sessions{more}")
    return 0


def _noted(
    summaries: list[SessionSummary], notes: dict[str, Note], args: argparse.Namespace
) -> tuple[list[SessionSummary], int]:
    """The sessions ``list`` shows, pinned ones first, and how many archived ones it leaves out."""
    from core.notes import has_tags, note_key

    kept, hidden = [], 0
    for summary in summaries:
        note = notes.get(note_key(summary.id, summary.path))
        archived = note is not None and note.archived
        if args.tag and not has_tags(note, args.tag):
            continue
        if args.archived and not archived:
            continue
        if archived and not (args.archived or args.all):
            hidden += 1
            continue
        kept.append(summary)
    pinned = {s.path for s in kept if (n := notes.get(note_key(s.id, s.path))) is not None and n.pinned}
    kept.sort(key=lambda s: s.path not in pinned)  # stable: the catalogue's order within each part
    return kept, hidden


def _note_json(notes: dict[str, Note], summary: SessionSummary) -> dict[str, object]:
    from core.notes import note_key

    note = notes.get(note_key(summary.id, summary.path))
    if note is None:
        return {"archived": False, "pinned": False, "tags": []}
    return {"archived": note.archived, "pinned": note.pinned, "tags": list(note.tags)}


def _marks(notes: dict[str, Note], summary: SessionSummary) -> str:
    """What ``list`` prints after a row for its notes: ``  [pinned] [archived] #tag #other tag``."""
    from core.notes import note_key

    note = notes.get(note_key(summary.id, summary.path))
    if note is None:
        return ""
    marks = [*(["[pinned]"] if note.pinned else []), *(["[archived]"] if note.archived else [])]
    marks += [f"#{tag}" for tag in note.tags]
    return "  " + " ".join(marks) if marks else ""


# ---------------------------------------------------------------------------- index and search
def _index(args: argparse.Namespace) -> int:
    import threading

    from core.cli.status import ProgressBar

    roots = _roots(args)
    catalogue = _open_catalogue(args, waiting=True)
    bar = ProgressBar()
    cancel = threading.Event()
    try:
        stats = _refresh_waiting(catalogue, roots, progress=bar, cancel=cancel)
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
    out(
        f"{stats.files_seen} session files: {stats.files_indexed} read whole{helped}, {stats.files_appended} "
        f"read from where they grew, {stats.files_removed} removed; {stats.bytes_read / 1e6:,.1f} MB read in "
        f"{stats.seconds:.2f} s. Catalogue: {catalogue.path}"
    )
    return 1 if stats.errors else 0


def _search(args: argparse.Namespace) -> int:
    args.roots = [*(args.roots or []), *(args.more_roots or [])]  # --root ROOT: the old spelling
    if args.touched is not None and args.query is not None and os.path.exists(args.query):
        args.roots.insert(0, args.query)  # search --touched src/ ~/sessions: a folder to search, not words
        args.query = None
    if args.query is None and args.touched is None:
        raise PrimeSessionsError("The search is empty; type one or more words (or give --touched PATH).")
    from core.catalogue import CatalogueBusyError

    roots = _roots(args)
    catalogue = _open_catalogue(args, waiting=True)
    try:
        if not args.no_refresh:
            try:
                problems = _refresh_waiting(catalogue, roots).errors
            except CatalogueBusyError as err:
                print(f"{PROG}: {err} Searching the catalogue as it is.", file=sys.stderr)
                problems = []
            for problem in problems:
                print(f"{PROG}: {problem}", file=sys.stderr)
        if args.query is None:
            return _touched(args, catalogue.touched(args.touched, roots, max(1, args.limit)))
        hits = catalogue.search(
            args.query,
            roots=roots,
            cwd=args.cwd,
            since=args.since,
            until=args.until,
            role=args.role,
            tool=args.tool,
            model=args.model,
            named_only=args.named,
            touched=args.touched,
            limit=args.limit,
            sessions=_tagged(args.tag),
        )
    finally:
        catalogue.close()
    if args.json:
        emit_json({"query": args.query, "count": len(hits), "hits": [h.to_json() for h in hits]})
        return 0
    if not hits:
        out("No matches.")
        return 0
    for hit in hits:
        branch = "" if hit.onCurrentBranch else "  (abandoned branch)"
        title = hit.name or (hit.sessionId or "")[:8]
        out(f"{local_time(hit.timestamp)}  {title}  {hit.entryId}  {hit.role}{branch}")
        out(f"    {hit.snippet}")
        out(f"    {hit.path}")
    return 0


def _touched(args: argparse.Namespace, sessions: list[SessionTouches]) -> int:
    """``search --touched PATH`` without a query: the sessions that touched it, and its files they touched."""
    from core.kinds.touches import touch_words
    from core.timefmt import iso_from_ms

    if args.json:
        found = [s.to_json() for s in sessions]
        emit_json({"touched": args.touched, "count": len(sessions), "sessions": found})
        return 0
    if not sessions:
        out(f"No session touched {args.touched}.")
        return 0
    for session in sessions:
        title = session.name or (session.session_id or "")[:8]
        out(f"{local_time(iso_from_ms(session.modified_ms))}  {title}  [{session.cwd}]")
        for file in session.files:
            out(f"    {touch_words(file.counts)}  {file.shown}")
        out(f"    {session.path}")
    return 0


def _tagged(tags: list[str] | None) -> set[str] | None:
    """The keys of the sessions having every tag of ``tags`` (``search --tag``), or None for no filter."""
    if not tags:
        return None
    from core.notes import has_tags

    return {key for key, note in notes_by_key().items() if has_tags(note, tags)}


# ---------------------------------------------------------------------------- show
def _load_a_session(file: str) -> Session:
    """Load ``file`` for ``show`` and ``tree``, which refuse a file that is not a session at all.

    Such a file (binary, or no line a JSON object: :attr:`Session.not_a_session`) is an error with its one
    sentence on stderr, exit status 1. ``check`` reports it as its one problem (exit 1 too) and
    ``context`` prints the empty context the reference gives for it.
    """
    session = load_session(file, checksum=False)
    if session.not_a_session:
        raise SessionReadError(session.diagnostics[0].message)
    return session


def _show(args: argparse.Namespace) -> int:
    from core.catalogue.summary import summarize
    from core.kinds import entry_preview

    session = _load_a_session(args.file)
    s = summarize(session)
    out(f"Session   {s.id}")
    out(f"File      {s.path}")
    out(f"Project   {s.cwd}")
    if s.name:
        out(f"Name      {s.name}")
    if s.parentSessionPath:
        out(f"Parent    {s.parentSessionPath}")
    out(f"Created   {s.created}    Modified {s.modified}")
    out(f"Version   {s.version}    Entries {s.entryCount}    Messages {s.messageCount}")
    out(f"Models    {', '.join(s.models) or '-'}")
    out(f"Usage     {whole_tokens(s.totalTokens)} tokens    {total_cost(s.cost)}")
    if s.problems:
        out(f"Problems  {s.problems} (run '{PROG} check {args.file}')")
    out("")
    path = session.path_to(session.leaf_id)
    for entry, body in zip(path, session.preview_bodies(path), strict=True):
        label = session.label_for(entry.id)
        badge = f" [{label}]" if label else ""
        out(f"{entry.id}{badge}  {entry_preview(entry, body, width=args.width)}")
    return 0


# ---------------------------------------------------------------------------- context
def _context(args: argparse.Namespace) -> int:
    from core.session import DEFAULT_LEAF, iter_context
    from core.session.jsonl import encode_json

    session = load_session(args.file, checksum=False)
    leaf: str | DefaultLeaf | None = DEFAULT_LEAF
    if args.leaf is not None:
        leaf = None if args.leaf == "null" else args.leaf
    # serviceTier for every file, as Prime Agent's context has it ("default" unless a file of its changed it).
    settings, messages = iter_context(session, leaf, service_tier=True)
    # Written message by message (one per line): a 20,000-message context never sits in memory whole.
    stream = sys.stdout.buffer
    sys.stdout.flush()
    stream.write(b'{"messages": [')
    for index, message in enumerate(messages):
        stream.write(b"\n" if index == 0 else b",\n")
        try:
            data = json_bytes(message)
        except RecursionError:
            # Nested deeper than orjson writes (the loader accepts 1024 levels, as orjson parses) and
            # than the standard library recurses: written without recursion instead.
            data = encode_json(message)
        stream.write(data)
    stream.write(b"]")
    for key, value in settings.items():
        stream.write(b', "' + key.encode() + b'": ' + json_bytes(value))
    stream.write(b"}\n")
    return 0


# ---------------------------------------------------------------------------- tree
def tree_json(session: Session) -> dict[str, object]:
    """The tree as the oracle prints it: ``{roots, order, nodes{id: {type, parentId, children, ...}}}``."""
    tree = session.tree
    nodes: dict[str, dict[str, object]] = {}
    for entry_id in tree.order:
        entry = session.by_id[entry_id]
        node: dict[str, object] = {
            "type": entry.type,
            "parentId": entry.parent_id,
            "children": [c.id for c in tree.children_of(entry_id)],
        }
        if entry.role is not None:  # a message's
            node["role"] = entry.role
        label = session.label_for(entry_id)
        if label is not None:
            node["label"] = label
            node["labelTimestamp"] = session.label_timestamp(entry_id)
        nodes[entry_id] = node
    return {"roots": [e.id for e in tree.roots], "order": tree.order, "nodes": nodes}


def _tree(args: argparse.Namespace) -> int:
    from core.kinds import entry_preview

    session = _load_a_session(args.file)
    if args.json:
        emit_json(tree_json(session))
        return 0
    on_path = {e.id for e in session.path_to(session.leaf_id)}
    leaf = session.leaf_id
    entries = session.tree.walk()
    wanted = [(e, d) for e, d in entries]
    lines = []
    for (entry, depth), body in zip(wanted, session.preview_bodies(e for e, _ in wanted), strict=True):
        marker = "@" if entry.id == leaf else ("*" if entry.id in on_path else " ")
        label = session.label_for(entry.id)
        badge = f"[{label}] " if label else ""
        lines.append(
            f"{marker} {_tree_indent(depth)}{entry.id} {badge}{entry_preview(entry, body, width=args.width)}"
        )
    sys.stdout.write("\n".join(lines) + ("\n" if lines else ""))
    return 0


_INDENT_LEVELS = 12  # branch points shown as indentation; deeper ones say their depth instead


def _tree_indent(depth: int) -> str:
    """Two spaces per branch point up to :data:`_INDENT_LEVELS`, then that much and ``+DEPTH``.

    A session with 10,000 nested branch points would otherwise print 200 MB of spaces (100,000:
    out of memory); capped, the output grows with the number of entries, not with its square.
    """
    if depth <= _INDENT_LEVELS:
        return "  " * depth
    return f"{'  ' * _INDENT_LEVELS}+{depth} "


# ---------------------------------------------------------------------------- check
def _check(args: argparse.Namespace) -> int:
    status = 0
    for file in args.files:
        try:
            session = load_session(file, checksum=False, fold_all=True)
        except PrimeSessionsError as err:
            print(f"{PROG}: {err}", file=sys.stderr)
            status = 1
            continue
        split = session.split
        if split is not None and os.environ.get("PRIME_SESSIONS_DEBUG"):
            # How the parse was shared: the bundle's check proves its workers start (check_bundle.py).
            shared = f"{split.by_workers} of them by {split.workers} worker processes"
            cpu = f"processor time {split.cpu_here:.2f} s here, {split.cpu_worker:.2f} s the most of a worker"
            print(f"{PROG}: {file}: read in {split.parts} parts, {shared}; {cpu}", file=sys.stderr)
        found = session.diagnostics
        problems = [d for d in found if d.is_problem]
        shown = found if args.verbose else problems
        for diagnostic in shown:
            out(diagnostic.format(file))
        if problems:
            status = 1
        verdict = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}" if problems else "ok"
        # Every distinct id is one tree node (loops are cut, duplicates resolved), so by_id is the count.
        out(f"{file}: {verdict} ({len(session.entries)} entries, {len(session.by_id)} in the tree)")
    return status
