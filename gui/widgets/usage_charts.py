"""The Usage view's charts, drawn by Qt Charts (PySide6-Addons): stacked bars, a donut and heat grids.

Each chart is a ``QChartView`` that is given plain numbers (:meth:`set_data`) and draws them in the
application's light or dark palette (:meth:`restyle`, called again when the palette changes). Qt Charts
has no heat map, so the calendar and the hour-by-weekday grid are scatter series of square markers, one
series per shade, sized to the plot area. Hovering a bar, a slice or a cell shows its figure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial

from PySide6.QtCharts import (
    QAbstractAxis,
    QBarSet,
    QCategoryAxis,
    QChart,
    QChartView,
    QPieLegendMarker,
    QPieSeries,
    QPieSlice,
    QScatterSeries,
    QStackedBarSeries,
    QValueAxis,
)
from PySide6.QtCore import QMargins, QPointF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QCursor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPalette,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

from gui.models.time_axis import axis_labels, continuous_keys
from gui.theme import is_dark

__all__ = ["HeatChart", "MixChart", "TimeBars", "legend_names", "series_colours"]

# Distinguishable in both themes and for the common colour-vision deficiencies (Okabe and Ito's
# palette, ordered so neighbours in a stack differ in lightness); the last is "Other".
_LIGHT = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#8c8c8c"]
_DARK = ["#3d9be0", "#f0b429", "#2dc59a", "#e597c4", "#7cc8f0", "#ff7b3a", "#9a9a9a"]
# Heat shades from "nothing" to "most" (GitHub's contribution greens, which read in both themes).
_HEAT_LIGHT = ["#ebedf0", "#9be9a8", "#40c463", "#30a14e", "#216e39"]
_HEAT_DARK = ["#262c33", "#0e4429", "#006d32", "#26a641", "#39d353"]
Formatter = Callable[[float], str]
LEGEND_NAME_PX = 170.0  # the most a model's name takes in the model-mix legend
LEGEND_NAME_MIN_PX = 100.0  # with less room for a name beside its share, the legend leaves the shares out


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


def _spread(values: Sequence[float], keys: Sequence[str], slot: dict[str, int], size: int) -> list[float]:
    """``values`` (one per key) at their keys' slots among ``size``, the other slots 0."""
    spread = [0.0] * size
    for key, value in zip(keys, values, strict=True):
        spread[slot[key]] = float(value)
    return spread


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
        self._period = "daily"
        self._x: QCategoryAxis | None = None
        self._labelled: list[tuple[str, int]] = []
        self._chart.legend().setAlignment(Qt.AlignmentFlag.AlignTop)
        self._chart.plotAreaChanged.connect(self._label_axis)

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
        self._x = None  # removed with the other axes: nothing relabels it meanwhile
        self._clear()
        # Every period from the first to the last, those without usage as empty slots: a time axis.
        filled = continuous_keys(keys, period)
        if len(filled) != len(keys):
            slot = {key: i for i, key in enumerate(filled)}
            stacks = [(name, _spread(values, keys, slot, len(filled))) for name, values in stacks]
            keys = filled
        self._keys, self._format, self._period = list(keys), shown, period
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
        x.setGridLineVisible(False)
        self._x = x
        self._labelled = []
        self._add_axis(x, Qt.AlignmentFlag.AlignBottom, series)
        self._label_axis()
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

    def keys(self) -> list[str]:
        """The periods of the bars, oldest first, every one from the first to the last (for tests)."""
        return list(self._keys)

    def axis_labels(self) -> list[tuple[str, int]]:
        """The time axis's labels, each with the bar it is centred on."""
        return list(self._labelled)

    def _label_axis(self, *_args: object) -> None:
        """Label the time axis for the width it has now: as finely as the labels leave room for."""
        x = self._x
        if x is None or not self._keys:
            return
        width = self._chart.plotArea().width()
        if width <= 0:
            width = max(100.0, self.width() - 80.0)
        metrics = QFontMetricsF(x.labelsFont())
        labels = axis_labels(self._keys, self._period, width / len(self._keys), metrics.horizontalAdvance)
        if labels == self._labelled:
            return
        self._labelled = labels
        for label in x.categoriesLabels():
            x.remove(label)
        for label, at in labels:
            x.append(label, float(at))  # centred on its bar

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
    """A donut of shares: the model mix, its legend beside it, one model a line.

    The legend's names are cut in the middle to the room the legend has (the family and the date of a
    model both show; Qt would cut the end, and with it the share); hovering an entry names it whole.
    """

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self._pie: QPieSeries | None = None
        self._format: Formatter = str
        self._shares: list[str] = []
        self._name_px: tuple[float, bool] = (0.0, True)  # the room the names were cut to, shares shown
        self._chart.legend().setAlignment(Qt.AlignmentFlag.AlignRight)

    def set_data(self, parts: Sequence[tuple[str, float]], shown: Formatter) -> None:
        """One slice per (name, value), in the order given; slices under 4% are not labelled."""
        self._clear()
        self._format = shown
        pie = self._pie = QPieSeries()
        pie.setHoleSize(0.45)
        pie.setPieSize(0.85)
        total = sum(value for _name, value in parts)
        self._shares = [f" {100 * value / total if total else 0.0:.0f}%" for _name, value in parts]
        for name, value in parts:
            piece = pie.append(name, float(value))
            piece.setProperty("full_name", name)
            piece.setLabelVisible(False)
        self._name_px = (0.0, True)
        self._name_slices()
        pie.hovered.connect(self._hovered)
        self._chart.addSeries(pie)
        # The legend's entries name the models shortly: hovering one says it whole, as the slice does.
        for index, marker in enumerate(self._chart.legend().markers(pie)):
            if isinstance(marker, QPieLegendMarker):
                marker.hovered.connect(partial(self._marker_hovered, index))
        self.restyle()

    def slices(self) -> list[QPieSlice]:
        """The slices, in order."""
        return self._pie.slices() if self._pie is not None else []

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._name_slices()

    def _name_slices(self) -> None:
        """Label the slices (the legend shows their labels) for the legend's room.

        Qt gives a legend beside the chart at most about 0.39 of its width (measured), and cuts what is
        longer at its end, the share with it; the names are cut in the middle to fit before it must. In a
        narrow chart the shares give way first (the slices' sizes show them, hovering one says its
        figure): a name cut to a few letters says nothing.
        """
        pieces = self.slices()
        if not pieces:
            return
        metrics = QFontMetricsF(self._chart.legend().font())
        widest_share = max(metrics.horizontalAdvance(share) for share in self._shares)
        # The marker, its margins and the legend's own take 38 px of that (measured, Fusion style).
        legend = self.width() * 0.39 - 40
        shares = legend - widest_share >= LEGEND_NAME_MIN_PX
        room = max(50.0, min(LEGEND_NAME_PX, legend - (widest_share if shares else 0)))
        if (room, shares) == self._name_px:
            return
        self._name_px = (room, shares)
        full = [str(piece.property("full_name")) for piece in pieces]
        for piece, name, share in zip(pieces, legend_names(full, metrics, room), self._shares, strict=True):
            piece.setLabel(name + share if shares else name)

    def _colour_series(self) -> None:
        pieces = self.slices()
        other = bool(pieces) and str(pieces[-1].property("full_name")) == "Other"
        base = QApplication.palette().color(QPalette.ColorRole.Base)
        for piece, colour in zip(pieces, series_colours(len(pieces), other_last=other), strict=True):
            piece.setColor(colour)
            piece.setBorderColor(base)

    def _marker_hovered(self, index: int, state: bool) -> None:
        pieces = self.slices()
        if 0 <= index < len(pieces):
            self._hovered(pieces[index], state)

    def _hovered(self, piece: QPieSlice, state: bool) -> None:
        piece.setExploded(state)
        if state:
            QToolTip.showText(
                QCursor.pos(), f"{piece.property('full_name')}\n{self._format(piece.value())}", self
            )
        else:
            QToolTip.hideText()


