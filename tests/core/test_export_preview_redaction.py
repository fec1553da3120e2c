"""Titles, sidebar previews and tree previews are redacted first and cut after (issue 15).

A secret placed so that it straddles the point where a title (100 characters) or a sidebar row
(120 characters, from the first 600 of a text) is cut must leave no fragment in the redacted export: cut
first, the half of a GitHub token or a JWT's header and payload no longer looked like a secret and
reached the page as written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.export import ExportOptions, render_export
from core.export.common import redacted_cut
from core.export.island import tree_node
from core.export.redact import Redactor
from core.session import load_session
from tests.core.test_export_html import _Page

GITHUB = "ghp_" + "Zq8Rk2Lm4Np6Tx9Vb3Cd5Fg7Hj1Kw0Ys2Ue4"  # gh?_ and 36 characters
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwcmV2aWV3LWN1dCIsImlhdCI6MTcwMDAwMDAwMH0"
    ".c2lnbmF0dXJlLW9mLXRoZS1wcmV2aWV3LWN1dC10ZXN0"
)
SECRETS = (GITHUB, JWT)
FRAGMENT = 8  # no eight consecutive characters of a secret may appear anywhere in the export
# Where the cuts are: the title at 100 characters, a sidebar row at 120 (its "user: "/"[bash] " prefix
# included), and _PREVIEW_SOURCE, the 600 characters a row is made from.
OFFSETS = (84, 90, 96, 99, 100, 104, 110, 114, 116, 119, 580, 590, 598)


def _line(kind: str, entry_id: str, parent: str | None, second: int, **fields: object) -> dict[str, object]:
    return {
        "type": kind,
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2026-01-01T00:{second // 60:02d}:{second % 60:02d}.000Z",
        **fields,
    }


def _session(folder: Path, secret: str, offset: int, named: bool) -> Path:
    """Every previewed text of one session with ``secret`` starting ``offset`` characters in."""
    text = "w" * offset + " " + secret + " and the rest of the text"
    header = {"type": "session", "version": 3, "id": "cut", "timestamp": "2026-01-01T00:00:00.000Z"}
    header["cwd"] = "/home/dev/cut"
    lines: list[dict[str, object]] = [header]
    parent: str | None = None

    def add(kind: str, **fields: object) -> None:
        nonlocal parent
        entry_id = f"e{len(lines):03d}"
        lines.append(_line(kind, entry_id, parent, len(lines), **fields))
        parent = entry_id

    add("message", message={"role": "user", "content": text})
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": text}}
    add("message", message={"role": "assistant", "content": [{"type": "text", "text": text}, call]})
    result = {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": text}
    add("message", message={**result, "content": [{"type": "text", "text": text}]})
    add("message", message={"role": "assistant", "content": [call]})  # a row made of the call alone
    add("message", message={"role": "bashExecution", "command": text, "output": text, "exitCode": 0})
    add("message", message={"role": "custom", "customType": "note", "content": text, "display": True})
    add("custom_message", customType="note", content=text, display=True)
    add("branch_summary", fromId="e001", summary=text)
    add("compaction", summary=text, firstKeptEntryId="e001", tokensBefore=10)
    add("label", targetId="e001", label=text)
    if named:
        add("session_info", name=text)
    path = folder / f"cut-{offset}-{len(secret)}-{named}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _fragments(secret: str) -> set[str]:
    return {secret[i : i + FRAGMENT] for i in range(len(secret) - FRAGMENT + 1)}


def _leaks(document: str, secret: str) -> list[str]:
    return sorted(piece for piece in _fragments(secret) if piece in document)


@pytest.mark.parametrize("named", [True, False], ids=["title-from-name", "title-from-first-message"])
@pytest.mark.parametrize("secret", SECRETS, ids=["github-token", "jwt"])
def test_no_fragment_of_a_secret_at_a_cut_point(tmp_path: Path, secret: str, named: bool) -> None:
    for offset in OFFSETS:
        session = load_session(_session(tmp_path, secret, offset, named))
        options = ExportOptions(redact=True)
        for fmt in ("md", "html"):
            for whole_tree in (False, True):
                data = render_export(session, fmt, options, whole_tree=whole_tree).data.decode("utf-8")
                assert _leaks(data, secret) == [], (fmt, offset, whole_tree)
                assert "[REDACTED:" in data


@pytest.mark.parametrize("secret", SECRETS, ids=["github-token", "jwt"])
def test_the_sidebar_rows_and_title_are_redacted(tmp_path: Path, secret: str) -> None:
    """The rows themselves: the previews hold the marker, and the title too."""
    session = load_session(_session(tmp_path, secret, 70, True))
    rendered = render_export(session, "html", ExportOptions(redact=True), whole_tree=True)
    document = rendered.data.decode("utf-8")
    page = _Page()
    page.feed(document)
    island = json.loads(next(text for attrs, text in page.scripts if attrs.get("id") == "session-data"))
    previews = [row[2] for row in island["n"]]
    assert len(previews) == 11
    assert any("[REDACTED:" in preview for preview in previews)
    for preview in previews:
        assert _leaks(preview, secret) == []
    title = re.search(r"<title>(.*)</title>", document)
    assert title is not None
    assert "[REDACTED:" in title.group(1)
    assert _leaks(title.group(1), secret) == []


def test_without_redaction_the_title_is_cut_as_before(tmp_path: Path) -> None:
    session = load_session(_session(tmp_path, GITHUB, 100, True))
    head = render_export(session, "md").data.decode("utf-8").split("\n", 1)[0]
    assert head == "# " + ("w" * 99)[:99] + "…"


def test_redacted_cut_never_splits_a_marker() -> None:
    redactor = Redactor()
    text = "a" * 90 + " " + GITHUB + " tail"
    assert redacted_cut(text, 100, redactor) == "a" * 90 + " …"
    assert redactor.counts == {}  # the marker is not in the title, so it is not counted
    shown = redacted_cut("a" * 20 + " " + GITHUB + " " + "b" * 200, 100, redactor)
    assert shown == "a" * 20 + " [REDACTED:github-token] " + "b" * (99 - 45) + "…"
    assert redactor.counts == {"github-token": 1}
    assert redacted_cut("short", 100, redactor) == "short"
    assert redacted_cut("x" * 150, 100, None) == "x" * 99 + "…"


@pytest.mark.parametrize("secret", SECRETS, ids=["github-token", "jwt"])
def test_tree_node_redacts_the_body_before_the_preview_is_cut(tmp_path: Path, secret: str) -> None:
    for offset in (90, 100, 104):
        session = load_session(_session(tmp_path, secret, offset, False))
        for entry, body in zip(session.entries, session.bodies(session.entries), strict=True):
            row = tree_node(entry, body, True, {}, {}, Redactor())
            assert _leaks(str(row[2]), secret) == [], (offset, entry.type)
