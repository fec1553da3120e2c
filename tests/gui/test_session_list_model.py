"""SessionListModel and SessionFilterProxy over real summaries of the sample and demo sessions."""

from __future__ import annotations

import dataclasses
import html
import os
import subprocess
import sys

import pytest
from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QFont

from core import load_session, summarize
from core.formatting import dollars, one_line, whole_tokens
from core.session import SessionSummary
from gui.models import COLUMNS, Role, SessionColumn, SessionFilterProxy, SessionListModel
from gui.models.session_list_model import format_modified
from tests.conftest import DEMO, REPO, SAMPLES

PI_SESSIONS = SAMPLES / "pi-layout" / "sessions"
DISPLAY = Qt.ItemDataRole.DisplayRole
TOOLTIP = Qt.ItemDataRole.ToolTipRole
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


@pytest.fixture(scope="module")
def summaries() -> list[SessionSummary]:
    paths = sorted(PI_SESSIONS.rglob("*.jsonl")) + sorted(DEMO.glob("*.jsonl"))
    assert len(paths) >= 10, "the sample and demo sessions were not found"
    return [summarize(load_session(p, checksum=False)) for p in paths]


@pytest.fixture
def model(qtbot, summaries) -> SessionListModel:
    return SessionListModel(summaries)


@pytest.fixture
def proxy(model) -> SessionFilterProxy:
    proxy = SessionFilterProxy()
    proxy.setSourceModel(model)
    return proxy


class Recorder:
    """Records the structural signals of a model as plain tuples."""

    def __init__(self, model) -> None:
        self.events: list[tuple] = []
        model.dataChanged.connect(
            lambda tl, br, roles=(): self.events.append(("changed", tl.row(), br.row()))
        )
        model.rowsInserted.connect(
            lambda parent, a, b: self.events.append(("inserted", parent.isValid(), a, b))
        )
        model.rowsRemoved.connect(
            lambda parent, a, b: self.events.append(("removed", parent.isValid(), a, b))
        )
        model.modelReset.connect(lambda: self.events.append(("reset",)))
        model.layoutChanged.connect(lambda *args: self.events.append(("layout",)))


def rows_of(model, column: int = 0, role=DISPLAY) -> list:
    return [model.data(model.index(row, column), role) for row in range(model.rowCount())]


# -- model basics ---------------------------------------------------------------------------------------


def test_empty_model_passes_modeltester(qtmodeltester):
    model = SessionListModel()
    qtmodeltester.check(model)
    assert model.rowCount() == 0
    assert model.columnCount() == len(COLUMNS) == 6
    assert model.summary_at(0) is None
    assert model.row_of("/nowhere.jsonl") == -1


def test_populated_model_passes_modeltester(qtmodeltester, model, summaries):
    qtmodeltester.check(model)
    assert model.rowCount() == len(summaries)
    assert model.rowCount(model.index(0, 0)) == 0  # a table: no children
    for row, summary in enumerate(summaries):
        assert model.summary_at(row) is summary
        assert model.row_of(summary.path) == row
        assert model.data(model.index(row, 3), Role.ITEM) is summary


def test_headers(model):
    titles = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert titles == ["Title", "Project", "Modified", "Messages", "Tokens", "Cost"]
    for column in (SessionColumn.MESSAGES, SessionColumn.TOKENS, SessionColumn.COST):
        assert model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.TextAlignmentRole) == RIGHT


def test_display_values(model, summaries):
    big = max(summaries, key=lambda s: s.totalTokens)
    row = model.row_of(big.path)
    shown = [model.data(model.index(row, c)) for c in range(model.columnCount())]
    assert shown[SessionColumn.TITLE] == one_line(big.title)
    assert shown[SessionColumn.PROJECT] == big.cwd
    assert shown[SessionColumn.MODIFIED] == format_modified(big.modified)
    assert shown[SessionColumn.MESSAGES] == str(big.messageCount)
    assert shown[SessionColumn.TOKENS] == f"{big.totalTokens:,}"
    assert "," in shown[SessionColumn.TOKENS]
    assert shown[SessionColumn.COST] == f"${big.cost:.2f}"


