"""Full-text search over the catalogue: FTS5 queries, ranking distinct texts then entries, filters, hits.

The FTS5 table is contentless (``content=''``): the text is not stored twice, which halves the index
size and makes indexing about 40% faster. Snippets are cut from the session file itself when a hit is
shown (:func:`core.catalogue.snippets.make_snippet`). Each distinct text is one FTS row, so search
scores each text once and then finds the entries holding the best texts (:func:`_ranked_entries`).
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypedDict

from core.catalogue.query import invalid_query, to_fts
from core.catalogue.schema import CatalogueError, decode_stored, sqlite_errors
from core.catalogue.search_text import entry_doc
from core.catalogue.snippets import OPERATORS, make_snippet, mark_spans, query_terms
from core.catalogue.touches import touched_condition, touched_ids
from core.catalogue.update import roots_reach, within
from core.errors import InvalidRequestError
from core.session.entry import Entry
from core.session.jsonl import decode_line
from core.session.vocabulary import normal_type
from core.timefmt import iso_from_ms, js_date_ms

_LOOKUP_CHUNK = 500  # texts per "text_id IN (...)" query, well under SQLite's limit of bound variables


class QueryError(CatalogueError):
    """The search text is not a valid full-text query; the message says how to write one."""


@dataclass
class Hit:
    """One search result: an entry of a session.

    Attributes:
        sessionId, entryId, path: which session and entry.
        snippet: text around the match, matched words wrapped in ``«`` and ``»``.
        spans: ``(start, end)`` of the matched words in ``snippet`` without the marks.
        onCurrentBranch: True when the entry lies on the path to the session's leaf (False: an
            abandoned branch).
        role, tools, model: what kind of entry it is.
        timestamp: the message time (ISO).
        cwd, name: the session's project folder and name.
        rank: bm25 score (lower is better).
    """

    sessionId: str | None
    entryId: str
    path: str
    snippet: str
    spans: list[tuple[int, int]]
    onCurrentBranch: bool
    role: str
    tools: str
    model: str
    timestamp: str | None
    cwd: str
    name: str | None
    rank: float

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output."""
        return dict(self.__dict__)


class SearchFilters(TypedDict, total=False):
    """What narrows a search; every key may be left out (:meth:`core.catalogue.Catalogue.search`).

    Attributes:
        cwd: only sessions of this project folder and its sub-folders.
        since, until: only entries from / up to this date (``YYYY-MM-DD`` or ISO; both inclusive, a
            date meaning the whole day).
        role: only messages of this role.
        tool: only entries calling or answering this tool (its exact name).
        model: only assistant messages whose ``provider/model`` holds this, in any case.
        named_only: only sessions that have a name.
        touched: only sessions whose tools touched this file or folder (absolute, or relative to each
            session's project folder; :func:`core.catalogue.touches.touched_condition`).
        roots: only sessions a refresh of these folders finds (as ``list ROOT...`` does); a file reached
            through two of them gives its hits once.
        limit: at most this many hits (default 50).
        sessions: only sessions whose notes key (:func:`core.notes.note_key`: the header id, else the
            file name's id) is one of these (``search --tag``: the sessions with that tag).
    """

    cwd: str | None
    since: str | None
    until: str | None
    role: str | None
    tool: str | None
    model: str | None
    named_only: bool
    touched: str | None
    roots: Sequence[str | os.PathLike[str]] | None
    limit: int
    sessions: Collection[str] | None


