"""The HTML export: golden pages, escaping, the Content-Security-Policy and the JSON data island.

Golden pages: see tests/core/test_export_markdown.py for how to regenerate them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from core.export import ExportOptions, render_export
from core.export.html import session_to_html
from core.export.island import json_for_script
from core.export.page import assets
from core.render.markdown import markdown_to_html
from core.session import load_session
from tests.browser.hostile import write_hostile_session
from tests.conftest import CORPUS, DEMO, SAMPLES
from tests.core.current_entries import write_current_session
from tests.core.test_export_markdown import MODERN, _scenario, check_golden
from tests.core.test_render import chain, message, write

DEMO_FILES = sorted(DEMO.glob("*.jsonl"))


class _Page(HTMLParser):
    """Collects what a browser would treat as active: script and style elements, tags and attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict, str]] = []
        self.styles: list[str] = []
        self.tags: list[tuple[str, dict]] = []
        self._in: tuple[str, dict] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag in ("script", "style"):
            self._in, self._text = (tag, attributes), []

    def handle_endtag(self, tag: str) -> None:
        if self._in and tag == self._in[0]:
            text = "".join(self._text)
            if tag == "script":
                self.scripts.append((self._in[1], text))
            else:
                self.styles.append(text)
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in:
            self._text.append(data)