def test_formatters():
    assert whole_tokens(1339486) == "1,339,486"
    assert whole_tokens(45) == "45"
    assert whole_tokens(1234.6) == "1,235"
    assert dollars(0.0) == "$0.00"
    assert dollars(1.6056855) == "$1.61"
    assert dollars(1234.5) == "$1,234.50"
    assert format_modified(None) == ""
    assert format_modified("not a date") == ""
    assert format_modified("2026-03-04T09:23:20.343Z")[:4] == "2026"
    assert one_line("  line one\nline\ttwo\r\x00three\u2028") == "line one line two  three"


def test_title_is_one_line_and_falls_back_to_first_message(model, summaries):
    base = summaries[0]
    multi = dataclasses.replace(base, path="/x/multi.jsonl", name=None, firstMessage="fix\nthis\tbug\x07now")
    named = dataclasses.replace(base, path="/x/named.jsonl", name="My name", firstMessage="ignored")
    model.set_summaries([multi, named])
    assert model.data(model.index(0, 0)) == "fix this bug now"
    assert model.data(model.index(1, 0)) == "My name"


def test_roles(model, summaries):
    for row, summary in enumerate(summaries):
        index = model.index(row, SessionColumn.TITLE)
        assert model.data(index, Role.ID) == summary.id
        assert model.data(index, Role.PARENT) == summary.parentSessionPath
        font = model.data(index, Qt.ItemDataRole.FontRole)
        if summary.name:
            assert isinstance(font, QFont) and font.bold()
        else:
            assert font is None
        assert model.data(model.index(row, SessionColumn.PROJECT), Qt.ItemDataRole.FontRole) is None
        for column in range(model.columnCount()):
            alignment = model.data(model.index(row, column), Qt.ItemDataRole.TextAlignmentRole)
            assert (alignment == RIGHT) == COLUMNS[column].numeric
        assert model.data(index, Qt.ItemDataRole.ForegroundRole) is None  # the samples are healthy
        assert model.data(index, Qt.ItemDataRole.UserRole + 999) is None  # unhandled roles give None
    assert any(s.parentSessionPath for s in summaries), "the samples should include forks"


def test_problem_and_failed_sessions_get_a_hint(qtmodeltester, model, summaries):
    base = summaries[0]
    damaged = dataclasses.replace(base, path="/x/damaged.jsonl", problems=2)
    aborted = dataclasses.replace(base, path="/x/aborted.jsonl", lastStopReason="aborted")
    failed = dataclasses.replace(base, path="/x/failed.jsonl", lastStopReason="error")
    healthy = dataclasses.replace(base, path="/x/ok.jsonl", lastStopReason="stop")
    model.set_summaries([damaged, aborted, failed, healthy])
    qtmodeltester.check(model)
    colors = [model.data(model.index(r, 0), Qt.ItemDataRole.ForegroundRole) for r in range(4)]
    assert all(isinstance(c, QColor) for c in colors[:3])
    assert colors[0] != colors[1] == colors[2]
    assert colors[3] is None
    assert "<b>Damaged file</b> (and 1 more)" in model.data(model.index(0, 0), TOOLTIP)
    assert "Last reply: aborted" in model.data(model.index(1, 0), TOOLTIP)
    assert "Last reply: error" in model.data(model.index(2, 0), TOOLTIP)
    assert "Damaged" not in model.data(model.index(3, 0), TOOLTIP)


def test_tooltips(model, summaries):
    fork = next(s for s in summaries if s.parentSessionPath)
    tip = model.data(model.index(model.row_of(fork.path), SessionColumn.COST), TOOLTIP)
    for part in (fork.title, fork.path, fork.cwd, fork.id, fork.parentSessionPath, *fork.models):
        assert html.escape(part) in tip
    assert "Damaged" not in tip


def test_tooltip_escapes_and_keeps_the_full_title(model, summaries):
    text = "<b>not bold</b>\nsecond line " + "x" * 300
    odd = dataclasses.replace(summaries[0], path="/x/<odd>.jsonl", name=None, firstMessage=text)
    model.set_summaries([odd])
    tip = model.data(model.index(0, 0), TOOLTIP)
    assert html.escape(text) in tip
    assert "<b>not bold</b>" not in tip
    assert "/x/&lt;odd&gt;.jsonl" in tip


