"""PDF export in child processes: several parts give the pages one part gives; cancel and death are clean."""

from __future__ import annotations

import base64
import io
import multiprocessing
import struct
import threading
import zlib
from pathlib import Path

import pypdf
import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtPdf import QPdfDocument

from core.export import markdown_to_html, pygments_css
from core.export.markdown import session_to_markdown
from core.session import load_session
from gui.pdf_export import PdfCancelled, PdfFailed, markdown_to_pdf, part_count
from gui.pdf_export.document import stylesheet
from gui.pdf_export.join import PdfJoinError, join_pdfs
from tests.conftest import DEMO


def _texts(data: bytes) -> list[str]:
    return [" ".join(page.extract_text().split()) for page in pypdf.PdfReader(io.BytesIO(data)).pages]


def _letters(data: bytes) -> list[str]:
    # pypdf guesses where spaces go from the glyph widths of each part's own font subset, and guesses
    # differently ("pa rseRow" against "parseRow"); the characters and their order are what must agree.
    return ["".join(page.extract_text().split()) for page in pypdf.PdfReader(io.BytesIO(data)).pages]


def _images(data: bytes, folder: Path) -> list[QImage]:
    """Every page drawn by Qt's PDF renderer (pdfium) at 50 dpi."""
    path = folder / f"{len(list(folder.iterdir()))}.pdf"
    path.write_bytes(data)
    document = QPdfDocument()
    assert document.load(str(path)) == QPdfDocument.Error.None_
    images = [document.render(index, QSize(413, 584)) for index in range(document.pageCount())]
    document.close()
    assert all(not image.isNull() for image in images)
    return images


def _children() -> list[multiprocessing.process.BaseProcess]:
    return [
        child for child in multiprocessing.active_children() if child.name.startswith("prime-sessions-pdf")
    ]


@pytest.fixture(scope="module")
def demo_markdown() -> str:
    # Every demo session, each tree whole: code, tables, lists, quotes, links and many pages.
    texts = [
        session_to_markdown(load_session(path, checksum=False), whole_tree=True).text
        for path in sorted(DEMO.glob("*.jsonl"))
    ]
    return "\n\n".join(texts)


def test_three_parts_make_the_pages_one_part_makes(qapp, demo_markdown: str, tmp_path: Path) -> None:
    one = markdown_to_pdf(demo_markdown, "Demo", parts=1)
    three = markdown_to_pdf(demo_markdown, "Demo", parts=3)
    assert len(_texts(one)) > 12
    assert _letters(three) == _letters(one)  # the same page count, the same text on every page
    assert _images(three, tmp_path) == _images(one, tmp_path)  # and the same look, pixel for pixel
    pages_three = _texts(three)
    count = len(pages_three)
    assert all(text.endswith(f"Page {n} of {count}") for n, text in enumerate(pages_three, start=1))
    reader = pypdf.PdfReader(io.BytesIO(three))
    assert reader.metadata.title == "Demo"
    links = [
        annotation.get_object()["/A"]["/URI"]
        for page in reader.pages
        for annotation in page.get("/Annots", [])
        if annotation.get_object().get("/Subtype") == "/Link"
    ]
    links_one = [
        annotation.get_object()["/A"]["/URI"]
        for page in pypdf.PdfReader(io.BytesIO(one)).pages
        for annotation in page.get("/Annots", [])
        if annotation.get_object().get("/Subtype") == "/Link"
    ]
    assert links == links_one


def test_links_with_parentheses_and_reference_lookalikes_survive_the_join() -> None:
    url = "https://example.com/a_(b)/3%200%20R?q=(1)"
    markdown = "\n\n".join(f"### Part {i}\n\n[a link]({url}) " + "text " * 400 for i in range(12))
    data = markdown_to_pdf(markdown, "Links (1 0 R)", parts=2)
    reader = pypdf.PdfReader(io.BytesIO(data))
    uris = [
        annotation.get_object()["/A"]["/URI"]
        for page in reader.pages
        for annotation in page.get("/Annots", [])
    ]
    assert len(uris) == 12 and set(uris) == {url}
    assert reader.metadata.title == "Links (1 0 R)"


def _png() -> str:
    """A valid 2 x 2 red PNG as base64 (the hostile session's PNG has a bad zlib checksum)."""
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode("ascii")


def test_images_are_drawn_whichever_part_paints_them() -> None:
    image = f"![red](data:image/png;base64,{_png()})"
    filler = "\n\n".join("### Filler\n\n" + "words " * 400 for _ in range(16))
    for text in (f"{image}\n\n{filler}", f"{filler}\n\n{image}"):
        reader = pypdf.PdfReader(io.BytesIO(markdown_to_pdf(text, parts=2)))
        assert len(reader.pages) > 4
        assert sum(len(page.images) for page in reader.pages) == 1


