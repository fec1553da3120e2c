"""The Usage view's charts, drawn by Qt Charts (PySide6-Addons): stacked bars, a donut and heat grids.

Each chart is a ``QChartView`` that is given plain numbers (:meth:`set_data`) and draws them in the
application's light or dark palette (:meth:`restyle`, called again when the palette changes). Qt Charts
has no heat map, so the calendar and the hour-by-weekday grid are scatter series of square markers, one
series per shade, sized to the plot area. Hovering a bar, a slice or a cell shows its figure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCharts import (
    QAbstractAxis,
    QBarSet,
    QCategoryAxis,
    QChart,
    QChartView,
    QPieSeries,
    QPieSlice,
    QScatterSeries,
    QStackedBarSeries,
    QValueAxis,
)
from PySide6.QtCore import QMargins, QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QCursor, QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

from gui.theme import is_dark

__all__ = ["HeatChart", "MixChart", "TimeBars", "series_colours"]

# Distinguishable in both themes and for the common colour-vision deficiencies (Okabe and Ito's
# palette, ordered so neighbours in a stack differ in lightness); the last is "Other".
_LIGHT = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#8c8c8c"]
_DARK = ["#3d9be0", "#f0b429", "#2dc59a", "#e597c4", "#7cc8f0", "#ff7b3a", "#9a9a9a"]
# Heat shades from "nothing" to "most" (GitHub's contribution greens, which read in both themes).
_HEAT_LIGHT = ["#ebedf0", "#9be9a8", "#40c463", "#30a14e", "#216e39"]
_HEAT_DARK = ["#262c33", "#0e4429", "#006d32", "#26a641", "#39d353"]
Formatter = Callable[[float], str]


def series_colours(count: int, *, other_last: bool = False) -> list[QColor]:
    """``count`` series colours for the current theme; with ``other_last`` the last one is grey."""
    names = _DARK if is_dark() else _LIGHT
    picked = [QColor(names[i % (len(names) - 1)]) for i in range(count)]
    if other_last and picked:
        picked[-1] = QColor(names[-1])
    return picked


class _Chart(QChartView):
    """A chart view in the application's palette, without Qt Charts' own themes and animations."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        self._chart = QChart()
        super().__init__(self._chart, parent)
        self._chart.setTitle(title)
        self._chart.setMargins(QMargins(4, 4, 4, 4))
        self._chart.layout().setContentsMargins(0, 0, 0, 0)
        self._chart.setBackgroundRoundness(0)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setMinimumHeight(180)

    @property
    def chart_object(self) -> QChart:
        """The chart drawn (for tests and screenshots)."""
        return self._chart

    def restyle(self) -> None:
        """Draw in the current palette (light or dark)."""
        palette = QApplication.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        grid = QColor(text)
        grid.setAlpha(40)
        self._chart.setBackgroundBrush(QBrush(palette.color(QPalette.ColorRole.Base)))
        self.setBackgroundBrush(QBrush(palette.color(QPalette.ColorRole.Base)))
        self._chart.setTitleBrush(QBrush(text))
        font = QFont(self.font())
        font.setBold(True)
        self._chart.setTitleFont(font)
        self._chart.legend().setLabelColor(text)
        for axis in self._chart.axes():
            axis.setLabelsColor(text)
            axis.setLinePenColor(grid)
            axis.setGridLineColor(grid)
            axis.setTitleBrush(QBrush(text))
        self._colour_series()

    def _colour_series(self) -> None:
        """Give the series their theme's colours (each chart knows its series)."""

    def _clear(self) -> None:
        self._chart.removeAllSeries()
        for axis in self._chart.axes():
            self._chart.removeAxis(axis)

    def _add_axis(self, axis: QAbstractAxis, alignment: Qt.AlignmentFlag, *series: object) -> None:
        self._chart.addAxis(axis, alignment)
        for item in series:
            item.attachAxis(axis)  # type: ignore[attr-defined]


