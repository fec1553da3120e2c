"""The find bar above the transcript: a query box, ``n of N``, previous and next, close.

Enter finds the next match, Shift+Enter the previous one, Escape closes the bar. Typing waits for a pause
before asking for a new count (:attr:`FindBar.query_changed`), so a long session is not counted once per
keystroke.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

__all__ = ["FindBar"]

_PAUSE_MSECS = 200  # typing pause before a new count


class FindBar(QWidget):
    """Find in the open session; hidden until asked for."""

    query_changed = Signal(str)  # after a pause in typing (``""`` when the box is emptied)
    next_requested = Signal()
    previous_requested = Signal()
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("find_bar")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        self.edit = QLineEdit()
        self.edit.setObjectName("find_in_session")
        self.edit.setPlaceholderText("Find in this session")
        self.edit.setClearButtonEnabled(True)
        self.edit.setAccessibleName("Find in session")
        self.count = QLabel()
        self.count.setObjectName("find_count")
        self.count.setMinimumWidth(90)
        self.previous_button = self._button(
            "▲", "Previous match (Shift+Enter, Shift+F3)", self.previous_requested
        )
        self.next_button = self._button("▼", "Next match (Enter, F3)", self.next_requested)
        close = self._button("✕", "Close (Escape)", self.closed)
        close.clicked.connect(self.hide)
        for widget in (self.edit, self.count, self.previous_button, self.next_button, close):
            layout.addWidget(widget, 1 if widget is self.edit else 0)
        self._timer = QTimer(self, singleShot=True, interval=_PAUSE_MSECS)
        self._timer.timeout.connect(lambda: self.query_changed.emit(self.edit.text()))
        self.edit.textChanged.connect(lambda _text: self._timer.start())
        self.edit.installEventFilter(self)
        self.hide()

    def _button(self, text: str, tip: str, signal: SignalInstance) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAccessibleName(tip.split(" (")[0])
        button.setAutoRaise(True)
        button.clicked.connect(signal.emit)
        return button

    @property
    def query(self) -> str:
        """The text in the box."""
        return self.edit.text()

    def open(self, text: str | None = None) -> None:
        """Show the bar with the focus in the box (its text selected, or ``text`` put in)."""
        self.show()
        if text is not None and text != self.edit.text():
            self.edit.setText(text)
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.edit.selectAll()

    def flush(self) -> None:
        """Ask for the count of what is typed now, if a pause is still awaited."""
        if self._timer.isActive():
            self._timer.stop()
            self.query_changed.emit(self.edit.text())

    def set_count(self, text: str) -> None:
        """What the count says (``3 of 17``, ``No matches``, ``counting… 12``)."""
        self.count.setText(text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.edit and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.flush()
                shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
                (self.previous_requested if shift else self.next_requested).emit()
                return True
            if key == Qt.Key.Key_Escape:
                self.hide()
                self.closed.emit()
                return True
        return super().eventFilter(watched, event)
