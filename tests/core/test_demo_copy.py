"""core.writing.demo: the user's copy of the shipped demo sessions, made once and never over their changes."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

import core.writing.demo as demo_module
from core.errors import SessionReadError, SessionWriteError
from core.writing import default_data_dir, demo_copy
from tests.conftest import DEMO


def digests(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()
    }


def test_the_first_use_copies_every_shipped_file_byte_for_byte(tmp_path: Path) -> None:
    shipped = digests(DEMO)
    copy = demo_copy(DEMO, tmp_path / "data")
    assert copy == tmp_path / "data" / "demo"
    assert digests(copy) == shipped
    assert "README.md" in shipped and sum(name.endswith(".jsonl") for name in shipped) == 7
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["demo"]  # no staging folder left
    assert digests(DEMO) == shipped


def test_an_existing_copy_is_the_users_and_is_never_made_again(tmp_path: Path) -> None:
    copy = demo_copy(DEMO, tmp_path)
    first, second = sorted(copy.glob("*.jsonl"))[:2]
    first.write_bytes(first.read_bytes() + b'{"type":"label"}\n')  # the user labelled something
    edited = first.read_bytes()
    second.unlink()  # and trashed a session
    assert demo_copy(DEMO, tmp_path) == copy
    assert first.read_bytes() == edited and not second.exists()
    copy_of_nothing = tmp_path / "empty"
    (copy_of_nothing / "demo").mkdir(parents=True)  # even an emptied copy stays empty
    assert list(demo_copy(DEMO, copy_of_nothing).iterdir()) == []


def test_a_source_without_sessions_is_a_broken_installation(tmp_path: Path) -> None:
    empty = tmp_path / "shipped"
    empty.mkdir()
    (empty / "README.md").write_text("no sessions\n", encoding="utf-8")
    with pytest.raises(SessionReadError, match="no demo sessions in"):
        demo_copy(empty, tmp_path / "data")
    with pytest.raises(SessionReadError, match="cannot be read from"):
        demo_copy(tmp_path / "missing", tmp_path / "data")
    assert not (tmp_path / "data" / "demo").exists()


def test_a_data_folder_that_cannot_be_made_fails_in_one_sentence(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder would be\n", encoding="utf-8")
    with pytest.raises(SessionWriteError, match="cannot be copied to") as raised:
        demo_copy(DEMO, blocker / "data")
    assert str(raised.value).endswith(".") and "\n" not in str(raised.value)


def test_a_copy_that_fails_halfway_leaves_nothing_under_the_final_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[Path] = []
    real = demo_module.write_new_file

    def failing(target: Path, data: bytes) -> None:
        if len(written) == 3:
            raise SessionWriteError(f"The disk is full; nothing was written to {target}.")
        real(target, data)
        written.append(target)

    monkeypatch.setattr(demo_module, "write_new_file", failing)
    with pytest.raises(SessionWriteError, match="disk is full"):
        demo_copy(DEMO, tmp_path)
    assert list(tmp_path.iterdir()) == []  # neither the copy nor the staging folder
    monkeypatch.undo()
    assert digests(demo_copy(DEMO, tmp_path)) == digests(DEMO)  # the next try makes the whole copy


def test_a_copy_made_meanwhile_by_another_window_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = demo_module.write_new_file
    theirs = tmp_path / "demo"

    def racing(target: Path, data: bytes) -> None:
        if not theirs.exists():  # the other window finishes its copy while ours is being written
            theirs.mkdir()
            (theirs / "theirs.jsonl").write_bytes(b"{}\n")
        real(target, data)

    monkeypatch.setattr(demo_module, "write_new_file", racing)
    assert demo_copy(DEMO, tmp_path) == theirs
    assert [p.name for p in theirs.iterdir()] == ["theirs.jsonl"]
    assert [p.name for p in tmp_path.iterdir()] == ["demo"]


def test_the_default_data_folder_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if sys.platform != "linux":
        pytest.skip("XDG_DATA_HOME is the data folder on Linux only")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert default_data_dir() == tmp_path / "share" / "prime-sessions"
    assert demo_copy(DEMO) == tmp_path / "share" / "prime-sessions" / "demo"


def test_the_shipped_folder_and_its_files_map_into_the_copy(tmp_path: Path) -> None:
    from core.writing import in_demo_copy, shipped_demo_dir

    assert shipped_demo_dir() == DEMO
    linear = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
    assert in_demo_copy(DEMO / linear, DEMO, tmp_path) == tmp_path / "demo" / linear
    assert in_demo_copy(DEMO / ".." / "demo", DEMO, tmp_path) == tmp_path / "demo"
    assert digests(tmp_path / "demo") == digests(DEMO)
    elsewhere = tmp_path / "mine"
    elsewhere.mkdir()
    (elsewhere / "demo").symlink_to(DEMO)  # a link to the shipped folder is the shipped folder
    assert in_demo_copy(elsewhere / "demo", DEMO, tmp_path) == tmp_path / "demo"
    assert in_demo_copy(elsewhere, DEMO, tmp_path) is None
    assert in_demo_copy(DEMO.parent, DEMO, tmp_path) is None  # resources/, not the demo


def test_a_reset_trashes_what_the_user_changed_or_added_and_copies_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.writing import reset_demo_copy
    from core.writing import trash as trash_module

    copy = demo_copy(DEMO, tmp_path)
    first, second = sorted(copy.glob("*.jsonl"))[:2]
    first.write_bytes(first.read_bytes() + b'{"type":"label"}\n')
    (copy / "a-fork.jsonl").write_bytes(b"{}\n")
    second.unlink()
    trashed: list[str] = []
    bin_ = tmp_path.parent / f"{tmp_path.name}-trash"
    bin_.mkdir()

    def to_bin(path: str) -> None:
        trashed.append(Path(path).name)
        Path(path).rename(bin_ / Path(path).name)

    monkeypatch.setattr(trash_module, "_trash_one", to_bin)
    assert reset_demo_copy(DEMO, tmp_path) == copy
    assert sorted(trashed) == sorted(["a-fork.jsonl", first.name])  # the unchanged ones: made again
    assert (bin_ / first.name).read_bytes().endswith(b'{"type":"label"}\n')
    assert digests(copy) == digests(DEMO)
    assert [p.name for p in tmp_path.iterdir()] == ["demo"]
    monkeypatch.setattr(trash_module, "_trash_one", lambda path: f"{path} cannot be moved to the trash.")
    (copy / "another.jsonl").write_bytes(b"{}\n")
    with pytest.raises(SessionWriteError, match=r"were not reset: .*another\.jsonl cannot be moved"):
        reset_demo_copy(DEMO, tmp_path)
    assert (copy / "another.jsonl").exists()  # left where it is
