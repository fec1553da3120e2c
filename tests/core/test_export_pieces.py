"""Huge message Markdown rendered a piece at a time (core.render.pieces): the same HTML as rendered whole.

The sizes are lowered here so that ordinary texts are cut many times; the real sizes (megabytes) only
change how often a cut happens, not where one may happen.
"""

from __future__ import annotations

import pytest

from core.export import island
from core.export.island import json_for_script
from core.render import markdown as cmark
from core.render import pieces
from core.render.highlight import Highlighter
from core.render.markdown import render_markdown
from core.session import load_session
from core.session.content import message_text
from tests.browser.hostile import MARKDOWN
from tests.conftest import CORPUS, DEMO

MIXED = """# A heading

Some *emphasis*, `code` and a [link](https://example.com/a_b) in a paragraph
that runs over two lines with a < b && c > d.

- a list item
- another, with a continuation

  indented under it

1. ordered
2. list

> a quote
> over lines

Then a paragraph again.

```python
def f(x):

    return x < 2  # a blank line inside the fence must not be cut at

text after a blank line, still in the fence
```

| col | other |
|-----|-------|
| 1   | 2     |

~~~
tilde fence

still code
~~~

Last words with <b>raw</b> tags and <https://example.com/auto>.
"""


def _texts() -> list[str]:
    texts = [MIXED, MARKDOWN]
    for path in [*sorted(DEMO.glob("*.jsonl")), *sorted(CORPUS.glob("*.jsonl"))[:6]]:
        session = load_session(path, checksum=False)
        for body in session.bodies(session.entries):
            message = body.get("message")
            if isinstance(message, dict) and message.get("role") in ("user", "assistant"):
                text = message_text(message.get("content"))
                if text.strip():
                    texts.append(text)
    return texts


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pieces, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(cmark, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(pieces, "PIECE", 1)
    monkeypatch.setattr(pieces, "LINE_PIECE", 10**12)


def _whole(text: str) -> str:
    return cmark._render_piece(text, Highlighter(), True)


def test_cut_at_block_boundaries_changes_nothing(small: None) -> None:
    texts = _texts()
    assert len(texts) > 50
    cut = 0
    for text in texts:
        assert render_markdown(text, Highlighter()) == _whole(text), text[:200]
        cut += len(list(pieces.markdown_pieces(text))) - 1
    joined = "\n\n".join(texts)
    if "]:" not in joined and "\r" not in joined:
        assert render_markdown(joined, Highlighter()) == _whole(joined)
    assert cut > 20  # the texts really were cut


def test_no_cut_inside_fences_or_lists(small: None) -> None:
    parts = [piece for piece, _joined in pieces.markdown_pieces(MIXED)]
    assert "".join(parts) == MIXED
    for piece in parts:
        assert piece.count("```") in (0, 2)
        assert piece.count("~~~") in (0, 2)
    assert any(piece.startswith("Then a paragraph") for piece in parts)
    assert not any(piece.startswith("text after a blank line") for piece in parts)
    assert not any(piece.startswith("indented") for piece in parts)


def test_a_link_reference_keeps_the_text_whole_at_blocks(small: None) -> None:
    text = "see [the docs][d]\n\nmore\n\n[d]: https://example.com/docs\n"
    assert [piece for piece, _ in pieces.markdown_pieces(text)] == [text]
    assert 'href="https://example.com/docs"' in render_markdown(text, Highlighter())


def test_a_lone_carriage_return_keeps_the_text_whole(small: None) -> None:
    text = "one\r\rtwo\n\nthree\n"
    assert [piece for piece, _ in pieces.markdown_pieces(text)] == [text]


def test_one_huge_paragraph_is_cut_at_lines_and_joined_by_line_breaks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pieces, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(cmark, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(pieces, "LINE_PIECE", 50)
    text = "".join(f"line {i} with a < b && *stars* and `code`\n" for i in range(200))
    parts = list(pieces.markdown_pieces(text))
    assert len(parts) > 50
    assert [joined for _piece, joined in parts[1:]] == [True] * (len(parts) - 1)
    assert render_markdown(text, Highlighter()) == _whole(text)


def test_short_texts_are_never_cut() -> None:
    text = "a\n\nb\n" * 1000
    assert list(pieces.markdown_pieces(text)) == [(text, False)]


def test_the_real_sizes_cut_a_huge_text() -> None:
    line = 'if (a < b && c > d) { return "<tag>" + `x`; }\n'
    text = line * (pieces.SPLIT_ABOVE // len(line) * 3)
    parts = list(pieces.markdown_pieces(text))
    assert len(parts) >= 2
    assert all(len(piece) <= pieces.LINE_PIECE + len(line) for piece, _ in parts)
    assert "".join(piece for piece, _ in parts) == text


def test_a_huge_fragment_is_encoded_in_slices_to_the_same_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(island, "_SLICE", 7)
    text = '<p>a "quoted" </script> \u2028 \\ \x01 ünïcödé 😀 line</p>\n' * 5
    sliced = island.json_fragment(text)
    assert isinstance(sliced, list)
    assert len(sliced) > 10
    assert b"".join(sliced) == json_for_script(text)
    nodes: list[island.Node] = [[-1, "user", "p", None, "a", "message"]]
    assert b"".join(island.island(nodes, [sliced], {}, 0)) == json_for_script(
        {"n": nodes, "h": [text], "u": {}, "leaf": 0}
    )
    assert island.json_fragment("lone \ud800" * 3) == "lone \ud800" * 3  # left to island's slow way
