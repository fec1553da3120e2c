"""Moving sessions to the trash: into a private freedesktop trash, never a permanent delete.

send2trash reads ``XDG_DATA_HOME`` when ``send2trash.plat_other`` is imported, so the ``trash_home``
fixture sets the variable first and then (re)imports that module; the CLI test sets it in the environment
of a fresh process. Either way nothing reaches the user's real trash.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote

import orjson
import pytest

from core.catalogue import Catalogue
from core.writing import trash_sessions
from tests.conftest import DEMO

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def trash_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private trash: ``XDG_DATA_HOME`` in tmp_path, set before send2trash reads it; yields its Trash."""
    if sys.platform != "linux":
        pytest.skip("the private trash uses the freedesktop layout (Linux)")
    home = tmp_path / "xdg-data"
    home.mkdir()
    if os.stat(home).st_dev != os.stat(os.path.expanduser("~")).st_dev:
        pytest.skip("send2trash uses the home trash only for files on the home folder's device")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    import send2trash.plat_other as plat  # only now: it reads the variable when imported

    plat = importlib.reload(plat)  # already imported by an earlier test: read the variable again
    assert plat.HOMETRASH == str(home / "Trash")
    yield home / "Trash"
    monkeypatch.undo()
    importlib.reload(plat)


@pytest.fixture
def read_only_copy(tmp_path: Path) -> Iterator[Callable[[list[Path]], Path]]:
    """Copies files into a folder that really is read-only, even for root (a read-only tmpfs mount)."""
    mounted: list[Path] = []
    folders: list[Path] = []

    def make(files: list[Path]) -> Path:
        folder = tmp_path / f"read-only-{len(folders)}"
        folder.mkdir()
        folders.append(folder)
        if IS_ROOT:  # root ignores permission bits: only a read-only file system refuses it
            mount = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(folder)], check=False
            )
            if mount.returncode != 0:
                pytest.skip("running as root and cannot mount a read-only file system")
            mounted.append(folder)
        for file in files:
            shutil.copy2(file, folder / file.name)
        if IS_ROOT:
            subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        else:
            for file in folder.iterdir():
                file.chmod(0o444)
            folder.chmod(0o555)
        return folder

    yield make
    for folder in mounted:
        subprocess.run(["umount", "-l", str(folder)], check=False)
    for folder in folders:
        if folder.exists() and not IS_ROOT:
            folder.chmod(0o755)


