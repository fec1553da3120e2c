"""The transcript (issue 25): a session read as a conversation, on real session files.

The view (pytest-qt, offscreen) is checked against core and against the tree: the cards it holds are the
path's visible entries in order for every filter mode and every leaf of the reference's ``branches``
sample, each as the tree decides its rows; switching at every branch point follows the sibling to its
leaf; the tree and the transcript follow each other; find's count is the count of a plain substring
search over the rendered text; copying everything gives the Markdown export of the path.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QGuiApplication, QKeyEvent

from core.export.markdown import session_to_markdown
from core.kinds import kind_of
from core.kinds.cards import slot_cards
from core.render.reading import PathCards
from core.session import Session, load_session
from core.visible import FILTER_MODES, conversation, passes, transcript_of
from gui.main_window import MainWindow
from gui.models.branch_tree_model import BranchTreeModel
from gui.widgets import transcript_view
from gui.widgets.transcript_view import TranscriptView
from tests.conftest import CORPUS, DEMO, SAMPLES, SHARED
from tests.gui.windows import (
    TIMEOUT,
    current_entry_id,
    make_window,
    marked_entry_id,
    open_session,
    run_posted,
)

BRANCHES = next((SAMPLES / "pi-layout" / "sessions").glob("*/2026-03-03T14-02-51-403Z_*.jsonl"))
LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # demo: tool calls, thinking, an image; leaf is a name
REAL_FILES = sorted(
    [
        *DEMO.glob("*.jsonl"),
        *(SHARED / "reference" / "samples-latest").rglob("*.jsonl"),
        *(SHARED / "corpus" / "wild").glob("*.jsonl"),
        *CORPUS.glob("*.jsonl"),
    ]
)


def _leaves(session: Session) -> list[str]:
    children = session.tree.children
    return [entry.id for entry in session.entries if not children.get(entry.id)]


def _visible_path(session: Session, leaf: str, mode: str) -> list[str]:
    return [e.id for e in session.path_to(leaf) if e.id == session.leaf_id or passes(e, mode, session)]


def _view(qtbot, height: int = 700) -> TranscriptView:
    view = TranscriptView()
    qtbot.addWidget(view)
    view.resize(900, height)
    view.show()
    return view


def _cards_in_order(qtbot, view: TranscriptView) -> list[int]:
    """Every card of the source, scrolling from the first to the last as a reader would."""
    source = view.card_source
    assert source is not None
    view.go_home()
    seen: list[int] = []
    bar = view.verticalScrollBar()
    for _ in range(10_000):
        run_posted(qtbot, view)
        seen.extend(slot for slot in view.rendered_slots if not seen or slot > seen[-1])
        if view.rendered[1] >= len(source) and bar.value() >= bar.maximum():
            break
        bar.setValue(bar.maximum())
    return seen


# ---------------------------------------------------------------------------- what the transcript holds
@pytest.mark.parametrize("mode", FILTER_MODES)
def test_the_transcript_holds_the_visible_path_of_every_leaf(qtbot, mode: str) -> None:
    session = load_session(BRANCHES, checksum=False)
    tree = BranchTreeModel(session, filter_mode=mode)
    view = _view(qtbot, height=300)  # small: the path is rendered in several stretches
    leaves = _leaves(session)
    assert len(leaves) >= 3
    for leaf in leaves:
        transcript = transcript_of(session, leaf, mode)
        shown = [e.id for e in transcript.entries]
        assert shown == _visible_path(session, leaf, mode), (leaf, mode)
        for entry in session.path_to(leaf):  # the tree's rows and the transcript's cards agree
            assert tree.index_for_entry(entry.id).isValid() == (entry.id in shown), (leaf, mode, entry.id)
        view.set_source(PathCards(session, transcript))
        expected = [slot for slot, _card in slot_cards(session, transcript.entries)]
        assert _cards_in_order(qtbot, view) == expected, (leaf, mode)


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: f"{p.parent.name}/{p.stem[-24:]}")
def test_real_sessions_open_at_their_last_turn(qtbot, path: Path) -> None:
    session = load_session(path, checksum=False)
    transcript = transcript_of(session, None, "default")
    view = _view(qtbot)
    view.set_source(PathCards(session, transcript), transcript.last_turn())
    if not len(transcript):
        return
    last = transcript.last_turn()
    assert last is not None and view.rendered[0] <= last < view.rendered[1]
    assert max(s for s in view.rendered_slots if s <= last) in view.visible_slots()
    assert view.toPlainText().strip()
    if kind_of(transcript.entries[last]).turn:
        assert view.span_range(last) is not None


# ---------------------------------------------------------------------------- in the window
@pytest.fixture
def branches_window(qtbot, tmp_path: Path) -> MainWindow:
    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copy2(BRANCHES, folder / BRANCHES.name)
    window = make_window(qtbot, [folder], tmp_path / "catalogue")
    window.resize(1600, 1000)
    open_session(qtbot, window, folder / BRANCHES.name)
    return window


def test_a_session_opens_at_its_last_turn_not_its_bookkeeping_leaf(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    import orjson

    path = sessions / LINEAR
    leaf = load_session(path, checksum=False).leaf_id
    bookkeeping = [  # named, then labelled, after the last reply: the leaf is bookkeeping
        {
            "type": "session_info",
            "id": "name0001",
            "parentId": leaf,
            "name": "Harden cookie parser",
            "timestamp": "2026-03-02T10:00:00.000Z",
        },
        {
            "type": "label",
            "id": "label001",
            "parentId": "name0001",
            "targetId": leaf,
            "label": "done",
            "timestamp": "2026-03-02T10:00:01.000Z",
        },
    ]
    with open(path, "ab") as handle:
        handle.write(b"".join(orjson.dumps(line) + b"\n" for line in bookkeeping))
    open_session(qtbot, window, path)
    session = window.opened.session
    assert session is not None and session.leaf_id == "label001" and not kind_of(session.leaf).turn
    transcript = window.messages.transcript
    assert transcript is not None
    last = transcript.last_turn()
    assert last is not None and transcript.entries[last].id == leaf
    assert last in window.transcript.visible_slots()  # the last reply is what is read first
    assert marked_entry_id(window) == session.leaf_id == current_entry_id(window)
    assert "Harden cookie parser" in window.transcript.toPlainText()  # the bookkeeping, below it


def test_switching_at_every_branch_point_follows_the_sibling_to_its_leaf(
    qtbot, branches_window: MainWindow
) -> None:
    window = branches_window
    session = window.opened.session
    assert session is not None
    for mode in ("all", "default"):
        window.filter_mode.set_mode(mode)
        window.opened.select_leaf()
        transcript = window.messages.transcript
        assert transcript is not None and transcript.switches
        for card_id, switch in list(transcript.switches.items()):
            for index, sibling in enumerate(switch.siblings):
                current = window.messages.transcript
                assert current is not None
                on_card = next(
                    eid for eid, sw in current.switches.items() if sw.parent_id == switch.parent_id
                )
                slot = current.slot_of(on_card)
                window.transcript.scroll_to_slot(slot, mark=False)
                before = window.transcript.viewport_point(slot)
                moved = window.messages.switch_branch(on_card, index)
                after = window.messages.transcript
                assert after is not None
                leaf = conversation(session, sibling)[-1].id
                assert after.leaf_id == leaf
                assert [e.id for e in after.entries] == _visible_path(session, leaf, mode)
                assert after.switches[after.entries[slot].id].index == index
                if moved:  # the switcher stays where it was on screen; the tree follows
                    # (unless the new branch is too short to scroll that far: then it is at its end)
                    bar = window.transcript.verticalScrollBar()
                    at_end = bar.value() == bar.maximum()
                    assert window.transcript.viewport_point(slot) == before or at_end
                    assert current_entry_id(window) == after.entries[slot].id
            del card_id


def test_the_tree_and_the_transcript_follow_each_other(qtbot, window: MainWindow, sessions: Path) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    transcript = window.messages.transcript
    assert transcript is not None and len(transcript) > 10
    view = window.transcript
    users = [i for i, e in enumerate(transcript.entries) if e.role == "user"]
    early = transcript.entries[users[1]].id
    assert window.opened.select_entry(early)  # the tree moves the transcript
    assert view.current_slot == users[1] == view.reading_slot() and marked_entry_id(window) == early
    selected = current_entry_id(window)
    target = transcript.entries[8].id
    with qtbot.waitSignal(window.messages.reading_entry, timeout=TIMEOUT) as blocker:
        view.scroll_to_slot(transcript.nearest_slot(target), mark=False)  # the reader scrolls
    assert blocker.args == [view.card_source.entry_id(view.reading_slot())]
    assert window.tree_model.reading_id == blocker.args[0]
    index = window.tree_model.index_for_entry(blocker.args[0])
    assert index.data(Qt.ItemDataRole.BackgroundRole) is not None
    assert current_entry_id(window) == selected  # the selection did not move


def test_alt_down_goes_on_from_the_transcript(qtbot, window: MainWindow, sessions: Path) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    transcript = window.messages.transcript
    assert transcript is not None
    users = [i for i, e in enumerate(transcript.entries) if e.role == "user"]
    assert len(users) >= 3
    window.transcript.scroll_to_slot(users[1], mark=False)
    window.transcript.setFocus()
    qtbot.waitUntil(window.transcript.hasFocus, timeout=TIMEOUT)
    window.registry["go.next_user"].trigger()
    assert current_entry_id(window) == transcript.entries[users[2]].id
    assert window.transcript.reading_slot() == users[2]


# ---------------------------------------------------------------------------- find
def _count_in_text(view: TranscriptView, needle: str) -> int:
    """A plain substring count over the rendered text, the switcher lines (not card text) left out."""
    lines = view.toPlainText().lower().replace("\u2028", "\n").split("\n")
    return sum(line.count(needle) for line in lines if not line.startswith("◀ branch"))


@pytest.mark.parametrize("needle", ["the", "login", "handlesubmit", "error", "test", "(", "npm run", "zzz"])
def test_find_counts_equal_a_substring_count_of_the_rendered_text(
    qtbot, window: MainWindow, sessions: Path, needle: str
) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    window.filter_mode.set_mode("all")
    view, source = window.transcript, window.transcript.card_source
    assert isinstance(source, PathCards)
    whole = _view(qtbot, height=20_000)  # tall enough to hold every card of the session at once
    whole.set_unfold_all(True)  # the whole text: every fold open
    whole.set_source(source, 0)
    qtbot.waitUntil(lambda: whole.rendered == (0, len(source)), timeout=TIMEOUT)
    expected = _count_in_text(whole, needle)
    window.transcript.setFocus()
    window.focus_filter()  # Ctrl+F from the transcript: find in the session
    assert window.find_bar.isVisible() and window.focusWidget() is window.find_bar.edit
    window.find_bar.edit.setText(needle)
    window.find_bar.flush()
    qtbot.waitUntil(lambda: view.marks.complete, timeout=TIMEOUT)
    assert view.marks.total == expected
    if expected:
        assert window.find_bar.count.text().endswith(f"of {expected:,}")
        assert view.extraSelections() and view.textCursor().selectedText().lower() == needle  # the first


def _card_text(view: TranscriptView, slot: int) -> str:
    bounds = view.span_range(slot)
    assert bounds is not None, f"the card of slot {slot} is not in the document"
    cursor = view.textCursor()
    cursor.setPosition(bounds[0])
    cursor.setPosition(bounds[1], cursor.MoveMode.KeepAnchor)
    return cursor.selectedText()


def test_find_opens_folded_blocks_and_moves_with_f3(qtbot, window: MainWindow, sessions: Path) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    view, session, transcript = window.transcript, window.opened.session, window.messages.transcript
    assert session is not None and transcript is not None
    thinking = {
        e.id: block["thinking"]
        for e in transcript.entries
        if e.role == "assistant"
        for block in session.body(e)["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "thinking" and block.get("thinking")
    }
    entry_id, text = next(iter(thinking.items()))
    folded = transcript.slot_of(entry_id)
    word = max(text.split(), key=len).strip(".,:;`'\"()").lower()
    if view.span_range(folded) is not None:
        assert "Thinking…" in _card_text(view, folded)  # folded at first
    window.tree.setFocus()
    window.focus_filter()
    window.find_bar.edit.setText(word)
    window.find_bar.flush()
    qtbot.waitUntil(lambda: view.marks.complete and view.marks.current is not None, timeout=TIMEOUT)
    total = view.marks.total
    assert total >= 1
    visited = set()
    first = view.marks.current  # the first match at or after the reader's place
    for step in range(total):  # F3 visits every match; each is in the document, selected, its fold open
        number = (first + step) % total
        assert view.marks.current == number
        slot, _index = view.marks.locate(number)
        visited.add(slot)
        assert view.textCursor().selectedText().lower() == word
        card = _card_text(view, slot)
        assert word in card.lower()
        if slot == folded:
            assert "▾ Thinking" in card  # the folded reasoning was opened to show its match
        window.registry["edit.find_next"].trigger()
    assert folded in visited and view.marks.current == first  # and round again
    qtbot.keyClick(window.find_bar.edit, Qt.Key.Key_Escape)  # Escape closes the bar and its highlights
    assert not window.find_bar.isVisible() and not view.extraSelections()


def test_ctrl_f_in_the_list_still_filters_the_list(qtbot, window: MainWindow) -> None:
    window.table.setFocus()
    window.focus_filter()
    assert window.filter_edit.hasFocus() and not window.find_bar.isVisible()


# ---------------------------------------------------------------------------- copying
@pytest.mark.parametrize("mode", ["all", "default"])
def test_copy_all_is_the_markdown_export_of_the_path(qtbot, branches_window: MainWindow, mode: str) -> None:
    window = branches_window
    window.filter_mode.set_mode(mode)
    window.opened.select_leaf()
    session, transcript = window.opened.session, window.messages.transcript
    assert session is not None and transcript is not None
    clipboard = QGuiApplication.clipboard()
    clipboard.setText("")
    view = window.transcript
    view.setFocus()
    for key in (Qt.Key.Key_A, Qt.Key.Key_C):
        view.keyPressEvent(QKeyEvent(QEvent.Type.KeyPress, key, Qt.KeyboardModifier.ControlModifier))
    qtbot.waitUntil(lambda: bool(clipboard.text()), timeout=TIMEOUT)
    expected = session_to_markdown(session, entries=list(transcript.entries)).text
    assert clipboard.text() == expected
    if mode == "all":
        assert expected == session_to_markdown(session, leaf_id=session.leaf_id).text


# ---------------------------------------------------------------------------- live and layout
def _append_user(path: Path, entry_id: str, parent: str, text: str) -> None:
    import orjson

    line = {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-03-02T10:00:00.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1772445600000},
    }
    with open(path, "ab") as handle:
        handle.write(orjson.dumps(line) + b"\n")


def test_a_growing_session_adds_cards_without_moving_the_reader(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    session, view = window.opened.session, window.transcript
    assert session is not None
    view.go_home()
    run_posted(qtbot, view)
    position, reading, count = view.verticalScrollBar().value(), view.reading_slot(), len(view.card_source)
    _append_user(Path(session.path), "live0001", session.leaf_id, "A live line about zebras")
    with qtbot.waitSignal(window.context.session_updated, timeout=TIMEOUT):
        window.opened.on_file_changed(session.path)
    assert len(view.card_source) == count + 1
    assert view.verticalScrollBar().value() == position and view.reading_slot() == reading

    view.go_end()  # at the bottom, the reader follows the new end
    run_posted(qtbot, view)
    _append_user(Path(session.path), "live0002", "live0001", "Another line about walruses")
    with qtbot.waitSignal(window.context.session_updated, timeout=TIMEOUT):
        window.opened.on_file_changed(session.path)
    bar = view.verticalScrollBar()
    assert bar.value() == bar.maximum()
    assert "walruses" in view.toPlainText()


def test_the_transcript_gets_half_the_window_and_panes_collapse(
    qtbot, sessions: Path, tmp_path: Path
) -> None:
    window = make_window(qtbot, [sessions], tmp_path / "catalogue")
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.message_pane.width() >= 800, timeout=TIMEOUT)
    window.registry["view.session_list"].trigger()  # Ctrl+Shift+1
    assert not window.left_splitter.isVisible()
    window.registry["view.branch_tree"].trigger()
    assert not window.tree_pane.isVisible()
    window.registry["view.focus_list"].trigger()  # Ctrl+1 shows the list again
    assert window.left_splitter.isVisible() and window.table.hasFocus()
    window.registry["view.focus_transcript"].trigger()
    assert window.transcript.hasFocus()
    window.close()
    again = make_window(qtbot, [sessions], tmp_path / "catalogue")
    assert not again.tree_pane.isVisible() and again.left_splitter.isVisible()  # remembered


# ---------------------------------------------------------------------------- a long read
def _long_session(path: Path, turns: int) -> Path:
    """A linear session of ``turns`` user/assistant pairs, each answer with a link and a list."""
    lines = [
        {"type": "session", "version": 3, "id": "long", "timestamp": "2026-03-03T10:00:00.000Z", "cwd": "/w"}
    ]
    parent = None
    for i in range(turns):
        for role, text in (
            ("user", f"Question {i}?"),
            ("assistant", f"Answer {i}: see [{i}](https://e/{i})\n\n- a\n- b"),
        ):
            entry_id = f"{role[0]}{i:05d}"
            content = text if role == "user" else [{"type": "text", "text": text}]
            lines.append(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": "2026-03-03T10:00:01.000Z",
                    "message": {"role": role, "content": content},
                }
            )
            parent = entry_id
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def test_a_long_read_lays_the_cards_out_afresh_and_keeps_the_place(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Qt's document keeps each format it was given until cleared (each card brings its own): after so many
    # cards the same cards go into a fresh document, and the reader sees the same card at the same place.
    monkeypatch.setattr(transcript_view, "CARDS_BEFORE_FORCED_RELAY", 40)
    session = load_session(_long_session(tmp_path / "long.jsonl", 300))
    transcript = transcript_of(session, session.leaf_id, "default")
    view = _view(qtbot)
    view.set_source(PathCards(session, transcript), len(transcript) - 1)
    run_posted(qtbot, view)
    most_formats, relays = 0, 0
    for _ in range(400):
        if view.rendered[0] == 0 and view.verticalScrollBar().value() == 0:
            break
        before = view.reading_slot()
        inserted = view._frames.inserted
        QGuiApplication.sendEvent(
            view, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_PageUp, Qt.KeyboardModifier.NoModifier)
        )
        run_posted(qtbot, view)
        run_posted(qtbot, view)
        if view._frames.inserted < inserted:  # laid out afresh in this step
            relays += 1
            assert view.reading_slot() is not None and view.reading_slot() <= before
        most_formats = max(most_formats, len(view.document().allFormats()))
    assert view.rendered[0] == 0  # read up to the first card
    assert relays >= 3
    assert most_formats < 600  # without the fresh documents: several thousand
    assert _cards_in_order(qtbot, view) == list(range(len(transcript)))


def test_stretches_asked_for_while_one_renders_wait_for_it_and_take_the_latest(qtbot) -> None:
    # One task per channel: while Page Up is held every key asks for another stretch, and a task per ask
    # piled up, each superseded before its turn.
    from gui.widgets.transcript_stretch import Look, Prefetcher

    session = load_session(BRANCHES)
    transcript = transcript_of(session, session.leaf_id, "all")
    source = PathCards(session, transcript)
    started: list[tuple[str, object, object]] = []
    prefetch = Prefetcher()
    prefetch.render_later = lambda channel, work, done: started.append((channel, work, done))
    look = Look()
    for start in (0, 1, 2):
        prefetch.ask("transcript-above", source, start, start + 3, look)
    assert len(started) == 1  # the later asks changed the wish, not the tasks
    _channel, work, done = started[0]
    done(work())  # the worker took the latest wish when it started
    assert prefetch.has(source, 2, 5, look) and not prefetch.has(source, 0, 3, look)
    assert len(started) == 1  # nothing more was wanted
    prefetch.ask("transcript-above", source, 0, 3, look)
    assert len(started) == 2
