"""A full disk never tears the user's session (issue 29).

A label or a rename that got a short write left the start of its line at the end of the file, without a
newline, and said "earlier content is unchanged": the agent's next entry was glued to those bytes and
both were lost. Now the bytes are cut off again under the lock (and fsynced), so the file ends where it
ended, on its newline. Shown on a real full file system (a 64 KiB tmpfs, mounted as root; skipped where
mounting is impossible) and, everywhere, under a file size limit (``RLIMIT_FSIZE``), which gives the
same short write.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from core.errors import SessionWriteError
from core.session import load_session
from core.writing import append_label
from tests.conftest import DEMO, REPO

SOURCE = DEMO / "019cbde7-a1c1-7010-9bba-f2b86295821f.jsonl"  # 4,370 bytes: its last page part-filled
TARGET = "d6964341"  # its first entry
LONG = "L" * 6000  # a label longer than a page


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (root only; the test is skipped where it cannot be mounted)."""
    folder = tmp_path / "tmpfs"
    folder.mkdir()
    if sys.platform != "linux" or os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs Linux and root (CI runs as root)")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path) -> Path:
    """Fill the file system with one file, to the last byte it takes."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def _agent_appends(path: Path, entry_id: str) -> None:
    """What the agent does next: one more line, with no lock and no check."""
    entry = {"type": "custom", "id": entry_id, "parentId": TARGET, "timestamp": "2026-03-05T12:30:00.000Z"}
    with open(path, "ab") as handle:
        handle.write(orjson.dumps(entry) + b"\n")


def test_a_short_write_on_a_full_disk_is_taken_back(tiny_tmpfs: Path) -> None:
    path = tiny_tmpfs / SOURCE.name
    shutil.copyfile(SOURCE, path)
    before = path.read_bytes()
    filler = _fill(tiny_tmpfs)
    session = load_session(path)
    with pytest.raises(SessionWriteError) as caught:
        append_label(session, TARGET, LONG)
    assert "could be written" in str(caught.value) and "removed again, so the file is as it was" in str(
        caught.value
    )
    assert path.read_bytes() == before  # ends on its newline, as before
    # The disk is still full: a rename fails too, and leaves nothing.
    with pytest.raises(SessionWriteError):
        append_label(session, TARGET, LONG)
    assert path.read_bytes() == before
    filler.unlink()
    _agent_appends(path, "agent001")
    after = load_session(path)
    assert "agent001" in after.by_id and after.diagnostics == []  # nothing glued to the agent's line
    append_label(after, TARGET, "room again")
    assert load_session(path).labels[TARGET] == "room again"


def test_a_short_write_under_a_file_size_limit_is_taken_back_by_the_cli(tmp_path: Path) -> None:
    path = tmp_path / SOURCE.name
    shutil.copyfile(SOURCE, path)
    before = path.read_bytes()
    # The limit lets 100 bytes of the line through, then write() returns short (SIGXFSZ ignored).
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({len(before) + 100}, resource.RLIM_INFINITY))
        from core.cli.program import main
        sys.exit(main(["label", {str(path)!r}, {TARGET!r}, {LONG!r}]))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr == (
        f"prime-sessions: Only 100 of {len(LONG) + 127} bytes could be written to {path} (is the disk full?);"
        " they were removed again, so the file is as it was.\n"
    )
    assert path.read_bytes() == before
    _agent_appends(path, "agent002")
    assert "agent002" in load_session(path).by_id
