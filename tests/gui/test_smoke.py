"""``--smoke-test``: the window on the bundled demo (or a given path), private catalogue and settings, one
sentence on failure; and the application icon."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication

import gui.app
from core.session import load_session
from gui.app import ICON_SIZES, app_icon, main
from tests.conftest import DEMO, REPO

BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"
PREFIX = "prime-sessions: smoke test failed: "


def _digests(folder: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())}


def _files_under(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file()) if folder.exists() else []


def _one_sentence(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(PREFIX), err
    assert lines[0].endswith("."), err
    return lines[0].removeprefix(PREFIX)


def test_the_smoke_test_lists_the_demo_loads_a_session_and_renders_a_message(
    qapp, capsys, _private_catalogue: Path, _private_settings: Path
) -> None:
    before = _digests(DEMO)
    assert main(["--smoke-test"]) == 0
    out, err = capsys.readouterr()
    sessions = len(list(DEMO.glob("*.jsonl")))
    assert out.startswith(f"Smoke test passed: {sessions} sessions listed, "), out
    assert " loaded (" in out and out.rstrip().endswith("rendered."), out
    assert err == ""
    # Its own catalogue and settings: the ones the environment points at (the user's, outside tests) stay
    # untouched, and so do the demo sessions.
    assert _files_under(_private_catalogue) == []
    assert _files_under(_private_settings) == []
    assert _digests(DEMO) == before


def test_the_smoke_test_opens_the_session_file_given(qapp, capsys, sessions: Path) -> None:
    assert main([str(sessions / BRANCHED), "--smoke-test"]) == 0
    out, _err = capsys.readouterr()
    assert f"{len(list(sessions.glob('*.jsonl')))} sessions listed" in out
    assert f"{BRANCHED!r} loaded (35 entries)" in out, out


def test_a_folder_without_sessions_fails_in_one_sentence(qapp, capsys, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([str(empty), "--smoke-test"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert _one_sentence(err) == f"No sessions were found in {empty}."


def test_a_session_without_messages_fails_in_one_sentence(qapp, capsys, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    header, first_entry = (DEMO / BRANCHED).read_bytes().splitlines()[:2]
    assert b'"model_change"' in first_entry
    target = folder / BRANCHED
    target.write_bytes(header + b"\n" + first_entry + b"\n")
    assert main([str(target), "--smoke-test"]) == 1
    assert _one_sentence(capsys.readouterr().err) == f"{target} has no message to render."


def test_missing_demo_sessions_fail_in_one_sentence(qapp, capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(gui.app, "DEMO_DIR", tmp_path / "no-demo")
    assert main(["--smoke-test"]) == 1
    sentence = _one_sentence(capsys.readouterr().err)
    assert sentence == f"The bundled demo sessions are missing from {tmp_path / 'no-demo'}."


def test_a_window_that_cannot_be_built_fails_in_one_sentence(qapp, capsys, monkeypatch) -> None:
    def broken(**_kwargs: object) -> None:
        raise OSError("no display")

    monkeypatch.setattr(gui.app, "MainWindow", broken)
    assert main(["--smoke-test"]) == 1
    assert _one_sentence(capsys.readouterr().err) == "The window could not be built (OSError: no display)."


def test_a_window_that_does_not_finish_in_time_fails_in_one_sentence(qapp, capsys, monkeypatch) -> None:
    monkeypatch.setattr(gui.app, "_SMOKE_TIMEOUT_MSECS", 1)  # expires before the list is read
    assert main(["--smoke-test"]) == 1
    assert _one_sentence(capsys.readouterr().err) == "The window did not finish within 0.001 seconds."


def test_the_smoke_test_process_writes_nothing_of_the_users(tmp_path: Path) -> None:
    # A real process with no catalogue override: the default (user cache) location must not be used.
    home = tmp_path / "home"
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PRIME_", "XDG_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        QT_QPA_PLATFORM="offscreen",
        PYTHONPATH=str(REPO),
    )
    done = subprocess.run(
        [sys.executable, "-m", "gui.launcher", "--smoke-test"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Smoke test passed:"), done.stdout
    assert "Traceback" not in done.stderr
    assert _files_under(home) == []


@pytest.mark.parametrize("size", ICON_SIZES)
def test_the_application_icon_has_every_size(qapp, size: int) -> None:
    icon = app_icon()
    assert not icon.isNull()
    assert QSize(size, size) in icon.availableSizes()
    image = icon.pixmap(size, size).toImage()
    assert image.width() == size
    assert image.pixelColor(size // 2, size // 2).alpha() == 255  # the badge, not a transparent hole


def test_main_sets_the_window_icon(qapp, capsys) -> None:
    QGuiApplication.setWindowIcon(gui.app.QIcon())
    assert main(["--smoke-test"]) == 0
    assert set(QGuiApplication.windowIcon().availableSizes()) == {QSize(s, s) for s in ICON_SIZES}


def test_without_a_display_the_window_says_so_in_one_sentence(tmp_path) -> None:
    """No DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM: one sentence and exit 1 instead of Qt's abort."""
    from tests.conftest import REPO

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["HOME"] = str(tmp_path)
    code = "import sys; from gui.launcher import main; sys.exit(main(['resources/demo']))"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no display to open the window on" in lines[0], proc.stderr


