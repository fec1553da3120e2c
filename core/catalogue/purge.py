"""Forgetting the words of sessions that left the catalogue: their FTS rows, and the bytes on disk.

A session moved to the trash or deleted leaves the catalogue on the next pass (its ``files``,
``entries`` and ``overrides`` rows go). Its texts are content-addressed and may be shared with other
sessions (a fork holds its parent's texts), so a text goes only when no entry of any file holds it any
more: :func:`purge_unheld_texts` finds those and takes them out of the full-text index.

The index is contentless (``content=''``: SQLite keeps no copy of the texts, which halves the file), and
a contentless FTS5 table deletes a row only when told its text again. The session file is gone by now,
so the text is rebuilt from the index itself: ``fts5vocab``'s instance table lists every term of every
row with its position, and those terms joined by spaces in position order tokenize to exactly what was
indexed (the terms are already case-folded and without diacritics); each rebuilt text is tokenized
once more in a scratch table and compared term by term first, because a delete that does not match
what was indexed would damage the index (such a row is left in place, unseen). Deleting rows only records the
deletion in a new segment, so the index is then merged into one segment (``optimize``), which leaves
the deleted rows' terms out for good.

The bytes: with ``secure_delete`` on (:func:`core.catalogue.schema.open_catalogue` sets it for every
connection), SQLite overwrites what it frees with zeros; the WAL, which still holds the page images
written before, is then checkpointed and truncated. If another connection is reading at that moment the
WAL cannot be truncated yet; it is at the next purge or when SQLite next resets it.

The cost is a scan and a rewrite of the whole index, paid only by a pass in which sessions left the
catalogue and texts were left without an entry (a few seconds for a 50 MB index here).
"""

from __future__ import annotations

import sqlite3

from core.catalogue.schema import TOKENIZE, transaction

__all__ = ["purge_unheld_texts", "unheld_texts"]


def unheld_texts(conn: sqlite3.Connection) -> list[int]:
    """The ids of the texts (and FTS rows) that no entry holds any more."""
    rows = conn.execute(
        "SELECT id FROM texts AS t WHERE NOT EXISTS (SELECT 1 FROM entries AS e WHERE e.text_id = t.id)"
    ).fetchall()
    return [row[0] for row in rows]


def purge_unheld_texts(conn: sqlite3.Connection) -> int:
    """Remove every text no entry holds from the index and from the catalogue file's bytes.

    Runs its own write transaction; call it outside one, and not while a :class:`~core.catalogue.update.Batch`
    of this connection remembers text ids (a pass calls it before its batches or after them).

    Returns:
        How many texts were removed from the index (0 and no ids left over: nothing was written).
    """
    with transaction(conn):
        ids = unheld_texts(conn)
        deleted = _delete_rows(conn, ids) if ids else 0
    if ids:
        # Outside the transaction: moves the zeroed pages into the file and empties the WAL.
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    return deleted


def _delete_rows(conn: sqlite3.Connection, ids: list[int]) -> int:
    """Delete the FTS rows and ``texts`` rows of ``ids`` and merge the index (inside a transaction).

    Returns:
        How many FTS rows were deleted (a row whose text could not be rebuilt exactly stays).
    """
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS purged(id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.purged")
    conn.executemany("INSERT INTO temp.purged VALUES (?)", [(i,) for i in ids])
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, fts, instance)")
    indexed = _terms(
        conn, "SELECT doc, term, offset FROM temp.fts_terms WHERE doc IN (SELECT id FROM temp.purged)"
    )
    bodies = {doc: " ".join(term for _offset, term in sorted(indexed.get(doc, []))) for doc in ids}
    # The same tokenizer over the rebuilt texts, in a scratch table: only an exact match is deleted.
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.purge_check"
        f" USING fts5(body, content='', tokenize='{TOKENIZE}')"
    )
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.purge_check_terms"
        " USING fts5vocab(temp, purge_check, instance)"
    )
    conn.execute("INSERT INTO temp.purge_check(purge_check) VALUES ('delete-all')")
    conn.executemany("INSERT INTO temp.purge_check(rowid, body) VALUES (?, ?)", bodies.items())
    again = _terms(conn, "SELECT doc, term, offset FROM temp.purge_check_terms")
    exact = [doc for doc in ids if sorted(again.get(doc, [])) == sorted(indexed.get(doc, []))]
    conn.executemany(
        "INSERT INTO fts(fts, rowid, body) VALUES ('delete', ?, ?)", [(doc, bodies[doc]) for doc in exact]
    )
    conn.execute("INSERT INTO temp.purge_check(purge_check) VALUES ('delete-all')")
    conn.execute("DELETE FROM texts WHERE id IN (SELECT id FROM temp.purged)")
    conn.execute("DELETE FROM temp.purged")
    conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")
    return len(exact)


def _terms(conn: sqlite3.Connection, query: str) -> dict[int, list[tuple[int, str]]]:
    """``doc -> [(position, term), ...]`` from an fts5vocab instance query ``(doc, term, offset)``."""
    found: dict[int, list[tuple[int, str]]] = {}
    for doc, term, offset in conn.execute(query):
        found.setdefault(doc, []).append((offset, term))
    return found
