"""PDF export: Qt lays out the Markdown export on numbered A4 pages (offscreen); pypdf reads them back."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pypdf
import pytest

from core.export import markdown_to_html
from core.export.markdown import session_to_markdown
from core.session import load_session
from gui.pdf_export import markdown_to_pdf
from tests.browser.hostile import write_hostile_session
from tests.conftest import DEMO


def _pages(data: bytes) -> list[str]:
    reader = pypdf.PdfReader(io.BytesIO(data))
    return [page.extract_text() for page in reader.pages]


def test_every_page_is_numbered_and_holds_the_markdowns_content(qapp) -> None:
    session = load_session(sorted(DEMO.glob("*.jsonl"))[2], checksum=False)
    markdown = session_to_markdown(session, whole_tree=True).text
    data = markdown_to_pdf(markdown, "Demo")
    assert data.startswith(b"%PDF-")
    pages = _pages(data)
    count = len(pages)
    assert count > 3
    for number, text in enumerate(pages, start=1):
        assert " ".join(text.split()).endswith(f"Page {number} of {count}"), text[-80:]
    everything = " ".join(" ".join(pages).split())
    # Headings and a message from the middle of the export are there.
    assert everything.count("Assistant ·") == markdown.count("### Assistant ·")
    assert pypdf.PdfReader(io.BytesIO(data)).metadata.title == "Demo"


def test_hostile_markdown_is_text_and_images_are_drawn(qapp, tmp_path: Path) -> None:
    session = load_session(write_hostile_session(tmp_path))
    markdown = session_to_markdown(session, whole_tree=True).text
    data = markdown_to_pdf(markdown, "<script>")
    text = " ".join(" ".join(_pages(data)).split())
    assert "<script>window.__pwned" in text  # shown as the text it is
    reader = pypdf.PdfReader(io.BytesIO(data))
    images = sum(len(page.images) for page in reader.pages)
    # The session's PNG has a bad zlib checksum, so it does not decode and nothing is drawn: in the
    # window's process Qt drew its placeholder icon from the widgets' resources instead, and counting
    # that as the PNG hid it. A valid PNG is drawn (tests/gui/test_pdf_parts.py); the text/html
    # "images" are notes.
    assert images == 0


def test_many_pages_do_not_use_up_references_to_none(qapp) -> None:
    # PySide6 6.12.0 drops a reference to None in every void call (pyproject caps below it); a PDF of
    # thousands of pages makes tens of thousands of such calls, so a binding with that bug fails here.
    # The pages are laid out here, in this process, as a child process of the export lays them out.
    from gui.pdf_export.document import Pages

    markdown = "\n\n".join(f"### Part {i}\n\n" + "text " * 400 for i in range(60))
    before = sys.getrefcount(None)
    pages = Pages(markdown_to_html(markdown), "")
    data = pages.paint(0, pages.count)
    assert len(_pages(data)) == pages.count > 15
    assert sys.getrefcount(None) >= before - 50  # with the bug: six fewer per page


@pytest.mark.parametrize("markdown", ["", "# only a title"])
def test_tiny_documents_make_one_page(qapp, markdown: str) -> None:
    pages = _pages(markdown_to_pdf(markdown))
    assert len(pages) == 1 and " ".join(pages[0].split()).endswith("Page 1 of 1")


def test_progress_tells_the_stage_then_every_page_and_cancel_stops_between_pages(qapp) -> None:
    import threading

    from gui.pdf_export import PdfCancelled

    markdown = "\n\n".join(f"### Part {i}\n\n" + "text " * 400 for i in range(30))
    seen: list[tuple[str, int, int]] = []
    data = markdown_to_pdf(markdown, progress=lambda *args: seen.append(args))
    count = len(_pages(data))
    assert seen == [("layout", 0, 0)] + [("page", n, count) for n in range(1, count + 1)]

    cancel = threading.Event()
    painted: list[int] = []

    def stop_after_two(stage: str, done: int, total: int) -> None:
        if stage == "page":
            painted.append(done)
            if done == 2:
                cancel.set()

    with pytest.raises(PdfCancelled):
        markdown_to_pdf(markdown, progress=stop_after_two, cancel=cancel)
    assert painted == [1, 2]


def test_the_cli_pdf_shows_its_pages_on_a_terminal_only(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    import gui.launcher

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    markdown = "\n\n".join(f"### Part {i}\n\n" + "text " * 400 for i in range(20))
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    data = gui.launcher._pdf_writer(markdown, "t")
    count = len(_pages(data))
    shown = terminal.getvalue()
    assert shown.startswith("\rLaying out the PDF…") and shown.endswith("\n")
    assert f"Page {count:,} of {count:,}" in shown  # the last page is always shown
    piped = io.StringIO()  # not a terminal: nothing written
    monkeypatch.setattr(sys, "stderr", piped)
    gui.launcher._pdf_writer(markdown, "t")
    assert piped.getvalue() == ""
