"""Whose rules read a file (its flavour), Prime Agent's rules, and the provenance API for views.

pi 1.6.0's rules are checked against the oracle in ``test_conformance_latest.py``; Prime Agent cannot
be run here, so its rules are checked against what its ``session-manager.ts`` and ``messages.ts``
do, written out by hand from that source (FORMAT-latest.md §6).
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from core import build_context, load_session, summarize
from core.session import ContextEditInfo, Flavour, context_edits_in_force, iter_context_items
from core.session.flavour import in_prime_agent_folder
from tests.conftest import SHARED

MODERN = (
    SHARED
    / "reference"
    / "samples-latest"
    / "pi-layout"
    / "sessions"
    / "--home-dev-acme-web--"
    / "2026-10-14T10-05-00-002Z_01a139df-54e0-752d-8454-fa3d91e202b8.jsonl"
)
HEADER = {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
USAGE = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3, "cost": {"total": 0.5}}


def _stamp(i: int) -> str:
    return f"2026-01-01T00:00:{i:02d}.000Z"


def _write(path: Path, header: dict[str, object] | None, entries: list[dict[str, object]]) -> Path:
    lines = ([header] if header is not None else []) + entries
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def _chain(*entries: dict[str, object]) -> list[dict[str, object]]:
    """Entries with ids ``e1``, ``e2``, ... each the child of the one before (unless it names its own)."""
    out = []
    for i, entry in enumerate(entries, 1):
        out.append(
            {
                "type": "message",
                "id": f"e{i}",
                "parentId": f"e{i - 1}" if i > 1 else None,
                "timestamp": _stamp(i),
                **entry,
            }
        )
    return out


def _user(text: str) -> dict[str, object]:
    return {"message": {"role": "user", "content": text, "timestamp": 1}}


def _assistant(text: str) -> dict[str, object]:
    content = [{"type": "text", "text": text}]
    return {
        "message": {"role": "assistant", "content": content, "provider": "p", "model": "m", "usage": USAGE}
    }


# ---------------------------------------------------------------------------- the flavour
@pytest.mark.parametrize(
    ("header_extra", "entry", "flavour"),
    [
        ({}, _user("hi"), Flavour.PI_0),
        ({"rlmDepth": 0}, _user("hi"), Flavour.PRIME_AGENT),
        ({"git": {"commit": "abc"}}, _user("hi"), Flavour.PRIME_AGENT),
        ({}, {"type": "session_state", "state": {"status": "active"}}, Flavour.PRIME_AGENT),
        ({}, {"type": "gitState", "git": {}}, Flavour.PRIME_AGENT),  # a variant spelling counts too
        ({}, {"type": "usage", "kind": "cache_warm", "usage": USAGE}, Flavour.PI_1),
        ({}, {"type": "context_edit", "targetId": "e1", "replacement": None}, Flavour.PI_1),
        ({}, {"message": {"role": "system", "content": "You are..."}}, Flavour.PI_1),
        ({}, {"type": "compaction", "summary": "s", "systemMessage": None}, Flavour.PI_1),
        (
            {"git": {}},
            {"type": "usage", "kind": "cache_warm"},
            Flavour.PRIME_AGENT,
        ),  # Prime Agent's marks win
    ],
)
def test_the_flavour_follows_what_only_one_agent_writes(
    tmp_path: Path, header_extra: dict[str, object], entry: dict[str, object], flavour: Flavour
) -> None:
    path = _write(tmp_path / "s.jsonl", {**HEADER, **header_extra}, _chain(_user("first"), entry))
    assert load_session(path).flavour is flavour


def test_a_file_in_a_prime_agent_folder_is_prime_agents(tmp_path: Path) -> None:
    folder = tmp_path / "home" / "ana" / ".prime" / "agent" / "sessions"
    folder.mkdir(parents=True)
    path = _write(folder / "s-1.jsonl", HEADER, _chain(_user("hi")))
    assert load_session(path).flavour is Flavour.PRIME_AGENT
    assert in_prime_agent_folder("/backup/ana/.prime/agent/sessions/x.jsonl")
    assert not in_prime_agent_folder("/home/ana/.pi/agent/sessions/--w--/x.jsonl")
    assert not in_prime_agent_folder("/home/ana/prime/agent/x.jsonl")


def test_the_flavour_changes_when_an_append_brings_a_mark(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", HEADER, _chain(_user("hi")))
    session = load_session(path)
    assert session.flavour is Flavour.PI_0
    with open(path, "ab") as handle:
        handle.write(
            orjson.dumps({"type": "usage", "id": "u1", "parentId": "e1", "timestamp": _stamp(9)}) + b"\n"
        )
    session.refresh()
    assert session.flavour is Flavour.PI_1


# ---------------------------------------------------------------------------- Prime Agent's rules
def test_prime_agent_compaction_summary_counts_what_it_keeps_and_carries_custom_instructions(
    tmp_path: Path,
) -> None:
    entries = _chain(
        _user("one"),
        _assistant("two"),
        _user("three"),
        {"type": "custom_message", "customType": "n", "content": "four", "display": True},
        {"type": "branch_summary", "fromId": "e1", "summary": ""},  # empty: makes no message, not counted
        {
            "type": "compaction",
            "summary": "S",
            "firstKeptEntryId": "e3",
            "tokensBefore": 7,
            "customInstructions": "focus on tests",
        },
        _user("after"),
    )
    path = _write(tmp_path / "p.jsonl", {**HEADER, "rlmDepth": 0}, entries)
    context = build_context(load_session(path))
    summary = context["messages"][0]
    assert summary == {
        "role": "compactionSummary",
        "summary": "S",
        "tokensBefore": 7,
        "retainedMessageCount": 2,
        "customInstructions": "focus on tests",
        "timestamp": 1767225606000,
    }
    assert list(summary) == [
        "role",
        "summary",
        "tokensBefore",
        "retainedMessageCount",
        "customInstructions",
        "timestamp",
    ]
    assert [m["role"] for m in context["messages"]] == ["compactionSummary", "user", "custom", "user"]
    assert list(context) == ["messages", "thinkingLevel", "serviceTier", "model"]
    # The same bytes as a pi file: pi's summary has neither field.
    plain = build_context(load_session(_write(tmp_path / "pi.jsonl", HEADER, entries)))
    assert plain["messages"][0] == {
        "role": "compactionSummary",
        "summary": "S",
        "tokensBefore": 7,
        "timestamp": 1767225606000,
    }
    assert list(plain) == ["messages", "thinkingLevel", "model"]


def test_prime_agent_service_tier_is_the_last_change_on_the_path(tmp_path: Path) -> None:
    entries = _chain(
        {"type": "service_tier_change", "serviceTier": "priority"},
        _user("hi"),
        {"type": "service_tier_change", "serviceTier": "flex"},
    )
    entries.append(
        {"type": "message", "id": "side", "parentId": "e2", "timestamp": _stamp(9), **_user("side")}
    )
    session = load_session(_write(tmp_path / "p.jsonl", HEADER, entries))
    assert build_context(session, "e3")["serviceTier"] == "flex"
    assert build_context(session, "side")["serviceTier"] == "priority"
    assert build_context(session, None) == {
        "messages": [],
        "thinkingLevel": "off",
        "serviceTier": "default",
        "model": None,
    }
    # A change without its field leaves the tier undefined, as Prime Agent's assignment does.
    entries[0].pop("serviceTier")
    session = load_session(_write(tmp_path / "q.jsonl", HEADER, entries))
    assert "serviceTier" not in build_context(session, "side")
    assert build_context(session, "side", service_tier=False).keys() == {"messages", "thinkingLevel", "model"}


def test_a_pi_file_gets_service_tier_default_only_when_asked(tmp_path: Path) -> None:
    session = load_session(_write(tmp_path / "s.jsonl", HEADER, _chain(_user("hi"))))
    assert "serviceTier" not in build_context(session)
    assert build_context(session, service_tier=True)["serviceTier"] == "default"
    assert list(build_context(session, None, service_tier=True)) == [
        "messages",
        "thinkingLevel",
        "serviceTier",
        "model",
    ]


def _attributed(target: str, total: int) -> dict[str, object]:
    aggregate = {**USAGE, "totalTokens": total, "cost": {"total": total / 10}}
    return {
        "type": "child_usage_attributed",
        "targetId": target,
        "childUsage": USAGE,
        "aggregateUsage": aggregate,
    }


@pytest.mark.parametrize("version", [None, 2, 3])
def test_child_usage_reaches_its_target_whatever_the_version(tmp_path: Path, version: int | None) -> None:
    # Prime Agent applies them on load, in file order, by the ids as written, before migrating: in a v1
    # file (no version) every reader gives the entries new ids, so the written ones must be remembered.
    header = {k: v for k, v in HEADER.items() if k != "version"} | ({"version": version} if version else {})
    entries = _chain(
        _user("go"),
        _attributed("e3", 10),  # before its target: still applies
        _assistant("spawned a child"),
        _attributed("e3", 20),
        _attributed("e1", 99),  # a user message: not an assistant, ignored
        _attributed("nowhere", 5),
        _assistant("plain"),
    )
    session = load_session(_write(tmp_path / "s.jsonl", header, entries))
    messages = build_context(session)["messages"]
    assistants = [m for m in messages if m["role"] == "assistant"]
    assert [a["usage"]["totalTokens"] for a in assistants] == [20, 3]
    assert "usage" not in messages[0]
    summary = summarize(session)
    assert (summary.totalTokens, summary.cost) == (23, 2.5)
    target = next(e for e in session.entries if e.role == "assistant")
    assert session.usage_overrides[target.id]["totalTokens"] == 20


def test_the_real_prime_agent_fixture_without_a_version_gets_its_child_usage() -> None:
    # fx-primeagent-scorecard has no version (a v1 file): its attribution was skipped before.
    session = load_session(SHARED / "corpus" / "wild" / "fx-primeagent-scorecard.jsonl")
    assert session.version == 1 and session.flavour is Flavour.PRIME_AGENT
    spawn = build_context(session)["messages"][0]
    assert spawn["role"] == "assistant" and spawn["usage"] == {"totalTokens": 16}


# ---------------------------------------------------------------------------- the provenance API
def _json(value: object) -> object:
    return json.loads(orjson.dumps(value))


def test_iter_context_items_names_each_messages_entry_and_edit(tmp_path: Path) -> None:
    entries = _chain(
        _user("question"),
        _assistant("answer"),
        {"type": "context_edit", "targetId": "e2", "replacement": {"content": "shorter"}},
        {"type": "context_edit", "targetId": "e1", "replacement": None},
        {
            "type": "compaction",
            "summary": "S",
            "firstKeptEntryId": "e2",
            "tokensBefore": 1,
            "systemMessage": {"role": "system", "content": "sys"},
        },
        _user("next"),
        {"type": "context_edit", "targetId": "e6", "replacement": {"content": "next, edited"}},
    )
    session = load_session(_write(tmp_path / "s.jsonl", HEADER, entries))
    _settings, items = iter_context_items(session)
    found = list(items)
    assert [item.message for item in found] == build_context(session)["messages"]
    assert [(i.entry.id, i.edit.id if i.edit else None, i.system_message) for i in found] == [
        ("e5", None, True),
        ("e5", None, False),
        ("e2", "e3", False),
        ("e6", "e7", False),
    ]
    assert _json(found[2].message)["content"] == [{"type": "text", "text": "shorter"}]  # type: ignore[index]
    assert [e.id for e in session.context_edits_for("e2")] == ["e3"]
    assert session.context_edits_for("e1")[0].info == ContextEditInfo("e1", True)
    assert session.context_edits_for("e4") == []
    # e1 was dropped by e4, which lies in the kept range, but e1 itself is before it: nothing to drop.
    assert "e1" not in {i.entry.id for i in found}
    # The edits in force are those the items show, and no edit of an entry outside the built context.
    in_force = {target: edit.id for target, edit in context_edits_in_force(session).items()}
    assert in_force == {"e2": "e3", "e6": "e7"}
    assert {target: edit.id for target, edit in context_edits_in_force(session, "e2").items()} == {}
    assert context_edits_in_force(session, None) == {}


def test_edits_in_force_include_drops_and_only_in_pi_1_files(tmp_path: Path) -> None:
    entries = _chain(
        _user("question"),
        _assistant("answer"),
        {"type": "context_edit", "targetId": "e1", "replacement": None},
        {"type": "context_edit", "targetId": "e2", "replacement": {"content": "first"}},
        {"type": "context_edit", "targetId": "e2", "replacement": {"content": "second"}},
    )
    session = load_session(_write(tmp_path / "pi.jsonl", HEADER, entries))
    assert {t: e.id for t, e in context_edits_in_force(session).items()} == {"e1": "e3", "e2": "e5"}
    assert {t: e.id for t, e in context_edits_in_force(session, "e4").items()} == {"e1": "e3", "e2": "e4"}
    prime = load_session(_write(tmp_path / "prime.jsonl", {**HEADER, "rlmDepth": 0}, entries))
    assert prime.flavour is Flavour.PRIME_AGENT
    assert context_edits_in_force(prime) == {}  # Prime Agent applies no context edit
    assert [item.edit for item in iter_context_items(prime)[1]] == [None, None]


def test_the_modern_sample_drops_the_retracted_request_on_its_branch() -> None:
    session = load_session(MODERN)
    assert session.flavour is Flavour.PI_1
    _settings, items = iter_context_items(session, "e27aea1c")
    ids = [item.entry.id for item in items]
    assert "8342e75a" not in ids  # "Drop my last request", dropped by context_edit 829e218f
    assert [e.id for e in session.context_edits_for("8342e75a")] == ["829e218f"]
    _settings, items = iter_context_items(session)
    assert "8342e75a" in [item.entry.id for item in items]  # the edit is not on the current branch


# ---------------------------------------------------------------------------- diagnostics of the new rules
def test_a_newer_version_reads_as_3_with_a_warning(tmp_path: Path) -> None:
    session = load_session(_write(tmp_path / "s.jsonl", {**HEADER, "version": 4}, _chain(_user("hi"))))
    assert [(d.line, d.kind) for d in session.diagnostics] == [(1, "newer-version")]
    assert "newer agent" in session.diagnostics[0].message
    assert session.version == 4
    assert build_context(session)["messages"] == [{"role": "user", "content": "hi", "timestamp": 1}]


def test_entries_without_ids_say_what_pi_does_instead(tmp_path: Path) -> None:
    entries = [{"type": "message", "timestamp": _stamp(i), **_user(f"m{i}")} for i in range(3)]
    session = load_session(_write(tmp_path / "s.jsonl", HEADER, entries))
    assert len(build_context(session)["messages"]) == 3  # every entry stays visible, chained
    assert all("shows only the last" in d.message for d in session.diagnostics)


def test_a_context_edit_without_a_replacement_changes_nothing(tmp_path: Path) -> None:
    entries = _chain(
        _user("kept as it is"),
        {"type": "context_edit", "targetId": "e1"},
        {"type": "context_edit", "replacement": None},
    )
    session = load_session(_write(tmp_path / "s.jsonl", HEADER, entries))
    assert [(d.line, d.kind) for d in session.diagnostics] == [(3, "invalid-field"), (4, "invalid-field")]
    assert build_context(session)["messages"] == [
        {"role": "user", "content": "kept as it is", "timestamp": 1}
    ]
    _settings, items = iter_context_items(session)
    assert [item.edit for item in items] == [None]
