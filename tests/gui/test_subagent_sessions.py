"""Child (subagent) sessions in the window: nested and folded in the list, linked both ways.

The sessions are the real layouts of :mod:`tests.core.subagent_layouts` (Prime Agent, pi-subagents, the
header-linked extensions), catalogued as the window catalogues them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QStyleOptionViewItem

from core.catalogue import Catalogue
from core.formatting import dollars
from gui.models import Role, SessionColumn, SessionFilterProxy, SessionListModel
from tests.core import subagent_layouts as layouts
from tests.gui.windows import TIMEOUT, current_entry_id, make_window, open_session

TOOLTIP = Qt.ItemDataRole.ToolTipRole


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, dict[str, layouts.Layout]]:
    home = tmp_path / "home"
    made = {
        "prime": layouts.prime_agent(home),
        "pi": layouts.pi_subagents(home),
        "header": layouts.header_linked(home),
    }
    return home, made


def _roots(home: Path) -> list[Path]:
    return [home / ".prime" / "agent" / "sessions", home / ".pi" / "agent" / "sessions"]


@pytest.fixture
def listed(tmp_path: Path, home) -> tuple[SessionListModel, SessionFilterProxy, dict[str, layouts.Layout]]:
    folder, made = home
    catalogue = Catalogue(tmp_path / "cat")
    catalogue.refresh(_roots(folder))
    summaries = catalogue.summaries()
    catalogue.close()
    model = SessionListModel(summaries)
    proxy = SessionFilterProxy()
    proxy.setSourceModel(model)
    return model, proxy, made


def _shown(proxy: SessionFilterProxy) -> list[str]:
    return [proxy.summary_at(row).path for row in range(proxy.rowCount())]


def _title_index(model: SessionListModel, path: Path):
    return model.index(model.row_of(str(path)), SessionColumn.TITLE)


def test_children_nest_folded_under_their_parent_with_a_badge(qtmodeltester, listed) -> None:
    model, proxy, made = listed
    qtmodeltester.check(model)
    prime = made["prime"]
    parent = str(prime.files["parent"])
    shown = _shown(proxy)
    assert parent in shown
    every_child = [str(lay.files[r]) for lay in made.values() for r, up in lay.parents.items() if up]
    assert not set(every_child) & set(shown)  # folded away
    assert _title_index(model, prime.files["parent"]).data(Role.SUBAGENTS) == "▸ 2 subagents"
    assert _title_index(model, made["pi"].files["parent"]).data(Role.SUBAGENTS) == "▸ 2 subagents"
    assert _title_index(model, prime.files["c1"]).data(Role.SUBAGENTS) == "▸ 1 subagent"
    assert _title_index(model, prime.files["gc"]).data(Role.SUBAGENTS) is None
    alone = str(made["header"].files["alone"])
    assert alone in shown  # a child whose parent is unknown stands alone

    # Unfolded: the children come right after their parent, indented; the grandchild stays folded.
    proxy.sort(SessionColumn.MODIFIED, Qt.SortOrder.DescendingOrder)
    assert model.setData(_title_index(model, prime.files["parent"]), True, Role.EXPANDED)
    qtmodeltester.check(model)
    shown = _shown(proxy)
    at = shown.index(parent)
    assert set(shown[at + 1 : at + 3]) == {str(prime.files["c1"]), str(prime.files["c2"])}
    assert str(prime.files["gc"]) not in shown
    c1 = _title_index(model, prime.files["c1"])
    assert c1.data().startswith("\u21b3 ")
    assert _title_index(model, prime.files["parent"]).data(Role.SUBAGENTS) == "▾ 2 subagents"
    assert model.setData(c1, True, Role.EXPANDED)
    shown = _shown(proxy)
    assert shown[shown.index(str(prime.files["c1"])) + 1] == str(prime.files["gc"])
    assert _title_index(model, prime.files["gc"]).data().startswith("\u2003\u21b3 ")

    assert model.setData(_title_index(model, prime.files["parent"]), False, Role.EXPANDED)
    assert not {str(prime.files[r]) for r in ("c1", "c2", "gc")} & set(_shown(proxy))


def test_nesting_does_not_depend_on_thread_forks(qtmodeltester, listed) -> None:
    model, proxy, made = listed
    header = made["header"]
    parent, child, fork = (str(header.files[r]) for r in ("parent", "child", "fork"))
    for threaded in (False, True, False):
        model.set_threaded(threaded)
        qtmodeltester.check(model)
        rows = [model.summary_at(r).path for r in range(model.rowCount())]
        at = rows.index(parent)
        assert child in rows[at + 1 : at + 4]  # a child nests under its parent either way
        assert model.depth(model.row_of(child)) == 1
        assert child not in _shown(proxy)
        assert fork in _shown(proxy)  # a fork is never folded away
        fork_row = model.row_of(fork)
        assert model.depth(fork_row) == (1 if threaded else 0)  # and nests only when forks are threaded


def test_a_word_filter_finds_a_folded_child(listed) -> None:
    _model, proxy, made = listed
    proxy.set_filter_text("count the files")  # the grandchild's first message
    assert _shown(proxy) == [str(made["prime"].files["gc"])]
    proxy.set_filter_text("")
    assert str(made["prime"].files["gc"]) not in _shown(proxy)


def test_the_cost_column_counts_children_once_and_the_tooltip_splits_it(listed) -> None:
    model, _proxy, made = listed
    for layout in made.values():
        for role, path in layout.files.items():
            cost = model.index(model.row_of(str(path)), SessionColumn.COST).data()
            assert cost == dollars(layout.family[role]), (role, path)
    tip = _title_index(model, made["prime"].files["parent"]).data(TOOLTIP)
    assert f"own {dollars(0.45)} + subagents {dollars(0.80)}" in tip
    assert "2 subagents" in tip
    child_tip = _title_index(model, made["pi"].files["a"]).data(TOOLTIP)
    assert "Subagent session of" in child_tip and "Review the app" in child_tip
    assert "Fork of" not in child_tip


def test_folding_is_announced_to_the_proxy(qtbot, listed) -> None:
    model, proxy, made = listed
    before = proxy.rowCount()
    with qtbot.waitSignal(model.folding_changed, timeout=TIMEOUT):
        model.set_expanded(str(made["pi"].files["parent"]), True)
    assert proxy.rowCount() == before + 2


def test_a_child_says_whose_it_is_and_the_parent_links_to_it(qtbot, tmp_path: Path, home) -> None:
    folder, made = home
    window = make_window(qtbot, _roots(folder), tmp_path / "catalogue")
    pi = made["pi"]
    child, parent = pi.files["a"], pi.files["parent"]

    open_session(qtbot, window, child)
    header = window.tree_pane.usage_label
    qtbot.waitUntil(lambda: "Subagent session of" in header.text(), timeout=TIMEOUT)
    assert f'href="{parent}"' in header.text()
    # Its row is shown and selected: the parent unfolded.
    assert window.catalogue.list_model.expanded(str(parent))
    table = window.table
    qtbot.waitUntil(lambda: table.currentIndex().isValid(), timeout=TIMEOUT)
    assert window.proxy.summary_at(table.currentIndex().row()).path == str(child)

    # The link in the header opens the parent.
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        header.linkActivated.emit(str(parent))
    assert window.context.session.path == str(parent)
    qtbot.waitUntil(lambda: "Usage $0.40 with its 2 subagents" in header.text(), timeout=TIMEOUT)

    # The launching message links to both children; the link opens one.
    transcript = window.transcript
    qtbot.waitUntil(
        lambda: transcript.toPlainText().count("Started the subagent session") == 2, timeout=TIMEOUT
    )
    assert "action:session/" in transcript.toHtml()
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        window.messages._on_view_action("session", str(child))
    assert window.context.session.path == str(child)


def test_the_tree_marks_the_launching_message_and_go_opens_both_ways(qtbot, tmp_path: Path, home) -> None:
    folder, made = home
    window = make_window(qtbot, _roots(folder), tmp_path / "catalogue")
    prime = made["prime"]
    open_session(qtbot, window, prime.files["c1"])
    registry = window.registry
    launch = prime.launchers["c1"]  # the parent's launching message; the child's own starts the grandchild
    from core.session import load_session

    child = load_session(prime.files["c1"])
    launch_gc = next(e.id for e in child.entries if e.id in child.usage_overrides)
    window.context.reveal_entry(launch_gc)
    qtbot.waitUntil(lambda: current_entry_id(window) == launch_gc, timeout=TIMEOUT)
    row = window.tree.currentIndex()
    assert row.data().endswith("⤷ 1 subagent session")
    assert "started the subagent session “count the files”" in row.data(TOOLTIP)
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        registry["go.subagent"].trigger()  # one child: opened at once
    assert window.context.session.path == str(prime.files["gc"])
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        registry["go.parent_session"].trigger()
    assert window.context.session.path == str(prime.files["c1"])
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        registry["go.parent_session"].trigger()
    assert window.context.session.path == str(prime.files["parent"])
    window.context.reveal_entry(launch)
    qtbot.waitUntil(lambda: current_entry_id(window) == launch, timeout=TIMEOUT)
    assert window.tree.currentIndex().data().endswith("⤷ 2 subagent sessions")
    assert window.opened.launched() and {k.path for k in window.opened.launched()} == {
        str(prime.files["c1"]),
        str(prime.files["c2"]),
    }


def test_a_click_on_the_badge_unfolds_and_folds(qtbot, tmp_path: Path, home) -> None:
    folder, made = home
    window = make_window(qtbot, _roots(folder), tmp_path / "catalogue")
    table, proxy, model = window.table, window.proxy, window.catalogue.list_model
    parent = str(made["pi"].files["parent"])

    def badge_centre():
        index = proxy.mapFromSource(model.index(model.row_of(parent), SessionColumn.TITLE))
        table.scrollTo(index)
        option = QStyleOptionViewItem()
        option.initFrom(table.viewport())
        option.widget = table
        option.rect = table.visualRect(index)
        option.font = table.font()
        option.fontMetrics = table.fontMetrics()
        placed = table.itemDelegateForColumn(SessionColumn.TITLE)._tag(option, index)
        assert placed is not None
        return placed[2].center()

    children = {str(made["pi"].files[r]) for r in ("a", "b")}
    assert not children & set(_shown(proxy))
    with qtbot.waitSignal(model.folding_changed, timeout=TIMEOUT):
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=badge_centre())
    assert children <= set(_shown(proxy))
    with qtbot.waitSignal(model.folding_changed, timeout=TIMEOUT):
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=badge_centre())
    assert not children & set(_shown(proxy))
    # Right and Left on the parent's row do the same from the keyboard.
    table.setFocus()
    table.setCurrentIndex(proxy.mapFromSource(model.index(model.row_of(parent), SessionColumn.TITLE)))
    with qtbot.waitSignal(model.folding_changed, timeout=TIMEOUT):
        QTest.keyClick(table, Qt.Key.Key_Right)
    assert children <= set(_shown(proxy))
    with qtbot.waitSignal(model.folding_changed, timeout=TIMEOUT):
        QTest.keyClick(table, Qt.Key.Key_Left)
    assert not children & set(_shown(proxy))


def test_left_on_a_child_goes_to_its_parent(qtbot, tmp_path: Path, home) -> None:
    folder, made = home
    window = make_window(qtbot, _roots(folder), tmp_path / "catalogue")
    table, proxy, model = window.table, window.proxy, window.catalogue.list_model
    parent, child = str(made["pi"].files["parent"]), str(made["pi"].files["b"])
    model.set_expanded(parent, True)
    table.setFocus()
    table.setCurrentIndex(proxy.mapFromSource(model.index(model.row_of(child), SessionColumn.TITLE)))
    QTest.keyClick(table, Qt.Key.Key_Left)
    assert proxy.summary_at(table.currentIndex().row()).path == parent
    assert model.expanded(parent)  # going up folds nothing


def test_a_child_listed_while_its_parent_is_open_gets_its_link(qtbot, tmp_path: Path, home) -> None:
    folder, made = home
    pi = made["pi"]
    moved = tmp_path / "later"
    pi.files["a"].parent.parent.parent.rename(moved)  # the first child's run folder is not there yet
    window = make_window(qtbot, _roots(folder), tmp_path / "catalogue")
    open_session(qtbot, window, pi.files["parent"])
    transcript = window.transcript
    qtbot.waitUntil(lambda: "Started the subagent session" in transcript.toPlainText(), timeout=TIMEOUT)
    assert transcript.toPlainText().count("Started the subagent session") == 1
    moved.rename(pi.files["a"].parent.parent.parent)  # the subagent's session appears
    with qtbot.waitSignal(window.catalogue.refresh_finished, timeout=TIMEOUT):
        window.catalogue.refresh()
    qtbot.waitUntil(
        lambda: transcript.toPlainText().count("Started the subagent session") == 2, timeout=TIMEOUT
    )
    launch = window.tree_model.index_for_entry(pi.launchers["a"])
    assert launch.data().endswith("⤷ 2 subagent sessions")
    header = window.tree_pane.usage_label
    qtbot.waitUntil(lambda: "with its 2 subagents" in header.text(), timeout=TIMEOUT)