def test_tooltip_caps_a_huge_first_message(model, summaries):
    pasted = "y" * 50_000
    model.set_summaries([dataclasses.replace(summaries[0], name=None, firstMessage=pasted)])
    tip = model.data(model.index(0, 0), TOOLTIP)
    assert "y" * 1000 + "…" in tip and "y" * 1001 not in tip
    assert model.data(model.index(0, 0)) == pasted  # the cell keeps it all; the view elides


def test_flags(model):
    flags = model.flags(model.index(0, 0))
    assert flags & Qt.ItemFlag.ItemIsSelectable and flags & Qt.ItemFlag.ItemNeverHasChildren
    assert flags & Qt.ItemFlag.ItemIsEditable  # the title column edits the session name
    assert not model.flags(model.index(0, 1)) & Qt.ItemFlag.ItemIsEditable
    assert model.flags(QModelIndex()) == Qt.ItemFlag.NoItemFlags


# -- resets and live updates ----------------------------------------------------------------------------


def test_set_summaries_resets_and_keeps_nothing_stale(qtbot, qtmodeltester, model, summaries):
    old = summaries[0]
    recorder = Recorder(model)
    with qtbot.waitSignal(model.modelReset):
        model.set_summaries(summaries[3:5])
    assert recorder.events == [("reset",)]
    assert model.rowCount() == 2
    assert model.row_of(old.path) == -1
    assert model.row_of(summaries[4].path) == 1
    qtmodeltester.check(model)
    model.set_summaries([])
    assert model.rowCount() == 0 and model.row_of(summaries[4].path) == -1


def test_duplicate_paths_are_one_row(model, summaries):
    renamed = dataclasses.replace(summaries[1], name="again")
    model.set_summaries([summaries[0], summaries[1], summaries[2], renamed])
    assert model.rowCount() == 3
    assert model.summary_at(1) is renamed


def test_update_with_no_changes_emits_nothing(model, summaries):
    recorder = Recorder(model)
    model.update_summaries([dataclasses.replace(s) for s in summaries])  # equal copies
    assert recorder.events == []


def test_update_changed_new_and_removed(qtbot, qtmodeltester, model, summaries):
    n = len(summaries)
    removed = summaries[2]
    changed = dataclasses.replace(
        summaries[5], name="Renamed live", messageCount=summaries[5].messageCount + 2
    )
    new = dataclasses.replace(summaries[0], path="/tmp/new-session.jsonl", id="new-id", name=None)
    fresh = [*summaries[:2], *summaries[3:5], changed, *summaries[6:], new]
    recorder = Recorder(model)

    with (
        qtbot.waitSignal(model.rowsRemoved) as removed_blocker,
        qtbot.waitSignal(model.dataChanged) as changed_blocker,
        qtbot.waitSignal(model.rowsInserted) as inserted_blocker,
    ):
        model.update_summaries(fresh)

    # Exactly: one removal of row 2, one dataChanged for the changed row (now at 4), one insert at the end.
    assert recorder.events == [
        ("removed", False, 2, 2),
        ("changed", 4, 4),
        ("inserted", False, n - 1, n - 1),
    ]
    assert removed_blocker.args[1:] == [2, 2]
    top_left, bottom_right = changed_blocker.args[:2]
    assert (top_left.row(), top_left.column()) == (4, 0)
    assert (bottom_right.row(), bottom_right.column()) == (4, model.columnCount() - 1)
    assert inserted_blocker.args[1:] == [n - 1, n - 1]

    assert model.rowCount() == n
    assert model.row_of(removed.path) == -1
    assert model.row_of(changed.path) == 4
    assert model.summary_at(4) is changed
    assert model.data(model.index(4, 0)) == "Renamed live"
    assert model.row_of(new.path) == n - 1
    for row in range(model.rowCount()):  # the path index is consistent with the rows
        assert model.row_of(model.summary_at(row).path) == row
    qtmodeltester.check(model)


