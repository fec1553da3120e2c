"""Property tests of the exports over generated sessions full of hostile text (issue 15).

Sessions of every entry kind with HTML, script links, fences, control characters, lone surrogates,
large and deeply nested content and ids of every shape (``tests/core/export_strategies.py``). For each:
no export raises; the HTML page parses, its only scripts are its own two, and every message fragment
holds only allowed elements and attributes and no link but to safe places; the safe Markdown renders
inert in a renderer that passes HTML through; redaction is idempotent; the diff renderings finish.

Bounded (a few dozen examples, derandomised) so the suite stays fast; ``benchmarks/fuzz_export.py
--examples N`` runs the same properties longer, with fresh random examples.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from core.export import ExportOptions, render_export
from core.export.page import assets
from core.export.redact import Redactor
from core.session import Session, load_session
from tests.browser.hostile import PNG
from tests.core.export_strategies import Elements, check_fragment, hostile_text, session_lines, write_lines

BOUNDED = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PAGE_TAGS = {
    "html", "head", "meta", "link", "title", "style", "body", "div", "nav", "input", "select", "option",
    "label", "main", "header", "h1", "table", "tr", "th", "td", "noscript", "p", "script",
}  # fmt: skip


def check_page(data: bytes) -> None:
    """The whole page: its own shell, its two scripts, every fragment allowed (see check_fragment)."""
    text = data.decode("utf-8")  # valid UTF-8 throughout, surrogates or not
    elements = Elements()
    elements.feed(text)
    elements.close()
    for tag, attributes in elements.tags:
        assert tag in PAGE_TAGS, tag
        for value in attributes.values():
            assert "javascript:" not in (value or "").lower()
    assert [attrs.get("id") for attrs, _ in elements.scripts] == ["session-data", None]
    island, script = elements.scripts[0][1], elements.scripts[1][1]
    assert script == assets()[1]
    data_island = json.loads(island)
    for fragment in data_island["h"]:
        check_fragment(fragment)
    for row in data_island["n"]:
        assert isinstance(row[2], str)  # previews are text (shown with textContent)


def check_session(lines: list[dict[str, object]]) -> None:
    """Every property for one generated session."""
    with tempfile.TemporaryDirectory() as folder:
        path = write_lines(Path(folder), lines)
        session = load_session(path)
        if session.leaf_id is None:
            return
        check_exports(session)


def check_exports(session: Session) -> None:
    """The exports of one loaded session: every format and the options that change what is written."""
    from core.diff import diff_paths, render_html, render_json, render_text
    from tests.core.test_export_safe_markdown import _editor, _forge, assert_inert

    for options in (ExportOptions(), ExportOptions(redact=True, images="omit", safe_markdown=False)):
        for whole_tree in (False, True):
            check_page(render_export(session, "html", options, whole_tree=whole_tree).data)
            text = render_export(session, "md", options, whole_tree=whole_tree).data.decode("utf-8")
            if options.safe_markdown:
                for render in (_forge, _editor):
                    assert_inert(render(text))
    tree = session.tree
    leaves = [entry.id for entry, _depth in tree.walk() if not tree.children_of(entry.id)]
    if len(leaves) >= 2:
        diff = diff_paths(session, leaves[0], leaves[-1])
        render_text(diff)
        json.loads(render_json(diff))
        page = Elements()
        page.feed(render_html(diff))


@settings(BOUNDED, max_examples=12)  # each session is exported eight ways: about a second per example
@given(session_lines())
def test_exports_of_hostile_sessions(lines: list[dict[str, object]]) -> None:
    check_session(lines)


@BOUNDED
@given(hostile_text())
def test_redaction_is_idempotent(text: str) -> None:
    once = Redactor().text(text)
    again = Redactor()
    assert again.text(once) == once
    assert again.total == 0


def _user(entry_id: str, content: object, parent: str | None = None) -> dict[str, object]:
    message = {"role": "user", "content": content}
    return {"type": "message", "id": entry_id, "parentId": parent, "message": message}


HEADER = {"type": "session", "version": 3, "id": "00000000", "timestamp": "2026-01-01T00:00:00.000Z"}
PNG_BLOCK = {"type": "image", "data": PNG, "mimeType": "image/png"}
FS_TEXT = "\x8e\x1c?4%<div>\n```\n</div>\n\n```\n<script>x</script>\n```<b>"


@pytest.mark.parametrize(
    "lines",
    [
        # Minimal failing inputs, kept as regression cases. A lone surrogate in an id (issue 15):
        [{**HEADER, "id": "\ud800"}, _user("a\ud800", "x")],
        # benchmarks/fuzz_export.py, seed 1: a \x1c in message text shifted safe Markdown's code lines
        # (str.splitlines ends a line there, CommonMark does not) and a raw <div> reached the Markdown.
        [HEADER, _user("00000000", [{"type": "text", "text": FS_TEXT}, PNG_BLOCK])],
    ],
    ids=["surrogate-id", "fs-character-in-text"],
)
def test_regressions(lines: list[dict[str, object]]) -> None:
    check_session(lines)


def test_redaction_regression_jwt_inside_an_assignment() -> None:
    # Found by benchmarks/fuzz_export.py, seed 1 (minimal after shrinking).
    text = "password=hunter2hunter2XYZeyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
    once = Redactor().text(text)
    assert "hunter2" not in once  # the password before the JWT went too, not only the JWT
    assert Redactor().text(once) == once
