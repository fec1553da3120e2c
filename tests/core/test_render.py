"""core.render.view: entries (their kinds' cards) as safe HTML fragments for Qt's rich-text viewer."""

from __future__ import annotations

import ast
import base64
import json
import re
import subprocess
import sys
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import orjson
import pytest

from core import load_session
from core.kinds import entry_preview, tool_results_for
from core.render import (
    RenderOptions,
    block_key,
    image_bytes,
    parse_action,
    parse_image_src,
    render_entries,
    render_entry,
    stylesheet,
)
from core.session import Session
from tests.conftest import DEMO, REPO, SAMPLES

LINEAR = DEMO / "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
ALL_FILES = sorted(SAMPLES.rglob("*.jsonl")) + sorted(DEMO.glob("*.jsonl"))
PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
TS = "2026-01-01T00:00:{:02d}.000Z"


# ------------------------------------------------------------------------------------------- helpers


class Tags(HTMLParser):
    """Every start tag of a fragment with its attributes, as a browser would parse them."""

    def __init__(self, fragment: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.pieces: list[str] = []
        self.feed(fragment)
        self.close()

    @property
    def text(self) -> str:
        """The fragment's text, as a reader sees it (no markup)."""
        return "".join(self.pieces)

    def handle_data(self, data: str) -> None:
        self.pieces.append(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def assert_safe(fragment: str) -> None:
    """No script, no event handler, no remote or odd link or image source anywhere in the markup."""
    lowered = fragment.lower()
    assert "<script" not in lowered
    assert "<img src=x" not in lowered
    assert "<iframe" not in lowered and "<style" not in lowered
    for tag, attrs in Tags(fragment).tags:
        assert tag not in ("script", "iframe", "object", "embed", "style", "link", "meta", "base", "form")
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name, value)
            if name == "href":
                assert value and value.lower().startswith(("http://", "https://", "mailto:", "action:")), (
                    value
                )
            if name == "src":
                assert tag == "img" and value and value.startswith("image:"), value


def write(path: Path, rows: list[dict]) -> Path:
    header = {"type": "session", "version": 3, "id": "sid", "timestamp": TS.format(0), "cwd": "/p"}
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in [header, *rows]))
    return path


def chain(rows: list[dict]) -> list[dict]:
    """Give rows ids e1, e2... each the child of the one before, and timestamps."""
    out = []
    for n, row in enumerate(rows, 1):
        out.append(
            {"id": f"e{n}", "parentId": f"e{n - 1}" if n > 1 else None, "timestamp": TS.format(n), **row}
        )
    return out


def message(role: str, **fields: object) -> dict:
    return {"type": "message", "message": {"role": role, "timestamp": 1767225600000, **fields}}


def assistant(content: list[dict], **fields: object) -> dict:
    usage = {
        "input": 1200,
        "output": 345,
        "cacheRead": 56789,
        "cacheWrite": 0,
        "totalTokens": 58334,
        "cost": {"input": 0.0036, "output": 0.005175, "cacheRead": 0.017, "cacheWrite": 0, "total": 0.025775},
    }
    fields = {"provider": "anthropic", "model": "claude-x", "usage": usage, "stopReason": "stop", **fields}
    return message("assistant", content=content, **fields)


def result(call_id: str, text: str, name: str = "bash", **fields: object) -> dict:
    content = [{"type": "text", "text": text}]
    fields = {"isError": False, **fields}
    return message("toolResult", toolCallId=call_id, toolName=name, content=content, **fields)


def every_key(session: Session) -> frozenset[str]:
    keys = set()
    for entry in session.entries:
        for kind in ("result", "output", "result/diff"):
            keys.add(block_key(entry.id, kind))
        for index in range(12):
            keys.add(block_key(entry.id, "thinking", index))
            keys.add(block_key(entry.id, "tool", index))
    return frozenset(keys)


def render_all(session: Session, options: RenderOptions | None = None) -> str:
    """Every entry of the file, alone, assistant messages with their results."""
    out = []
    for entry, body in zip(session.entries, session.bodies(session.entries), strict=True):
        results = tool_results_for(session, entry) if entry.role == "assistant" else None
        out.append(render_entry(entry, body, results, options))
    return "".join(out)


