"""Safe Markdown (core.export.safe_markdown): no raw HTML and no script link survives into a renderer
that passes HTML through, and ordinary Markdown renders the same.

"A renderer that passes HTML through" is played by cmark-gfm with its unsafe option (what a forge
runs) and by markdown-it with HTML on (what many editors run).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cmarkgfm import github_flavored_markdown_to_html
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt

from core.export import ExportOptions, render_export
from core.export.safe_markdown import safe_markdown
from core.session import load_session
from tests.browser.hostile import MARKDOWN, SCRIPTS, write_hostile_session

ALLOWED = {
    "p", "em", "strong", "code", "pre", "a", "img", "ul", "ol", "li", "blockquote", "hr", "br", "del",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
OWN_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[a-z0-9+/=]+$")
ALLOWED_ATTRIBUTES = {"href", "src", "alt", "title", "align", "start", "class", "lang"}
ORDINARY = """# Heading with `code` and *emphasis*

A paragraph with **bold**, _italic_, ~~struck~~, `a < b` inline code,
a [link](https://example.com/x?a=1&b=2 "t"), an autolink <https://example.com/auto>,
an email <mailto:me@example.com>, a [ref link][r] and an image ![alt](https://example.com/i.png).
Comparisons in code: ``x<y && y>z``.

[r]: https://example.com/ref

- item one
- item two with `<tag>` in code
  1. nested
  2. list

> quoted *text*
> and `code <b>`

| a | b |
|---|:-:|
| `<td>` | 2 |

```python
if a < b and c > d:
    print("<script>")
```

~~~
<div>raw in a fence</div>
~~~

    indented <code> block

Trailing text.
"""
ATTACKS = [
    *SCRIPTS,
    MARKDOWN,
    "[x](JaVaScRiPt:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](&#x6A;&#x61;vascript&colon;alert(1))",
    "[x](java&Tab;script:alert(1))",
    "[x](<javascript:alert(1)>)",
    "[x]( \n javascript:alert(1))",
    "[x](vbscript:msgbox(1))",
    "![x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "[x][r]\n\n[r]:\n  <javascript:alert(1)>",
    "> [x][r]\n>\n> [r]: javascript:alert(1)",
    "<javascript:alert(1)>",
    "<div>\n```\n</div>\n\n```\n<script>alert(1)</script>\n```\n",
    "<div>\n\n```\n</div>\n<img src=x onerror=alert(1)>\n```\n<script>alert(2)</script>",
    "- ```\n  code\n  ```\n<script>alert(1)</script>",
    "> ```\n<script>alert(1)</script>",
    "    ```\n<script>alert(1)</script>\n```",
    "`code` <script>alert(1)</script> `more`",
    "\\`<script>alert(1)</script>\\`",
    "``<b>`` ` <script>alert(1)</script>",
    "<https://example.com/a`b>`<script>alert(1)</script>`",
    '<a href="`">`<script>alert(1)</script>',
    "<!-- x --><script>alert(1)</script>",
    "<?php echo 1; ?><script>alert(1)</script>",
    "<![CDATA[x]]><script>alert(1)</script>",
    "a\n<script>\nalert(1)\n</script>",
    "| a |\n|---|\n| <script>alert(1)</script> |",
    "\t<script>alert(1)</script>\n\n<script>alert(2)</script>",
    # Found by benchmarks/fuzz_export.py: \x1c (and \x85, U+2028, \v, \f...) end a line for
    # str.splitlines but not for CommonMark, which shifted the code lines onto the <div>.
    "\x8e\x1c?4%<div>\n```\n</div>\n\n```\n<script>alert(2)</script>\n```<script>x",
    "a\x85<b>\u2028<i>\x0b<u>\x0c<s>\n```\ncode\n```\n",
    "a\r<b>x</b>\r```\r<i>\r```\r<script>alert(1)</script>",
    # Found by benchmarks/fuzz_export.py (seed 3): a "code span" from the end of one line to the next
    # line's end, where that next line really starts an HTML block.
    "> ```\n<script>alert(1)</script>> ```\n<script>alert(2)</script>> ```\n<script>alert(3)</script>",
    "a `x\n<script>alert(1)</script> `",
    "a `x\n# h <img src=x onerror=alert(1)> `",
    "| a | b |\n|---|---|\n| `x | <img src=x onerror=alert(1)>` |",
    # Backticks paired across blocks, or taken by a link first (benchmarks/fuzz_export.py, seed 5, and
    # the variations around it): a renderer pairs backticks block by block, after a link's destination.
    "[x](`) <script>alert(1)</script> `",
    '[x](/u "`") <script>alert(1)</script> `',
    '[x](/u "a\n`b") <img src=x onerror=alert(1)> `',
    "a `\n\n` `<script>alert(1)</script>`",
    "x `\n# h\n` `<script>alert(1)</script>`",
    "- a `\n- ` `<img src=x onerror=alert(1)>`",
    "`a\\`<script>alert(1)</script>`",
    '[r]: /u "`"\n`<script>alert(1)</script>`',
]


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _forge(text: str) -> str:
    return str(github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE))


def _editor(text: str) -> str:
    return str(MarkdownIt("commonmark", {"html": True}).enable("table").render(text))


def assert_inert(rendered: str) -> None:
    """Only Markdown's own elements and attributes, and no link to a script or data URL."""
    elements = _Elements()
    elements.feed(rendered)
    for tag, attributes in elements.tags:
        assert tag in ALLOWED, (tag, rendered)
        for name, value in attributes.items():
            assert name in ALLOWED_ATTRIBUTES, (name, rendered)
            if name in ("href", "src"):
                target = "".join((value or "").split()).lower()
                if tag == "img" and name == "src" and OWN_IMAGE.match(target):
                    continue  # an image the export embeds itself (image blocks), not message text
                assert not target.startswith(("javascript:", "vbscript:", "data:")), rendered


@pytest.mark.parametrize("text", ATTACKS)
def test_attacks_render_inert(text: str) -> None:
    safe = safe_markdown(text)
    for render in (_forge, _editor):
        assert_inert(render(safe))
    assert safe_markdown(safe) == safe  # idempotent


def test_ordinary_markdown_renders_the_same() -> None:
    safe = safe_markdown(ORDINARY)
    for render in (_forge, _editor):
        assert render(safe) == render(ORDINARY)


def test_raw_html_shows_as_text() -> None:
    safe = safe_markdown("Use <b>bold</b> here, `<b>` in code.")
    assert safe == "Use &lt;b>bold&lt;/b> here, `<b>` in code."
    assert "<p>Use &lt;b&gt;bold&lt;/b&gt; here, <code>&lt;b&gt;</code> in code.</p>" in _forge(safe)


def test_script_links_keep_their_text() -> None:
    safe = safe_markdown("[click](javascript:alert(1)) and [fine](https://example.com)")
    assert safe == "[click](unsafe:javascript:alert(1)) and [fine](https://example.com)"


def test_text_without_html_or_links_is_returned_as_it_is() -> None:
    text = "plain words, a > b, *emphasis*\n\n```\ncode\n```\n"
    assert safe_markdown(text) is text


def test_markdown_export_is_safe_by_default_and_unsafe_on_request(tmp_path: Path) -> None:
    session = load_session(write_hostile_session(tmp_path))
    safe = render_export(session, "md", whole_tree=True).data.decode()
    unsafe = render_export(session, "md", ExportOptions(safe_markdown=False), whole_tree=True).data.decode()
    assert "\n<script>" in unsafe and "\n&lt;script>" in safe  # (tool output keeps its own: code)
    assert "](javascript:" in unsafe and "](unsafe:javascript:" in safe
    for render in (_forge, _editor):
        assert_inert(render(safe))
    assert "<script>" in _editor(unsafe)  # what the default prevents
    assert "<img src=x onerror=" in _forge(unsafe)  # (a forge filters <script> itself, not this)
    # The HTML page does not depend on it: it is safe either way.
    options = ExportOptions(safe_markdown=False)
    assert render_export(session, "html", options).data == render_export(session, "html").data


def test_a_fence_left_open_is_closed_before_the_next_message(tmp_path: Path) -> None:
    """Found by benchmarks/fuzz_export.py (seed 2): a message ending in an open fence ran on into the
    next one, whose own fence line then closed it, so the code that message's parse saw was live."""
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z"},
        {"type": "message", "id": "a", "parentId": None, "message": {"role": "user", "content": "```\nopen"}},
        {
            "type": "message",
            "id": "b",
            "parentId": "a",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "```\n<b>x</b>\n```"}]},
        },
    ]
    path = tmp_path / "open-fence.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    markdown = render_export(load_session(path), "md").data.decode()
    for render in (_forge, _editor):
        assert_inert(render(markdown))
        assert "<b>" not in render(markdown)
    assert safe_markdown("```\nopen") == "```\nopen\n```\n"
    assert safe_markdown("~~~~\nx\n~~~") == "~~~~\nx\n~~~\n~~~~\n"  # a shorter run does not close it
    assert safe_markdown("```\nclosed\n```") == "```\nclosed\n```"
    assert safe_markdown("- ```\n  in a list") == "- ```\n  in a list"  # ends with its list item
