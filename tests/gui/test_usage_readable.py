"""The Usage window reads well (issue 26, item 8).

The day axis is a real time axis (a day without usage is an empty slot, not left out) with labels that
never overlap; the model-mix legend names models readably (cut in the middle, whole in the tooltip); the
Sessions card says why it counts fewer sessions than the list.
"""

from __future__ import annotations

import itertools
from datetime import date, timedelta
from pathlib import Path

import orjson
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QApplication, QToolTip

from gui.main_window import MainWindow
from gui.models.time_axis import axis_labels, continuous_keys
from gui.widgets.usage_charts import MixChart, TimeBars, legend_names
from tests.gui.windows import TIMEOUT, make_window

LONG_MODELS = [
    "anthropic/claude-sonnet-4-5-20250929-extended-context",
    "openrouter/meta-llama/llama-3.1-405b-instruct-turbo-preview",
    "openai/gpt-5.1-codex",
    "azure/gpt-5.1-codex",
]


def _days(start: date, count: int, every: int = 1) -> list[str]:
    return [(start + timedelta(days=i * every)).isoformat() for i in range(count)]


def test_periods_without_usage_are_empty_slots() -> None:
    assert continuous_keys(["2026-03-02", "2026-03-05"], "daily") == _days(date(2026, 3, 2), 4)
    assert continuous_keys(["2026-02-23", "2026-03-16"], "weekly") == _days(date(2026, 2, 23), 4, 7)
    assert continuous_keys(["2025-11", "2026-02"], "monthly") == ["2025-11", "2025-12", "2026-01", "2026-02"]
    assert continuous_keys(["2026-03-02"], "daily") == ["2026-03-02"]
    assert continuous_keys(["1970-01-01", "2026-03-02"], "daily") == ["1970-01-01", "2026-03-02"]  # too many


def _overlaps(labels: list[tuple[str, int]], slot: float, width) -> list[tuple[str, str]]:
    return [
        (a, b)
        for (a, i), (b, j) in itertools.pairwise(labels)
        if (j - i) * slot < (width(a) + width(b)) / 2 + 4
    ]


