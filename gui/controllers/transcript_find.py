"""Find in the transcript: the query counted in every card of the source, and moving between its matches.

The count runs in a worker (channel ``"find"``, :func:`core.render.reading.find_counts`) and reports as it
goes; the view paints the matches of the cards it holds (:class:`gui.widgets.transcript_marks.FindMarks`).
Going to a match brings its card into view, its folds holding the query open, and selects it.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from core.render.find import needle_of
from core.render.reading import find_counts
from gui.controllers.context import WindowContext
from gui.errors import user_sentence
from gui.scheduling import Priority
from gui.widgets.find_bar import FindBar
from gui.widgets.transcript_view import TranscriptView

__all__ = ["TranscriptFind"]


class TranscriptFind(QObject):
    """The find bar of one transcript view."""

    def __init__(self, context: WindowContext, view: TranscriptView, find_bar: FindBar) -> None:
        super().__init__(context)
        self._context = context
        self.view = view
        self.find_bar = find_bar
        find_bar.query_changed.connect(self.query)
        find_bar.next_requested.connect(lambda: self.step(1))
        find_bar.previous_requested.connect(lambda: self.step(-1))
        find_bar.closed.connect(self.close)

    def open(self) -> None:
        """Show the find bar with the focus in it (the text under the selection put in, if any)."""
        if self.view.card_source is None:
            return
        selected = self.view.textCursor().selectedText()
        self.find_bar.open(
            selected if selected and "\u2029" not in selected and len(selected) < 100 else None
        )
        if self.find_bar.query and not self.view.marks.needle:
            self.query(self.find_bar.query)

    def close(self) -> None:
        """No query: the highlights go; the folds find opened stay as they are."""
        self._context.runner.cancel("find")
        self.find_bar.hide()
        self.view.marks.clear()
        self.find_bar.set_count("")

    def query(self, query: str) -> None:
        """A new query (typed, or the selection put in): count it and go to its first match."""
        self.view.marks.start(needle_of(query))
        self.recount(jump=True)

    def recount(self, *, jump: bool = False) -> None:
        """Count the query's matches in every card of the source shown, in a worker; progress as it goes.

        ``jump``: then go to the first match at or after the reader's place (a new query); otherwise (the
        transcript changed under the query) the reader stays where they are.
        """
        marks, source = self.view.marks, self.view.card_source
        self._context.runner.cancel("find")
        needle = marks.needle if self.find_bar.isVisible() else ""
        if not needle or source is None:
            marks.start(needle if source is not None else "")
            self.find_bar.set_count("")
            return
        marks.start(needle)
        self.find_bar.set_count("counting…")

        def progress(done: int, found: list[tuple[int, int]]) -> None:
            marks.set_counts(found, complete=False)
            self.find_bar.set_count(f"counting… {marks.total:,} ({done * 100 // max(1, len(source))}%)")

        def counted(found: list[tuple[int, int]]) -> None:
            marks.set_counts(found, complete=True)
            self.say_count()
            if jump and marks.current is None and marks.total:
                self.step(1)  # the first match at or after the reader's place

        self._context.runner.start(
            "find",
            lambda task: find_counts(source, needle, lambda: task.cancelled, task.progress),
            counted,
            lambda error: self.find_bar.set_count(user_sentence(error)),
            progress,
            priority=Priority.FOREGROUND,
        )

    def step(self, step: int) -> None:
        """Go to the next (``step`` 1) or previous (-1) match, opening the find bar when it is closed."""
        marks = self.view.marks
        if not self.find_bar.isVisible():
            self.open()
            return
        self.find_bar.flush()
        total = marks.total
        if not total:
            self.say_count()
            return
        if marks.current is None:
            reading = self.view.reading_slot() or 0
            first = marks.first_from(reading)
            number = first if first is not None else 0
            if step < 0:
                number = (number - 1) % total
        else:
            number = (marks.current + step) % total
        marks.current = number
        slot, _index = marks.locate(number)
        if not (self.view.rendered[0] <= slot < self.view.rendered[1]):
            self.view.scroll_to_slot(slot, mark=False)
        else:
            self.view.rerender_slot(slot)  # its folds holding a match open
        marks.refresh()
        cursor = marks.cursor_of(number)
        if cursor is not None:
            self.view.setTextCursor(cursor)
            self.view.ensureCursorVisible()
        self.say_count()

    def say_count(self) -> None:
        """What the bar says: ``n of N``, ``No matches``, counting."""
        marks = self.view.marks
        if not marks.needle:
            self.find_bar.set_count("")
        elif not marks.total:
            self.find_bar.set_count("No matches" if marks.complete else "counting…")
        else:
            at = f"{marks.current + 1:,} of " if marks.current is not None else ""
            more = "" if marks.complete else "+"
            self.find_bar.set_count(f"{at}{marks.total:,}{more}")
