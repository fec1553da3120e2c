"""PDF export of sessions current agents wrote, through Qt's writer: the newer entries are on the pages."""

from __future__ import annotations

import io

import pypdf
import pytest

from core.export import render_export
from core.session import load_session
from gui.pdf_export import markdown_to_pdf
from tests.conftest import SHARED
from tests.core.test_export_markdown import MODERN

WILD = SHARED / "corpus" / "wild"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (MODERN, ["System message", "Usage record: cache_warm", "Context edit", "Drops entry 8342e75a"]),
        (WILD / "real-primeagent-attribution-captured.jsonl", ["Child run usage added to 4f61089a", "Git"]),
        (WILD / "fx-primeagent-scorecard.jsonl", ["Child run usage added to spawn-turn"]),
    ],
    ids=lambda value: value.stem[-12:] if hasattr(value, "stem") else "",
)
def test_pdf_holds_the_newer_entries(qapp, path, expected: list[str]) -> None:
    before = path.read_bytes()
    rendered = render_export(
        load_session(path, checksum=False), "pdf", whole_tree=True, pdf_writer=markdown_to_pdf
    )
    assert rendered.data.startswith(b"%PDF-")
    reader = pypdf.PdfReader(io.BytesIO(rendered.data))
    text = " ".join(" ".join(page.extract_text() for page in reader.pages).split())
    for words in expected:
        assert words in text, words
    assert path.read_bytes() == before