def test_update_coalesces_runs_and_inserts_several(qtmodeltester, model, summaries):
    n = len(summaries)
    fresh = list(summaries)
    del fresh[7:9]  # two adjacent rows vanish
    del fresh[1]  # and one more, apart
    fresh[3] = dataclasses.replace(fresh[3], cost=99.0)  # source rows 4 and 5 change
    fresh[4] = dataclasses.replace(fresh[4], cost=98.0)
    extra = [dataclasses.replace(summaries[0], path=f"/tmp/extra-{i}.jsonl") for i in range(3)]
    recorder = Recorder(model)
    model.update_summaries(fresh + extra)
    assert recorder.events == [
        ("removed", False, 7, 8),  # bottom run first
        ("removed", False, 1, 1),
        ("changed", 3, 4),
        ("inserted", False, n - 3, n - 3 + 3 - 1),
    ]
    assert [model.summary_at(r).path for r in range(model.rowCount())] == [s.path for s in fresh + extra]
    qtmodeltester.check(model)


def test_update_keeps_the_selection(qtbot, model, summaries):
    from PySide6.QtWidgets import QTableView

    proxy = SessionFilterProxy()
    proxy.setSourceModel(model)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(proxy)
    target = summaries[6]
    view.selectionModel().setCurrentIndex(
        proxy.mapFromSource(model.index(model.row_of(target.path), 0)),
        view.selectionModel().SelectionFlag.ClearAndSelect | view.selectionModel().SelectionFlag.Rows,
    )
    fresh = [s for s in summaries if s is not summaries[0]]
    fresh.append(dataclasses.replace(summaries[0], path="/tmp/another.jsonl"))
    model.update_summaries(fresh)
    selected = view.selectionModel().selectedRows()
    assert [proxy.data(i, Role.ITEM) for i in selected] == [target]


def test_update_of_empty_model_inserts_all(qtmodeltester, summaries):
    model = SessionListModel()
    recorder = Recorder(model)
    model.update_summaries(summaries)
    assert recorder.events == [("inserted", False, 0, len(summaries) - 1)]
    model.update_summaries([])
    assert recorder.events[-1] == ("removed", False, 0, len(summaries) - 1)
    assert model.rowCount() == 0
    qtmodeltester.check(model)


# -- proxy: sorting and filtering -----------------------------------------------------------------------


EXPECTED_SORT_KEY = {
    SessionColumn.TITLE: lambda s: one_line(s.title).casefold(),
    SessionColumn.PROJECT: lambda s: s.cwd.casefold(),
    SessionColumn.MODIFIED: lambda s: s.modified,  # the samples' ISO strings share one format
    SessionColumn.MESSAGES: lambda s: s.messageCount,
    SessionColumn.TOKENS: lambda s: s.totalTokens,
    SessionColumn.COST: lambda s: s.cost,
}


def test_proxy_passes_modeltester(qtmodeltester, proxy):
    qtmodeltester.check(proxy)
    proxy.sort(SessionColumn.MODIFIED, Qt.SortOrder.DescendingOrder)
    proxy.set_filter_text("acme")
    qtmodeltester.check(proxy)


@pytest.mark.parametrize("column", list(SessionColumn))
@pytest.mark.parametrize("order", [Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder])
def test_sort_by_every_column(proxy, summaries, column, order):
    assert proxy.sortRole() == Role.SORT
    proxy.sort(column, order)
    shown = [proxy.summary_at(r) for r in range(proxy.rowCount())]
    key = EXPECTED_SORT_KEY[column]
    descending = order == Qt.SortOrder.DescendingOrder
    assert [key(s) for s in shown] == sorted((key(s) for s in summaries), reverse=descending)
    sort_values = rows_of(proxy, column, Role.SORT)
    assert sort_values == sorted(sort_values, reverse=descending)
    assert len({type(v) for v in sort_values}) == 1  # one type per column


