"""Sessions heavy with images (issue 18): no image held after loading, none of their bytes indexed.

The session: screenshots as a tool returns them (``image`` blocks), an image pasted into a user message,
and the same picture as a Markdown data URI in text (as a model or a tool prints one). The figures at
scale are ``benchmarks/image_heavy.py``'s.
"""

from __future__ import annotations

import base64
import json
import random
import tracemalloc
from pathlib import Path

from core.catalogue import Catalogue
from core.catalogue.search_text import without_data_payloads
from core.export import ExportOptions, render_export, save_export
from core.session import load_session

SHOTS = 12
SHOT_BYTES = 96 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"  # the export sniffs what it writes beside the page


def _image_session(folder: Path) -> tuple[Path, list[str]]:
    """A session of screenshots (and one data URI in text); returns its path and every image's base64."""
    rng = random.Random(18)
    images = [base64.b64encode(PNG_SIGNATURE + rng.randbytes(SHOT_BYTES)).decode() for _ in range(SHOTS + 1)]
    lines: list[dict[str, object]] = [
        {"type": "session", "version": 3, "id": "shots", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    ]

    def add(message: dict[str, object]) -> None:
        i = len(lines)
        parent = lines[-1].get("id") if i > 1 else None
        stamp = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}.000Z"
        lines.append(
            {"type": "message", "id": f"{i:08x}", "parentId": parent, "timestamp": stamp, "message": message}
        )

    pasted = {"type": "image", "data": images[0], "mimeType": "image/png"}
    add({"role": "user", "content": [{"type": "text", "text": "Check the page. needle-words"}, pasted]})
    for i, shot in enumerate(images[1:]):
        call = {"type": "toolCall", "id": f"c{i}", "name": "screenshot", "arguments": {"step": i}}
        add({"role": "assistant", "content": [{"type": "text", "text": f"Step {i}."}, call]})
        blocks = [
            {"type": "text", "text": f"Screenshot {i}"},
            {"type": "image", "data": shot, "mimeType": "image/png"},
        ]
        add({"role": "toolResult", "toolCallId": f"c{i}", "toolName": "screenshot", "content": blocks})
    inline = f"Here it is: ![page](data:image/png;base64,{images[1]}) and done."
    add({"role": "assistant", "content": [{"type": "text", "text": inline}]})
    path = folder / "shots.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path, images


def _marks(images: list[str]) -> list[bytes]:
    """Runs of each image's base64 (start, middle, end), any of which found means its bytes are there."""
    return [data[at : at + 48].encode() for data in images for at in (0, len(data) // 2, len(data) - 48)]


def test_a_loaded_session_holds_none_of_its_images(tmp_path: Path) -> None:
    path, images = _image_session(tmp_path)
    tracemalloc.start()
    try:
        session = load_session(path)
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    image_bytes = sum(len(data) for data in images)
    assert image_bytes > 1_500_000
    # The entries keep offsets and what the tree needs; an image is read again only to be shown.
    assert held < image_bytes / 20, (held, image_bytes)
    assert len(session.entries) == 2 * SHOTS + 2


def test_the_catalogue_indexes_no_byte_of_an_image(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    _path, images = _image_session(root)
    catalogue = Catalogue(tmp_path / "catalogue")
    try:
        catalogue.refresh([root])
        assert [hit.entryId for hit in catalogue.search("needle-words")] == ["00000001"]
        assert catalogue.search("here it is")  # the words around a data URI stay searchable
    finally:
        catalogue.close()
    blob = b"".join(p.read_bytes() for p in (tmp_path / "catalogue").rglob("*") if p.is_file())
    found = [mark for mark in _marks(images) if mark in blob]
    assert not found, f"{len(found)} runs of image bytes in the catalogue"
    assert len(blob) < sum(len(data) for data in images) / 10


def test_data_uri_payloads_leave_the_words_around_them() -> None:
    payload = "iVBORw0KGgo" + "A" * 80
    text = f"see ![x](data:image/png;base64,{payload}) and data:text/plain;charset=utf-8;base64,{payload}."
    assert without_data_payloads(text) == (
        "see ![x](data:image/png;base64,…) and data:text/plain;charset=utf-8;base64,…."
    )
    short = "an example: data:image/png;base64,iVBORw0KGgo="
    assert without_data_payloads(short) == short  # too short to be an image, kept for search


def test_the_export_writes_the_images_beside_the_page(tmp_path: Path) -> None:
    path, images = _image_session(tmp_path)
    target = tmp_path / "out" / "shots.html"
    target.parent.mkdir()
    options = ExportOptions(images="beside")
    written = save_export(render_export(load_session(path), "html", options, target=target), target)
    page = target.read_bytes()
    assert not [mark for mark in _marks(images[:1] + images[2:]) if mark in page]  # the image blocks
    files = [p for p in written[1:] if p.parent.name == "shots_images"]
    assert len(files) == SHOTS + 1
    assert {base64.b64decode(data) for data in images[:1] + images[2:]} <= {p.read_bytes() for p in files}