def fragment_of(html: str, entry_id: str) -> str:
    match = re.search(f'<div class="entry"[^>]*><a name="{re.escape(entry_id)}">', html)
    assert match is not None, entry_id
    end = html.find('<div class="entry"', match.end())
    start = match.start()
    return html[start : end if end >= 0 else len(html)]


# ------------------------------------------------------------------------------------------- samples


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_every_entry_of_every_sample_renders(path: Path) -> None:
    session = load_session(path)
    for options in (RenderOptions(), RenderOptions(expanded=every_key(session), dark=True)):
        html = render_all(session, options)
        assert html.count('<div class="entry"') == len(session.entries)
        assert_safe(html)
        leaf = session.leaf_id
        if leaf is not None:
            assert_safe(render_entries(session, session.path_to(leaf), options))


def test_linear_sample_pairs_every_call_with_its_result() -> None:
    session = load_session(LINEAR)
    path = session.path_to(session.leaf_id)
    bodies = dict(zip([e.id for e in path], session.bodies(path), strict=True))
    calls = results = 0
    for entry in path:
        if entry.role == "assistant":
            content = bodies[entry.id]["message"]["content"]
            call_ids = {b["id"] for b in content if b["type"] == "toolCall"}
            found = tool_results_for(session, entry)
            assert set(found) == call_ids
            for call_id, body in found.items():
                assert body["message"]["toolCallId"] == call_id
                assert session.by_id[body["id"]].parent_id == entry.id
            calls += len(call_ids)
        elif entry.role == "toolResult":
            results += 1
    assert calls == results == 7

    html = render_entries(session, path)
    assert html.count('<div class="entry"') == len(path) - results
    for entry in path:
        if entry.role == "toolResult":
            # shown inside its call's box (anchored), never as an entry of its own
            assert f'<a name="{entry.id}"></a>' in html
            assert not re.search(f'<div class="entry"[^>]*><a name="{entry.id}">', html)
    read_call = fragment_of(html, "5f6ba966")
    assert "<b>read</b> <code>src/components/LoginForm.tsx</code>" in read_call
    assert '<a name="dc11c2c0"></a>' in read_call  # its result
    grep = fragment_of(html, "1e8d9d8f")
    assert "<b>grep</b> <code>onSubmit|handleSubmit</code> in <code>src</code>" in grep
    assert "0007_add_index.sql:80: import { handleSubmit } from &quot;./that&quot;;" in grep


def test_render_entries_in_windows_shows_every_result_once() -> None:
    session = load_session(LINEAR)
    path = session.path_to(session.leaf_id)
    for size, options in ((1, None), (2, None), (3, None), (5, RenderOptions(show_tools=False)), (7, None)):
        windows = [render_entries(session, path[i : i + size], options) for i in range(0, len(path), size)]
        html = "".join(windows)
        for entry in path:
            anchor = f'<a name="{entry.id}"></a>'
            assert html.count(anchor) == 1, (size, entry)


def test_edit_diff_is_coloured_line_by_line() -> None:
    session = load_session(LINEAR)
    entry = session.by_id["97bf8cf4"]
    html = render_entry(entry, session.body(entry), tool_results_for(session, entry))
    add = '<span style="color:#1a7f37; background-color:#e6ffec">'
    delete = '<span style="color:#cf222e; background-color:#ffebe9">'
    assert "<b>edit</b> <code>src/components/LoginForm.tsx</code>" in html
    assert f"{delete}-116 import {{ parseRow }} from &quot;./be&quot;;</span>" in html
    assert f"{add}+116 import {{ retryWithBackoff }} from &quot;./constant&quot;;</span>" in html
    assert "\n 114 \n" in html  # context lines stay uncoloured
    dark = render_entry(
        entry, session.body(entry), tool_results_for(session, entry), RenderOptions(dark=True)
    )
    assert '<span style="color:#3fb950; background-color:#12261e">+116' in dark


def test_diff_hunk_headers_are_grey(tmp_path: Path) -> None:
    call = {"type": "toolCall", "id": "c1", "name": "edit", "arguments": {"path": "a.py", "edits": []}}
    rows = chain(
        [
            assistant([call], stopReason="toolUse"),
            result("c1", "ok", "edit", details={"diff": "@@ -1,2 +1,2 @@\n-a\n+b\n c"}),
        ]
    )
    session = load_session(write(tmp_path / "s.jsonl", rows))
    html = render_entries(session, session.entries)
    assert '<span style="color:#6e7781">@@ -1,2 +1,2 @@</span>' in html
    assert ">-a</span>" in html and ">+b</span>" in html


