"""Lone surrogates in ids and texts: the PDF export finishes and the proposed file name stays encodable."""

from __future__ import annotations

from pathlib import Path

from core.export import render_export
from core.session import load_session
from gui.pdf_export import markdown_to_pdf
from gui.widgets.export_dialog import file_stem
from tests.core.test_export_surrogates import LINES


def test_pdf_export_finishes(qapp, tmp_path: Path) -> None:
    path = tmp_path / "surrogates.jsonl"
    path.write_text("\n".join(LINES) + "\n", encoding="ascii")
    session = load_session(path)
    for whole_tree in (False, True):
        rendered = render_export(session, "pdf", whole_tree=whole_tree, pdf_writer=markdown_to_pdf)
        assert rendered.data.startswith(b"%PDF-")


def test_file_stem_leaves_surrogates_out() -> None:
    stem = file_stem("name \ud800 title\udc00", "fallback")
    assert stem == "name-title"
    stem.encode("utf-8")  # a file name must be encodable
    assert file_stem("\ud800", "fallback") == "fallback"