def test_sort_modified_uses_time_not_text(model, summaries):
    base = summaries[0]
    later = dataclasses.replace(base, path="/x/later.jsonl", modified="2026-03-01T10:00:00+02:00")  # 08:00Z
    earlier = dataclasses.replace(base, path="/x/earlier.jsonl", modified="2026-03-01T09:00:00Z")
    missing = dataclasses.replace(base, path="/x/missing.jsonl", modified=None)
    model.set_summaries([earlier, later, missing])
    proxy = SessionFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(SessionColumn.MODIFIED, Qt.SortOrder.AscendingOrder)
    assert [proxy.summary_at(r).path for r in range(3)] == [
        "/x/missing.jsonl",
        "/x/later.jsonl",
        "/x/earlier.jsonl",
    ]
    assert proxy.data(proxy.index(0, SessionColumn.MODIFIED)) == ""


def test_sort_is_kept_after_updates(proxy, model, summaries):
    proxy.sort(SessionColumn.TOKENS, Qt.SortOrder.DescendingOrder)
    huge = dataclasses.replace(summaries[-1], path="/tmp/huge.jsonl", totalTokens=10**10)
    model.update_summaries([*summaries, huge])
    assert proxy.summary_at(0) is huge
    cheap = dataclasses.replace(summaries[0], totalTokens=0)
    model.update_summaries([cheap, *summaries[1:], huge])
    assert proxy.summary_at(proxy.rowCount() - 1) is cheap


def test_live_updates_keep_selection_while_rows_move(qtbot, qtmodeltester, proxy, model, summaries):
    from PySide6.QtWidgets import QTableView

    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(proxy)
    view.setSortingEnabled(True)
    view.sortByColumn(SessionColumn.MODIFIED, Qt.SortOrder.DescendingOrder)
    last = proxy.summary_at(proxy.rowCount() - 1)
    view.selectRow(proxy.rowCount() - 1)
    recorder = Recorder(proxy)
    newer = dataclasses.replace(last, modified="2099-01-01T00:00:00+00:00", messageCount=99)
    model.update_summaries([newer if s.path == last.path else s for s in summaries])
    assert proxy.summary_at(0) is newer  # moved to the top: one layout change, no reset
    assert ("reset",) not in recorder.events and ("layout",) in recorder.events
    assert view.currentIndex().row() == 0 and proxy.summary_at(view.currentIndex().row()) is newer
    qtmodeltester.check(proxy)


def fork_family(summaries: list[SessionSummary]) -> list[SessionSummary]:
    """Five sessions: a parent with a fork that has a fork, an unrelated one, a fork of a missing file."""
    base = summaries[0]

    def make(name: str, parent: str | None, modified: str) -> SessionSummary:
        return dataclasses.replace(
            base, path=f"/s/{name}.jsonl", parentSessionPath=parent, modified=modified, name=name
        )

    return [
        make("grandchild", "/s/child.jsonl", "2026-01-05T00:00:00+00:00"),
        make("parent", None, "2026-01-01T00:00:00+00:00"),
        make("other", None, "2026-01-03T00:00:00+00:00"),
        make("child", "/s/./parent.jsonl", "2026-01-04T00:00:00+00:00"),
        make("orphan", "/gone/x.jsonl", "2026-01-02T00:00:00+00:00"),
    ]


def test_forks_can_be_threaded_under_their_parent(qtmodeltester, qtbot, summaries):
    model = SessionListModel(fork_family(summaries))
    proxy = SessionFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(SessionColumn.MODIFIED, Qt.SortOrder.DescendingOrder)
    names = lambda: [proxy.summary_at(r).name for r in range(proxy.rowCount())]  # noqa: E731
    assert names() == ["grandchild", "child", "other", "orphan", "parent"]
    model.set_threaded(True)
    # threads ordered by their head, each session followed by its forks (newest first among siblings)
    assert names() == ["other", "orphan", "parent", "child", "grandchild"]
    assert [model.depth(model.row_of(f"/s/{n}.jsonl")) for n in names()] == [0, 0, 0, 1, 2]
    titles = [proxy.index(r, SessionColumn.TITLE).data() for r in range(proxy.rowCount())]
    assert titles[2] == "parent" and titles[3] == "\u21b3 child" and titles[4] == "\u2003\u21b3 grandchild"
    proxy.sort(SessionColumn.MODIFIED, Qt.SortOrder.AscendingOrder)
    assert names() == ["parent", "child", "grandchild", "orphan", "other"]  # parents still come first
    qtmodeltester.check(proxy)
    model.set_threaded(False)
    assert names() == ["parent", "orphan", "other", "child", "grandchild"]
    assert proxy.index(3, SessionColumn.TITLE).data() == "child"