def test_thinking_is_collapsed_unless_its_key_is_expanded() -> None:
    session = load_session(LINEAR)
    entry = session.by_id["28cf9f89"]
    body = session.body(entry)
    thought = body["message"]["content"][0]["thinking"]
    key = block_key(entry.id, "thinking", 0)
    link = f'<a href="action:toggle/{key}">Thinking…</a>'
    assert parse_action(f"action:toggle/{key}") == ("toggle", key)

    collapsed = render_entry(entry, body)
    assert link in collapsed
    assert thought[:40] not in collapsed

    expanded = render_entry(entry, body, options=RenderOptions(expanded=frozenset({key})))
    assert link not in expanded
    assert thought[:40] in expanded

    hidden = render_entry(entry, body, options=RenderOptions(show_thinking=False))
    assert "Thinking" not in hidden and thought[:40] not in hidden


def test_long_results_collapse_with_a_toggle_link() -> None:
    session = load_session(LINEAR)
    entry = session.by_id["5f6ba966"]  # read of a 48-line file
    body, results = session.body(entry), tool_results_for(session, entry)
    key = block_key(entry.id, "tool", 1)
    collapsed = render_entry(entry, body, results, RenderOptions(max_result_lines=10))
    assert f'<a href="action:toggle/{key}">… 38 more lines (show all)</a>' in collapsed
    assert "flushQueue(input: string)" not in collapsed  # line 23
    expanded = render_entry(
        entry, body, results, RenderOptions(max_result_lines=10, expanded=frozenset({key}))
    )
    assert f'<a href="action:toggle/{key}">show less</a>' in expanded
    assert "flushQueue(input" in Tags(expanded).text  # coloured: the words are split by spans
    no_tools = render_entry(entry, body, results, RenderOptions(show_tools=False))
    assert "<b>read</b> <code>src/components/LoginForm.tsx</code>" in no_tools
    assert "fetchProducts" not in no_tools


def test_error_result_is_marked() -> None:
    session = load_session(LINEAR)
    entry = session.by_id["8d3f2834"]
    html = render_entry(entry, session.body(entry), tool_results_for(session, entry))
    assert "✗ error" in html
    assert '<pre style="color:#cf222e">' in html and "Command exited with code 2</pre>" in html
    alone = session.by_id["8facaa31"]
    html = render_entry(alone, session.body(alone))
    assert "Tool result" in html and "✗ error" in html and "Command exited with code 2" in html


def test_bash_execution_shows_command_output_and_exit_code() -> None:
    session = load_session(LINEAR)
    entry = session.by_id["3751a3a8"]
    html = render_entry(entry, session.body(entry))
    assert "$ git status --short" in Tags(html).text
    assert "?? src/components/__tests__/LoginForm.enter.test.tsx" in html
    assert "exit code 0" in html


def test_bash_execution_cancelled_truncated_excluded(tmp_path: Path) -> None:
    rows = chain(
        [
            message(
                "bashExecution",
                command="yes",
                output="y\n" * 5,
                exitCode=None,
                cancelled=True,
                truncated=True,
                fullOutputPath="/tmp/out.txt",
                excludeFromContext=True,
            ),
            message(
                "bashExecution", command="false", output="", exitCode=1, cancelled=False, truncated=False
            ),
        ]
    )
    session = load_session(write(tmp_path / "s.jsonl", rows))
    first, second = (
        render_entry(e, b) for e, b in zip(session.entries, session.bodies(session.entries), strict=True)
    )
    assert "cancelled" in first and "output truncated; full output in /tmp/out.txt" in first
    assert "not sent to the model" in first
    assert "exit code 1" in second


def test_aborted_and_failed_replies_are_marked(tmp_path: Path) -> None:
    session = load_session(LINEAR)
    entry = session.by_id["495bf114"]
    html = render_entry(entry, session.body(entry))
    assert "<b>Aborted</b>: Request was aborted" in html
    rows = chain([assistant([], stopReason="error", errorMessage="overloaded <b>503</b>")])
    session = load_session(write(tmp_path / "s.jsonl", rows))
    html = render_entries(session, session.entries)
    assert "<b>Error</b>: overloaded &lt;b&gt;503&lt;/b&gt;" in html