def demo_copies(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    copies = []
    for source in sorted(DEMO.glob("*.jsonl"))[:count]:
        target = folder / source.name
        shutil.copyfile(source, target)
        copies.append(target)
    return copies


def in_trash(trash: Path, original: Path) -> Path:
    """The trashed copy of ``original``, found through its .trashinfo record."""
    for info in (trash / "info").glob("*.trashinfo"):
        lines = dict(line.split("=", 1) for line in info.read_text().splitlines()[1:] if "=" in line)
        if unquote(lines["Path"]) == str(original):
            return trash / "files" / info.name.removesuffix(".trashinfo")
    raise AssertionError(f"{original} is not in {trash}")


def test_trashing_moves_the_file_with_every_byte(tmp_path: Path, trash_home: Path) -> None:
    (file,) = demo_copies(tmp_path / "sessions", 1)
    data = file.read_bytes()
    (result,) = trash_sessions([file])
    assert result.ok and result.error is None and result.path == str(file)
    assert not file.exists()
    assert in_trash(trash_home, file).read_bytes() == data


def test_several_at_once_each_reports_for_itself(tmp_path: Path, trash_home: Path) -> None:
    files = demo_copies(tmp_path / "sessions", 3)
    data = {f: f.read_bytes() for f in files}
    missing = tmp_path / "sessions" / "gone.jsonl"
    folder = tmp_path / "sessions" / "folder.jsonl"
    folder.mkdir()
    results = trash_sessions([files[0], missing, files[1], folder, files[2], files[0]])
    assert [r.path for r in results] == [str(p) for p in (files[0], missing, files[1], folder, files[2])]
    assert [r.ok for r in results] == [True, False, True, False, True]
    assert results[1].error == f"{missing} was already deleted or moved; nothing was moved to the trash."
    assert results[3].error == f"{folder} is a folder; only session files are moved to the trash."
    assert folder.is_dir()
    for file in files:
        assert not file.exists() and in_trash(trash_home, file).read_bytes() == data[file]


def test_a_second_file_with_the_same_name_is_kept_apart(tmp_path: Path, trash_home: Path) -> None:
    (first,) = demo_copies(tmp_path / "a", 1)
    (second,) = demo_copies(tmp_path / "b", 1)
    second.write_bytes(
        second.read_bytes() + b'{"type":"session_info","id":"x1","parentId":null,"name":"b"}\n'
    )
    first_data, second_data = first.read_bytes(), second.read_bytes()
    assert all(r.ok for r in trash_sessions([first, second]))
    assert in_trash(trash_home, first).read_bytes() == first_data
    assert in_trash(trash_home, second).read_bytes() == second_data


def test_read_only_folder_is_one_sentence_and_the_file_stays(
    trash_home: Path, read_only_copy: Callable[[list[Path]], Path]
) -> None:
    folder = read_only_copy(sorted(DEMO.glob("*.jsonl"))[:1])
    (file,) = list(folder.iterdir())
    data = file.read_bytes()
    (result,) = trash_sessions([file])
    assert not result.ok
    assert result.error == f"{file} or its folder is read-only, so it could not be moved to the trash."
    assert file.read_bytes() == data


def test_no_usable_trash_refuses_and_never_deletes(tmp_path: Path, trash_home: Path) -> None:
    trash_home.parent.mkdir(parents=True, exist_ok=True)
    trash_home.write_text("a file where the trash folder should be")  # the trash cannot be created
    (file,) = demo_copies(tmp_path / "sessions", 1)
    data = file.read_bytes()
    (result,) = trash_sessions([file])
    assert not result.ok
    assert result.error is not None and result.error.startswith(f"{file} could not be moved to the trash (")
    assert result.error.endswith("); it was left where it is.")
    assert "\n" not in result.error
    assert file.read_bytes() == data


def test_the_cli_trashes_in_a_fresh_process_with_its_own_trash(tmp_path: Path) -> None:
    files = demo_copies(tmp_path / "sessions", 2)
    data = {f: f.read_bytes() for f in files}
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg-data")}
    out = subprocess.run(
        [sys.executable, "-m", "core.cli", "trash", "--yes", *map(str, files)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"Moved to the trash: {f}" for f in files]
    for file in files:
        assert not file.exists()
        assert in_trash(tmp_path / "xdg-data" / "Trash", file).read_bytes() == data[file]


# ---------------------------------------------------------------------------- the catalogue forgets
SECRET = "Zq7KestrelSecretWord"  # folded by the index to lower case: look for both spellings
SHARED = "Ospreysharedphrase"


def _session_lines(sid: str, texts: list[str]) -> bytes:
    lines = [
        {"type": "session", "version": 3, "id": sid, "timestamp": "2026-05-01T00:00:00.000Z", "cwd": "/p"}
    ]
    parent = None
    for i, text in enumerate(texts):
        entry_id = f"{sid[:4]}{i:04d}"
        lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": f"2026-05-01T00:00:{i:02d}.000Z",
                "message": {"role": "user", "content": text, "timestamp": 1777593600000 + i},
            }
        )
        parent = entry_id
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def _catalogue_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.glob("catalogue.sqlite3*")))


def test_a_trashed_sessions_words_leave_the_catalogue_file(tmp_path: Path, trash_home: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    doomed, kept = sessions / "doomed.jsonl", sessions / "kept.jsonl"
    # The doomed session's first message holds the secret (it is also its list title); a text it shares
    # with the kept session must stay searchable.
    doomed.write_bytes(_session_lines("doomed00", [f"the key is {SECRET} now", f"common {SHARED} text"]))
    kept.write_bytes(_session_lines("kept0000", [f"common {SHARED} text", "another message"]))
    folder = tmp_path / "catalogue"
    cat = Catalogue(folder)
    try:
        cat.refresh([sessions])
        # Debian's SQLite zeroes freed bytes by default, other builds do not: the catalogue asks for it.
        assert cat._connect().execute("PRAGMA secure_delete").fetchone() == (1,)
        assert [h.path for h in cat.search(SECRET)] == [str(doomed)]
        assert SECRET.lower().encode() in _catalogue_bytes(folder)  # the index holds the folded word
        (result,) = trash_sessions([doomed])
        assert result.ok
        stats = cat.refresh([sessions])
        assert stats.files_removed == 1 and stats.texts_purged == 1
        assert cat.search(SECRET) == []
        assert {h.path for h in cat.search(SHARED)} == {str(kept)}
        conn = sqlite3.connect(folder / "catalogue.sqlite3")
        try:
            conn.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 0)")
            assert conn.execute("SELECT count(*) FROM texts").fetchone() == (2,)  # shared, "another"
        finally:
            conn.close()
    finally:
        cat.close()
    data = _catalogue_bytes(folder)
    # The index stores a term after the prefix it shares with the term before it: no tail may remain.
    assert SECRET.encode() not in data and SECRET.lower()[4:].encode() not in data
    assert SHARED.lower().encode() in data
