"""Where ``export`` and ``diff`` write: one ``-o``/``--force`` rule, standard output, never over a session.

An export or a diff written over the session it was made from (by its own name, a symlink or a hard link)
would replace the user's session without the trash, ``--force`` or not: core refuses it
(:func:`core.export.files.check_targets`), on real files, and the session's bytes stay as they were.
"""

from __future__ import annotations

import hashlib
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main
from core.errors import SessionWriteError
from core.export import check_targets, input_at, render_export, save_export, write_export
from core.session import load_session
from tests.conftest import DEMO, REPO
from tests.helpers import run_cli

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
FORK = "019cbd70-9d00-7654-b79e-0404ef27578f.jsonl"  # a fork of LINEAR
LAST = "16b62db5"  # LINEAR's last message, in the fork too


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def session(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in (LINEAR, FORK):
        (folder / name).write_bytes((DEMO / name).read_bytes())
    return folder / LINEAR


def _names_of(session: Path) -> dict[str, Path]:
    """The session under other names: a symlink, a hard link, a path through a symlinked folder."""
    folder = session.parent.parent
    (folder / "link.md").symlink_to(session)
    os.link(session, folder / "hard.md")
    (folder / "via").symlink_to(session.parent)
    return {
        "itself": session,
        "relative": Path(os.path.relpath(session)),
        "dotted": session.parent / "." / session.name,
        "symlink": folder / "link.md",
        "hard link": folder / "hard.md",
        "through a symlinked folder": folder / "via" / session.name,
    }


# ---------------------------------------------------------------------------- core decides
def test_every_name_of_the_session_is_an_input_and_other_files_are_not(session: Path, tmp_path: Path) -> None:
    for how, name in _names_of(session).items():
        assert input_at(name, [session]) == str(session), how
        assert input_at(session, [name]) == str(name), how  # the input named by a link, the output not
    other = tmp_path / "sessions" / FORK
    assert input_at(other, [session]) is None
    assert input_at(tmp_path / "new.md", [session]) is None
    assert input_at(tmp_path / "no" / "such" / "dir.md", [session]) is None


def test_writing_over_an_input_is_refused_even_with_overwrite_and_the_session_stays(
    session: Path, tmp_path: Path
) -> None:
    before = _digest(session)
    for how, name in _names_of(session).items():
        with pytest.raises(SessionWriteError, match="is the session being read") as refused:
            write_export(name, b"# not a session\n", overwrite=True, inputs=[session])
        assert ("by a link" in str(refused.value)) == (
            how in ("symlink", "hard link", "through a symlinked folder")
        ), how
        assert _digest(session) == before, how
    assert not list(session.parent.glob(".*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_an_image_beside_the_export_may_not_be_an_input_either(session: Path, tmp_path: Path) -> None:
    before = _digest(session)
    (tmp_path / "page_images").symlink_to(session.parent)  # the image folder is the sessions folder
    with pytest.raises(SessionWriteError, match="is the session being read"):
        write_export(
            tmp_path / "page.md",
            b"x",
            {f"page_images/{LINEAR}": b"\x89PNG"},
            overwrite=True,
            inputs=[session],
        )
    assert _digest(session) == before and not (tmp_path / "page.md").exists()  # nothing written at all


def test_save_export_knows_the_session_it_was_made_from(session: Path) -> None:
    before = _digest(session)
    rendered = render_export(load_session(session), "md")
    assert rendered.sources == (str(session),)
    with pytest.raises(SessionWriteError, match="is the session being read"):
        save_export(rendered, session, overwrite=True)
    assert _digest(session) == before


def test_check_targets_order_a_folder_an_input_then_an_existing_file(session: Path, tmp_path: Path) -> None:
    with pytest.raises(SessionWriteError, match="is a folder"):
        check_targets([tmp_path], inputs=[session])
    with pytest.raises(SessionWriteError, match="is the session being read"):
        check_targets([session], inputs=[session])  # not "use --force": that would not help
    with pytest.raises(SessionWriteError, match="already exists; use --force"):
        check_targets([tmp_path / "sessions" / FORK], inputs=[session])
    check_targets([tmp_path / "sessions" / FORK], inputs=[session], overwrite=True)
    check_targets([tmp_path / "new.md"], inputs=[session])


# ---------------------------------------------------------------------------- the command line
@pytest.mark.parametrize("how", ["itself", "symlink", "hard link", "through a symlinked folder"])
def test_export_with_force_over_the_session_is_refused(
    session: Path, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _digest(session)
    target = _names_of(session)[how]
    assert main(["export", str(session), "--format", "md", "-o", str(target), "--force"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"prime-sessions: {target} is the session being read") and err.count("\n") == 1
    assert _digest(session) == before


def test_diff_with_force_over_either_session_is_refused(
    session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fork = session.parent / FORK
    before = (_digest(session), _digest(fork))
    for target in (session, fork):
        argv = ["diff", str(session), LAST, LAST, "--other-file", str(fork), "-o", str(target), "--force"]
        assert main(argv) == 1
        assert "is the session being read" in capsys.readouterr().err
    assert main(["diff", str(session), LAST, "leaf", "-o", str(session), "--force"]) == 1
    assert (_digest(session), _digest(fork)) == before


def test_export_over_the_session_as_a_user_types_it(session: Path) -> None:
    before = _digest(session)
    done = run_cli("export", session, "-o", session, "--format", "html", "--force")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"prime-sessions: {session} is the session being read; choose another file name, a session is never "
        "written over.\n"
    )
    assert _digest(session) == before


def test_export_without_o_writes_to_a_pipe_as_markdown(session: Path) -> None:
    done = run_cli("export", session, "--no-thinking", text=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"# Fix double submit on login form")
    html = run_cli("export", session, "--format", "html", text=False)
    assert html.returncode == 0 and html.stdout.startswith(b"<!DOCTYPE html>")


def test_export_without_o_on_a_terminal_asks_where(session: Path, tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "core.cli", "export", str(session)],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    os.close(follower)
    _out, err = process.communicate(timeout=60)
    os.close(leader)
    assert process.returncode == 2
    assert err.decode() == (
        "prime-sessions: Say where to write the export: -o FILE, or -o - to print it on the terminal.\n"
    )
    assert os.listdir(tmp_path) == ["sessions"]


def test_diff_o_dash_is_standard_output_not_a_file_named_dash(session: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "core.cli", "diff", str(session), LAST, "leaf", "-o", "-"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("--- left ")
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("command", ["export", "diff"])
def test_export_and_diff_refuse_an_existing_file_before_any_work_and_force_replaces_it(
    session: Path, tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.md"
    target.write_bytes(b"mine")
    argv = ["export", str(session)] if command == "export" else ["diff", str(session), LAST, "leaf"]
    assert main([*argv, "-o", str(target)]) == 1
    assert capsys.readouterr().err == f"prime-sessions: {target} already exists; use --force to replace it.\n"
    assert target.read_bytes() == b"mine"
    assert main([*argv, "-o", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"prime-sessions: {tmp_path} is a folder; choose a file name.\n"
    assert main([*argv, "-o", str(target), "--force"]) == 0
    assert target.read_bytes() != b"mine"