def test_forks_whose_recorded_parent_path_is_not_here_are_threaded_by_name_or_id(qtbot, summaries):
    """A history synced from another machine: parentSession names a home folder that does not exist here."""
    base = summaries[0]

    def make(path: str, session_id: str, parent: str | None) -> SessionSummary:
        return dataclasses.replace(base, path=path, id=session_id, parentSessionPath=parent, name=path)

    parent = make("/here/--p--/2026-01-01T00-00-00-000Z_019a-parent.jsonl", "019a-parent", None)
    by_name = make(
        "/here/--p--/fork-a.jsonl",
        "019a-fork-a",
        "/Users/me/.pi/agent/sessions/--p--/" + os.path.basename(parent.path),
    )
    by_id = make(
        "/here/flat/fork-b.jsonl", "019a-fork-b", "C:\\Users\\me\\.prime\\agent\\sessions\\019a-parent.jsonl"
    )
    twin_a = make("/here/x/twin.jsonl", "019a-twin-1", None)
    twin_b = make("/here/y/twin.jsonl", "019a-twin-2", None)
    unsure = make("/here/z/fork-c.jsonl", "019a-fork-c", "/elsewhere/twin.jsonl")  # two listed twins
    model = SessionListModel([parent, by_name, by_id, twin_a, twin_b, unsure])
    model.sort(SessionColumn.TITLE, Qt.SortOrder.AscendingOrder)
    model.set_threaded(True)
    assert model.depth(model.row_of(by_name.path)) == 1
    assert model.depth(model.row_of(by_id.path)) == 1
    assert model.depth(model.row_of(unsure.path)) == 0  # ambiguous: not guessed
    rows = [model.summary_at(r).path for r in range(model.rowCount())]
    assert rows.index(parent.path) < rows.index(by_name.path) and rows.index(parent.path) < rows.index(
        by_id.path
    )


def test_a_cycle_of_parent_sessions_does_not_hang(qtbot, summaries):
    base = summaries[0]
    a = dataclasses.replace(base, path="/s/a.jsonl", parentSessionPath="/s/b.jsonl", name="a")
    b = dataclasses.replace(base, path="/s/b.jsonl", parentSessionPath="/s/a.jsonl", name="b")
    model = SessionListModel([a, b])
    model.sort(SessionColumn.TITLE, Qt.SortOrder.AscendingOrder)
    model.set_threaded(True)
    assert sorted(s.name for s in model.summaries()) == ["a", "b"]


def visible_paths(proxy) -> set[str]:
    return {proxy.summary_at(r).path for r in range(proxy.rowCount())}


def test_filter_words(qtmodeltester, proxy, summaries):
    def expect(predicate) -> set[str]:
        return {s.path for s in summaries if predicate(s)}

    proxy.set_filter_text("ACME")  # case-insensitive, project
    assert visible_paths(proxy) == expect(lambda s: "acme" in s.cwd)
    proxy.set_filter_text("  acme   v2 ")  # every word must match, in any field
    assert visible_paths(proxy) == expect(lambda s: "acme-webapp-v2" in s.cwd)
    proxy.set_filter_text("login acme")  # title + project
    assert visible_paths(proxy) == expect(lambda s: "login" in s.title.casefold() and "acme" in s.cwd)
    proxy.set_filter_text("gpt-5.1")  # models
    assert visible_paths(proxy) == expect(lambda s: any("gpt-5.1" in m for m in s.models))
    target = summaries[3]
    proxy.set_filter_text(target.id[-12:].upper())  # id
    assert visible_paths(proxy) == {target.path}
    proxy.set_filter_text("acme no-such-word")
    assert proxy.rowCount() == 0
    qtmodeltester.check(proxy)
    proxy.set_filter_text("")
    assert proxy.rowCount() == len(summaries)
    assert proxy.filter_text() == ""