def search_entries(conn: sqlite3.Connection, query: str, filters: SearchFilters) -> list[Hit]:
    """:meth:`core.catalogue.Catalogue.search` over the catalogue ``conn`` is connected to.

    Raises:
        QueryError: the query is empty, FTS5 rejects it, or a date does not parse.
        CatalogueError: the catalogue cannot be read.
    """
    if not query.strip():
        raise QueryError("The search is empty; type one or more words.")
    _as_text(query, "The search")
    for name in ("cwd", "role", "tool", "model"):
        value = filters.get(name)
        if isinstance(value, str):
            _as_text(value, f"The {name} filter")
    where, params = _filter_sql(conn, filters)
    try:
        expression = to_fts(query)  # plain text by default (core.catalogue.query)
    except InvalidRequestError as err:
        raise QueryError(str(err)) from err
    with sqlite_errors("search"):
        try:
            rows = _ranked_entries(conn, expression, where, params, max(1, int(filters.get("limit", 50))))
        except sqlite3.OperationalError as err:
            if _is_query_error(err):
                raise QueryError(_explain_query_error(query, err)) from err
            raise
    return _hits(rows, query_terms(query), once_per_file=filters.get("roots") is not None)


def _as_text(value: str, what: str) -> None:
    """Refuse, in one sentence, a search term that is not text.

    Bytes that are not UTF-8 on the command line (or a lone surrogate pasted into the window) come as
    lone surrogates, which no session's text holds and SQLite cannot take.

    Raises:
        QueryError: ``value`` holds a lone surrogate.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        # A byte the command line could not decode is U+DC80-U+DCFF: show the byte itself.
        shown = "".join(
            f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF else f"\\u{ord(c):04x}"
            for c in value[err.start : err.end]
        )
        raise QueryError(
            f"{what} holds bytes that are not UTF-8 text ({shown} at character {err.start + 1}), which no"
            " session holds; type it as text."
        ) from err


def _filter_sql(conn: sqlite3.Connection, filters: SearchFilters) -> tuple[str, list[object]]:
    """The condition ``filters`` make over ``d`` (an entry) and ``f`` (its file), and its parameters.

    A roots filter registers the SQL function it calls on ``conn``.

    Raises:
        QueryError: a date does not parse.
    """
    cwd, since, until = filters.get("cwd"), filters.get("since"), filters.get("until")
    role, tool, model = filters.get("role"), filters.get("tool"), filters.get("model")
    where = ["1"]
    params: list[object] = []
    if cwd:
        where.append("(f.cwd = ? OR substr(f.cwd, 1, ?) = ?)")
        params += _folder_and_below(cwd)
    if since:
        where.append("d.ts_ms >= ?")
        params.append(_date_ms(since, "since"))
    if until:
        moment, whole_day = _date_ms(until, "until"), _is_date_only(until)
        where.append("d.ts_ms < ?" if whole_day else "d.ts_ms <= ?")
        params.append(moment + 86_400_000 if whole_day else moment)  # a date includes that whole day
    if role:
        where.append("d.role = ?")
        params.append(role)
    if tool:
        where.append("instr(' ' || d.tools || ' ', ?) > 0")
        params.append(f" {tool} ")
    if model:
        where.append("instr(lower(d.model), lower(?)) > 0")
        params.append(model)
    if filters.get("named_only", False):
        where.append("f.name IS NOT NULL")
    touched = filters.get("touched")
    if touched is not None:
        try:
            condition, values = touched_condition(touched)
        except InvalidRequestError as err:
            raise QueryError(str(err)) from err
        where.append(f"d.file_id IN (SELECT t.file_id FROM touches t WHERE {touched_ids(condition)})")
        params += values
    roots = filters.get("roots")
    if roots is not None:
        reach = roots_reach(roots)
        # within() is the rule list and refresh use (a root, or one level of project folders below it).
        # Given the path's bytes: a function's text arguments must be UTF-8 (see schema.path_bytes).
        conn.create_function(
            "prime_within", 1, lambda path: within(decode_stored(path), reach), deterministic=True
        )
        where.append("prime_within(CAST(f.path AS BLOB))")
    sessions = filters.get("sessions")
    if sessions is not None:
        from core.notes.note import note_key

        keys = frozenset(sessions)

        def noted(sid: bytes | None, path: bytes) -> bool:
            return note_key(None if sid is None else decode_stored(sid), decode_stored(path)) in keys

        conn.create_function("prime_noted", 2, noted, deterministic=True)
        where.append("prime_noted(CAST(f.session_id AS BLOB), CAST(f.path AS BLOB))")
    return " AND ".join(where), params


def _folder_and_below(cwd: str) -> list[object]:
    """The parameters of the cwd condition: the folder, then the length and text of its sub-folders' prefix.

    The separator is a backslash when the folder has backslashes and no "/" (a Windows path).
    """
    base = cwd.rstrip("/\\") or cwd
    sep = "\\" if "\\" in base and "/" not in base else "/"
    below = base if base.endswith(("/", "\\")) else base + sep
    return [base, len(below), below]


def _hits(rows: list[_HitRow], terms: list[tuple[str, bool]], once_per_file: bool) -> list[Hit]:
    """The hits of ``rows``, each with a snippet marking ``terms``.

    ``once_per_file``: a file reached through two roots gives its hits once (by its real path).
    """
    hits = []
    seen: set[tuple[str, str]] = set()  # (the real file, entry)
    for row in rows:
        if once_per_file:
            key = (os.path.realpath(row.path), row.entry_id)
            if key in seen:
                continue
            seen.add(key)
        text, spans = make_snippet(_read_doc_text(row.path, row.offset, row.length, row.entry_id), terms)
        hits.append(
            Hit(
                sessionId=row.session_id,
                entryId=row.entry_id,
                path=row.path,
                snippet=mark_spans(text, spans),
                spans=spans,
                onCurrentBranch=bool(row.on_path),
                role=row.role or "",
                tools=row.tools or "",
                model=row.model or "",
                timestamp=iso_from_ms(row.ts_ms),
                cwd=row.cwd or "",
                name=row.name,
                rank=row.rank,
            )
        )
    return hits


_FIRST_TEXTS = 256  # best-ranked texts fetched first; most searches need no more
_FIRST_GROUP = 8  # texts whose entries are fetched first; the groups grow fourfold
_HIT_COLUMNS = (
    "d.file_id, d.entry_id, d.role, d.tools, d.model, d.ts_ms, d.offset, d.length,"
    " f.path, f.session_id, f.cwd, f.name, d.on_path"
)


class _HitRow(NamedTuple):
    """One entry :func:`_ranked_entries` found: :data:`_HIT_COLUMNS`, then its text's bm25 rank."""

    file_id: int
    entry_id: str
    role: str | None
    tools: str | None
    model: str | None
    ts_ms: float | None
    offset: int
    length: int
    path: str
    session_id: str | None
    cwd: str | None
    name: str | None
    on_path: int | None
    rank: float