def test_usage_cost_and_time_are_in_the_header() -> None:
    session = load_session(LINEAR)
    entry = session.by_id["5f6ba966"]
    html = render_entry(entry, session.body(entry))
    assert "anthropic/claude-sonnet-4-5" in html
    assert "400 in · 20 out · 3.6k cache read · 4.0k cache write · $0.0176" in html
    local = datetime.fromtimestamp(1772442989128 / 1000).astimezone()
    assert f"{local:%H:%M:%S} {local:%Y-%m-%d}" in html
    assert "<b" in html and ">Assistant</b>" in html


def test_compaction_branch_summary_and_bookkeeping_entries() -> None:
    session = load_session(DEMO / "019cb7f7-db40-74db-9a60-0d769809d8ec.jsonl")
    compaction = next(e for e in session.entries if e.kind == "compaction")
    body = session.body(compaction)
    html = render_entry(compaction, body)
    tokens = body["tokensBefore"]
    assert f"compacted from {round(tokens / 1000)}k tokens" in html
    branches = load_session(DEMO / "019cb402-3c88-737c-a54e-8f5201941e04.jsonl")
    summary = next(e for e in branches.entries if e.kind == "branch_summary")
    assert "Branch summary" in render_entry(summary, branches.body(summary))
    html = render_all(branches)
    assert "Switched to model <code>openai/gpt-5.1-codex</code>" in html
    assert "Thinking level: <code>high</code>" in html
    assert "Label <b>approach-A-lru</b> set on" in html
    assert "Label cleared on" in html


def test_hidden_custom_message_is_marked() -> None:
    session = load_session(DEMO / "019cc409-c2e0-7241-b21f-076963ebceec.jsonl")
    entry = next(e for e in session.entries if e.kind == "custom_message")
    html = render_entry(entry, session.body(entry))
    assert "hidden from the agent&#x27;s screen" in html
    linear = load_session(LINEAR)
    entry = linear.by_id["8f98c593"]
    html = render_entry(entry, linear.body(entry))
    assert " · reminder · " in html and "hidden from" not in html
    assert "Remember to update the CHANGELOG before releasing." in html


def test_unknown_types_render_generically(tmp_path: Path) -> None:
    rows = chain(
        [
            {"type": "future_thing", "payload": "<script>alert(1)</script>" + "x" * 10_000},
            message("weirdRole", content="hi"),
            {"type": "message", "message": "not an object"},
            assistant("just a string", usage="nope", stopReason=None),
            assistant([{"type": "mystery", "x": "<b>"}, "not a block", {"type": "toolCall"}]),
        ]
    )
    session = load_session(write(tmp_path / "s.jsonl", rows))
    html = render_all(session)
    assert ">[future_thing]</b>" in html
    assert "An entry of a type this app does not know" in html
    assert "alert(1)" not in html  # the JSON is folded away until asked for
    assert f'href="action:toggle/{block_key("e1", "json")}"' in html
    assert_safe(html)
    html = render_all(
        session, RenderOptions(expanded=frozenset({block_key("e1", "json"), block_key("e2", "json")}))
    )
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert (
        "x" * 10_000 in html
    )  # the JSON of an unknown entry, shown when asked for (up to 20,000 characters)
    assert len(html) < 40_000
    assert ">[message weirdRole]</b>" in html
    assert "<p>just a string</p>" in html
    assert "[mystery]" in html and '"&lt;b&gt;"' in html
    assert_safe(html)


# ------------------------------------------------------------------------------------------- hostile


HOSTILE_MARKDOWN = "\n\n".join(
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1)) [y](JaVaScRiPt:alert(2)) [z](vbscript:msgbox) [f](file:///etc/passwd)",
        "[d](data:text/html;base64,PHNjcmlwdD4=) [r](relative/path) <javascript:alert(3)>",
        "[ok](https://example.com/a?b=1&c=2) [mail](mailto:someone@example.com) <http://example.org>",
        "![i](http://example.com/a.png) ![j](data:image/png;base64,AAAA) [![k](https://e.com/k.png)](https://e.com)",
        '<a href="javascript:alert(4)">click</a> <iframe src="http://evil"></iframe>',
        "````md\n```html\n<script>alert(5)</script>\n```\n````",
        "```python\nprint('<b>hi</b>')\n```",
        "```nosuchlanguage\n<i>plain</i>\n```",
        "| a | b |\n|---|---|\n| <b>1</b> | [t](javascript:x) |",
    ]
)


