"""Usage and cost: the Usage window, and the open session's usage in the branch tree and its header.

The window (View > Usage and Cost, Ctrl+Shift+U, a toolbar button) is made on first use. Its figures are
computed in a worker (channel ``"usage"``): the catalogue adds up its grouped usage into every figure of
the window's query at once (:meth:`core.catalogue.Catalogue.usage_overview`, tens of milliseconds; no
record is read). A change of filter asks again; a finished catalogue refresh (the window connects
:meth:`UsageController.catalogue_refreshed`) asks again while the window is shown, or marks the figures
stale while it is hidden (they stay on show when it is opened again, until the new ones come). Figures
equal to those drawn are not drawn again.
Double-clicking a top session asks for it to be opened.

For the open session a worker (channel ``"session-usage"``) works out each subtree's tokens and cost
(the branch tree's row tooltips) and the split between its current path and its abandoned branches (a
line above the tree), again after every change to the file.
"""

from __future__ import annotations

import gc
import html
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel

from core.formatting import dollars, one_line, short_tokens
from gui.actions import ActionRegistry
from gui.controllers.context import WindowContext
from gui.errors import user_sentence
from gui.models.branch_tree_model import BranchTreeModel
from gui.models.usage_figures import TOP_SESSIONS, UsageFigures, UsageQuery, compute_figures
from gui.scheduling import AFTER_APPEND_MSECS, Priority
from gui.widgets.usage_view import UsageWindow

if TYPE_CHECKING:
    from core.session import RefreshResult, Session, SessionSummary

__all__ = ["SessionUsage", "UsageController", "header_text", "read_figures", "session_usage"]


def read_figures(folder: Path | None, roots: list[Path], query: UsageQuery) -> UsageFigures:
    """Worker: the figures of ``query`` over the sessions under ``roots``, from the catalogue's overview."""
    from core.catalogue import Catalogue

    catalogue = Catalogue(folder)
    try:
        overview = catalogue.usage_overview(query.filt, query.period, roots, TOP_SESSIONS)
    finally:
        catalogue.close()
    return compute_figures(overview, query)


class SessionUsage(NamedTuple):
    """The open session's usage: each subtree's, and its current path's against the rest."""

    subtrees: dict[str, tuple[int, float]]
    current: tuple[int, float]
    abandoned: tuple[int, float]


def session_usage(session: Session) -> SessionUsage:
    """Worker: :func:`core.usage.subtree_usage` and :func:`core.usage.path_split` of ``session``."""
    from core.usage import path_split, subtree_usage

    current, abandoned = path_split(session, session.leaf_id)
    return SessionUsage(subtree_usage(session), current, abandoned)


def header_text(
    usage: SessionUsage, summary: SessionSummary | None = None, parent: SessionSummary | None = None
) -> str:
    """The line above the tree (rich text): the session's cost and tokens, on the current path and elsewhere.

    With its listed summary: a parent's cost with its children's, each counted once (own + subagents);
    a child says whose it is, with a link (``href``: the parent's path) to open the parent.
    """
    (path_tokens, path_cost), (off_tokens, off_cost) = usage.current, usage.abandoned
    cost = dollars(path_cost + off_cost)
    if summary is not None and (summary.subagents or summary.childCost):
        count = f"{summary.subagents} subagent{'s' if summary.subagents != 1 else ''}"
        cost = (
            f"{dollars(summary.family_cost)} with its {count} (this session {dollars(summary.own_cost)},"
            f" its subagents {dollars(summary.childCost)})"
        )
    text = f"Usage {cost} · {short_tokens(path_tokens + off_tokens)} tokens"
    if off_tokens or off_cost:
        text += (
            f" — current path {dollars(path_cost)} ({short_tokens(path_tokens)}),"
            f" abandoned branches {dollars(off_cost)} ({short_tokens(off_tokens)})"
        )
    text = html.escape(text)
    if summary is not None and summary.subagentDepth:
        if parent is not None:
            title = one_line(parent.title)
            title = title if len(title) <= 80 else title[:79] + "…"
            link = f'<a href="{html.escape(parent.path)}">“{html.escape(title)}”</a>'
            text = f"Subagent session of {link} · {text}"
        else:
            text = f"Subagent session (its parent is not listed) · {text}"
    return text


