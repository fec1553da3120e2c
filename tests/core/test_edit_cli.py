"""The editing commands of the CLI, each in a fresh process: trash, label, rename, fork, clone --cwd."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from core import load_session
from core.cli.edit import session_title
from tests.core.test_trash import demo_copies, in_trash
from tests.core.test_writer import BRANCHES, LINEAR, copy_into, lines_of, oracle
from tests.helpers import run_cli

REPO = Path(__file__).resolve().parents[2]


def run(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env)


def run_on_a_terminal(answer: bytes, *args: str | Path, env: dict[str, str]) -> tuple[int, bytes]:
    """Run the CLI with a terminal as stdin, type ``answer``, and return (status, everything printed)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "core.cli", *map(str, args)],
        cwd=REPO,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**os.environ, **env},
    )
    os.close(follower)
    output = b""
    while b"[y/N]" not in output:
        chunk = os.read(leader, 4096)
        assert chunk, output
        output += chunk
    os.write(leader, answer)
    status = process.wait(timeout=60)
    try:
        while chunk := os.read(leader, 4096):
            output += chunk
    except OSError:  # EIO once the child has closed the terminal
        pass
    os.close(leader)
    return status, output


# ---------------------------------------------------------------------------- trash
def test_trash_without_yes_on_a_pipe_refuses_naming_the_sessions(tmp_path: Path) -> None:
    files = demo_copies(tmp_path / "sessions", 2)
    data = {f: f.read_bytes() for f in files}
    titles = [session_title(f) for f in files]  # name (or first message) and file name
    out = run("trash", *files, env={"XDG_DATA_HOME": str(tmp_path / "xdg-data")})
    assert out.returncode == 1 and out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("prime-sessions: Not moving these 2 sessions: ")
    assert lines[0].endswith("to the trash without confirmation; run it again with --yes.")
    for file, title in zip(files, titles, strict=True):
        assert file.name in title and title in lines[0]
        assert file.read_bytes() == data[file]
    assert not (tmp_path / "xdg-data").exists()


def test_trash_of_a_missing_file_moves_nothing(tmp_path: Path) -> None:
    (file,) = demo_copies(tmp_path / "sessions", 1)
    missing = tmp_path / "sessions" / "nope.jsonl"
    out = run("trash", "--yes", file, missing, env={"XDG_DATA_HOME": str(tmp_path / "xdg-data")})
    assert out.returncode == 1
    assert out.stderr == f"prime-sessions: {missing} does not exist; nothing was moved to the trash.\n"
    assert file.exists()


@pytest.mark.skipif(sys.platform != "linux", reason="a pseudo-terminal and the freedesktop trash")
@pytest.mark.parametrize("answer", [b"n\n", b"\n", b"y\n"])
def test_trash_asks_on_a_terminal(tmp_path: Path, answer: bytes) -> None:
    (file,) = demo_copies(tmp_path / "sessions", 1)
    data = file.read_bytes()
    title = session_title(file)
    trash = tmp_path / "xdg-data" / "Trash"
    status, output = run_on_a_terminal(answer, "trash", file, env={"XDG_DATA_HOME": str(trash.parent)})
    assert f"Move {title} to the trash? [y/N]".encode() in output
    if answer == b"y\n":
        assert status == 0 and not file.exists()
        assert in_trash(trash, file).read_bytes() == data
    else:
        assert status == 1 and b"Nothing was moved to the trash." in output
        assert file.read_bytes() == data


# ---------------------------------------------------------------------------- label, rename, fork, clone
def test_label_and_clear_from_the_cli(tmp_path: Path, oracle_dir: Path) -> None:
    file = copy_into(tmp_path, BRANCHES)
    before = file.read_bytes()
    target = load_session(file).entries[2].id
    out = run("label", file, target, "from the cli")
    assert out.returncode == 0, out.stderr
    assert (
        oracle(oracle_dir, file, "--messages", "none", "--tree", "none")["labels"][target] == "from the cli"
    )
    assert run("label", file, target, "--clear").returncode == 0
    assert target not in oracle(oracle_dir, file, "--messages", "none", "--tree", "none")["labels"]
    assert file.read_bytes().startswith(before)
    usage = run("label", file, target)
    assert usage.returncode == 2 and usage.stderr.count("\n") == 1 and "--clear" in usage.stderr


def test_rename_and_clear_from_the_cli(tmp_path: Path, oracle_dir: Path) -> None:
    file = copy_into(tmp_path, LINEAR)
    before = file.read_bytes()
    assert run("rename", file, "Named on the CLI").returncode == 0
    assert (
        oracle(oracle_dir, file, "--messages", "none", "--tree", "none")["sessionName"] == "Named on the CLI"
    )
    assert run("rename", file, "--clear").returncode == 0
    assert oracle(oracle_dir, file, "--messages", "none", "--tree", "none")["sessionName"] is None
    assert file.read_bytes().startswith(before)


def test_fork_and_clone_into_another_project_from_the_cli(tmp_path: Path, oracle_dir: Path) -> None:
    file = copy_into(tmp_path, BRANCHES)
    before = file.read_bytes()
    session = load_session(file)
    at = session.path_to(session.leaf_id)[4].id
    fork = run("fork", file, "--at", at)
    assert fork.returncode == 0, fork.stderr
    forked = Path(fork.stdout.strip())
    assert oracle(oracle_dir, forked, "--messages", "none", "--tree", "none")["branch"][:5] == [
        e.id for e in session.path_to(at)
    ]
    clone = run("clone", file, "--cwd", "/home/dev/other")
    assert clone.returncode == 0, clone.stderr
    cloned = Path(clone.stdout.strip())
    assert cloned.parent.name == "--home-dev-other--"
    header = lines_of(cloned)[0]
    assert header["cwd"] == "/home/dev/other" and header["parentSession"] == str(file)
    assert oracle(oracle_dir, cloned, "--messages", "none", "--tree", "none")["leafId"] == session.leaf_id
    assert file.read_bytes() == before
