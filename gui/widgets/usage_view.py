"""The Usage window: filters, summary cards, charts and tables of where the tokens and the money went.

The window only shows figures (:class:`gui.models.usage_figures.UsageFigures`) and says what the user
asks for (``query_changed``); the usage controller computes the figures in a worker. Switching between
cost and tokens redraws the figures it has without asking again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

from PySide6.QtCore import QCoreApplication, QEvent, QModelIndex, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QPaintEvent, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.formatting import dollars, short_tokens
from core.usage import UsageFilter
from gui.models.roles import Role
from gui.models.usage_figures import (
    OTHER,
    PERIODS,
    PRESETS,
    STACKED,
    STACKS,
    Card,
    UsageFigures,
    UsageQuery,
    preset_range,
    summary_cards,
)
from gui.models.usage_tables import UsageTableModel
from gui.widgets.usage_charts import HeatChart, MixChart, TimeBars

__all__ = ["BRANCHES", "UsageWindow"]

BRANCHES = {"all": "All branches", "current": "Current paths", "abandoned": "Abandoned branches"}
_WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
_CALENDAR_WEEKS = 53  # at most a year of days
_CALENDAR_MIN_WEEKS = 17  # and at least four months, so that a few days still look like a calendar


def _combo(choices: dict[str, str], tip: str) -> QComboBox:
    box = QComboBox()
    for key, text in choices.items():
        box.addItem(text, key)
    box.setToolTip(tip)
    return box


class _CardWidget(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # A blank to begin with, not nothing: an empty label has no height, and the cards growing when the
        # first figures come would move everything under them (and paint it all again).
        self.caption, self.value, self.detail = QLabel("\u00a0"), QLabel("\u00a0"), QLabel("\u00a0")
        font = self.value.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.value.setFont(font)
        small = self.detail.font()
        small.setPointSizeF(small.pointSizeF() * 0.9)
        self.detail.setFont(small)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(0)
        for label in (self.caption, self.value, self.detail):
            layout.addWidget(label)

    def show_card(self, card: Card) -> None:
        self.caption.setText(card.caption)
        self.value.setText(card.value)
        self.detail.setText(card.detail)
        self.setToolTip(card.tip)


class UsageWindow(QWidget):
    """Where the tokens and the money went: by day, model, project and session, on every branch."""

    query_changed = Signal(object)  # the UsageQuery the user now asks for
    session_activated = Signal(str)  # a top session double-clicked: its path
    closed = Signal()
    figures_drawn = Signal(object)  # the UsageFigures now drawn in every chart

    def __init__(self, parent: QWidget | None = None, *, staged: bool = False) -> None:
        """The window, whole; with ``staged`` only its filters and cards, the rest by :meth:`build_part`."""
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("Usage and Cost — Prime Sessions")
        self.setObjectName("usage_window")
        self.figures: UsageFigures | None = None
        self.drawn = False  # every chart shows self.figures
        self._drawing = 0  # counts show_figures calls: a newer one ends an older one's steps
        self._today = date.today
        self._after_paint: Callable[[], None] | None = None
        self._paint_fallback = QTimer(self)
        self._paint_fallback.setSingleShot(True)
        self._paint_fallback.setInterval(250)
        self._paint_fallback.timeout.connect(self._painted)
        self._charts: list[TimeBars | MixChart | HeatChart] = []
        self._build_filters()
        self.cards = [_CardWidget() for _ in range(8)]
        cards = QGridLayout()
        cards.setSpacing(6)
        for i, card in enumerate(self.cards):
            cards.addWidget(card, 0, i)
        self.status = QLabel()
        self.status.setEnabled(False)
        self._body = QSplitter(Qt.Orientation.Vertical)
        self._body.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(self.filters)
        layout.addLayout(cards)
        layout.addWidget(self._body, 1)
        layout.addWidget(self.status)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self, self.close)
        self.resize(1600, 1000)
        # Making the whole window takes 25-30 ms (Qt Charts' first charts, PySide's enums made on first
        # use, three table views): the usage controller builds it one part per turn of the event loop.
        self._parts: list[Callable[[], None]] = [self._build_charts, self._build_tables]
        while not staged and self.build_part():
            pass

    @property
    def built(self) -> bool:
        """Whether every part of the window is made (see :meth:`build_part`)."""
        return not self._parts

    def build_part(self) -> bool:
        """Make the next part of the window (the charts, then the tables); whether any is left to make."""
        if self._parts:
            self._parts.pop(0)()
        return bool(self._parts)

    # ------------------------------------------------------------------ building
    def _build_charts(self) -> None:
        self.bars = TimeBars()
        self.mix = MixChart("Model mix")
        self.calendar = HeatChart("Calendar")
        self.hours = HeatChart("Cost by weekday and hour")
        self._charts = [self.bars, self.mix, self.calendar, self.hours]
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.bars)
        top.addWidget(self.mix)
        top.setSizes([1100, 500])
        middle = QSplitter(Qt.Orientation.Horizontal)
        middle.addWidget(self.calendar)
        middle.addWidget(self.hours)
        middle.setSizes([1000, 600])
        for part in (top, middle):
            self._body.addWidget(part)
            part.setMinimumHeight(150)
        self.restyle()

    def _build_tables(self) -> None:
        self.tables = {kind: UsageTableModel(kind, self) for kind in ("session", "project", "model")}
        self.views: dict[str, QTableView] = {}
        self.tabs = QTabWidget()
        # Without the panel frame (the table has its own): Fusion fills the whole panel under the table
        # before the table paints, a third of what reopening the window cost.
        self.tabs.setDocumentMode(True)
        for kind, title in (("session", "Top sessions"), ("project", "Projects"), ("model", "Models")):
            self.views[kind] = view = self._table(self.tables[kind])
            self.tabs.addTab(view, title)
        self.views["session"].doubleClicked.connect(self._on_session_double_clicked)
        self._body.addWidget(self.tabs)
        self.tabs.setMinimumHeight(150)
        self._body.setSizes([330, 230, 300])

    def _build_filters(self) -> None:
        self.range_box = _combo(PRESETS, "Which days count (in this machine's time zone)")
        self.range_box.setCurrentIndex(list(PRESETS).index("all"))
        self.project_box = QComboBox()
        self.project_box.addItem("All projects", None)
        self.project_box.setToolTip("Only the sessions of one project (their working folder)")
        # The boxes keep a width of their own, whatever the names they list (a long project path, a model
        # name): the filter row fits a 1,100 px screen; the lists open as wide as their entries.
        self.project_box.setMinimumContentsLength(10)
        self.project_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_box = QComboBox()
        self.model_box.addItem("All models", None)
        self.model_box.setToolTip("Only the usage of one model")
        self.model_box.setMinimumContentsLength(10)
        self.model_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.branches_box = _combo(
            BRANCHES, "Every branch, only each session's current path, or only the rest"
        )
        self.branches_box.setMinimumContentsLength(10)
        self.branches_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.period_box = _combo(PERIODS, "One bar per day, week or month")
        self.stack_box = _combo(STACKS, "What the bars are stacked by")
        self.metric_group = QButtonGroup(self)
        self.metric_buttons: dict[str, QToolButton] = {}
        for key, text in (("cost", "Cost"), ("tokens", "Tokens")):
            button = QToolButton()
            button.setText(text)
            button.setCheckable(True)
            button.setAutoRaise(False)
            self.metric_group.addButton(button)
            self.metric_buttons[key] = button
        self.metric_buttons["cost"].setChecked(True)
        self.metric_buttons["tokens"].setToolTip("Show tokens instead of cost")
        self.metric_buttons["cost"].setToolTip("Show cost (cost.total as recorded)")
        self.filters = row = QHBoxLayout()
        row.setSpacing(3)  # with the boxes' own widths (above): the row fits a 1,100 px window
        for label, widget in (
            ("Days:", self.range_box),
            ("Project:", self.project_box),
            ("Model:", self.model_box),
            ("Branches:", self.branches_box),
            ("Bars per:", self.period_box),
            ("Stacked by:", self.stack_box),
        ):
            row.addWidget(QLabel(label))
            row.addWidget(widget)
        row.addStretch(1)
        for button in self.metric_buttons.values():
            row.addWidget(button)
        for box in (
            self.range_box,
            self.project_box,
            self.model_box,
            self.branches_box,
            self.period_box,
            self.stack_box,
        ):
            box.currentIndexChanged.connect(self._on_filter_changed)
        self.metric_group.buttonToggled.connect(self._on_metric_toggled)

    def _table(self, model: UsageTableModel) -> QTableView:
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(model)
        proxy.setSortRole(Role.SORT)
        view = QTableView()
        view.setModel(proxy)
        view.setSortingEnabled(True)
        view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the report's order until a header is clicked
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.verticalHeader().hide()
        view.setAlternatingRowColors(True)
        view.setWordWrap(False)
        # A scroll bar that comes and goes with the rows narrows the viewport after a change of the
        # figures: the columns are stretched again and every cell painted twice more.
        view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        # Widths from the font, not ResizeToContents: that mode measures every row of every column after
        # each reset, thousands of Python data() calls (a 40 ms stall per change of the figures).
        header = view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        cells, titles = view.fontMetrics(), header.fontMetrics()
        padding = 2 * cells.horizontalAdvance("M")
        for section in range(1, model.columnCount()):
            title = str(model.headerData(section, Qt.Orientation.Horizontal))
            widest = max(
                cells.horizontalAdvance(model.width_sample(section)), titles.horizontalAdvance(title)
            )
            header.resizeSection(section, widest + padding)
        return view

    # ------------------------------------------------------------------ what is asked
    @property
    def measure(self) -> str:
        """``cost`` or ``tokens``: what the charts and cards measure."""
        return "tokens" if self.metric_buttons["tokens"].isChecked() else "cost"

    def set_measure(self, measure: str) -> None:
        """Show cost or tokens."""
        self.metric_buttons["tokens" if measure == "tokens" else "cost"].setChecked(True)

    def query(self) -> UsageQuery:
        """What the filters ask for now."""
        since, until = preset_range(str(self.range_box.currentData()), self._today())
        model = self.model_box.currentData()
        filt = UsageFilter(
            since=since,
            until=until,
            project=self.project_box.currentData(),
            model=model,
            branches=self.branches_box.currentData(),
        )
        return UsageQuery(filt, str(self.period_box.currentData()), str(self.stack_box.currentData()))

    def _on_filter_changed(self, *_args: object) -> None:
        self.status.setText("Updating…")
        self.query_changed.emit(self.query())

    def _on_metric_toggled(self, _button: object, checked: bool) -> None:
        if checked and self.figures is not None:
            self.show_figures(self.figures)

    def _on_session_double_clicked(self, index: QModelIndex) -> None:
        row = index.data(Role.ITEM)
        if row is not None:
            self.session_activated.emit(row.key)

    # ------------------------------------------------------------------ showing
    def show_figures(self, figures: UsageFigures) -> None:
        """Show ``figures`` (the answer to the current query); ``figures_drawn`` says when all is drawn.

        Each chart's first paint after new data lays its scene out again (tens of milliseconds on a busy
        machine): the cards and tables are filled at once (and painted in the next turn of the event
        loop), the charts one per later turn, each painted there, so that no turn holds the main thread
        for long.
        """
        self.figures = figures
        self.drawn = False
        self._drawing += 1
        drawing = self._drawing
        cost = self.measure == "cost"
        shown = dollars if cost else short_tokens
        for widget, card in zip(
            self.cards, summary_cards(figures, "cost" if cost else "tokens"), strict=True
        ):
            widget.show_card(card)
        self._offer(self.project_box, figures.all_projects)
        self._offer(self.model_box, figures.all_models)
        for kind, rows in (
            ("session", figures.sessions),
            ("project", figures.projects),
            ("model", figures.models),
        ):
            self.tables[kind].set_rows(rows)
            # Laid out now, not by the first paint, which would ask for a second one.
            self.views[kind].executeDelayedItemsLayout()
        self._show_status(figures)

        def bars() -> None:
            self.bars.set_data(
                figures.periods,
                figures.query.period,
                [(s.name, s.cost if cost else s.tokens) for s in figures.stacks],
                shown,
                money=cost,
            )
            self.bars.chart_object.setTitle(
                f"{'Cost' if cost else 'Tokens'} per {PERIODS[figures.query.period].lower()},"
                f" by {STACKS[figures.query.stack].lower()}"
            )

        steps: list[tuple[QWidget, Callable[[], None]]] = [
            (self.tabs, lambda: None),  # the tables and the cards, painted before any chart
            (self.bars, bars),
            (self.mix, lambda: self.mix.set_data(self._mix(figures, cost), shown)),
            (self.calendar, lambda: self._show_calendar(figures, cost)),
            (self.hours, lambda: self._show_hours(figures)),
        ]

        def step() -> None:
            if drawing != self._drawing:
                return  # newer figures came: their steps draw instead
            widget, fill = steps.pop(0)
            fill()
            if self.isVisible():
                widget.repaint()
            if steps:
                QTimer.singleShot(0, self, step)
            else:
                self.drawn = True
                self.figures_drawn.emit(figures)

        QTimer.singleShot(0, self, step)

    def keep_figures(self, figures: UsageFigures) -> bool:
        """If ``figures`` equal those drawn (every chart), keep them: ``figures_drawn`` at once, True.

        Nothing is drawn again; False (nothing done) when they differ or are still being drawn.
        """
        if not (self.drawn and self.figures == figures):
            return False
        self._show_status(figures)
        self.figures_drawn.emit(self.figures)
        return True

    def _show_status(self, figures: UsageFigures) -> None:
        totals = figures.totals
        self.status.setText(
            f"{totals.sessions:,} sessions · {dollars(totals.total_cost)}"
            f" · {short_tokens(totals.total_tokens)} tokens · every branch counted;"
            " forks' and clones' copies of their parent's entries counted once"
            + (
                f"; {dollars(figures.undated.total_cost)} dated outside the years 1 to 9999 is on no day"
                if figures.undated is not None
                else ""
            )
        )

    @staticmethod
    def _offer(box: QComboBox, choices: list[str]) -> None:
        """Keep ``box``'s choices up to date without changing (or signalling) the current one."""
        current = [box.itemData(i) for i in range(1, box.count())]
        if current == choices:
            return
        chosen = box.currentData()
        box.blockSignals(True)
        while box.count() > 1:
            box.removeItem(1)
        for choice in choices:
            box.addItem(choice, choice)
        if chosen is not None and chosen not in choices:
            box.addItem(chosen, chosen)  # still what is asked for, though nothing matches it now
        box.setCurrentIndex(max(0, box.findData(chosen)) if chosen is not None else 0)
        box.blockSignals(False)

    @staticmethod
    def _mix(figures: UsageFigures, cost: bool) -> list[tuple[str, float]]:
        parts = [(row.key, row.total_cost if cost else float(row.total_tokens)) for row in figures.models]
        parts.sort(key=lambda part: -part[1])
        if len(parts) > STACKED + 1:
            parts = [*parts[:STACKED], (OTHER, sum(value for _name, value in parts[STACKED:]))]
        return [part for part in parts if part[1] > 0]

    def _show_calendar(self, figures: UsageFigures, cost: bool) -> None:
        by_day = {row.key: (row.total_cost if cost else float(row.total_tokens)) for row in figures.days}
        filt = figures.query.filt
        days = [date.fromisoformat(row.key) for row in figures.days]
        end = filt.until or (days[-1] if days else self._today())
        start = filt.since or (days[0] if days else end)
        start = max(start, end - timedelta(days=7 * _CALENDAR_WEEKS - 1 - end.weekday()))
        last_monday = end - timedelta(days=end.weekday())
        monday = min(
            start - timedelta(days=start.weekday()), last_monday - timedelta(weeks=_CALENDAR_MIN_WEEKS - 1)
        )
        cells: dict[tuple[int, int], float] = {}  # the days in the range only: the rest of the grid is blank
        labels: list[tuple[str, float]] = []
        day = monday
        while day <= end:
            column = (day - monday).days // 7
            if day >= start:
                cells[(column, day.weekday())] = by_day.get(day.isoformat(), 0.0)
            if (day.day == 1 or day == monday) and (not labels or labels[-1][1] != column):
                labels.append((day.strftime("%b"), column))
            day += timedelta(days=1)
        columns = (end - monday).days // 7 + 1
        shown = dollars if cost else short_tokens

        def tip(x: int, y: int) -> str:
            moment = monday + timedelta(days=7 * x + y)
            return f"{moment.isoformat()} ({_WEEKDAYS[y]}): {shown(by_day.get(moment.isoformat(), 0.0))}"

        self.calendar.set_data((columns, 7), cells, labels, _WEEKDAYS, tip)
        self.calendar.chart_object.setTitle(f"{'Cost' if cost else 'Tokens'} per day, {start} to {end}")

    def _show_hours(self, figures: UsageFigures) -> None:
        grid = figures.grid
        cells = {(hour, day): grid[day][hour] for day in range(7) for hour in range(24)}
        labels = [(f"{hour:02d}", float(hour)) for hour in range(0, 24, 3)]

        def tip(x: int, y: int) -> str:
            return f"{_WEEKDAYS[y]} {x:02d}:00–{x:02d}:59: {dollars(grid[y][x])}"

        self.hours.set_data((24, 7), cells, labels, _WEEKDAYS, tip)

    def restyle(self) -> None:
        """Draw the charts in the current palette."""
        for chart in self._charts:  # those made so far
            chart.restyle()

    def after_paint(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once, in the turn of the event loop after the window's next paint.

        The usage controller starts its worker there: Python in a worker thread holds the GIL for up to
        5 ms at a time, and every call into Python a paint makes waits for it (a first paint took 2-4
        times as long beside the worker). If no paint comes (a window shown but not exposed), in 250 ms.
        """
        self._after_paint = callback
        self._paint_fallback.start()

    def _painted(self) -> None:
        self._paint_fallback.stop()
        callback, self._after_paint = self._after_paint, None
        if callback is not None:
            callback()

    # ------------------------------------------------------------------ events
    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._after_paint is not None:
            QTimer.singleShot(0, self, self._painted)  # the children are painted in this turn too

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # Showing lays the window out: the tab widget, the tables' scroll bars and each chart's own layout
        # ask for it in posted events, which would come after the first paint and paint most of the
        # window a second time in the same turn. They are carried out now, before anything is painted.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self.restyle()
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.closed.emit()
        super().closeEvent(event)
