"""Custom item-data roles shared by every model in ``gui.models``.

Append new roles at the end only: views and proxies may hold on to the numeric values.
"""

from __future__ import annotations

from enum import IntEnum

from PySide6.QtCore import Qt


class Role(IntEnum):
    """Item-data roles beyond Qt's own, starting at ``Qt.ItemDataRole.UserRole + 1``."""

    ITEM = Qt.ItemDataRole.UserRole + 1  # the core record behind the row/node
    SORT = ITEM + 1  # a value that sorts correctly for the column (numbers, ISO strings, casefolded text)
    ID = ITEM + 2  # the session (or entry) id
    PARENT = ITEM + 3  # the parent session's path, for threading forks
    ON_PATH = ITEM + 4  # bool: the entry is on the path from its root to the session's current leaf
    IS_LEAF = ITEM + 5  # bool: the entry is the session's current leaf
    LABEL = ITEM + 6  # the entry's resolved label, or None
    KIND = ITEM + 7  # the message role for message entries, else the normalised entry type
    READING = ITEM + 8  # bool: the entry's card is at the top of the transcript ("you are here")
    DISTINCT = ITEM + 9  # what tells a session apart from listed ones with the same title (a folder, an id)
    NOTE = ITEM + 10  # the session's notes (core.notes.Note: archived, pinned, tags), or None
    SUBAGENTS = ITEM + 11  # a parent session's badge ("▸ 3 subagents"), None for a session without children
    EXPANDED = ITEM + 12  # bool: a parent session's children are shown (setData to fold or unfold them)