def hostile_session(tmp_path: Path) -> Session:
    evil = "<script>alert('x')</script><img src=x onerror=alert(1)>"
    calls = [
        {"type": "thinking", "thinking": "plan " + evil},
        {"type": "text", "text": HOSTILE_MARKDOWN},
        {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": f"echo '{evil}'"}},
        {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "x.html"}},
        {"type": "toolCall", "id": "c3", "name": evil, "arguments": {"q": evil, "n": [1, 2]}},
        {"type": "toolCall", "id": "c4", "name": "write", "arguments": {"path": evil, "content": evil}},
        {
            "type": "toolCall",
            "id": "c5",
            "name": "edit",
            "arguments": {"path": "a", "edits": [{"oldText": evil}]},
        },
    ]
    image = {"type": "image", "data": "!!! not base64 <script>", "mimeType": "image/png"}
    svg = {
        "type": "image",
        "data": base64.b64encode(b"<svg onload=alert(1)>").decode(),
        "mimeType": "image/svg+xml",
    }
    rows = chain(
        [
            {"type": "model_change", "provider": evil, "modelId": evil},
            {"type": "thinking_level_change", "thinkingLevel": evil},
            message("user", content=HOSTILE_MARKDOWN),
            message("user", content=[{"type": "text", "text": "y" * 100_000}, image, svg]),
            assistant(calls, stopReason="aborted", errorMessage=evil, provider=evil, model=evil),
            result("c1", evil + "\n" + "z" * 100_000),
            result("c2", "<html><body onload=alert(1)>" + evil, "read"),
            result("c3", evil, evil, isError=True, details={"diff": "+" + evil + "\n-" + evil}),
            result("c4", evil, "write"),
            message(
                "toolResult",
                toolCallId="c5",
                toolName="edit",
                content=[{"type": "text", "text": evil}, image],
                isError=True,
            ),
            message(
                "bashExecution", command=evil, output=evil, exitCode=evil, cancelled=False, truncated=True
            ),
            {"type": "custom_message", "customType": evil, "content": HOSTILE_MARKDOWN, "display": False},
            {"type": "custom", "customType": evil, "data": {"html": evil}},
            {"type": "branch_summary", "fromId": "e1", "summary": HOSTILE_MARKDOWN},
            {
                "type": "compaction",
                "summary": HOSTILE_MARKDOWN,
                "firstKeptEntryId": "e3",
                "tokensBefore": evil,
            },
            {"type": "label", "targetId": evil, "label": evil},
            {"type": "session_info", "name": evil},
            {"type": evil, "data": evil},
        ]
    )
    return load_session(write(tmp_path / "hostile.jsonl", rows))


def test_hostile_content_is_escaped_everywhere(tmp_path: Path) -> None:
    session = hostile_session(tmp_path)
    for options in (
        RenderOptions(),
        RenderOptions(expanded=every_key(session), dark=True),
        RenderOptions(show_tools=False, show_thinking=False),
    ):
        html = render_all(session, options)
        assert_safe(html)
        assert html.count('<div class="entry"') == len(session.entries)
        assert_safe(render_entries(session, session.entries, options))
    html = render_all(session, RenderOptions(expanded=every_key(session)))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "&lt;html&gt;&lt;body onload=alert(1)&gt;" in html  # HTML in tool output stays text


def test_links_keep_only_http_and_mailto(tmp_path: Path) -> None:
    session = hostile_session(tmp_path)
    user = session.by_id["e3"]
    html = render_entry(user, session.body(user))
    hrefs = [a.get("href") for tag, a in Tags(html).tags if tag == "a" and "href" in a]
    assert hrefs == [
        "https://example.com/a?b=1&c=2",
        "mailto:someone@example.com",
        "http://example.org",
        "http://example.com/a.png",
        "https://e.com",
    ]
    assert '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">ok</a>' in html
    # a link, never an <img>
    assert '<a href="http://example.com/a.png" rel="noopener noreferrer nofollow">[image: i]</a>' in html
    assert "[image: j]" in html and "[image: k]" in html
    assert "<img" not in html
    assert '<a class="unsafe-link">r</a>' in html  # the relative link's text, not a link (no href)
    assert 'href="javascript' not in html.lower()
    assert "&lt;a href=&quot;javascript:alert(4)&quot;&gt;click&lt;/a&gt;" in html


