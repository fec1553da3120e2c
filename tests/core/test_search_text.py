"""What the catalogue indexes for each kind of entry (core.catalogue.search_text.entry_doc)."""

from __future__ import annotations

import pytest

from core.catalogue.search_text import clean_text, entry_doc
from core.session import Entry, Session
from tests.conftest import SAMPLES

TS = "2026-03-02T09:14:07.122Z"
TS_MS = 1772442847122


def doc_of(obj: dict):
    typ = obj["type"]
    message = obj.get("message")
    role = message.get("role") if isinstance(message, dict) else None
    return entry_doc(Entry("e1", None, typ, typ, obj.get("timestamp", TS), 2, 0, 0, role), obj)


def message(**fields: object) -> dict:
    return {"type": "message", "id": "e1", "parentId": None, "timestamp": TS, "message": fields}


def test_user_text_blocks_without_images() -> None:
    doc = doc_of(
        message(
            role="user",
            content=[
                {"type": "text", "text": "first part"},
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                {"type": "text", "text": "second part"},
            ],
            timestamp=123,
        )
    )
    assert (doc.text, doc.role, doc.tools, doc.model, doc.ts_ms) == (
        "first part\nsecond part",
        "user",
        "",
        "",
        123,
    )
    assert doc_of(message(role="user", content="plain string")).text == "plain string"


def test_assistant_text_thinking_tool_calls_and_error() -> None:
    doc = doc_of(
        message(
            role="assistant",
            content=[
                {"type": "thinking", "thinking": "pondering deeply", "thinkingSignature": "SIGNATURE-XYZ"},
                {"type": "text", "text": "Let me look."},
                {
                    "type": "toolCall",
                    "id": "t1",
                    "name": "read",
                    "arguments": {"path": "src/app.ts", "limit": 20},
                },
                {"type": "toolCall", "id": "t2", "name": "bash", "arguments": {"command": "ls -la"}},
            ],
            provider="anthropic",
            model="claude-sonnet-4-5",
            errorMessage="Request was aborted",
            timestamp=456,
        )
    )
    assert doc.text.split("\n") == [
        "pondering deeply",
        "Let me look.",
        "read",
        "path src/app.ts limit 20",
        "bash",
        "command ls -la",
        "Request was aborted",
    ]
    assert "SIGNATURE" not in doc.text
    assert (doc.role, doc.tools, doc.model, doc.ts_ms) == (
        "assistant",
        "read bash",
        "anthropic/claude-sonnet-4-5",
        456,
    )


def test_tool_call_arguments_in_other_shapes() -> None:
    def args_text(arguments: object) -> str:
        doc = doc_of(
            message(
                role="assistant",
                content=[{"type": "toolCall", "id": "t", "name": "x", "arguments": arguments}],
            )
        )
        return doc.text.split("\n", 1)[1] if "\n" in doc.text else ""

    assert (
        args_text({"edits": [{"old": "a", "new": "b"}], "dry": True})
        == 'edits [{"old":"a","new":"b"}] dry true'
    )
    assert args_text('{"path": "raw.txt"}') == '{"path": "raw.txt"}'  # kept as streamed, not re-quoted
    assert args_text(None) == ""
    assert args_text(["a", 1]) == '["a",1]'
    assert args_text({"n": 2**70}) == f"n {2**70}"  # beyond 64 bits: the standard library writes it