def _label_steps(keys: Sequence[str], period: str) -> list[tuple[str, int]]:
    """Where the time axis is labelled: month starts (or every few months) for days and weeks, else a few."""
    if not keys:
        return []
    marks: list[tuple[str, int]] = []
    if period in ("daily", "weekly"):
        last_month = ""
        for i, key in enumerate(keys):
            if key[:7] != last_month:
                last_month = key[:7]
                marks.append((key[:7] if period == "weekly" or len(keys) > 62 else key, i))
        if len(marks) < 2:
            step = max(1, len(keys) // 6)
            marks = [(keys[i], i) for i in range(0, len(keys), step)]
    else:
        marks = [(key, i) for i, key in enumerate(keys)]
    step = max(1, -(-len(marks) // 12))  # at most about a dozen labels
    return marks[::step]


class TimeBars(_Chart):
    """Cost (or tokens) over time, one stacked bar per day, week or month, one colour per model or project."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Over time", parent)
        self._series: QStackedBarSeries | None = None
        self._keys: list[str] = []
        self._format: Formatter = str
        self._values: list[list[float]] = []  # per set, unscaled (the tooltips' figures)
        self._scale = 1.0
        self._money = True
        self._chart.legend().setAlignment(Qt.AlignmentFlag.AlignTop)

    def set_data(
        self,
        keys: list[str],
        period: str,
        stacks: Sequence[tuple[str, Sequence[float]]],
        shown: Formatter,
        *,
        money: bool = True,
    ) -> None:
        """Bars for ``keys`` (oldest first); ``stacks`` are (name, one value per key), bottom first.

        ``shown`` writes a value for a tooltip; ``money`` puts a dollar sign on the axis.
        """
        self._money = money
        self._clear()
        self._keys, self._format = list(keys), shown
        totals = [0.0] * len(keys)
        for _name, values in stacks:
            totals = [t + float(v) for t, v in zip(totals, values, strict=True)]
        top = max(totals, default=0.0)
        # Qt Charts' axis labels are printf formats: large counts are drawn in thousands or millions.
        scale, unit = next(((s, u) for s, u in ((1e6, "M"), (1e3, "k")) if top >= 10 * s), (1.0, ""))
        self._scale = scale
        self._values = [list(values) for _name, values in stacks]
        series = self._series = QStackedBarSeries()
        series.setBarWidth(0.85)
        for name, values in stacks:
            bar_set = QBarSet(name)
            bar_set.append([float(v) / scale for v in values])
            bar_set.setPen(QPen(Qt.PenStyle.NoPen))
            series.append(bar_set)
        top /= scale
        series.hovered.connect(self._hovered)
        self._chart.addSeries(series)
        x = QCategoryAxis()
        x.setLabelsPosition(QCategoryAxis.AxisLabelsPosition.AxisLabelsPositionOnValue)
        x.setRange(-0.5, max(len(keys), 1) - 0.5)
        for label, at in _label_steps(keys, period):
            x.append(label, at - 0.5 if at else -0.499)  # on the bar's left edge; unique end values
        x.setGridLineVisible(False)
        self._add_axis(x, Qt.AlignmentFlag.AlignBottom, series)
        y = QValueAxis()
        y.setRange(0, top * 1.05 if top > 0 else 1)
        y.setTickCount(5)
        y.applyNiceNumbers()
        prefix = "$" if self._money else ""
        y.setLabelFormat(f"{prefix}%.{0 if top >= 10 else 2}f{unit}")
        self._add_axis(y, Qt.AlignmentFlag.AlignLeft, series)
        self._chart.legend().setVisible(bool(stacks))
        self.restyle()

    def bar_sets(self) -> list[QBarSet]:
        """The stacked sets, bottom first."""
        return self._series.barSets() if self._series is not None else []

    def _colour_series(self) -> None:
        sets = self.bar_sets()
        other = bool(sets) and sets[-1].label() == "Other"
        for bar_set, colour in zip(sets, series_colours(len(sets), other_last=other), strict=True):
            bar_set.setColor(colour)
            bar_set.setBorderColor(colour)

    def _hovered(self, status: bool, index: int, bar_set: QBarSet) -> None:
        sets = self.bar_sets()
        if status and 0 <= index < len(self._keys) and bar_set in sets:
            value = self._values[sets.index(bar_set)][index]
            QToolTip.showText(
                QCursor.pos(), f"{self._keys[index]}\n{bar_set.label()}: {self._format(value)}", self
            )
        else:
            QToolTip.hideText()


class MixChart(_Chart):
    """A donut of shares: the model mix."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self._pie: QPieSeries | None = None
        self._format: Formatter = str
        self._chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)

    def set_data(self, parts: Sequence[tuple[str, float]], shown: Formatter) -> None:
        """One slice per (name, value), in the order given; slices under 4% are not labelled."""
        self._clear()
        self._format = shown
        pie = self._pie = QPieSeries()
        pie.setHoleSize(0.45)
        pie.setPieSize(0.85)
        total = sum(value for _name, value in parts)
        for name, value in parts:
            share = value / total if total else 0.0
            # The legend has little room: the model without its provider (the tooltip has all of it).
            piece = pie.append(f"{name.rsplit('/', 1)[-1]} {100 * share:.0f}%", float(value))
            piece.setProperty("full_name", name)
            piece.setLabelVisible(False)
        pie.hovered.connect(self._hovered)
        self._chart.addSeries(pie)
        self.restyle()

    def slices(self) -> list[QPieSlice]:
        """The slices, in order."""
        return self._pie.slices() if self._pie is not None else []

    def _colour_series(self) -> None:
        pieces = self.slices()
        other = bool(pieces) and pieces[-1].label().startswith("Other ")
        base = QApplication.palette().color(QPalette.ColorRole.Base)
        for piece, colour in zip(pieces, series_colours(len(pieces), other_last=other), strict=True):
            piece.setColor(colour)
            piece.setBorderColor(base)

    def _hovered(self, piece: QPieSlice, state: bool) -> None:
        piece.setExploded(state)
        if state:
            QToolTip.showText(
                QCursor.pos(), f"{piece.property('full_name')}\n{self._format(piece.value())}", self
            )
        else:
            QToolTip.hideText()


class HeatChart(_Chart):
    """Cells in a grid shaded by value: a calendar (weeks x weekdays) or hours x weekdays."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self._levels: list[QScatterSeries] = []
        self._size = (1, 1)
        self._tip: Callable[[int, int], str] = lambda _x, _y: ""
        self._chart.legend().setVisible(False)
        self._chart.plotAreaChanged.connect(self._fit_cells)

    def set_data(
        self,
        size: tuple[int, int],
        cells: dict[tuple[int, int], float],
        x_labels: Sequence[tuple[str, float]],
        y_labels: Sequence[str],
        tip: Callable[[int, int], str],
    ) -> None:
        """Shade ``cells`` ((column, row) -> value) of a ``size`` grid; rows top to bottom as ``y_labels``.

        Args:
            size: (columns, rows).
            cells: the cells that exist (a calendar's days), with their values; others are not drawn.
            x_labels: (label, column) on the horizontal axis.
            y_labels: one label per row.
            tip: the tooltip of a cell.
        """
        self._clear()
        self._size, self._tip = size, tip
        top = max(cells.values(), default=0.0)
        self._levels = [QScatterSeries() for _ in range(5)]
        for level in self._levels:
            level.setMarkerShape(QScatterSeries.MarkerShape.MarkerShapeRectangle)
            level.setPen(QPen(Qt.PenStyle.NoPen))
            level.hovered.connect(self._hovered)
        for (column, row), value in cells.items():
            shade = 0 if value <= 0 or top <= 0 else min(4, 1 + int(4 * value / top * 0.999))
            self._levels[shade].append(QPointF(column, row))
        for level in self._levels:
            self._chart.addSeries(level)
        columns, rows = size
        x = QCategoryAxis()
        x.setLabelsPosition(QCategoryAxis.AxisLabelsPosition.AxisLabelsPositionOnValue)
        x.setRange(-0.5, columns - 0.5)
        for label, at in x_labels:
            x.append(label, at - 0.5 if at else -0.499)
        x.setGridLineVisible(False)
        x.setLineVisible(False)
        self._add_axis(x, Qt.AlignmentFlag.AlignBottom, *self._levels)
        y = QCategoryAxis()
        y.setLabelsPosition(QCategoryAxis.AxisLabelsPosition.AxisLabelsPositionOnValue)
        y.setRange(-0.5, rows - 0.5)
        y.setReverse(True)
        for row, label in enumerate(y_labels):
            y.append(label, row)
        y.setGridLineVisible(False)
        y.setLineVisible(False)
        self._add_axis(y, Qt.AlignmentFlag.AlignLeft, *self._levels)
        self.restyle()
        self._fit_cells()

    def shade_counts(self) -> list[int]:
        """How many cells each shade has, lightest first (for tests)."""
        return [level.count() for level in self._levels]

    def _colour_series(self) -> None:
        for level, name in zip(self._levels, _HEAT_DARK if is_dark() else _HEAT_LIGHT, strict=False):
            level.setColor(QColor(name))
            level.setBorderColor(QColor(name))

    def _fit_cells(self, *_args: object) -> None:
        area = self._chart.plotArea()
        columns, rows = self._size
        cell = min(area.width() / max(columns, 1), area.height() / max(rows, 1))
        for level in self._levels:
            level.setMarkerSize(max(2.0, cell * 0.86))

    def _hovered(self, point: QPointF, state: bool) -> None:
        if state:
            QToolTip.showText(QCursor.pos(), self._tip(round(point.x()), round(point.y())), self)
        else:
            QToolTip.hideText()