def test_fences_inside_fences_and_code_highlighting(tmp_path: Path) -> None:
    session = hostile_session(tmp_path)
    user = session.by_id["e3"]
    html = render_entry(user, session.body(user))
    assert "```html\n&lt;script&gt;alert(5)&lt;/script&gt;\n```" in html  # the inner fence is content
    assert "&lt;b&gt;hi&lt;/b&gt;" in html  # python highlighted, still escaped
    # Coloured inline: Qt matches every element against every stylesheet rule.
    assert '<span style="color: #008000">print</span>' in html
    assert "&lt;i&gt;plain&lt;/i&gt;" in html  # unknown language: plain text
    assert '<table border="1"' in html and "<td>&lt;b&gt;1&lt;/b&gt;</td>" in html


def test_very_long_lines_and_blocks_are_capped(tmp_path: Path) -> None:
    session = hostile_session(tmp_path)
    user = session.by_id["e4"]
    html = render_entry(user, session.body(user))
    assert "y" * 100_000 in html  # a long user line is kept (it is wrapped by the view)
    assistant_entry = session.by_id["e5"]
    results = tool_results_for(session, assistant_entry)
    collapsed = render_entry(assistant_entry, session.body(assistant_entry), results)
    assert "z" * 5_000 not in collapsed
    assert "more characters (show all)" in collapsed
    assert len(collapsed) < 60_000
    key = block_key("e5", "tool", 2)
    expanded = render_entry(
        assistant_entry, session.body(assistant_entry), results, RenderOptions(expanded=frozenset({key}))
    )
    assert "z" * 100_000 in expanded

    code = "```\n" + "\n".join(f"line {n}" for n in range(5000)) + "\n```"
    rows = chain([message("user", content=code)])
    small = load_session(write(tmp_path / "code.jsonl", rows))
    html = render_entries(small, small.entries)
    assert "line 399" in html and "line 400" not in html
    assert "line 4999" not in html
    assert "4,600 more lines not shown" in html


def test_images_are_referenced_and_decoded_on_demand(tmp_path: Path) -> None:
    session = load_session(LINEAR)
    entry = session.by_id["2e6dba69"]
    body = session.body(entry)
    html = render_entry(entry, body)
    # The demo's console screenshot (520 x 150), shown at most 480 wide; its bytes stay out of the page.
    assert '<img src="image:2e6dba69/0" width="480" height="138">' in html
    stored = body["message"]["content"][1]["data"]
    assert stored[:40] not in html
    assert parse_image_src("image:2e6dba69/0") == ("2e6dba69", 0)
    data, mime = image_bytes(body, 0)
    assert mime == "image/png" and data == base64.b64decode(stored) and data.startswith(b"\x89PNG")
    assert image_bytes(body, 1) is None and image_bytes(body, -1) is None

    hostile = hostile_session(tmp_path)
    user = hostile.by_id["e4"]
    body = hostile.body(user)
    html = render_entry(user, body)
    assert image_bytes(body, 0) is None  # invalid base64
    assert image_bytes(body, 1) is None  # svg is not allowed
    assert "<img" not in html
    assert "[image (image/png): not shown" in html and "[image (image/svg+xml): not shown" in html


def test_image_bytes_checks_type_and_content() -> None:
    def body(data: str, mime: str) -> dict:
        return {
            "type": "message",
            "message": {"role": "user", "content": [{"type": "image", "data": data, "mimeType": mime}]},
        }

    assert image_bytes(body(PNG_1X1, "image/png"), 0) is not None
    assert image_bytes(body(PNG_1X1, "image/jpeg"), 0)[1] == "image/png"  # the bytes decide the type
    wrapped = "\n".join(PNG_1X1[i : i + 20] for i in range(0, len(PNG_1X1), 20))
    assert image_bytes(body(wrapped, "image/png"), 0) is not None
    assert image_bytes(body(PNG_1X1, "text/html"), 0) is None
    assert image_bytes(body(base64.b64encode(b"hello").decode(), "image/png"), 0) is None
    assert image_bytes(body(PNG_1X1[:-3] + "!", "image/png"), 0) is None
    gif = base64.b64encode(b"GIF89a\x20\x03\x58\x02" + b"\0" * 20).decode()  # 800 x 600
    custom = {"type": "custom_message", "content": [{"type": "image", "data": gif, "mimeType": "image/gif"}]}
    assert image_bytes(custom, 0)[1] == "image/gif"


