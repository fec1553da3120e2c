"""The message view, the HTML export and the Markdown export render the same cards: their words agree.

Every entry of every sample, corpus and demo file is rendered through the three back-ends, with every
fold open in the view. The words (runs of letters and digits, as a reader sees them: markup, attributes
and times left out) of the view and of the HTML page must be the same set; the Markdown holds them all
(it also carries link targets and images as text). A back-end that left out or added a sentence, a
fact or a label of one kind of entry would fail here.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.export.common import ExportOptions, utc_time
from core.export.html import HtmlRenderer
from core.export.markdown import MarkdownRenderer
from core.export.markup import MarkdownMarkup as MarkupForTheCheck
from core.kinds import kind_of, session_notes, tool_results_for
from core.render import RenderOptions, render_entry
from core.render.text import time_html
from core.session import Session, load_session
from tests.conftest import CORPUS, DEMO, SAMPLES, SHARED

FILES = sorted(
    [
        *SAMPLES.rglob("*.jsonl"),
        *(SHARED / "reference" / "samples-latest").rglob("*.jsonl"),
        *CORPUS.glob("*.jsonl"),
        *(SHARED / "corpus" / "wild").glob("*.jsonl"),
        *DEMO.glob("*.jsonl"),
        *(Path(__file__).parent / "kind_samples").glob("*.jsonl"),  # the kinds no other file holds
    ]
)
# A span joins what it wraps to its neighbours (coloured code splits words into spans); any other tag
# separates words.
_INLINE_TAG = re.compile(r"</?span\b[^>]*>")
_TAG = re.compile(r"<[^>]*>")
_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}


def _html_words(fragment: str, moment: object, local: bool) -> set[str]:
    text = html.unescape(_TAG.sub(" ", _INLINE_TAG.sub("", fragment)))
    return _words(text.replace(time_html(moment) if local else utc_time(moment), " "))


def _cases(session: Session) -> Iterator[tuple[object, ...]]:
    notes = session_notes(session)
    labels = session.labels
    for entry, body in zip(session.entries, session.bodies(session.entries), strict=True):
        results = tool_results_for(session, entry)
        yield entry, body, results, notes.for_card(entry.id, results), labels.get(entry.id)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem[-24:]}")
def test_view_page_and_markdown_say_the_same_words(path: Path) -> None:
    _check(path)


def _check(path: Path) -> None:
    session = load_session(path, checksum=False)
    options = ExportOptions()
    markdown = MarkdownRenderer(options, None, None, session.labels)
    page = HtmlRenderer(options, None, None, session.labels)
    markdown.notes = page.notes = session_notes(session)
    everything = RenderOptions(expand_all=True)
    compared = 0
    for entry, body, results, notes, label in _cases(session):
        moment = kind_of(entry).card(entry, body, results).moment  # the time each back-end shows
        where = f"{path.name} line {entry.line} ({entry.kind} {entry.role})"
        view = _html_words(render_entry(entry, body, results, everything, notes, label), moment, local=True)
        in_page = _html_words(page.entry(entry, body, results), moment, local=False)
        in_markdown = _words(markdown.entry(entry, body, results).replace(utc_time(moment), " "))
        assert view == in_page, f"{where}: view only {view - in_page}, page only {in_page - view}"
        assert in_page <= in_markdown, f"{where}: not in the Markdown: {in_page - in_markdown}"
        compared += 1
    assert compared == len(session.entries)


def test_the_words_would_differ_if_a_back_end_left_something_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself: a Markdown back-end that drops its code blocks' words is caught."""
    monkeypatch.setattr(MarkupForTheCheck, "code_block", lambda self, text, language="", path="": "")
    with pytest.raises(AssertionError, match="not in the Markdown"):
        _check(sorted(DEMO.glob("*.jsonl"))[0])
