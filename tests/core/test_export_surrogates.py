"""Lone surrogates (``"\\ud800"`` escapes, which JSON.parse accepts) in ids and texts: every export finishes.

Before the fix the HTML export stopped with UnicodeEncodeError in the deep-link URL of such an id
(``_url_id``); the Markdown export, the diff renderings and the page's other parts must cope as well.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.diff import diff_paths, render_html, render_json, render_text
from core.export import ExportOptions, render_export, save_export
from core.export.html import _url_id
from core.render.text import without_surrogates
from core.session import load_session
from tests.core.test_export_html import _Page

S = "\\ud800"  # as written in the file: JSON's escape of a lone surrogate
LINES = [
    '{"type":"session","version":3,"id":"s'
    + S
    + '","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p'
    + S
    + '"}',
    '{"type":"message","id":"u' + S + '1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
    '"message":{"role":"user","content":"hi ' + S + ' <b>x</b>","timestamp":1767225601000}}',
    '{"type":"message","id":"a' + S + '","parentId":"u' + S + '1","timestamp":"2026-01-01T00:00:02.000Z",'
    '"message":{"role":"assistant","content":[{"type":"text","text":"see ' + S + " [l](http://h/" + S + ')"},'
    '{"type":"thinking","thinking":"hm ' + S + '"},'
    '{"type":"toolCall","id":"c' + S + '","name":"bash' + S + '","arguments":{"command":"ls ' + S + '"}}]}}',
    '{"type":"message","id":"r' + S + '","parentId":"a' + S + '","timestamp":"2026-01-01T00:00:03.000Z",'
    '"message":{"role":"toolResult","toolCallId":"c' + S + '","toolName":"bash' + S + '",'
    '"content":[{"type":"text","text":"out ' + S + '"}]}}',
    '{"type":"label","id":"l' + S + '","parentId":"r' + S + '","timestamp":"2026-01-01T00:00:04.000Z",'
    '"targetId":"u' + S + '1","label":"lab ' + S + '"}',
    '{"type":"session_info","id":"n' + S + '","parentId":"l' + S + '","timestamp":"2026-01-01T00:00:05.000Z",'
    '"name":"name ' + S + ' title"}',
    '{"type":"model_change","id":"m' + S + '","parentId":"n' + S + '","timestamp":"2026-01-01T00:00:06.000Z",'
    '"provider":"p' + S + '","modelId":"m' + S + '"}',
    '{"type":"message","id":"u' + S + '2","parentId":"u' + S + '1","timestamp":"2026-01-01T00:00:07.000Z",'
    '"message":{"role":"user","content":"other branch ' + S + '","timestamp":1767225607000}}',
]


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    path = tmp_path / "surrogates.jsonl"
    path.write_text("\n".join(LINES) + "\n", encoding="ascii")
    return path


def test_the_file_reads_with_its_surrogates(session_file: Path) -> None:
    session = load_session(session_file)
    assert session.leaf_id == "u\ud8002"
    assert session.get("a\ud800") is not None


@pytest.mark.parametrize("whole_tree", [False, True])
@pytest.mark.parametrize("redact", [False, True])
@pytest.mark.parametrize("images", ["embed", "beside", "omit"])
def test_html_export_finishes_and_parses(
    session_file: Path, whole_tree: bool, redact: bool, images: str
) -> None:
    session = load_session(session_file)
    rendered = render_export(
        session,
        "html",
        ExportOptions(images=images, redact=redact),
        leaf_id="m\ud800",
        whole_tree=whole_tree,
        target=session_file.with_suffix(".html"),
    )
    text = rendered.data.decode("utf-8")  # the page is valid UTF-8 throughout
    page = _Page()
    page.feed(text)
    island = json.loads(next(body for attrs, body in page.scripts if attrs.get("id") == "session-data"))
    ids = [row[4] for row in island["n"]]
    assert "a\ud800" in ids  # the id itself, as the page's script finds it
    fragments = "".join(island["h"])
    # The deep link of a surrogate id carries U+FFFD (a URL has no form for it); the element keeps the id.
    assert 'href="#e-a%EF%BF%BD"' in fragments
    assert 'id="e-a\ud800"' in fragments
    # cmark takes UTF-8 only: message Markdown shows the surrogate as U+FFFD (it once showed "?").
    assert "hi \ufffd &lt;b&gt;x&lt;/b&gt;" in fragments


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_export_is_written(session_file: Path, fmt: str) -> None:
    session = load_session(session_file)
    target = session_file.with_suffix("." + fmt)
    written = save_export(render_export(session, fmt, whole_tree=True, target=target), target)
    assert written == [target]
    assert target.read_bytes().decode("utf-8")


@pytest.mark.parametrize("whole_tree", [False, True])
@pytest.mark.parametrize("redact", [False, True])
def test_markdown_export_finishes(session_file: Path, whole_tree: bool, redact: bool) -> None:
    session = load_session(session_file)
    text = render_export(session, "md", ExportOptions(redact=redact), whole_tree=whole_tree).data.decode(
        "utf-8"
    )
    # Markdown keeps the surrogate as a visible escape, never a crash.
    assert "\\ud800" in text
    assert text.startswith("# name")


def test_diff_renderings_finish(session_file: Path) -> None:
    session = load_session(session_file)
    diff = diff_paths(session, "m\ud800", "u\ud8002")
    assert "other branch" in render_text(diff)
    assert json.loads(render_json(diff))  # escapes, as JSON.stringify writes them
    assert "other branch" in render_html(diff)


def test_url_id() -> None:
    assert _url_id("8f2a9c1e") == "8f2a9c1e"
    assert _url_id("a b/#") == "a%20b%2F%23"
    assert _url_id("x\ud800y\udfff") == "x%EF%BF%BDy%EF%BF%BD"
    assert _url_id("\U0001f600") == "%F0%9F%98%80"  # a real astral character is not a surrogate here


def test_without_surrogates() -> None:
    assert without_surrogates("plain") == "plain"
    assert without_surrogates("a\ud800b\udc00") == "a\ufffdb\ufffd"
    assert re.search("[\ud800-\udfff]", without_surrogates("\ud83d\ude00")) is None
