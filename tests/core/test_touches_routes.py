"""The files a session touched, from the catalogue's rows or from the session's bodies: the same (issue 27).

The window's Files tab read every assistant message of the open session back for them (half a gigabyte of
JSON at 1 GB); it now takes the catalogue's rows for the lines the catalogue read and vouches for, and reads
only the lines after them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from core.catalogue import Catalogue
from core.kinds.touches import TouchedFile, session_touches, touched_files
from core.session import load_session
from tests.conftest import CORPUS, DEMO, SAMPLES, SHARED
from tests.helpers import append_entries

FILES = sorted(
    [
        *SAMPLES.rglob("*.jsonl"),
        *(SHARED / "reference" / "samples-latest").rglob("*.jsonl"),
        *CORPUS.glob("*.jsonl"),
        *(SHARED / "corpus" / "wild").glob("*.jsonl"),
        *DEMO.glob("*.jsonl"),
    ]
)


def _both(folder: Path, path: Path) -> tuple[list[TouchedFile], list[TouchedFile] | None, int | None]:
    """The files read from the bodies; from the catalogue and the lines after it; the last line it covered."""
    session = load_session(path)
    cwd = session.header.get("cwd") if session.header is not None else ""
    cwd = cwd if isinstance(cwd, str) else ""
    entries = list(session.entries)
    read = touched_files(session_touches(session, entries), cwd)
    found = Catalogue(folder).session_touches(path, entries[-1].line) if entries else None
    if found is None:
        return read, None, None
    touches, last = found
    rest = session_touches(session, [e for e in entries if e.line > last])
    return read, touched_files(touches + rest, cwd), last


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_the_catalogue_and_the_bodies_name_the_same_files(tmp_path: Path, path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    copy = root / path.name
    shutil.copyfile(path, copy)
    Catalogue(tmp_path / "catalogue").refresh([root])
    read, catalogued, _last = _both(tmp_path / "catalogue", copy)
    if catalogued is None:  # what the catalogue will not vouch for: no header, a v1 file, an unended line
        session = load_session(copy)
        assert session.version < 2 or session.header is None or not copy.read_bytes().endswith(b"\n")
        return
    assert catalogued == read


def test_lines_after_the_catalogue_are_read_and_a_changed_file_is_not_trusted(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    path = root / "s.jsonl"
    shutil.copyfile(SAMPLES / "pi-layout" / "sessions" / "--home-dev-acme-webapp--" / _LINEAR, path)
    folder = tmp_path / "catalogue"
    Catalogue(folder).refresh([root])
    call = {"type": "toolCall", "id": "c9", "name": "read", "arguments": {"path": "late.txt"}}
    message = {"role": "assistant", "content": [call], "provider": "p", "model": "m", "stopReason": "toolUse"}
    entry = {"type": "message", "id": "late0001", "parentId": load_session(path).leaf_id}
    append_entries(path, [{**entry, "timestamp": "2026-03-09T10:00:00.000Z", "message": message}])
    read, catalogued, last = _both(folder, path)
    assert last is not None and last < load_session(path).entries[-1].line  # the catalogue lags behind
    assert catalogued == read
    assert any(file.shown == "late.txt" and "late0001" in file.entries for file in read)
    # Written again under the same name, its first line changed: the catalogue's rows are not used.
    data = path.read_bytes()
    os.unlink(path)
    path.write_bytes(data.replace(b'"cwd"', b'"CWD"', 1))
    assert Catalogue(folder).session_touches(path, 10**9) is None


_LINEAR = "2026-03-02T09-14-07-122Z_019cadd3-8790-713f-9a8d-f2ee097914b9.jsonl"
