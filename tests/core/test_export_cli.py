"""``prime-sessions export``: formats, scopes, redaction counts, and files that are never clobbered."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import core.cli.export
from core.cli import main
from tests.browser.hostile import write_hostile_session
from tests.conftest import DEMO, REPO
from tests.core.test_redact import FAKES


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_hostile_session(tmp_path)


def test_markdown_and_html_to_files_with_the_format_from_the_extension(
    session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _digest(session)
    assert main(["export", str(session), "-o", str(tmp_path / "out.md")]) == 0
    assert main(["export", str(session), "--tree", "-o", str(tmp_path / "out.html")]) == 0
    assert (tmp_path / "out.md").read_text().startswith("# ")
    assert (tmp_path / "out.html").read_text().startswith("<!DOCTYPE html>")
    assert _digest(session) == before  # exporting never writes the session
    assert "Wrote" in capsys.readouterr().err
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind


def test_an_existing_file_is_kept_byte_for_byte_without_force(
    session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "keep.md"
    target.write_bytes(b"the user's own notes\n")
    assert main(["export", str(session), "-o", str(target)]) == 1
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err and err.count("\n") == 1
    assert target.read_bytes() == b"the user's own notes\n"
    assert main(["export", str(session), "-o", str(target), "--force"]) == 0
    assert target.read_text().startswith("# ")


def test_images_beside_are_never_clobbered_either(session: Path, tmp_path: Path) -> None:
    target = tmp_path / "page.md"
    folder = tmp_path / "page_images"
    folder.mkdir()
    existing = folder / "e0000002-2.png"
    existing.write_bytes(b"not mine to replace")
    assert main(["export", str(session), "--tree", "--images", "beside", "-o", str(target)]) == 1
    assert existing.read_bytes() == b"not mine to replace" and not target.exists()
    assert main(["export", str(session), "--tree", "--images", "beside", "-o", str(target), "--force"]) == 0
    assert existing.read_bytes().startswith(b"\x89PNG")
    assert "](page_images/e0000002-2.png)" in target.read_text()


def test_stdout_leaf_prefix_and_options(session: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert (
        main(["export", str(session), "--leaf", "e0000006", "--format", "md", "-o", "-", "--no-thinking"])
        == 0
    )
    out = capsysbinary.readouterr().out.decode()
    assert "needle-alpha" in out and "needle-beta" not in out and "> *Thinking*" not in out
    assert main(["export", str(session), "--leaf", "e000000", "--format", "md", "-o", "-"]) == 1
    assert b"matches 12 entries" in capsysbinary.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "x.txt"], "Say which format"),
        (["-o", "-", "--format", "pdf"], "cannot go to standard output"),
        (["-o", "-", "--format", "md", "--images", "beside"], "cannot go beside standard output"),
        (["-o", "-", "--format", "md", "--leaf", "nope"], "There is no entry nope"),
    ],
)
def test_mistakes_are_one_sentence(
    session: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(session), *args]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_pdf_without_qt_says_so_and_with_the_hook_writes(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(core.cli.export, "pdf_writer", None)
    assert main(["export", str(session), "-o", str(tmp_path / "a.pdf")]) == 1
    assert "needs the app's Qt" in capsys.readouterr().err
    seen: list[tuple[str, str]] = []
    monkeypatch.setattr(
        core.cli.export, "pdf_writer", lambda md, title: seen.append((md, title)) or b"%PDF-fake"
    )
    assert main(["export", str(session), "-o", str(tmp_path / "a.pdf")]) == 0
    assert (tmp_path / "a.pdf").read_bytes() == b"%PDF-fake"
    assert seen[0][0].startswith("# ") and seen[0][1].startswith("</title>")


def test_redaction_counts_go_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.core.test_redact import _session

    path, _places = _session(tmp_path)
    target = tmp_path / "r.md"
    assert (
        main(["export", str(path), "--tree", "--redact", "--redact-literal", "Bluebird", "-o", str(target)])
        == 0
    )
    err = capsys.readouterr().err
    line = next(line for line in err.splitlines() if line.startswith("Redacted: "))
    assert "aws-key" in line and "private-key" in line and "literal" in line
    text = target.read_text()
    assert FAKES["github-token"] not in text and "Bluebird" not in text
    assert main(["export", str(path), "--redact", "--format", "md", "-o", "-"]) == 0
    assert capsys.readouterr().err.startswith("Redacted: ")


def test_the_entry_point_writes_pdf_through_the_launcher_hook(tmp_path: Path) -> None:
    target = tmp_path / "demo.pdf"
    demo = sorted(DEMO.glob("*.jsonl"))[0]
    result = subprocess.run(
        [sys.executable, "-m", "gui.launcher", "export", str(demo), "-o", str(target)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert target.read_bytes().startswith(b"%PDF-")


def test_markdown_is_safe_unless_unsafe_markdown_is_given(tmp_path: Path) -> None:
    hostile = write_hostile_session(tmp_path)
    assert main(["export", str(hostile), "--tree", "-o", str(tmp_path / "safe.md")]) == 0
    argv = ["export", str(hostile), "--tree", "--unsafe-markdown", "-o", str(tmp_path / "unsafe.md")]
    assert main(argv) == 0
    safe, unsafe = (tmp_path / "safe.md").read_text("utf-8"), (tmp_path / "unsafe.md").read_text("utf-8")
    assert "\n&lt;script>" in safe and "](unsafe:javascript:" in safe
    assert "\n<script>" in unsafe and "](javascript:" in unsafe


def _png(shade: int) -> str:
    """A 1x1 PNG of one grey ``shade``: images that differ, to see one overwrite the other."""
    import base64
    import zlib

    header = b"IHDR" + (1).to_bytes(4, "big") * 2 + bytes([8, 0, 0, 0, 0])
    pixels = zlib.compress(bytes([0, shade]))

    def chunk(body: bytes) -> bytes:
        return (len(body) - 4).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    return base64.b64encode(
        b"\x89PNG\r\n\x1a\n" + chunk(header) + chunk(b"IDAT" + pixels) + chunk(b"IEND")
    ).decode()


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_images_beside_of_entries_whose_ids_look_alike_never_overwrite_each_other(
    tmp_path: Path, fmt: str
) -> None:
    from tests.core.test_render import chain, message, write

    ids = ["a.b", "a_b", "a/b", "AB", "ab", "x" * 70, "x" * 64 + "y" * 6]
    rows = chain(
        [
            message("user", content=[{"type": "image", "data": _png(n), "mimeType": "image/png"}])
            for n in range(len(ids))
        ]
    )
    for row, entry_id, parent in zip(rows, ids, [None, *ids], strict=False):
        row["id"], row["parentId"] = entry_id, parent
    session = write(tmp_path / "alike.jsonl", rows)
    names = []
    for run in ("first", "second"):
        target = tmp_path / run / f"page.{fmt}"
        target.parent.mkdir()
        assert main(["export", str(session), "--images", "beside", "-o", str(target)]) == 0
        images = sorted((target.parent / "page_images").iterdir())
        assert len(images) == len(ids)  # one file per image: none written over another
        assert len({p.read_bytes() for p in images}) == len(ids)
        assert len({p.name.lower() for p in images}) == len(ids)  # apart on a disk that ignores case too
        text = target.read_text()
        assert all(f"page_images/{p.name}" in text for p in images)
        names.append([p.name for p in images])
    assert names[0] == names[1]  # the same session exports under the same names
    assert "ab-0.png" in names[0]  # a plain id is its own name


@given(st.lists(st.text(min_size=1, max_size=80), min_size=2, max_size=8, unique=True))
def test_distinct_ids_never_share_an_image_stem(ids: list[str]) -> None:
    from core.export.common import image_stem

    stems = [image_stem(i).lower() for i in ids]
    assert len(set(stems)) == len(ids)
    assert all(re.fullmatch(r"[A-Za-z0-9_~-]+", stem) for stem in stems)
