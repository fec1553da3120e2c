"""The Usage window: its figures are core.usage's reports; filters, theme and growing files change them."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from core.catalogue import Catalogue
from core.formatting import dollars
from core.usage import UsageFilter, overview_of, report
from gui.main_window import MainWindow
from gui.models.usage_figures import UsageQuery, compute_figures, preset_range, summary_cards
from gui.models.usage_tables import UsageTableModel
from gui.widgets.usage_view import UsageWindow
from tests.gui.windows import TIMEOUT, open_session, run_posted
from tests.helpers import append_entries

DEMO_LAST_DAY = date(2026, 3, 6)  # the demo sessions' last day of usage


def _records(window: MainWindow) -> list:
    catalogue = Catalogue(window.catalogue._catalogue_dir)
    try:
        return catalogue.usage_records(window.catalogue.roots)
    finally:
        catalogue.close()


def _show(qtbot, window: MainWindow) -> UsageWindow:
    with qtbot.waitSignal(window.usage.figures_shown, timeout=TIMEOUT):
        usage = window.usage.show_window()
    return usage


def _choose(qtbot, window: MainWindow, box, data: object) -> None:
    index = box.findData(data)
    assert index >= 0, data
    with qtbot.waitSignal(window.usage.figures_shown, timeout=TIMEOUT):
        box.setCurrentIndex(index)


def _same_rows(shown, expected) -> None:
    assert [(r.key, r.total_tokens, round(r.total_cost, 9), r.sessions) for r in shown] == [
        (r.key, r.total_tokens, round(r.total_cost, 9), r.sessions) for r in expected
    ]


def test_the_figures_are_the_reports_for_the_same_filter(qtbot, window: MainWindow) -> None:
    usage = _show(qtbot, window)
    records = _records(window)
    filt = usage.query().filt
    figures = usage.figures
    assert figures is not None and figures.totals.total_cost > 0
    daily = report(records, "daily", filt)
    assert figures.totals.total_cost == pytest.approx(daily.totals.total_cost)
    assert figures.totals.total_tokens == daily.totals.total_tokens
    assert [row.key for row in figures.days] == [row.key for row in daily.rows]
    _same_rows(usage.tables["model"].rows(), report(records, "model", filt).rows)
    _same_rows(usage.tables["project"].rows(), report(records, "project", filt).rows)
    _same_rows(usage.tables["session"].rows(), report(records, "session", filt).rows)
    assert usage.cards[0].value.text() == dollars(daily.totals.total_cost)
    # The stacked bars add up to each day's cost, and the hour grid to the total.
    per_day = [sum(s.cost[i] for s in figures.stacks) for i in range(len(figures.periods))]
    assert per_day == pytest.approx([row.total_cost for row in daily.rows])
    assert sum(map(sum, figures.grid)) == pytest.approx(daily.totals.total_cost)
    bar_sets = usage.bars.bar_sets()
    assert [s.label() for s in bar_sets] == [s.name for s in figures.stacks]
    assert sum(usage.calendar.shade_counts()[1:]) == len(daily.rows)  # a shaded cell per active day


def test_filters_change_the_figures(qtbot, window: MainWindow) -> None:
    usage = _show(qtbot, window)
    records = _records(window)
    everything = usage.figures.totals
    model = usage.figures.models[-1].key  # the cheapest model
    _choose(qtbot, window, usage.model_box, model)
    assert usage.query().filt.model == model
    only = report(records, "daily", UsageFilter(model=model)).totals
    assert usage.figures.totals.total_cost == pytest.approx(only.total_cost)
    assert 0 < usage.figures.totals.total_cost < everything.total_cost
    assert [row.key for row in usage.tables["model"].rows()] == [model]

    _choose(qtbot, window, usage.model_box, None)
    _choose(qtbot, window, usage.branches_box, "abandoned")
    assert usage.figures.totals.total_cost == pytest.approx(everything.abandoned_cost)
    assert everything.abandoned_cost > 0  # the demo sessions have abandoned branches

    _choose(qtbot, window, usage.branches_box, "all")
    project = usage.figures.projects[0].key
    _choose(qtbot, window, usage.project_box, project)
    expected = report(records, "daily", UsageFilter(project=project)).totals
    assert usage.figures.totals.total_cost == pytest.approx(expected.total_cost)

    _choose(qtbot, window, usage.project_box, None)
    usage._today = lambda: DEMO_LAST_DAY
    _choose(qtbot, window, usage.range_box, "7")
    since, until = preset_range("7", DEMO_LAST_DAY)
    assert usage.query().filt.since == since == date(2026, 2, 28)
    expected = report(records, "daily", UsageFilter(since=since, until=until)).totals
    assert usage.figures.totals.total_cost == pytest.approx(expected.total_cost)
    _choose(qtbot, window, usage.range_box, "month")
    assert usage.query().filt.since == date(2026, 3, 1)
    assert usage.figures.totals.total_cost == pytest.approx(everything.total_cost)  # all in March 2026
    _choose(qtbot, window, usage.period_box, "monthly")
    assert usage.figures.periods == ["2026-03"]
    _choose(qtbot, window, usage.stack_box, "project")
    assert {s.name for s in usage.figures.stacks} == {row.key for row in usage.figures.projects}


def test_cost_and_tokens(qtbot, window: MainWindow) -> None:
    usage = _show(qtbot, window)
    figures = usage.figures
    assert usage.measure == "cost"
    first = usage.bars.bar_sets()[0].sum()
    with qtbot.waitSignal(usage.figures_drawn, timeout=TIMEOUT):  # the charts are drawn one per turn
        usage.set_measure("tokens")
    assert usage.measure == "tokens"
    assert usage.figures is figures  # redrawn from the same figures, nothing asked again
    assert usage.bars.bar_sets()[0].sum() != first
    cards = summary_cards(figures, "tokens")
    assert usage.cards[5].value.text() == cards[5].value  # the peak day in tokens
    assert "Tokens" in usage.bars.chart_object.title()


def test_equal_figures_are_kept_not_drawn_again(qtbot, window: MainWindow) -> None:
    usage = _show(qtbot, window)
    drawn = usage.figures
    calls: list = []
    original = usage.show_figures
    usage.show_figures = lambda figures: (calls.append(figures), original(figures))
    usage.close()
    window.usage.catalogue_refreshed(True)  # hidden: the figures are stale, worked out again on opening
    with qtbot.waitSignal(window.usage.figures_shown, timeout=TIMEOUT) as shown:
        window.usage.show_window()
    assert shown.args[0] is drawn and usage.figures is drawn and calls == []  # nothing changed
    assert usage.status.text().startswith(f"{drawn.totals.sessions:,} sessions")
    _choose(qtbot, window, usage.branches_box, "current")  # other figures are drawn
    assert len(calls) == 1 and usage.figures is calls[0] and usage.figures != drawn


def test_double_clicking_a_top_session_opens_it(qtbot, window: MainWindow) -> None:
    usage = _show(qtbot, window)
    view = usage.views["session"]
    index = view.model().index(0, 0)
    expected = usage.tables["session"].rows()[0].key
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT) as loaded:
        view.doubleClicked.emit(index)
    assert loaded.args[0].path == expected


def test_the_charts_follow_the_theme(qtbot, window: MainWindow) -> None:
    usage = _show(qtbot, window)
    colours = {}
    for theme in ("light", "dark"):
        window.view.set_theme(theme)
        qtbot.waitUntil(
            lambda: (
                usage.bars.chart_object.backgroundBrush().color()
                == QApplication.palette().color(QPalette.ColorRole.Base)
            )
        )
        colours[theme] = usage.bars.bar_sets()[0].color().name()
    assert colours["light"] != colours["dark"]
    window.view.set_theme("system")


def test_the_window_updates_as_a_session_grows(qtbot, window: MainWindow, sessions: Path) -> None:
    # The open session's file is watched (as the agent appends to it); its change refreshes the catalogue.
    path = sorted(sessions.glob("*.jsonl"))[0]
    open_session(qtbot, window, path)
    usage = _show(qtbot, window)
    before = usage.figures.totals
    parent = window.opened.session.leaf_id
    entry = {
        "type": "message",
        "id": "u5a6e001",
        "parentId": parent,
        "timestamp": "2026-03-06T18:00:00.000Z",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "More."}],
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": {
                "input": 10,
                "output": 5,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 15,
                "cost": {"total": 1.25},
            },
            "stopReason": "stop",
            "timestamp": 1772820000000,
        },
    }
    append_entries(path, [entry])
    qtbot.waitUntil(
        lambda: usage.figures.totals.total_cost == pytest.approx(before.total_cost + 1.25), timeout=TIMEOUT
    )
    assert usage.figures.totals.total_tokens == before.total_tokens + 15


def test_the_table_model_passes_the_model_tester(qtmodeltester, qtbot, window: MainWindow) -> None:
    figures = compute_figures(overview_of(_records(window)), UsageQuery())
    for kind, rows in (
        ("session", figures.sessions),
        ("project", figures.projects),
        ("model", figures.models),
    ):
        model = UsageTableModel(kind)
        model.set_rows(rows)
        qtmodeltester.check(model)
        assert model.rowCount() == len(rows) > 0
        assert model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)


def test_the_action_is_in_the_view_menu_and_the_toolbar(window: MainWindow) -> None:
    action = window.registry["view.usage"]
    assert action.shortcut().toString() == "Ctrl+Shift+U"
    assert action in window.menus["View"].actions()
    assert action in window.toolbar.actions()


def test_the_open_session_shows_its_subtrees_and_abandoned_branches(qtbot, window: MainWindow) -> None:
    from core.session import load_session
    from core.usage import path_split, subtree_usage

    records = _records(window)
    branched = next(r.path for r in records if not r.current)  # a session with an abandoned branch
    with qtbot.waitSignal(window.usage.session_usage_shown, timeout=TIMEOUT) as shown:
        open_session(qtbot, window, Path(branched))
    session = load_session(branched)
    current, abandoned = path_split(session, session.leaf_id)
    assert (shown.args[0].current, shown.args[0].abandoned) == (current, abandoned)
    assert abandoned[1] > 0
    header = window.tree_pane.usage_label
    assert header.isVisibleTo(window) and dollars(abandoned[1]) in header.text()
    totals = subtree_usage(session)
    root = window.tree_model.index(0, 0)
    entry = window.tree_model.entry_for_index(root)
    tip = root.data(Qt.ItemDataRole.ToolTipRole)
    assert f"{totals[entry.id][0]:,} tokens" in tip


def test_the_open_sessions_usage_reads_nothing_after_the_load(tmp_path: Path) -> None:
    """The worker the window runs after each load works from the index: the file may be gone by then."""
    import shutil

    from core.session import load_session
    from core.usage import iter_usage
    from gui.controllers.usage import session_usage
    from tests.conftest import DEMO

    for source in sorted(DEMO.glob("*.jsonl")):
        path = Path(shutil.copy(source, tmp_path / source.name))
        session = load_session(path)
        records = list(iter_usage(session))
        path.unlink()  # today a read fails
        usage = session_usage(session)
        current = [r for r in records if r.current]
        assert usage.current == (sum(r.total for r in current), pytest.approx(sum(r.cost for r in current)))
        assert usage.current[0] + usage.abandoned[0] == sum(r.total for r in records)


def test_a_long_title_is_shown_by_its_first_line_and_told_whole(qtbot) -> None:
    from core.usage import UsageRow

    title = "Fix the exporter\n\n" + "and then a long explanation " * 40
    rows = [UsageRow("/s/long.jsonl", title=title, project="/p"), UsageRow("/s/short.jsonl", title="Short")]
    model = UsageTableModel("session")
    model.set_rows(rows)
    assert model.index(0, 0).data() == "Fix the exporter"
    assert model.index(1, 0).data() == "Short"
    assert title in model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)  # the tooltip has all of it
    rows[1].title = "word " * 100
    model.set_rows(rows)
    shown = model.index(1, 0).data()
    assert len(shown) == 160 and shown.endswith("…") and shown.startswith("word word")


def test_the_window_is_made_in_parts_and_shown_whole(qtbot, window: MainWindow) -> None:
    parted = UsageWindow(staged=True)
    qtbot.addWidget(parted)
    assert not parted.built and not hasattr(parted, "bars")
    assert parted.build_part() and hasattr(parted, "bars") and not hasattr(parted, "tabs")
    assert not parted.build_part() and parted.built and parted.tabs.count() == 3
    assert not parted.build_part()  # nothing left: no error

    usage = window.usage.show_window()  # the first part now, the others in later turns
    assert not usage.built and not usage.isVisible()
    assert window.usage.show_window() is usage  # asked again meanwhile: the same window, made once
    with qtbot.waitSignal(window.usage.figures_shown, timeout=TIMEOUT):
        pass
    assert usage.built and usage.isVisible() and usage.bars.bar_sets()
    assert usage.tables["session"].rowCount() > 0


def test_a_window_closing_while_the_usage_window_is_made_stops_it(qtbot, window: MainWindow) -> None:
    usage = window.usage.show_window()
    built_after_close: list[bool] = []
    window.usage.close()  # the main window closes before the Usage window is whole
    usage.build_part = lambda: built_after_close.append(True) or False  # type: ignore[method-assign]
    run_posted(qtbot, usage)  # the next step of the making, posted before, has run: it made nothing more
    assert built_after_close == [] and not usage.built and not usage.isVisible()


def test_the_figures_are_asked_for_once_the_window_has_painted(qtbot, window: MainWindow) -> None:
    from PySide6.QtCore import QEvent, QObject

    _show(qtbot, window)
    usage = window.usage.window
    usage.close()
    order: list[str] = []

    class Paints(QObject):
        def eventFilter(self, obj, event) -> bool:
            if event.type() == QEvent.Type.Paint and not order:
                order.append("paint")
            return False

    paints = Paints()
    usage.installEventFilter(paints)
    start = window.usage.update
    window.usage.update = lambda: (order.append("update"), start())
    window.usage.catalogue_refreshed(True)  # hidden: stale, worked out again on opening
    with qtbot.waitSignal(window.usage.figures_shown, timeout=TIMEOUT):
        window.usage.show_window()
        assert order == []  # not at once: the worker would slow the window's first paint
    assert order == ["paint", "update"]


def test_a_window_that_is_never_painted_still_asks_for_its_figures(qtbot) -> None:
    usage = UsageWindow()
    qtbot.addWidget(usage)
    called: list[int] = []
    usage.after_paint(lambda: called.append(1))  # hidden: no paint comes
    qtbot.waitUntil(lambda: called == [1], timeout=2000)
    # Once: the fallback timer is stopped, and a paint now (which would post the call) calls nothing.
    assert not usage._paint_fallback.isActive()
    paints = _Paints()
    usage.installEventFilter(paints)
    usage.show()
    qtbot.waitUntil(lambda: paints.count > 0, timeout=TIMEOUT)
    run_posted(qtbot, usage)  # what the paint posted has run
    assert called == [1]


class _Paints(QObject):
    """Counts the paint events of the widget it filters."""

    count = 0

    def eventFilter(self, _obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False