def _parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def _sha(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def _data(page: _Page) -> dict:
    island = [text for attrs, text in page.scripts if attrs.get("type") == "application/json"]
    assert len(island) == 1
    return json.loads(island[0])


def _golden_page(page: str) -> str:
    """The page with its stylesheets, script and their CSP hashes replaced by markers.

    Those are the same in every page and are tested on their own (the CSP tests below, the browser
    test); without them a golden file holds what is particular to its session, and a change to
    core/export/assets does not rewrite every golden file.
    """
    css, js = assets()
    page = page.replace(css, "/* core/export/assets/page.css */\n").replace(
        js, "/* core/export/assets/page.js */\n"
    )
    page = re.sub(
        r"<style>pre \{ line-height.*?</style>", "<style>/* Pygments colours */</style>", page, flags=re.S
    )
    return re.sub(r"'sha256-[A-Za-z0-9+/=]+'", "'sha256-…'", page)


@pytest.mark.parametrize("path", DEMO_FILES, ids=lambda p: p.stem[-8:])
def test_demo_sessions_match_golden_html(path: Path) -> None:
    session = load_session(path, checksum=False)
    check_golden(f"demo-{path.stem}.tree.html", _golden_page(session_to_html(session, whole_tree=True).text))


@pytest.mark.parametrize(
    "path", [p for p in sorted(SAMPLES.rglob("*.jsonl")) if "pi-layout" in p.parts], ids=_scenario
)
def test_sample_sessions_match_golden_html(path: Path) -> None:
    session = load_session(path, checksum=False)
    if session.leaf_id is None:
        return
    page = session_to_html(session, whole_tree=True).text
    check_golden(f"sample-{_scenario(path)}.tree.html", _golden_page(page))


def test_modern_sample_matches_golden_html() -> None:
    session = load_session(MODERN, checksum=False)
    check_golden("latest-modern.tree.html", _golden_page(session_to_html(session, whole_tree=True).text))


@pytest.mark.parametrize(
    "path",
    DEMO_FILES + sorted(SAMPLES.rglob("*.jsonl")) + sorted(CORPUS.rglob("*.jsonl")),
    ids=lambda p: p.stem[-12:],
)
def test_every_session_exports_to_a_well_formed_page(path: Path) -> None:
    session = load_session(path, checksum=False)
    if session.leaf_id is None:
        return  # nothing to export; the Markdown test checks the error
    page = _parse(session_to_html(session, whole_tree=True).text)
    data = _data(page)
    assert len(data["n"]) == len(data["h"]) == len(session.tree.order)
    assert 0 <= data["leaf"] < len(data["n"])
    for parent, *_rest in data["n"]:
        assert -1 <= parent < len(data["n"])


def test_policy_allows_exactly_the_pages_own_script_and_styles(tmp_path: Path) -> None:
    session = load_session(write_hostile_session(tmp_path))
    text = session_to_html(session, whole_tree=True).text
    page = _parse(text)
    metas = [a for tag, a in page.tags if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert len(metas) == 1
    policy = dict(part.strip().split(" ", 1) for part in metas[0]["content"].split(";"))
    assert policy["default-src"] == "'none'"
    assert policy["img-src"] == "data:"
    assert policy["base-uri"] == "'none'" and policy["form-action"] == "'none'"
    runnable = [t for a, t in page.scripts if a.get("type") != "application/json"]
    assert len(runnable) == 1
    assert policy["script-src"] == f"'{_sha(runnable[0])}'"
    assert sorted(policy["style-src"].split()) == sorted(f"'{_sha(s)}'" for s in page.styles)
    # The policy comes before anything that could load or run.
    assert text.index("Content-Security-Policy") < text.index("<style>") < text.index("<script")


def test_hostile_strings_never_become_markup(tmp_path: Path) -> None:
    session = load_session(write_hostile_session(tmp_path))
    text = session_to_html(session, whole_tree=True).text
    page = _parse(text)
    # Two script elements (data island and the page's own), no event handlers, frames or remote loads.
    assert len(page.scripts) == 2
    for tag, attributes in page.tags:
        assert not any(name.startswith("on") for name in attributes), (tag, attributes)
        assert tag not in ("iframe", "object", "embed", "img", "svg")  # images live in the JSON island
        if tag == "link":
            assert attributes == {"rel": "icon", "href": "data:,"}
    island = next(t for a, t in page.scripts if a.get("type") == "application/json")
    assert "<" not in island
    assert "\u2028" not in island and "\u2029" not in island
    # Inside the fragments, hostile markup is text: only our own tags appear, with safe links only.
    fragments = _parse("".join(_data(page)["h"]))
    assert not fragments.scripts
    for tag, attributes in fragments.tags:
        assert not any(name.startswith("on") for name in attributes), (tag, attributes)
        assert tag not in ("script", "iframe", "svg", "object", "embed", "link", "style")
        if tag == "a" and "href" in attributes:
            assert re.match(r"(https?:|mailto:|#e-)", attributes["href"]), attributes
        if tag == "img":
            assert attributes["src"].startswith("data:image/png;base64,"), attributes
    images = [a for t, a in fragments.tags if t == "img"]
    assert len(images) == 1  # the real PNG; text/html "images" and HTML bytes typed as PNG are refused


def test_markdown_cannot_inject_html_or_script_links() -> None:
    out = markdown_to_html(
        "<script>x()</script> [a](javascript:x()) [b](JaVaScRiPt:x) [c](data:text/html,x) [d](vbscript:x) "
        "![e](https://example.invalid/e.png) [ok](https://example.org) `<b>`\n\n```html\n<script>\n```"
    )
    parsed = _parse(out)
    assert not parsed.scripts
    hrefs = [a.get("href") for t, a in parsed.tags if t == "a" and a.get("href")]
    assert hrefs == ["https://example.invalid/e.png", "https://example.org"]
    assert not any(t == "img" for t, _a in parsed.tags)
    assert "&lt;script&gt;x()&lt;/script&gt;" in out and "<code>&lt;b&gt;</code>" in out


def test_json_island_escapes_what_could_end_the_script() -> None:
    value = {"s": "</script><!-- & \u2028\u2029 <script>"}
    text = json_for_script(value).decode("utf-8")
    assert json.loads(text) == value
    assert not re.search(r"[<\u2028\u2029]", text)


def test_path_export_holds_only_that_path(tmp_path: Path) -> None:
    session = load_session(write_hostile_session(tmp_path))
    text = session_to_html(session, leaf_id="e0000006").text
    data = _data(_parse(text))
    assert [node[4] for node in data["n"]] == [e.id for e in session.path_to("e0000006")]
    assert "needle-alpha" in text and "needle-beta" not in text


def test_whole_tree_export_shows_the_leaf_first_and_marks_results_under_calls(tmp_path: Path) -> None:
    session = load_session(write_hostile_session(tmp_path))
    data = _data(_parse(session_to_html(session, whole_tree=True).text))
    ids = [node[4] for node in data["n"]]
    assert ids[data["leaf"]] == session.leaf_id == "e000000c"
    # Both results are shown inside their assistant message, not again on their own.
    assert data["u"] == {
        str(ids.index("e0000004")): ids.index("e0000003"),
        str(ids.index("e0000005")): ids.index("e0000003"),
    }
    assert data["h"][ids.index("e0000004")] == ""


def test_options_and_images_beside(tmp_path: Path) -> None:
    session = load_session(write_hostile_session(tmp_path))
    lean = session_to_html(session, ExportOptions(thinking=False, tools=False), whole_tree=True)
    assert 'class="thinking"' not in "".join(_data(_parse(lean.text))["h"])
    assert "tool-call" not in "".join(_data(_parse(lean.text))["h"])
    beside = session_to_html(
        session, ExportOptions(images="beside"), whole_tree=True, image_folder="p_images"
    )
    assert list(beside.images.files) == ["p_images/e0000002-2.png"]
    assert "img-src data: 'self' file:" in beside.text


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads the resident size from /proc")
def test_rendering_markdown_again_and_again_does_not_grow_memory() -> None:
    # cmarkgfm's bindings never free the tree or the HTML (about 40 MB per MB of Markdown with
    # tables); the app exports many times in one process, so markdown_to_html frees them itself.
    def resident_mb() -> float:
        return int(Path("/proc/self/statm").read_text().split()[1]) * 4096 / 1e6

    part = (
        "## Part {}\n\nSome *text* and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nprint(1)\n```"
    )
    text = "\n\n".join(part.format(i) for i in range(4000))  # about 0.4 MB
    expected = markdown_to_html(text)
    before = resident_mb()
    for _ in range(15):
        assert markdown_to_html(text) == expected
    assert resident_mb() - before < 60  # leaking, it grew about 300 MB


def test_redacted_page_counts_each_secret_once(tmp_path: Path) -> None:
    # A key in a tool output and one in a label: the page shows each in an entry and in its sidebar
    # row, and once counted them for both (one AWS key reported as two).
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "env"}}
    rows = [
        message("user", content="print the environment"),
        message("assistant", content=[call]),
        message("toolResult", toolCallId="c1", toolName="bash", content="AWS=AKIAIOSFODNN7EXAMPLQ"),
        message("assistant", content=[{"type": "text", "text": "done"}]),
        {"type": "label", "targetId": "e4", "label": "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"},
    ]
    path = write(tmp_path / "s.jsonl", chain(rows))
    session = load_session(path)
    markdown = render_export(session, "md", ExportOptions(redact=True))
    page = render_export(session, "html", ExportOptions(redact=True))
    assert page.counts == markdown.counts  # the page counts what the Markdown of the same entries counts
    assert page.counts["aws-key"] == 1 and page.counts["github-token"] >= 1
    text = page.data.decode()
    assert "AKIAIOSFODNN7EXAMPLQ" not in text and "ghp_A1b2" not in text
    assert text.count("[REDACTED:aws-key]") >= 2  # the entry and its sidebar row both show the marker


def test_current_entries_on_the_page_link_and_fold(tmp_path: Path) -> None:
    session = load_session(write_current_session(tmp_path / "current.jsonl"))
    data = _data(_parse(session_to_html(session, whole_tree=True).text))
    by_id = {node[4]: (node, fragment) for node, fragment in zip(data["n"], data["h"], strict=True)}
    edit = by_id["edit1"][1]
    assert 'entry <a href="#e-res1"><code>res1</code></a> in what the model sees' in edit
    # The system prompt is folded away (a closed <details>, not hidden with thinking), unknown JSON too.
    system = by_id["sys1"][1]
    assert '<details class="system"><summary>System prompt (47 characters)</summary>' in system
    assert by_id["sys1"][0][1] == "summary" and by_id["edit1"][0][1] == "summary"
    assert by_id["use1"][0][2] == "[usage: cache_warm · gpt-5 · $0.0359]"
    assert 'href="#e-edit2"' in by_id["user1"][1]  # the target says a later edit dropped it
