"""Hypothesis strategies for the export property tests: sessions full of hostile text and odd ids.

Used by ``tests/core/test_export_properties.py`` (a few dozen examples, seconds) and by
``benchmarks/fuzz_export.py`` (as many as asked for). A session is a list of JSON lines written with
``ensure_ascii`` so that lone surrogates reach the file as the ``\\ud800`` escapes an agent can write.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from hypothesis import strategies as st

from tests.browser.hostile import MARKDOWN, PNG, SCRIPTS

SNIPPETS = [
    *SCRIPTS,
    MARKDOWN,
    "[x](javascript:alert(1))",
    "[x](JaVa&#115;cript:alert(1))",
    "![x](data:text/html;base64,PHNjcmlwdD4=)",
    "<https://example.com/a`b>",
    "```\n</script><script>alert(1)</script>\n```",
    "````\n```\n<b>\n````",
    "`<b>` ``<i>`` \\`<u>\\`",
    "    <indented>",
    "> ```\n<script>alert(1)</script>",
    "- ```\n  x\n  ```\n<img src=x onerror=alert(1)>",
    "<div>\n```\n</div>\n\n```\n<script>alert(2)</script>\n```",
    "| a |\n|---|\n| <b>x</b> |",
    "[r]: javascript:alert(1)\n\n[x][r]",
    "\x00\x01\x07\x1b[31m\x7f",
    "\ud800",
    "\udfff tail",
    "\u2028\u2029",
    "\u202e\u200b\ufeff",
    "😀👍🏽",
    "]]>",
    "<!--",
    "--> <!-- -->",
    "&lt;&amp;&#0;&#x110000;",
    "\r\n\r\r\n",
    "ghp_" + "Zq8Rk2Lm4Np6Tx9Vb3Cd5Fg7Hj1Kw0Ys2Ue4",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
    "password=hunter2hunter2XYZ",
]
_ALPHABET = st.characters(codec=None, exclude_categories=())  # every code point, surrogates included


@st.composite
def hostile_text(draw: st.DrawFn, huge: bool = True) -> str:
    """A text made of hostile snippets, random characters and, now and then, something large."""
    parts = draw(
        st.lists(
            st.one_of(st.sampled_from(SNIPPETS), st.text(_ALPHABET, max_size=40)), min_size=0, max_size=6
        )
    )
    if huge and draw(st.integers(0, 30)) == 0:
        parts.append(draw(st.sampled_from(SNIPPETS)) * draw(st.integers(200, 4000)))
    return draw(st.sampled_from(["", "\n", "\n\n", " "])).join(parts)


IDS = st.one_of(
    st.text("0123456789abcdef", min_size=8, max_size=8),
    st.text(_ALPHABET, min_size=1, max_size=12),
    st.sampled_from(
        ["<b>\"'&", "a b/#?", "e-1", "\ud800", "x\udfffy", "😀", "-", "%", "%E0%A4%A", "</script>", "..."]
    ),
    st.text("ab", min_size=200, max_size=300),
)


def deep(depth: int, leaf: object) -> object:
    """``leaf`` nested ``depth`` levels deep in lists and objects (iteratively)."""
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


@st.composite
def session_lines(draw: st.DrawFn) -> list[dict[str, object]]:
    """A session: a header and up to 10 entries of every kind, with hostile text and odd ids."""
    header: dict[str, object] = {"type": "session", "version": 3, "id": draw(IDS)}
    header["timestamp"] = "2026-01-01T00:00:00.000Z"
    header["cwd"] = draw(hostile_text(huge=False))
    lines: list[dict[str, object]] = [header]
    ids: list[str] = []
    count = draw(st.integers(1, 10))
    for n in range(count):
        entry_id = draw(IDS)
        parents: list[str | None] = [None, *ids]
        parent = (
            draw(st.sampled_from(parents))
            if len(ids) > 0 and draw(st.booleans())
            else (ids[-1] if ids else None)
        )
        text = draw(hostile_text())
        kind = draw(
            st.sampled_from(
                [
                    "user",
                    "assistant",
                    "tool",
                    "bash",
                    "custom_message",
                    "compaction",
                    "branch_summary",
                    "label",
                    "session_info",
                    "model_change",
                    "unknown",
                ]
            )
        )
        entry: dict[str, object] = {
            "id": entry_id,
            "parentId": parent,
            "timestamp": f"2026-01-01T00:00:{n:02d}.000Z",
        }
        if kind == "user":
            content: object = text if draw(st.booleans()) else [{"type": "text", "text": text}]
            if draw(st.integers(0, 4)) == 0:
                content = [
                    {"type": "text", "text": text},
                    {"type": "image", "data": PNG, "mimeType": "image/png"},
                ]
            entry.update(type="message", message={"role": "user", "content": content})
        elif kind == "assistant":
            arguments: dict[str, object] = {"command": text, "path": draw(hostile_text(huge=False))}
            if draw(st.integers(0, 5)) == 0:
                arguments["deep"] = deep(draw(st.integers(1, 120)), text)
            blocks = [
                {"type": "thinking", "thinking": draw(hostile_text(huge=False))},
                {"type": "text", "text": text},
                {
                    "type": "toolCall",
                    "id": "c" + str(n),
                    "name": draw(hostile_text(huge=False)),
                    "arguments": arguments,
                },
            ]
            entry.update(type="message", message={"role": "assistant", "content": blocks, "model": text[:30]})
        elif kind == "tool":
            message: dict[str, object] = {"role": "toolResult", "toolCallId": f"c{n - 1}", "toolName": "bash"}
            message.update(content=[{"type": "text", "text": text}], isError=draw(st.booleans()))
            entry.update(type="message", message=message)
        elif kind == "bash":
            run: dict[str, object] = {
                "role": "bashExecution",
                "command": text,
                "output": draw(hostile_text()),
                "exitCode": 1,
            }
            entry.update(type="message", message=run)
        elif kind == "custom_message":
            entry.update(
                type="custom_message", customType=draw(hostile_text(huge=False)), content=text, display=True
            )
        elif kind == "compaction":
            entry.update(
                type="compaction", summary=text, firstKeptEntryId=draw(st.sampled_from([entry_id, *ids]))
            )
            entry["tokensBefore"] = draw(st.integers(-1, 10**12))
        elif kind == "branch_summary":
            entry.update(type="branch_summary", fromId=draw(st.sampled_from([entry_id, *ids])), summary=text)
        elif kind == "label":
            entry.update(type="label", targetId=draw(st.sampled_from([entry_id, *ids])), label=text)
        elif kind == "session_info":
            entry.update(type="session_info", name=text)
        elif kind == "model_change":
            entry.update(type="model_change", provider=text[:20], modelId=draw(hostile_text(huge=False)))
        else:
            entry.update(
                type=draw(hostile_text(huge=False)) or "x", data=deep(draw(st.integers(0, 60)), text)
            )
        lines.append(entry)
        ids.append(entry_id)
    return lines


def write_lines(folder: Path, lines: list[dict[str, object]], name: str = "fuzz.jsonl") -> Path:
    """Write ``lines`` as a session file (``ensure_ascii``: surrogates as escapes)."""
    path = folder / name
    path.write_text("".join(json.dumps(line, ensure_ascii=True) + "\n" for line in lines), encoding="ascii")
    return path


# What the exported page's messages may hold (the island's fragments, which page.js puts in place).
FRAGMENT_TAGS = {
    "a", "article", "b", "blockquote", "br", "code", "del", "details", "div", "em", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "img", "li", "ol", "p", "pre", "span", "strong", "summary", "table",
    "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
FRAGMENT_ATTRIBUTES = {
    "class",
    "href",
    "title",
    "id",
    "open",
    "alt",
    "loading",
    "src",
    "rel",
    "align",
    "start",
}
_SAFE_HREF = re.compile(r"(#e-|https?://|mailto:)", re.I)
_SAFE_SRC = re.compile(r"(data:image/(png|jpeg|gif|webp);base64,|[A-Za-z0-9_.-]+_images/)", re.I)


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of script elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script, self._text = dict(attrs), []

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._text.append(data)


def check_fragment(html: str) -> None:
    """An island fragment holds only allowed elements and attributes, and links only to safe places."""
    elements = Elements()
    elements.feed(html)
    elements.close()
    for tag, attributes in elements.tags:
        assert tag in FRAGMENT_TAGS, (tag, html[:300])
        for name, value in attributes.items():
            assert name in FRAGMENT_ATTRIBUTES, (tag, name, html[:300])
            if name == "href":
                assert _SAFE_HREF.match(value or ""), (value, html[:300])
            if name == "src":
                assert _SAFE_SRC.match(value or ""), (value, html[:300])
