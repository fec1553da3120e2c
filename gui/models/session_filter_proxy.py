"""Sorting and filtering of the session list (a ``QSortFilterProxyModel`` over ``SessionListModel``)."""

from __future__ import annotations

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

from gui.models.roles import Role
from gui.models.session_list_model import SessionListModel

if TYPE_CHECKING:
    from core.session import SessionSummary

__all__ = ["SessionFilterProxy", "filter_words", "haystack", "matches"]

# Qt 6.9 added beginFilterChange(); 6.10 added endFilterChange() and deprecated invalidateFilter().
_HAS_BEGIN = hasattr(QSortFilterProxyModel, "beginFilterChange")
_HAS_END = hasattr(QSortFilterProxyModel, "endFilterChange")


def filter_words(text: str) -> list[str]:
    """The casefolded, whitespace-separated words of a filter text."""
    return text.casefold().split()


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

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._filter_text = ""
        self._words: list[str] = []
        self._haystacks: dict[str, tuple[SessionSummary, str]] = {}  # path -> (summary, haystack)
        self._named_only = False
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
        """Keep rows where every whitespace-separated word (any case) is in title, project, id or models."""
        if text == self._filter_text:
            return
        words = filter_words(text)
        if words == self._words:  # only spacing or case differences that do not change the result
            self._filter_text = text
            return
        with self._filter_change():
            self._filter_text = text
            self._words = words

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

    def clear_filters(self) -> None:
        """Show every row again (no words, not only named ones): a row the user must see is not hidden."""
        if self._words or self._named_only:
            with self._filter_change():
                self._filter_text, self._words, self._named_only = "", [], False
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
        folded = isinstance(model, SessionListModel) and model.has_hidden()
        if not self._words and not self._named_only and not folded:
            return True  # every row, without a call back into Python per row (20,000 after each change)
        if isinstance(model, SessionListModel):  # straight to the row: no index and data() per row
            if not self._words and model.is_hidden(source_row):
                return False  # folded under its parent (words find a child wherever it is)
            summary = model.summary_at(source_row)
        else:
            summary = model.data(model.index(source_row, 0, source_parent), Role.ITEM)
        if summary is None:
            return False
        if self._named_only and not summary.name:
            return False
        if not self._words:
            return True
        # Each keystroke filters every row again: 20,000 casefolded titles took 0.3 s to build each time.
        cached = self._haystacks.get(summary.path)
        if cached is None or cached[0] is not summary:
            cached = self._haystacks[summary.path] = (summary, haystack(summary))
        text = cached[1]
        return all(word in text for word in self._words)