@pytest.mark.parametrize("period", ["daily", "weekly", "monthly"])
def test_labels_never_overlap_at_any_width(qtbot, period: str) -> None:
    width = QFontMetricsF(QApplication.font()).horizontalAdvance
    start = date(2025, 1, 6)  # a Monday
    for count in (3, 7, 31, 90, 200, 400, 1100):
        if period == "daily":
            keys = _days(start, count)
        elif period == "weekly":
            keys = _days(start, count // 7 + 2, 7)
        else:
            keys = continuous_keys(
                ["2023-01", (start + timedelta(days=count * 3)).isoformat()[:7]], "monthly"
            )
        for plot in (250, 400, 700, 1000, 1500):
            slot = plot / len(keys)
            labels = axis_labels(keys, period, slot, width)
            assert labels, (period, count, plot)
            assert not _overlaps(labels, slot, width), (period, count, plot, labels)
            assert [i for _text, i in labels] == sorted({i for _text, i in labels})


def test_a_short_range_is_labelled_by_day_a_long_one_by_month(qtbot) -> None:
    width = QFontMetricsF(QApplication.font()).horizontalAdvance
    week = axis_labels(_days(date(2026, 3, 2), 5), "daily", 150, width)
    assert [text for text, _i in week] == ["Mar 2, 2026", "Mar 3", "Mar 4", "Mar 5", "Mar 6"]
    fortnights = axis_labels(_days(date(2025, 11, 1), 150), "daily", 1000 / 150, width)
    assert [text for text, _i in fortnights][:3] == ["Nov 10, 2025", "Nov 24", "Dec 8"]  # Mondays
    months = axis_labels(_days(date(2025, 11, 1), 150), "daily", 400 / 150, width)
    assert [text for text, _i in months][:3] == ["Nov 2025", "Dec", "Jan 2026"]


def _chart_labels(chart: TimeBars) -> list[tuple[str, float]]:
    """The axis's labels as drawn: each text with its x position in the view."""
    axis = chart._x
    series = chart.chart_object.series()[0]
    return [
        (label, chart.chart_object.mapToPosition(QPointF(axis.endValue(label), 0), series).x())
        for label in axis.categoriesLabels()
    ]


def test_the_bars_axis_follows_its_width(qtbot) -> None:
    chart = TimeBars()
    qtbot.addWidget(chart)
    keys = ["2026-01-05", "2026-01-06", "2026-02-10", "2026-04-01"]  # with gaps of weeks
    chart.set_data(keys, "daily", [("model-a", [1.0, 2.0, 3.0, 4.0])], str)
    assert chart.keys() == _days(date(2026, 1, 5), 87)  # every day: a time axis
    values = [chart.bar_sets()[0].at(i) for i in range(87)]
    assert values[0] == 1.0 and values[1] == 2.0 and values[36] == 3.0 and values[86] == 4.0
    assert sum(values) == 10.0
    width = QFontMetricsF(chart._x.labelsFont()).horizontalAdvance
    for size in (420, 900, 1500):
        chart.resize(size, 300)
        chart.show()
        qtbot.waitUntil(
            lambda s=size: abs(chart.chart_object.plotArea().width() - (s - 80)) < 80, timeout=TIMEOUT
        )
        QApplication.processEvents()
        drawn = _chart_labels(chart)
        assert len(drawn) >= 2
        for (a, x), (b, y) in itertools.pairwise(drawn):
            assert y - x >= (width(a) + width(b)) / 2, (size, drawn)


def test_the_legend_names_models_readably_and_whole_on_hover(qtbot) -> None:
    metrics = QFontMetricsF(QApplication.font())
    names = legend_names(LONG_MODELS, metrics, 150)
    assert names[2] == "openai/gpt-5.1-codex" and names[3] == "azure/gpt-5.1-codex"  # the same model name
    first = names[0]
    assert "…" in first and first.startswith("claude-") and first.endswith("context")
    assert all(metrics.horizontalAdvance(name) <= 150 for name in names)
    chart = MixChart("Model mix")
    qtbot.addWidget(chart)
    chart.resize(700, 300)
    chart.show()
    chart.set_data([(name, 10.0 - i) for i, name in enumerate(LONG_MODELS)], str)
    markers = chart.chart_object.legend().markers()
    label = markers[0].label()
    assert label.startswith("claude-sonn") and "…" in label and label.endswith("context 29%")
    chart.resize(520, 300)  # narrower: cut more, still in the middle, the share kept
    qtbot.waitUntil(lambda: markers[0].label() != label, timeout=TIMEOUT)
    narrower = markers[0].label()
    assert narrower.startswith("clau") and "…" in narrower and narrower.endswith("ext 29%")
    chart.resize(340, 300)  # narrow: the shares give way to the names
    qtbot.waitUntil(lambda: markers[0].label() != narrower, timeout=TIMEOUT)
    assert markers[0].label().startswith("clau") and markers[0].label().endswith("ext")
    assert [m.label() for m in markers][2].startswith("opena")  # the provider kept: azure has it too
    markers[1].hovered.emit(True)
    assert QToolTip.isVisible() and LONG_MODELS[1] in QToolTip.text()
    markers[1].hovered.emit(False)


def test_the_sessions_card_says_why_it_counts_fewer_than_the_list(
    qtbot, sessions: Path, tmp_path: Path
) -> None:
    header = {"type": "session", "version": 3, "id": "s-no-answer", "timestamp": "2026-03-04T10:00:00.000Z"}
    asked = {
        "type": "message",
        "id": "a0000001",
        "parentId": None,
        "timestamp": "2026-03-04T10:00:01.000Z",
        "message": {"role": "user", "content": "are you there?", "timestamp": 1772618401000},
    }
    (sessions / "no-answer.jsonl").write_bytes(orjson.dumps(header) + b"\n" + orjson.dumps(asked) + b"\n")
    window: MainWindow = make_window(qtbot, [sessions], tmp_path / "catalogue")
    assert window.list_model.rowCount() == 8
    with qtbot.waitSignal(window.usage.figures_shown, timeout=TIMEOUT):
        usage = window.usage.show_window()
    card = usage.cards[2]
    assert card.caption.text() == "Sessions" and card.value.text() == "7"
    assert card.detail.text() == "of 8 listed; 1 without usage"
    assert card.toolTip().startswith("7 of the 8 sessions listed have usage")
    assert "no reply recorded tokens or cost" in card.toolTip()
    # The weekday names of the calendar and the hour grid are never cut to "..." in a short window.
    for heat in (usage.calendar, usage.hours):
        assert heat.row_labels()[:3] == ["Mon", "Tue", "Wed"] or heat.row_labels()[:2] == ["Mon", "Wed"]
        assert not heat._y.truncateLabels()
    # The whole window fits a 1,100 px screen, whatever the models and projects its filters list.
    assert usage.minimumSizeHint().width() <= 1100
