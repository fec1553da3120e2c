"""Sorting and filtering of the session list (a ``QSortFilterProxyModel`` over ``SessionListModel``).

Besides words (each in the title, project, id or models), the filter text may hold ``tag:NAME`` (the
session has that tag, any case; ``tag:"two words"`` for a tag with spaces) and ``touched: PATH`` (or
``touched:PATH``, ``touched:"a path"``): only sessions whose tools touched that file or folder. Which
sessions those are is the catalogue's to say: the proxy asks (:attr:`SessionFilterProxy.touched_requested`)
and hides every row until the answer comes (:meth:`SessionFilterProxy.set_touched_sessions`), since a model
never reads files. Archived sessions are left out unless View > Show Archived is on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)

from core.notes.note import has_tags
from gui.models.roles import Role
from gui.models.session_list_model import SessionListModel

if TYPE_CHECKING:
    from core.session import SessionSummary

__all__ = [
    "SessionFilterProxy",
    "filter_tags",
    "filter_words",
    "haystack",
    "matches",
    "touched_terms",
    "without_tags",
]

_TOUCHED = re.compile(r'(?i)(?<!\S)touched:\s*(?:"([^"]*)"|(\S+))?')


def touched_terms(text: str) -> tuple[tuple[str, ...], str]:
    """The ``touched:`` paths of a filter text (as typed: paths keep their case), and the rest of it."""
    terms = tuple(
        (m.group(1) if m.group(1) is not None else m.group(2) or "").strip() for m in _TOUCHED.finditer(text)
    )
    return tuple(t for t in terms if t), _TOUCHED.sub(" ", text)


# Qt 6.9 added beginFilterChange(); 6.10 added endFilterChange() and deprecated invalidateFilter().
_HAS_BEGIN = hasattr(QSortFilterProxyModel, "beginFilterChange")
_HAS_END = hasattr(QSortFilterProxyModel, "endFilterChange")


_TAG_WORD = re.compile(r'(?i)(?:^|(?<=\s))tag:(?:"([^"]*)"?|(\S*))')


def filter_tags(text: str) -> list[str]:
    """The tags a filter text asks for (``tag:NAME``, ``tag:"two words"``), casefolded, spaces folded."""
    found = []
    for match in _TAG_WORD.finditer(text):
        quoted, bare = match.groups()
        found.append(" ".join((quoted if quoted is not None else bare).split()))
    return [tag.casefold() for tag in found if tag]


def without_tags(text: str) -> str:
    """``text`` with its ``tag:`` words taken out (what the full-text search is to look for)."""
    return " ".join(_TAG_WORD.sub(" ", text).split())


def filter_words(text: str) -> list[str]:
    """The casefolded, whitespace-separated words of a filter text, its ``tag:`` words left out."""
    return _TAG_WORD.sub(" ", text).casefold().split()


def haystack(summary: SessionSummary) -> str:
    """What the filter looks in: the title, project, id and models of ``summary``, casefolded."""
    return "\n".join([summary.title, summary.cwd, summary.id or "", *summary.models]).casefold()


def matches(summary: SessionSummary, words: list[str]) -> bool:
    """True when every word occurs in the title, project, id or models of ``summary`` (casefolded)."""
    if not words:
        return True
    text = haystack(summary)
    return all(word in text for word in words)


class SessionFilterProxy(QSortFilterProxyModel):
    """Keeps the rows matching a word filter and the ``named_only`` toggle, in the source model's order.

    :meth:`sort` (a header click) is forwarded to the source model, which orders its rows itself (and keeps
    them ordered through live updates, and threads forks under their parents when asked); the proxy's own
    sort column stays -1, so it never compares rows through Python ``data()`` calls.
    """

    filters_cleared = Signal()  # clear_filters() showed every row again: the controls say so too
    touched_requested = Signal(object)  # tuple of touched: paths whose sessions are wanted (or () for none)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._filter_text = ""
        self._words: list[str] = []
        self._haystacks: dict[str, tuple[SessionSummary, str]] = {}  # path -> (summary, haystack)
        self._tags: list[str] = []  # tag:NAME words, casefolded
        self._named_only = False
        self._touched_terms: tuple[str, ...] = ()
        self._asked: tuple[str, ...] = ()  # the terms last asked about
        self._touched: frozenset[str] | None = None  # sessions (paths) the touched: terms allow; None: any
        self._show_archived = False
        self.setSortRole(Role.SORT)
        self.setDynamicSortFilter(True)

    @contextmanager
    def _filter_change(self) -> Iterator[None]:
        """Wrap a change of the filter state in Qt's begin/end protocol (or invalidateFilter on old Qt)."""
        if _HAS_BEGIN:
            self.beginFilterChange()
        yield
        if _HAS_END:
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateFilter()

    def filter_text(self) -> str:
        """The filter text as set."""
        return self._filter_text

    def set_filter_text(self, text: str) -> None:
        """Keep rows where every whitespace-separated word (any case) is in title, project, id or models.

        ``touched: PATH`` words keep the sessions that touched PATH, once the catalogue said which.
        """
        if text == self._filter_text:
            return
        terms, rest = touched_terms(text)
        words, tags = filter_words(rest), filter_tags(rest)
        if words == self._words and tags == self._tags and terms == self._touched_terms:
            self._filter_text = text  # only spacing or case differences that do not change the result
            return
        with self._filter_change():
            self._filter_text = text
            self._words, self._tags = words, tags
            if terms != self._touched_terms:
                self._touched_terms = terms
                self._touched = frozenset() if terms else None  # nothing until the catalogue answers
        if terms != self._asked:
            self._asked = terms
            self.touched_requested.emit(terms)

    def touched_terms(self) -> tuple[str, ...]:
        """The ``touched:`` paths of the filter text."""
        return self._touched_terms

    def set_touched_sessions(self, terms: tuple[str, ...], paths: frozenset[str]) -> None:
        """The sessions (paths) that touched every one of ``terms``: shown if those are still the filter's."""
        if terms != self._touched_terms or not terms or paths == self._touched:
            return
        with self._filter_change():
            self._touched = frozenset(paths)

    def named_only(self) -> bool:
        """Whether only sessions with a name are shown."""
        return self._named_only

    def set_named_only(self, on: bool) -> None:
        """Show only sessions that have a name (``on``) or all of them."""
        on = bool(on)
        if on == self._named_only:
            return
        with self._filter_change():
            self._named_only = on

    def show_archived(self) -> bool:
        """Whether archived sessions are listed (View > Show Archived)."""
        return self._show_archived

    def set_show_archived(self, on: bool) -> None:
        """List archived sessions too (``on``; the model marks them) or leave them out."""
        on = bool(on)
        if on == self._show_archived:
            return
        with self._filter_change():
            self._show_archived = on

    def clear_filters(self) -> None:
        """Show every row again (no words, not only named ones): a row the user must see is not hidden.

        Archived sessions stay out (unless shown): archiving is the user's choice, not a filter.
        """
        if self._words or self._tags or self._named_only or self._touched_terms:
            with self._filter_change():
                self._filter_text, self._words, self._tags, self._named_only = "", [], [], False
                self._touched_terms, self._touched = (), None
        if self._asked:
            self._asked = ()
            self.touched_requested.emit(())
        self.filters_cleared.emit()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Order the rows by ``column``: done by the source model (see the class comment)."""
        source = self.sourceModel()
        if source is not None:
            source.sort(column, order)

    def summary_at(self, row: int) -> SessionSummary | None:
        """The summary shown in proxy ``row``, or None."""
        index = self.index(row, 0)
        return self.data(index, Role.ITEM) if index.isValid() else None

    def setSourceModel(self, model: QAbstractItemModel) -> None:
        """Follow the source model; a session list's folded children are filtered out (filterAcceptsRow)."""
        old = self.sourceModel()
        if isinstance(old, SessionListModel):
            old.folding_changed.disconnect(self._folding_changed)
        super().setSourceModel(model)
        if isinstance(model, SessionListModel):
            model.folding_changed.connect(self._folding_changed)

    def _folding_changed(self) -> None:
        """A parent was folded or unfolded: filter its children again."""
        with self._filter_change():
            pass

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        model = self.sourceModel()
        listed = model if isinstance(model, SessionListModel) else None
        hide_archived = not self._show_archived and listed is not None and listed.has_archived()
        folded = listed is not None and listed.has_hidden()
        filtering = self._words or self._named_only or self._tags or self._touched is not None
        if not filtering and not hide_archived and not folded:
            return True  # every row, without a call back into Python per row (20,000 after each change)
        if listed is not None:  # straight to the row: no index and data() per row
            if not self._words and listed.is_hidden(source_row):
                return False  # folded under its parent (words find a child wherever it is)
            summary = listed.summary_at(source_row)
        else:
            summary = model.data(model.index(source_row, 0, source_parent), Role.ITEM)
        if summary is None:
            return False
        if self._named_only and not summary.name:
            return False
        if self._touched is not None and summary.path not in self._touched:
            return False
        if hide_archived or self._tags:
            note = listed.note_of(summary) if listed is not None else None
            if hide_archived and note is not None and note.archived:
                return False
            if self._tags and not has_tags(note, self._tags):
                return False
        if not self._words:
            return True
        # Each keystroke filters every row again: 20,000 casefolded titles took 0.3 s to build each time.
        cached = self._haystacks.get(summary.path)
        if cached is None or cached[0] is not summary:
            cached = self._haystacks[summary.path] = (summary, haystack(summary))
        text = cached[1]
        return all(word in text for word in self._words)