def test_large_images_are_scaled_down(tmp_path: Path) -> None:
    gif = base64.b64encode(b"GIF89a\x20\x03\x58\x02" + b"\0" * 20).decode()  # 800 x 600
    rows = chain([message("user", content=[{"type": "image", "data": gif, "mimeType": "image/gif"}])])
    session = load_session(write(tmp_path / "s.jsonl", rows))
    html = render_entries(session, session.entries)
    assert '<img src="image:e1/0" width="480" height="360">' in html


def test_an_assistant_image_after_a_stray_item_points_at_itself(tmp_path: Path) -> None:
    # A non-object item before the images once shifted the assistant view's numbering by one, so the
    # second image's source decoded the first image.
    gif = base64.b64encode(b"GIF89a\x20\x03\x58\x02" + b"\0" * 20).decode()  # 800 x 600
    blocks = [
        {"type": "image", "data": data, "mimeType": mime}
        for data, mime in ((PNG_1X1, "image/png"), (gif, "image/gif"))
    ]
    rows = chain([assistant(["stray", *blocks])])
    session = load_session(write(tmp_path / "s.jsonl", rows))
    entry = session.entries[-1]
    body = session.body(entry)
    html = render_entry(entry, body)
    assert '<img src="image:e1/0" width="1" height="1">' in html
    assert '<img src="image:e1/1" width="480" height="360">' in html
    assert image_bytes(body, 1)[1] == "image/gif"


def test_token_counts_read_alike_in_the_tree_and_the_message_view(tmp_path: Path) -> None:
    rows = chain([{"type": "compaction", "summary": "s", "firstKeptEntryId": "e1", "tokensBefore": 3600}])
    session = load_session(write(tmp_path / "s.jsonl", rows))
    entry = session.entries[-1]
    body = session.body(entry)
    assert entry_preview(entry, body) == "[compaction: 3.6k tokens]"
    assert "compacted from 3.6k tokens" in render_entry(entry, body)


def test_toggle_keys_survive_odd_entry_ids() -> None:
    key = block_key('a/b c"%<', "tool", 3)
    href = "action:toggle/a/b%20c%22%25%3C/tool/3"
    assert parse_action(href) == ("toggle", key)
    assert parse_action("https://example.com") is None
    assert parse_image_src("image:a%2Fb/2") == ("a/b", 2)
    assert parse_image_src("image:x/y") is None


def test_stylesheet_has_both_palettes() -> None:
    light, dark = stylesheet(False), stylesheet(True)
    assert light != dark
    assert "pre {" in light and "#0969da" in light and "#58a6ff" in dark


# ------------------------------------------------------------------------------------------- purity


def test_render_imports_no_qt() -> None:
    imported = set()
    for path in sorted((REPO / "core" / "render").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module.split(".")[0])
    assert not imported & {"PySide6", "shiboken6", "PyQt5", "PyQt6", "gui"}


def test_cli_and_render_import_lazily() -> None:
    code = (
        "import sys, core.cli.program, core.render.view\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('markdown_it', 'pygments', 'PySide6')]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.replace("'", '"')) == []


def test_an_expanded_long_read_shows_every_line(tmp_path: Path) -> None:
    text = "\n".join(f"row {n}" for n in range(1000)) + "\n"
    call = {
        "type": "toolCall",
        "id": "c1",
        "name": "read",
        "arguments": {"path": "a.py", "offset": 5, "limit": 10},
    }
    rows = chain([assistant([call], stopReason="toolUse"), result("c1", text, "read")])
    session = load_session(write(tmp_path / "s.jsonl", rows))
    collapsed = render_entries(session, session.entries)
    assert "<b>read</b> <code>a.py:5-14</code>" in collapsed
    assert "… 980 more lines (show all)" in collapsed and "row 20" not in collapsed
    expanded = render_entries(session, session.entries, RenderOptions(expanded=frozenset({"e1/tool/0"})))
    assert "row 999" in expanded and "show less" in expanded