def test_cancel_kills_the_children_and_returns_nothing() -> None:
    markdown = "\n\n".join(f"### Part {i}\n\n" + "text " * 400 for i in range(40))
    cancel = threading.Event()
    seen: list[int] = []

    def stop_at_the_first_page(stage: str, done: int, total: int) -> None:
        if stage == "page":
            seen.append(done)
            cancel.set()

    with pytest.raises(PdfCancelled):
        markdown_to_pdf(markdown, progress=stop_at_the_first_page, cancel=cancel, parts=2)
    assert seen == [1]
    assert _children() == []


def test_a_child_that_dies_fails_the_export_with_a_sentence() -> None:
    markdown = "\n\n".join(f"### Part {i}\n\n" + "text " * 400 for i in range(40))

    def kill_a_child(stage: str, done: int, total: int) -> None:
        if stage == "page" and done == 1:
            _children()[0].kill()

    with pytest.raises(PdfFailed, match=r"^The PDF could not be made: its layout process stopped"):
        markdown_to_pdf(markdown, progress=kill_a_child, parts=2)
    assert _children() == []


def test_part_count_follows_the_size_and_the_override(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.delenv("PRIME_SESSIONS_PDF_PARTS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3, 4, 5}, raising=False)
    assert part_count(1000) == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))  # this process alone
    assert part_count(30_000_000) == 4  # at most four
    monkeypatch.setattr(os, "getloadavg", lambda: (4.6, 3.0, 2.0))  # 3.6 processors busy elsewhere
    assert part_count(30_000_000) == 2
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    assert part_count(30_000_000) == 1
    monkeypatch.setenv("PRIME_SESSIONS_PDF_PARTS", "3")
    assert part_count(1000) == 3
    monkeypatch.setenv("PRIME_SESSIONS_PDF_PARTS", "9")
    assert part_count(1000) == 4


def test_join_refuses_what_qt_did_not_write() -> None:
    with pytest.raises(PdfJoinError):
        join_pdfs([b"%PDF-1.4\nnot really\n", b"%PDF-1.4\n"])


def test_span_rules_colour_the_code_as_the_class_rules_do(qapp) -> None:
    code = (
        "```python\n" + "\n".join(f"def f{i}(x):\n    return x + {i}  # note\n" for i in range(20)) + "```\n"
    )
    html = f"<html><body>{markdown_to_html(code)}</body></html>"
    assert '<pre class="hl">' in html and '<span class="k">' in html
    formats = []
    for sheet in (stylesheet(), _class_rules()):
        document = QTextDocument()
        document.setDefaultStyleSheet(sheet)
        document.setHtml(html)
        runs = []
        block = document.begin()
        while block.isValid():
            fragments = block.begin()
            while not fragments.atEnd():
                fragment = fragments.fragment()
                char = fragment.charFormat()
                runs.append(
                    (fragment.text(), char.foreground().color().name(), char.fontWeight(), char.fontItalic())
                )
                fragments += 1
            block = block.next()
        formats.append(runs)
    assert formats[0] == formats[1]
    assert len({colour for _text, colour, _w, _i in formats[0]}) > 3  # the code is coloured


def _class_rules() -> str:
    """The stylesheet as it was: our rules, then Pygments' ``.hl .k`` rules."""
    from gui.pdf_export.document import _STYLE

    return _STYLE + pygments_css(dark=False)


def test_an_error_in_a_child_is_one_sentence() -> None:
    with pytest.raises(PdfFailed, match=r"^The PDF could not be made \(TypeError: .*\)\.$"):
        markdown_to_pdf("# title", title=42)  # QPdfWriter.setTitle takes a string
    assert _children() == []


def test_the_cli_writes_a_two_part_pdf_and_leaves_nothing_else(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.conftest import REPO

    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "demo.pdf"
    demo = sorted(DEMO.glob("*.jsonl"))[2]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PRIME_SESSIONS_PDF_PARTS": "2"}
    argv = [sys.executable, "-m", "gui.launcher", "export", str(demo), "--tree", "-o", str(target)]
    result = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    env["PRIME_SESSIONS_PDF_PARTS"] = "1"
    one = folder / "one.pdf"
    argv[-1] = str(one)
    assert subprocess.run(argv, cwd=REPO, capture_output=True, env=env, timeout=120).returncode == 0
    assert _letters(target.read_bytes()) == _letters(one.read_bytes())
    assert sorted(path.name for path in folder.iterdir()) == ["demo.pdf", "one.pdf"]  # no temporary left