def test_filter_does_not_search_the_path(proxy, summaries):
    proxy.set_filter_text("jsonl")
    assert proxy.rowCount() == 0


def test_named_only(qtbot, proxy, summaries):
    named = {s.path for s in summaries if s.name}
    assert named and len(named) < len(summaries)
    with qtbot.waitSignal(proxy.rowsRemoved):
        proxy.set_named_only(True)
    assert proxy.named_only()
    assert visible_paths(proxy) == named
    proxy.set_filter_text("v2")  # combines with the words
    assert visible_paths(proxy) == {s.path for s in summaries if s.name and "v2" in s.cwd}
    proxy.set_filter_text("")
    with qtbot.waitSignal(proxy.rowsInserted):
        proxy.set_named_only(False)
    assert proxy.rowCount() == len(summaries)


def test_setters_skip_no_op_changes(proxy):
    events: list[str] = []
    proxy.layoutChanged.connect(lambda *a: events.append("layout"))
    proxy.rowsRemoved.connect(lambda *a: events.append("removed"))
    proxy.rowsInserted.connect(lambda *a: events.append("inserted"))
    proxy.set_named_only(False)
    proxy.set_filter_text("")
    proxy.set_filter_text("   ")
    assert events == []
    assert proxy.filter_text() == "   "


def test_filter_follows_live_updates(proxy, model, summaries):
    proxy.set_filter_text("renamed")
    assert proxy.rowCount() == 0
    renamed = dataclasses.replace(summaries[4], name="Renamed later")
    model.update_summaries([*summaries[:4], renamed, *summaries[5:]])
    assert visible_paths(proxy) == {renamed.path}


def test_filter_reads_a_changed_summary_again(proxy, model, summaries):
    # The proxy keeps each row's casefolded text between keystrokes: a new summary must replace it.
    proxy.set_filter_text("e")
    renamed = dataclasses.replace(summaries[2], name="Quetzal")
    model.update_summaries([*summaries[:2], renamed, *summaries[3:]])
    proxy.set_filter_text("quetzal")
    assert visible_paths(proxy) == {renamed.path}
    model.update_summaries(summaries)
    assert visible_paths(proxy) == set()


def test_filter_uses_the_qt_filter_change_protocol(proxy):
    # Qt 6.10+ deprecates invalidateFilter() in favour of beginFilterChange()/endFilterChange().
    if hasattr(QSortFilterProxyModel, "endFilterChange"):
        calls: list[str] = []
        original_begin, original_end = proxy.beginFilterChange, proxy.endFilterChange
        proxy.beginFilterChange = lambda: (calls.append("begin"), original_begin())[1]
        proxy.endFilterChange = lambda *a: (calls.append("end"), original_end(*a))[1]
        proxy.set_filter_text("acme")
        proxy.set_named_only(True)
        assert calls == ["begin", "end", "begin", "end"]


# -- import hygiene -------------------------------------------------------------------------------------


def test_gui_models_import_no_core_io_modules():
    code = (
        "import sys, gui.models, gui.models.session_list_model, gui.models.session_filter_proxy\n"
        "print('\\n'.join(sorted(m for m in sys.modules if m == 'core' or m.startswith('core.'))))\n"
        "print('sqlite3' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    *core_modules, sqlite_loaded = out
    io_modules = {
        "core.session.session",
        "core.catalogue.catalogue",
        "core.session.discovery",
        "core.writing.writer",
    }
    assert not io_modules & set(core_modules), core_modules
    assert set(core_modules) <= {
        "core",
        "core.formatting",
        "core.lazy",
        "core.session",
        "core.session.lineage",
        "core.session.summary",
        "core.timefmt",
        # A session's notes key and tag matching (pure; the notes file's store, sqlite3, is not loaded).
        "core.errors",
        "core.notes",
        "core.notes.note",
    }
    assert sqlite_loaded == "False"