def test_tool_results_bash_custom_and_summaries() -> None:
    result = doc_of(
        message(role="toolResult", toolName="grep", content=[{"type": "text", "text": "match.py:3"}])
    )
    assert (result.text, result.role, result.tools) == ("match.py:3", "toolResult", "grep")
    bash = doc_of(message(role="bashExecution", command="make test", output="2 passed", exitCode=0))
    assert (bash.text, bash.role, bash.tools) == ("make test\n2 passed", "bashExecution", "bash")
    summary = doc_of(message(role="branchSummary", summary="we tried redis", fromId="x"))
    assert (summary.text, summary.role) == ("we tried redis", "branchSummary")
    compaction = doc_of({"type": "compaction", "id": "c", "timestamp": TS, "summary": "earlier work"})
    assert (compaction.text, compaction.role, compaction.ts_ms) == ("earlier work", "compaction", TS_MS)
    branch = doc_of({"type": "branch_summary", "id": "b", "timestamp": TS, "summary": "abandoned B"})
    assert (branch.text, branch.role) == ("abandoned B", "branch_summary")
    custom = doc_of(
        {"type": "custom_message", "customType": "note", "content": "hello there", "display": True}
    )
    assert (custom.text, custom.role, custom.tools) == ("hello there", "custom_message", "note")


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "model_change", "provider": "a", "modelId": "b"},
        {"type": "label", "targetId": "x", "label": "important words"},
        {"type": "session_info", "name": "a name"},
        {"type": "custom", "customType": "x", "data": {"text": "hidden"}},
        {"type": "compaction", "summary": ""},
        {"type": "branch_summary", "summary": "   "},
        {"type": "message", "message": "not an object"},
        {"type": "message", "message": {"role": "user", "content": [{"type": "image", "data": "x"}]}},
        {"type": "message", "message": {"role": "assistant", "content": []}},
    ],
)
def test_entries_with_nothing_to_search_give_no_doc(obj: dict) -> None:
    assert doc_of(obj) is None


def test_the_entry_time_is_used_when_the_message_has_none() -> None:
    assert doc_of(message(role="user", content="x")).ts_ms == TS_MS
    assert doc_of(message(role="user", content="x", timestamp=True)).ts_ms == TS_MS  # a bool is no time


def test_lone_surrogates_become_replacement_characters() -> None:
    doc = doc_of(message(role="user", content="half \ud83d emoji"))
    assert doc.text == "half \ufffd emoji"
    doc.text.encode("utf-8")  # storable
    tool_doc = doc_of(
        message(
            role="assistant", content=[{"type": "toolCall", "name": "edit", "arguments": {"v": ["\udc00"]}}]
        )
    )
    assert tool_doc.text == 'edit\nv ["\ufffd"]'
    assert clean_text("naïve ✓") == "naïve ✓"
    assert clean_text(None) is None
    assert clean_text(3) == 3


def test_every_sample_message_with_text_gives_a_doc_of_its_role() -> None:
    for path in sorted(SAMPLES.rglob("*.jsonl")):
        docs: list = []
        session = Session(
            path, checksum=False, observer=lambda e, o, docs=docs: docs.append((e, entry_doc(e, o)))
        )
        assert [e for e, _doc in docs] == session.entries  # the observer saw every entry once
        for entry, doc in docs:
            if entry.role == "user" or (entry.role == "assistant" and entry.info[2] != "aborted"):
                assert doc is not None and doc.text.strip(), (path, entry.id)
            if doc is not None:
                assert doc.role == (entry.role or entry.kind)
                assert doc.ts_ms is not None


def test_current_entries_that_hold_words_are_indexed(tmp_path) -> None:
    from core.session import load_session
    from tests.core.current_entries import SECTION_TEXT, SYSTEM_TEXT, write_current_session

    session = load_session(write_current_session(tmp_path / "current.jsonl"))
    docs = {
        e.id: entry_doc(e, body)
        for e, body in zip(session.entries, session.bodies(session.entries), strict=True)
    }
    system = docs["sys1"]
    assert system is not None and system.role == "system"
    assert (
        SYSTEM_TEXT in system.text
        and SECTION_TEXT in system.text
        and "Run a script that calls tools." in system.text
    )
    assert (docs["edit1"].text, docs["edit1"].role) == ("[elided parser listing]", "context_edit")
    assert docs["edit2"] is None  # a drop holds no words
    assert docs["use1"].text == "keep the prompt cache warm"
    assert docs["status1"].text == "Waiting for the parser review."
    assert docs["git1"].text == "fix-parser"
    assert "Keep the file names." in docs["comp1"].text
    for bookkeeping in ("model1", "child1", "state1"):
        assert docs[bookkeeping] is None