def _ranked_entries(
    conn: sqlite3.Connection, query: str, where: str, params: list[object], limit: int
) -> list[_HitRow]:
    """The best ``limit`` searchable entries (:class:`_HitRow`) for an FTS5 query.

    Texts are ranked by bm25, and the entries holding the best ones are fetched (and filtered by
    ``where`` over ``d``, the entry, and ``f``, its file) a growing group of texts at a time, until
    ``limit`` entries are found and the next text scores worse than the last of them. A text often
    stands for hundreds of entries, so joining every match before sorting cost 0.1 s for words in
    every session. Entries holding one text share its score and come newest first.

    Raises:
        sqlite3.OperationalError: FTS5 rejected the query.
    """
    depth = _FIRST_TEXTS
    ranked = _ranked_texts(conn, query, depth)
    done: set[int] = set()
    found: list[tuple[tuple[float, bool, float, int, int], tuple[object, ...]]] = []  # (sort key, row)
    pos, group = 0, _FIRST_GROUP
    while True:
        if pos >= len(ranked):
            if len(ranked) < depth:
                break  # every matching text was looked at
            depth *= 8
            # Deeper, from the start again: texts of equal rank may come in another order.
            ranked = [item for item in _ranked_texts(conn, query, depth) if item[0] not in done]
            pos = 0
            continue
        chunk = [text_id for text_id, _score in ranked[pos : pos + min(group, _LOOKUP_CHUNK)]]
        pos += len(chunk)
        group *= 4
        done.update(chunk)
        score = dict(ranked[pos - len(chunk) : pos])
        marks = ",".join("?" * len(chunk))
        for text_id, line, *row in conn.execute(
            f"SELECT d.text_id, d.line, {_HIT_COLUMNS} FROM entries d JOIN files f ON f.id = d.file_id"
            f" WHERE d.text_id IN ({marks}) AND d.text_id IS NOT NULL AND {where}",
            [*chunk, *params],
        ):
            ts = row[5]
            # Best score first, then newest first (no time last), then in catalogue order.
            key = (score[text_id], ts is None, -(ts or 0.0), row[0], line)
            found.append((key, (*row, score[text_id])))
        if len(found) >= limit and pos < len(ranked):
            found.sort(key=lambda item: item[0])
            if ranked[pos][1] > found[limit - 1][0][0]:
                break  # every text left scores worse than the last hit kept
    found.sort(key=lambda item: item[0])
    return [_HitRow._make(row) for _key, row in found[:limit]]