def legend_names(names: Sequence[str], metrics: QFontMetricsF, width: float = LEGEND_NAME_PX) -> list[str]:
    """How the model-mix legend names models, cut in the middle to ``width`` px.

    Without the provider where no other model has that name; cut in the middle (``claude-sonn…20250929``)
    so that the family and the date both show. The slice's tooltip has the whole name.
    """
    bare = [name.rsplit("/", 1)[-1] for name in names]
    counts = Counter(bare)
    return [
        metrics.elidedText(short if counts[short] == 1 else name, Qt.TextElideMode.ElideMiddle, width)
        for name, short in zip(names, bare, strict=True)
    ]


class HeatChart(_Chart):
    """Cells in a grid shaded by value: a calendar (weeks x weekdays) or hours x weekdays."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self._levels: list[QScatterSeries] = []
        self._size = (1, 1)
        self._tip: Callable[[int, int], str] = lambda _x, _y: ""
        self._y: QCategoryAxis | None = None
        self._y_labels: list[str] = []
        self._y_step = 0
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
        self._y = None  # removed with the other axes
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
        y.setGridLineVisible(False)
        y.setLineVisible(False)
        # A short chart (a 680 px window) gets its axes' minimum sizes from Qt Charts' layout, which cut
        # "Mon" to "...": these labels are short and always fit beside the grid.
        y.setTruncateLabels(False)
        self._y, self._y_labels, self._y_step = y, list(y_labels), 0
        self._label_rows(1)
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
        if self._y is not None and area.height() > 0:
            # Rows lower than a label's line: every other day named (Mon, Wed, Fri, Sun), as a calendar
            # does, rather than seven labels over each other.
            line = QFontMetricsF(self._y.labelsFont()).height()
            self._label_rows(1 if area.height() / max(rows, 1) >= line * 1.15 else 2)

    def _label_rows(self, step: int) -> None:
        """Name every ``step``-th row on the vertical axis."""
        y = self._y
        if y is None or step == self._y_step:
            return
        self._y_step = step
        for label in y.categoriesLabels():
            y.remove(label)
        for row in range(0, len(self._y_labels), step):
            y.append(self._y_labels[row], row)

    def row_labels(self) -> list[str]:
        """The rows named on the vertical axis now (for tests)."""
        return self._y.categoriesLabels() if self._y is not None else []

    def _hovered(self, point: QPointF, state: bool) -> None:
        if state:
            QToolTip.showText(QCursor.pos(), self._tip(round(point.x()), round(point.y())), self)
        else:
            QToolTip.hideText()