class UsageController(QObject):
    """Owns the Usage window, its figures and the open session's usage figures."""

    figures_shown = Signal(object)  # the UsageFigures the window now shows, every chart drawn
    session_usage_shown = Signal(object)  # the SessionUsage of the open session now shown

    def __init__(
        self,
        context: WindowContext,
        actions: ActionRegistry,
        *,
        roots: Callable[[], list[Path]],
        catalogue_dir: Path | None,
        tree_model: BranchTreeModel,
        header: QLabel,
    ) -> None:
        super().__init__(context)
        self._context = context
        self._roots = roots
        self._catalogue_dir = catalogue_dir
        self._tree_model = tree_model
        self._header = header
        # Rich text: a child session's line links to its parent (the path is the link), which opens it.
        header.setTextFormat(Qt.TextFormat.RichText)
        header.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        header.setOpenExternalLinks(False)
        header.linkActivated.connect(context.open_session)
        self.window: UsageWindow | None = None
        self._generation = 0  # counts catalogue refreshes: the figures shown are of _shown_generation
        self._shown_generation = -1
        self._running = False  # a computation is under way
        self._pending = False  # and another was asked for meanwhile
        self._closed = False  # the main window is closing: the window is not made or shown any more
        self.action = actions.add(
            "view.usage",
            "&Usage and Cost",
            self.show_window,
            shortcut="Ctrl+Shift+U",
            tip="Where the tokens and the money went: by day, model, project, session and branch",
            menu="View",
            section="usage",
            toolbar=True,
        )
        context.session_loaded.connect(lambda session: self._on_session_changed(session, loaded=True))
        self._settle = QTimer(self)  # the usage of a session that grew, once the window has shown its lines
        self._settle.setSingleShot(True)
        self._settle.setInterval(AFTER_APPEND_MSECS)
        self._settle.timeout.connect(lambda: self._on_session_changed(context.session))
        context.session_updated.connect(self._on_session_updated)
        context.session_closed.connect(self._on_session_closed)

    # ------------------------------------------------------------------ the window
    def show_window(self) -> UsageWindow:
        """Show the Usage window (made on first use) and bring its figures up to date.

        The first time, the window is made one part per turn of the event loop and shown once whole
        (:meth:`UsageWindow.build_part`), so that no turn holds the main thread for long.
        """
        window = self.window
        if window is None:
            window = self.window = UsageWindow(self._context.dialog_parent, staged=True)
            window.query_changed.connect(lambda _query: self.update())
            window.session_activated.connect(self._open_session)
            window.figures_drawn.connect(self.figures_shown)
            window.status.setText("Reading usage…")
            self._build(window)
        elif window.built:
            self._present(window)
        return window

    def _build(self, window: UsageWindow) -> None:
        def step() -> None:
            if self.window is not window or self._closed:
                return
            if window.built:
                self._present(window)  # showing lays the window out: a turn of its own
                return
            window.build_part()
            QTimer.singleShot(0, window, step)

        QTimer.singleShot(0, window, step)

    def _present(self, window: UsageWindow) -> None:
        shown = window.isVisible()
        window.show()
        window.raise_()
        window.activateWindow()
        if self._shown_generation != self._generation or window.figures is None:
            # The figures of before stay on show until the new ones are drawn; the worker starts once the
            # window has painted, so that the two do not fight over the GIL.
            if shown:
                self.update()
            else:
                window.after_paint(self.update)

    @property
    def visible(self) -> bool:
        """Whether the Usage window is shown."""
        return self.window is not None and self.window.isVisible()

    def catalogue_refreshed(self, ok: bool) -> None:
        """The catalogue was brought up to date: the figures are worked out again (now, if it shows)."""
        if not ok:
            return
        self._generation += 1
        if self.visible:
            self.update()

    def roots_changed(self) -> None:
        """Other folders are listed: the figures shown are of the old ones."""
        self._generation += 1

    def update(self) -> None:
        """Work out the figures of the window's query in a worker.

        One computation at a time: a request while one runs (a live session refreshes the catalogue every
        few hundred milliseconds) is carried out once it ends, with the query of then.
        """
        window = self.window
        if window is None:
            return
        if self._running:
            self._pending = True
            return
        self._running = True
        query = window.query()
        generation = self._generation
        folder, roots = self._catalogue_dir, list(self._roots())

        def done(figures: UsageFigures) -> None:
            self._running = False
            if self._show(figures):
                self._shown_generation = generation
            self._again()

        def failed(error: Exception) -> None:
            self._running = False
            if self.window is not None:
                self.window.status.setText(f"Cannot read the usage: {user_sentence(error)}")
            self._again()

        # Foreground: the figures of a window the user opened, or of the filters just chosen there.
        self._context.runner.start(
            "usage",
            lambda _task: read_figures(folder, roots, query),
            done,
            failed,
            priority=Priority.FOREGROUND,
        )

    def _again(self) -> None:
        if self._pending:
            self._pending = False
            self.update()

    def _show(self, figures: UsageFigures) -> bool:
        """Show ``figures`` if they answer the window's query now; False if they came too late."""
        window = self.window
        if window is None:
            return False
        if figures.query != window.query():
            self._pending = True  # the filters changed (or a day passed) while the worker ran
            return False
        figures.listed = len(self._context.summaries())  # the Sessions card says why theirs may be fewer
        # Figures equal to those drawn (a refresh that brought no usage, a reopening) are not drawn again;
        # either way figures_shown follows once every chart shows them.
        if not window.keep_figures(figures):
            window.show_figures(figures)
        return True

    def _open_session(self, path: str) -> None:
        self._context.open_session(path)
        parent = self._context.dialog_parent
        parent.raise_()
        parent.activateWindow()

    def close(self) -> None:
        """Close the window (the main window is closing)."""
        self._closed = True
        if self.window is not None:
            self.window.close()

    # ------------------------------------------------------------------ the open session
    def _on_session_changed(self, session: Session | None, *, loaded: bool = False) -> None:
        if session is None:
            self._on_session_closed()
            return

        def done(usage: SessionUsage) -> None:
            if self._context.session is not session:
                return
            self._tree_model.set_subtree_usage(session, usage.subtrees)
            summary = self._context.summary_for(session.path)
            parent = None
            if summary is not None and summary.subagentOf is not None:
                parent = self._context.summary_for(os.path.abspath(summary.subagentOf))
            self._header.setText(header_text(usage, summary, parent))
            self._header.setToolTip(
                "The current path is the path to the session's last entry; abandoned branches are every "
                "other branch (their usage was paid for too). Hover an entry for its subtree's usage."
            )
            self._header.show()
            self.session_usage_shown.emit(usage)

        def work(_task: object) -> SessionUsage:
            usage = session_usage(session)
            if loaded:
                # Each entry's subtree figures live as long as the session does: frozen with its index (the
                # load froze it, gui.controllers.opened.load), a full collection no longer walks them. The
                # collection before the next load walked 70-100 ms more with a 1 GB session's unfrozen.
                gc.freeze()
            return usage

        self._context.runner.start("session-usage", work, done, priority=Priority.BACKGROUND)

    def _on_session_updated(self, result: RefreshResult) -> None:
        if result.appended and not result.reloaded:
            self._settle.start()  # again: a burst of lines is one pass
        else:  # read again whole, or nothing read but what derives from it changed (its children)
            self._settle.stop()
            self._on_session_changed(self._context.session)

    def _on_session_closed(self) -> None:
        self._settle.stop()
        self._context.runner.cancel("session-usage")
        self._header.hide()
        self._header.clear()