def _ranked_texts(conn: sqlite3.Connection, query: str, depth: int) -> list[tuple[int, float]]:
    """The ``depth`` best texts for an FTS5 query, as (rowid, bm25 rank), best first."""
    ranked: list[tuple[int, float]] = conn.execute(
        "SELECT rowid, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?", (query, depth)
    ).fetchall()
    return ranked


def _read_doc_text(path: str, offset: int, length: int, entry_id: str) -> str:
    """The searchable text of one entry, read back from its session file (empty if it changed)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            raw = handle.read(length)
    except OSError:
        return ""
    obj, _note = decode_line(raw)  # as leniently as it was read when indexed (a BOM, bad UTF-8)
    if not isinstance(obj, dict):
        return ""
    value = obj.get("type")
    typ = value if isinstance(value, str) else ""
    kind = normal_type(typ)
    message = obj.get("message")
    value = message.get("role") if isinstance(message, dict) else None
    role = value if isinstance(value, str) else None
    entry = Entry(entry_id, None, typ, kind, obj.get("timestamp"), 0, offset, length, role)
    doc = entry_doc(entry, obj)
    return doc.text if doc is not None else ""


def _is_date_only(value: str) -> bool:
    return re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()) is not None


def _date_ms(value: str, name: str) -> float:
    ms = js_date_ms(value.strip())
    if ms is None:
        raise QueryError(f"--{name} {value!r} is not a date; use YYYY-MM-DD or an ISO time.")
    return float(ms)


def _is_query_error(err: sqlite3.Error) -> bool:
    """True when FTS5 refused the query text (not a locked or damaged catalogue)."""
    text = str(err)
    return text.startswith(("fts5:", "unterminated string", "no such column", "unknown special query"))


def _explain_query_error(query: str, err: sqlite3.Error) -> str:
    """One sentence saying what is wrong with ``query``, in the user's words, and how to write it."""
    detail = str(err)
    near = re.fullmatch(r'fts5: syntax error near "(.*)"', detail, re.DOTALL)
    column = re.fullmatch(r"no such column: (.*)", detail, re.DOTALL)
    if detail.startswith("unterminated string"):
        why = 'a double quote (") is not closed'
    elif detail.startswith("unknown special query"):
        why = 'a "*" must end a word (as in cach*)'
    elif column is not None:
        # FTS5 reads "word:" and "-word" as column filters; the message would name a column.
        words = [w for w in query.split() if ":" in w or "-" in w]
        shown = f'"{words[0]}"' if words else f'"{column.group(1)}"'
        why = f'{shown} holds a ":" or "-", which only work inside quotes'
    elif near is not None and near.group(1) in OPERATORS:
        why = f"{near.group(1)} needs a search word on each side"
    elif near is not None and near.group(1):
        why = f'"{near.group(1)}" only works inside quotes'
    elif near is not None:
        why = "it ends too early (an operator or an opening bracket needs something after it)"
    else:
        why = detail.removeprefix("fts5: ")
    return invalid_query(query, why)
