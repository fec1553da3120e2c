"""The entries pi 1.6 and Prime Agent write today, in the message view and the tree's one-line previews."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.kinds import context_edit_marks, entry_preview, session_notes, tool_results_for
from core.kinds.notes import EditNote, EntryNotes, edits_in_force
from core.kinds.wording import GENERIC_MARK
from core.render import RenderOptions, block_key, parse_action, render_entries, render_entry
from core.session import Entry, Session, build_context, load_session
from tests.conftest import SHARED
from tests.core.current_entries import SECTION_TEXT, SYSTEM_TEXT, write_current_session
from tests.core.test_render import Tags, assert_safe

MODERN = next((SHARED / "reference" / "samples-latest" / "pi-layout").rglob("*01a139df*.jsonl"))


@pytest.fixture
def current(tmp_path: Path) -> Session:
    return load_session(write_current_session(tmp_path / "current.jsonl"))


def _card(session: Session, entry_id: str, expanded: frozenset[str] = frozenset()) -> str:
    entry = session.get(entry_id)
    assert entry is not None
    results = tool_results_for(session, entry)
    notes = session_notes(session).for_card(entry_id, results)
    html = render_entry(entry, session.body(entry), results, RenderOptions(expanded), notes)
    assert_safe(html)
    assert GENERIC_MARK not in html.lower()  # a known type never gets the generic card
    return html


def _preview(session: Session, entry_id: str) -> str:
    entry = session.get(entry_id)
    assert entry is not None
    return entry_preview(entry, session.body(entry))


def test_previews_of_every_current_type(current: Session) -> None:
    assert _preview(current, "model1") == "[model: openrouter/qwen3-coder]"
    assert _preview(current, "sys1") == f"system: {SYSTEM_TEXT}"
    assert _preview(current, "use1") == "[usage: cache_warm · gpt-5 · $0.0359]"
    assert _preview(current, "edit1") == "[context edit: replace res1] [elided parser listing]"
    assert _preview(current, "edit2") == "[context edit: drop user1]"
    assert _preview(current, "child1") == "[child usage → asst1: $0.2500]"
    assert _preview(current, "asst2") == "assistant: (deferred)"
    assert _preview(current, "asst3") == "assistant: (pending)"
    assert _preview(current, "state1") == "[session state: archived]"
    assert _preview(current, "status1") == "[agent status: needs input] Waiting for the parser review."
    assert _preview(current, "git1") == "[git: branch fix-parser · commit 0123456789ab]"


def test_system_message_is_collapsed_like_thinking(current: Session) -> None:
    collapsed = _card(current, "sys1")
    assert "System message" in collapsed and "2 sections · 1 tool added · 1 tool removed" in collapsed
    assert SYSTEM_TEXT not in collapsed and SECTION_TEXT not in collapsed
    links = [attrs["href"] for tag, attrs in Tags(collapsed).tags if tag == "a" and attrs.get("href")]
    key = block_key("sys1", "system")
    assert parse_action(links[0] or "") == ("toggle", key)
    expanded = _card(current, "sys1", frozenset({key}))
    assert SYSTEM_TEXT in expanded and SECTION_TEXT in expanded
    assert "Section old-rules" in expanded and "(removed)" in expanded
    assert "<code>codemode</code>: Run a script that calls tools." in expanded
    assert "<b>Tools removed:</b> <code>write</code>" in expanded


def test_assistant_reply_shows_its_newer_fields_and_child_cost(current: Session) -> None:
    html = _card(current, "asst1")
    assert "answered by gpt-5-2026-08-01" in html and "thinking high" in html and "took 4.2 s" in html
    # The usage shown is the aggregate with the child run added (as Prime Agent reloads it).
    assert "4.5k in · 220 out (40 reasoning)" in html and "$0.2859" in html
    assert "Usage includes 1 child run (spawn task): 1.0k in · 100 out · $0.2500" in html
    assert "<b>The arguments were not valid JSON:</b> not JSON: {cmd" in html
    # The tool result's own usage, timing and nested calls, under its call.
    assert "took 1.2 s · tool usage 200 in · 10 out · $0.0010 · 2 nested calls (record incomplete)" in html
    assert (
        "read · ok · 12 ms" in html
        and "bash · error · arguments (90,000 bytes) not kept · exit 2: boom" in html
    )
    assert "Deferred: the provider returns this reply later" in _card(current, "asst2")
    assert "Pending: the reply had not arrived" in _card(current, "asst3")


def test_context_edits_link_their_target_and_the_target_says_so(current: Session) -> None:
    edit = _card(current, "edit1")
    assert "Replaces the content of entry" in edit and "[elided parser listing]" in edit
    assert 'href="action:entry/res1"' in edit
    drop = _card(current, "edit2")
    assert "Drops entry" in drop and 'href="action:entry/user1"' in drop
    assert parse_action("action:entry/user1") == ("entry", "user1")
    target = _card(current, "user1")
    assert "Edited in the context later" in target and "dropped it from what the model sees" in target
    assert 'href="action:entry/edit2"' in target
    # A tool result says so on its own card, and under its call in the assistant message's card.
    assert "replaced its content in" in _card(current, "res1")
    call_box = _card(current, "asst1").split("codemode</b>", 1)[1]
    assert 'Edited in the context later: entry <a href="action:entry/edit1">' in call_box


def test_usage_records_and_prime_agent_state(current: Session) -> None:
    assert "Usage record: cache_warm · openai/gpt-5 · 3.5k in · 120 out (40 reasoning)" in _card(
        current, "use1"
    )
    assert "keep the prompt cache warm" in _card(current, "use1")
    child = _card(current, "child1")
    assert 'href="action:entry/asst1"' in child and "spawn task · child 1.0k in · 100 out · $0.2500" in child
    assert "Session state: <code>archived</code>" in _card(current, "state1")
    assert "Agent status (needs input · after 6 messages): Waiting for the parser review." in _card(
        current, "status1"
    )
    assert "Git: branch fix-parser · commit 0123456789ab" in _card(current, "git1")
    assert "Switched to model <code>openrouter/qwen3-coder</code>" in _card(current, "model1")


def test_compaction_and_branch_summary_show_their_cost_and_system_message(current: Session) -> None:
    html = _card(current, "comp1")
    assert "summarised for 3.5k in" in html and "Keeps no earlier message" in html
    assert "Instructions for the summary: Keep the file names." in html
    assert "System message at the compaction" in html and SYSTEM_TEXT not in html
    assert SYSTEM_TEXT in _card(current, "comp1", frozenset({block_key("comp1", "system")}))
    assert "summarised for 3.5k in" in _card(current, "bsum1")


def test_context_marks_name_the_edit_whose_content_a_message_shows(current: Session, tmp_path: Path) -> None:
    # Prime Agent's file (its header and types say so): its agent applies no context edit, so none is in
    # force and nothing in what the model saw is marked as edited.
    assert edits_in_force(current, "git1") == {}
    messages = build_context(current, "git1")["messages"]
    assert not any(context_edit_marks(current, "git1", messages))
    pi = load_session(write_current_session(tmp_path / "pi.jsonl", pi=True))
    in_force = {target: note.edit_id for target, note in edits_in_force(pi, "asst2").items()}
    assert in_force == {"res1": "edit1", "user1": "edit2"}
    # The compaction keeps nothing (firstKeptEntryId is its own id), so after it no edit applies.
    assert edits_in_force(pi, "asst3") == {}
    # What the model saw before the compaction, as pi 1.6 builds it (user1 dropped, res1's content replaced).
    messages = build_context(pi, "asst2")["messages"]
    marks = context_edit_marks(pi, "asst2", messages)
    marked = [
        (m.get("role"), mark.edit_id) for m, mark in zip(messages, marks, strict=True) if mark is not None
    ]
    assert marked == [("toolResult", "edit1")]  # the dropped user message is not there to mark
    assert not any(context_edit_marks(pi, "asst2", messages[1:]))  # not that context: nothing marked
    result = pi.get("res1")
    assert result is not None
    edited = next(m for m, mark in zip(messages, marks, strict=True) if mark is not None)
    html = render_entry(
        result,
        {"message": edited},
        None,
        None,
        EntryNotes(shown_edit=EditNote("edit1", "res1", False, None)),
    )
    assert "[elided parser listing]" in html
    assert (
        "Edited content" in html
        and 'href="action:entry/edit1"' in html
        and 'href="action:entry/res1"' in html
    )


def test_modern_sample_renders_every_entry_and_marks_its_edits() -> None:
    session = load_session(MODERN, checksum=False)
    html = render_entries(session, session.path_to(session.leaf_id))
    assert GENERIC_MARK not in html.lower()
    assert_safe(html)
    notes = session_notes(session)
    assert [n.edit_id for n in notes.edits["2f047d86"]] == ["9ccb2314"]
    assert [n.edit_id for n in notes.edits["9212b653"]] == ["14fa9a09"]
    assert notes.edits["8342e75a"][0].dropped
    # Before the compaction both replacements apply; after it their targets are outside the kept range.
    leaf = "660b8b7d"
    messages = build_context(session, leaf)["messages"]
    marks = context_edit_marks(session, leaf, messages)
    assert sorted(m.target_id for m in marks if m is not None) == ["2f047d86", "9212b653"]
    assert not any(context_edit_marks(session, session.leaf_id, build_context(session)["messages"]))


def test_prime_agent_compaction_summary_says_how_many_messages_it_keeps() -> None:
    entry = Entry("ctx0", None, "message", "message", None, 0, 0, 0, "compactionSummary")
    summary = {"role": "compactionSummary", "summary": "Done so far.", "tokensBefore": 900, "timestamp": 1}
    message = {**summary, "retainedMessageCount": 12, "customInstructions": "Keep the tests."}
    html = render_entry(entry, {"message": message})
    assert "Keeps the last 12 messages after the summary." in html
    assert "Instructions for the summary: Keep the tests." in html
    assert "Keeps the last" not in render_entry(entry, {"message": summary})