# ---------------------------------------------------------------------------- --scripted-check
SCRIPTED = "prime-sessions: scripted check failed: "


def _scripted_sentence(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(SCRIPTED) and lines[0].endswith("."), err
    return lines[0].removeprefix(SCRIPTED)


def test_the_scripted_check_diffs_two_leaves_and_exports_html_and_pdf_through_the_dialog(
    qapp, capsys, tmp_path: Path, _private_catalogue: Path, _private_settings: Path
) -> None:
    from pypdf import PdfReader

    before = _digests(DEMO)
    out = tmp_path / "out"
    out.mkdir()
    assert main(["--scripted-check", str(out)]) == 0
    printed, err = capsys.readouterr()
    assert err == ""
    assert printed.startswith("Scripted check passed: 7 sessions listed, "), printed
    assert " compared (" in printed and " diff rows)" in printed, printed
    assert "the Usage window shown (7 sessions with usage)" in printed, printed
    html, pdf = sorted(out.iterdir())  # the two exports of one session, and nothing else
    assert (html.suffix, pdf.suffix, html.stem) == (".html", ".pdf", pdf.stem)
    assert f"{html.name} exported" in printed and f"{pdf.name} exported" in printed
    assert html.read_bytes().startswith(b"<!DOCTYPE html>")
    assert len(PdfReader(pdf).pages) >= 1
    session = load_session(DEMO / f"{html.stem}.jsonl")
    leaves = [e.id for e in session.entries if not session.tree.children_of(e.id) and e.kind == "message"]
    assert len(leaves) >= 2 and f"leaves {leaves[0]} and {leaves[1]} compared" in printed
    assert _files_under(_private_catalogue) == [] and _files_under(_private_settings) == []
    assert _digests(DEMO) == before


def test_a_failed_export_ends_the_scripted_check_in_one_sentence(
    qapp, capsys, tmp_path: Path, monkeypatch
) -> None:
    import gui.widgets.export_dialog as export_dialog

    def broken(*_args: object) -> None:
        raise ModuleNotFoundError("No module named '_cffi_backend'")

    monkeypatch.setattr(export_dialog, "run_export", broken)
    assert main(["--scripted-check", str(tmp_path)]) == 1  # the message box is closed, not waited for
    sentence = _scripted_sentence(capsys.readouterr().err)
    assert sentence.startswith("The HTML export failed: ") and "_cffi_backend" in sentence, sentence
    assert list(tmp_path.iterdir()) == []


def test_the_scripted_check_needs_every_image_format(qapp, capsys, tmp_path: Path, monkeypatch) -> None:
    formats = [f for f in gui.app.QImageReader.supportedImageFormats() if bytes(f) not in (b"webp", b"gif")]
    monkeypatch.setattr(gui.app.QImageReader, "supportedImageFormats", lambda: formats)
    assert main(["--scripted-check", str(tmp_path)]) == 1
    assert _scripted_sentence(capsys.readouterr().err) == "Qt cannot read gif, webp images (no plugin)."


def test_the_scripted_check_needs_a_session_with_branches(
    qapp, capsys, tmp_path: Path, sessions: Path
) -> None:
    linear = sessions / "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
    assert main([str(linear), "--scripted-check", str(tmp_path)]) == 1
    assert _scripted_sentence(capsys.readouterr().err) == f"{linear} has fewer than two leaves to compare."
    only = tmp_path / "linear-only"
    only.mkdir()
    (only / linear.name).write_bytes(linear.read_bytes())
    assert main([str(only), "--scripted-check", str(tmp_path)]) == 1
    assert _scripted_sentence(capsys.readouterr().err) == "No session in the list has two leaves to compare."


def test_the_scripted_check_writes_only_into_an_existing_folder(qapp, capsys, tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    assert main(["--scripted-check", str(missing)]) == 1
    assert _scripted_sentence(capsys.readouterr().err) == f"{missing} is not a folder to export into."
