"""Screenshots of the desktop app on the demo sessions: ``python packaging/screenshots.py OUTDIR``.

Starts the real window under an X server and saves one PNG per main view to ``OUTDIR``:

* ``session.png``: a session selected, an assistant message with a tool call (and its diff) shown;
* ``search.png``: a full-text search and its first hit opened;
* ``context.png``: "What the model saw" (context mode) at the leaf of the compaction session;
* ``branches.png``: the branches session with the tree in the ``all`` filter mode, the transcript at the
  branch point (its switcher);
* ``find.png``: find in session (Ctrl+F) in the linear session, its matches marked;
* ``problems.png``: a damaged copy of a session open, the Problems panel under it;
* ``diff-window.png``: branches A and C of the branches session side by side;
* ``usage.png``: the Usage window (View > Usage and Cost).

Each view is shot at 1600x1000 and 1100x680, in the light and the dark theme (View > Theme): the names say
which (:func:`shot_name`: ``session.png``, ``session-dark.png``, ``session-1100.png``,
``session-1100-dark.png``). The export dialog (on a session holding credentials) and Preferences are shot
at their own size, light and dark (``export-dialog.png``, ``preferences-dark.png``...). The damaged and
the credential-holding sessions are added to the demo copy after the first four views.

Without ``DISPLAY`` (and without ``QT_QPA_PLATFORM``) the script runs itself again under
``xvfb-run -a -s "-screen 0 1700x1100x24"`` with ``QT_QPA_PLATFORM=xcb``. That needs, on Debian/Ubuntu,
``apt-get install -y --no-install-recommends`` with the packages of :data:`APT_PACKAGES` (xvfb, xauth and
the xcb libraries of Qt's X11 platform plugin).

Nothing of the user's is read or written: the demo sessions are copied to a temporary folder, and the
catalogue (``PRIME_SESSIONS_CATALOGUE``), the settings (QSettings, ``XDG_CONFIG_HOME``) and the caches live
in that folder too. Every step waits for the window's signals (no fixed sleeps beyond a short settle time
before each grab); the whole run gives up after ``TIMEOUT_SECS``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "resources" / "demo"
SCREEN = "1700x1100x24"
TIMEOUT_SECS = 300
MAX_PNG_BYTES = 300_000  # a larger screenshot is saved again in 256 colours (see _quantized)
SETTLE_MSECS = 250  # after the last signal of a step: let layouts, scroll bars and repaints finish

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # named session with tool calls
LINEAR_EDIT_CALL = "97bf8cf4"  # the assistant message calling `edit` (its result carries a diff)
BRANCHES = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"
COMPACTION = "019cb7f7-db40-74db-9a60-0d769809d8ec.jsonl"
BRANCH_POINT = "21229440"  # the answer the branches session's three branches start from
FIND_WORD = "token"  # found in several cards of the linear session
SEARCH_WORD = "Redis"  # branch B of the branches session (abandoned), its summary and the options answer
BRANCH_A_LEAF, BRANCH_C_LEAF = "8b38ce88", "52c02f53"  # two branches of the branches session
DAMAGED = "config-loader-crash.jsonl"  # a short session with a line cut short (added later)
SECRETS = "deploy-with-credentials.jsonl"  # a session pasting credentials (added later)

APT_PACKAGES = (
    "xvfb xauth libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-image0 libxcb-render-util0 "
    "libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libx11-xcb1"
)


def _under_xvfb(argv: list[str]) -> int:
    """Run this script again under xvfb-run with the xcb platform; its exit code."""
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None:
        print(
            "screenshots: no DISPLAY and no xvfb-run; install it with\n"
            f"  apt-get install -y --no-install-recommends {APT_PACKAGES}",
            file=sys.stderr,
        )
        return 2
    env = dict(os.environ, QT_QPA_PLATFORM="xcb")
    command = [xvfb_run, "-a", "-s", f"-screen 0 {SCREEN}", sys.executable, str(Path(__file__).resolve())]
    return subprocess.call([*command, *argv], env=env)


def _isolate(tmp: Path) -> Path:
    """Point every per-user location at ``tmp``; returns the folder holding the copied demo sessions."""
    sessions = tmp / "sessions"
    shutil.copytree(DEMO, sessions, ignore=shutil.ignore_patterns("*.md"))
    for name, sub in (
        ("PRIME_SESSIONS_CATALOGUE", "catalogue"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_CACHE_HOME", "cache"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
    ):
        folder = tmp / sub
        folder.mkdir()
        os.environ[name] = str(folder)
    os.environ["PRIME_AGENT_DIR"] = str(sessions)  # never the user's ~/.prime, even by default
    os.environ["PI_CODING_AGENT_DIR"] = str(tmp / "pi")
    return sessions


@dataclass
class Wait:
    """A step of a scenario: connect to ``signal``, then call ``action``; resume when the signal fires.

    With ``signal`` None the scenario resumes after ``SETTLE_MSECS`` (``action`` still runs first).
    """

    signal: Any = None
    action: Callable[[], Any] = lambda: None
    check: Callable[[tuple], bool] = field(default=lambda _args: True)


def _run(app: Any, scenario: Generator[Wait, tuple, None]) -> int:
    """Drive ``scenario`` from the event loop; 0 when it ran to the end, 1 on failure or timeout."""
    from PySide6.QtCore import QTimer

    outcome = {"code": 1}

    def fail(message: str) -> None:
        print(f"screenshots: {message}", file=sys.stderr)
        app.exit(1)

    def advance(args: tuple = ()) -> None:
        try:
            step = scenario.send(args)
            if step.signal is None:
                step.action()
                QTimer.singleShot(SETTLE_MSECS, advance)
                return

            def fired(*args: Any) -> None:
                if not step.check(args):
                    return
                step.signal.disconnect(fired)
                QTimer.singleShot(SETTLE_MSECS, lambda: advance(args))

            step.signal.connect(fired)
            step.action()
        except StopIteration:
            outcome["code"] = 0
            app.exit(0)
        except (RuntimeError, OSError, AttributeError, ValueError) as err:  # a failed step: say which
            fail(f"{type(err).__name__}: {err}")

    watchdog = QTimer()
    watchdog.setSingleShot(True)
    watchdog.timeout.connect(lambda: fail(f"gave up after {TIMEOUT_SECS} s"))
    watchdog.start(TIMEOUT_SECS * 1000)
    QTimer.singleShot(0, lambda: advance(None))  # type: ignore[arg-type]
    code = app.exec()
    return code or outcome["code"]


def _quantized(image: Any) -> Any:
    """``image`` in 256 colours: the most frequent ones that differ from each other, no dithering.

    A window has a few thousand colours, most of them shades at the edges of anti-aliased glyphs. Taking the
    most frequent colours but skipping near-duplicates (no channel more than 4 apart) keeps the small
    coloured marks (the tree's kind dots) exact; the PNG is about a third as large, and only a few hundred
    fringe pixels change visibly.
    """
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage

    rgb = image.convertToFormat(QImage.Format.Format_RGB32)
    table: list[tuple[int, int, int]] = []
    for colour, _count in Counter(memoryview(rgb.constBits()).cast("I")).most_common():
        red, green, blue = (colour >> 16) & 255, (colour >> 8) & 255, colour & 255
        if all(max(abs(red - r), abs(green - g), abs(blue - b)) > 4 for r, g, b in table):
            table.append((red, green, blue))
            if len(table) == 256:
                break
    colours = [0xFF000000 | (r << 16) | (g << 8) | b for r, g, b in table]
    return rgb.convertToFormat(QImage.Format.Format_Indexed8, colours, Qt.ImageConversionFlag.ThresholdDither)


# The sizes and themes every main view is shown in: a large desktop window and a small laptop one.
SIZES = ((1600, 1000), (1100, 680))
THEMES = ("light", "dark")
VIEWS = ("session", "search", "context", "branches")


def shot_name(view: str, size: tuple[int, int], theme: str) -> str:
    """``session.png`` for the large light window (the README's pictures); ``session-1100-dark.png`` etc."""
    suffix = "" if size == SIZES[0] else f"-{size[0]}"
    suffix += "" if theme == "light" else f"-{theme}"
    return f"{view}{suffix}.png"


def _scenario(window: Any, sessions: Path, outdir: Path) -> Generator[Wait, tuple, None]:
    """Every view in every size and theme; each ``yield`` waits for the window."""
    from PySide6.QtGui import QPalette

    yield Wait(window.catalogue.refresh_finished, check=lambda args: bool(args and args[0]))
    for theme in THEMES:
        window.view.set_theme(theme)
        yield Wait()  # the palette reaches the widgets through events
        dark = window.palette().color(QPalette.ColorRole.Window).lightness() < 128
        if dark != (theme == "dark"):
            raise RuntimeError(f"the {theme} theme did not apply")
        for size in SIZES:
            window.resize(*size)
            yield Wait()
            yield from _views(window, sessions, outdir, lambda view, s=size, t=theme: shot_name(view, s, t))

    # A damaged copy and a session pasting credentials, for the Problems panel and the export dialog.
    _add_extra_sessions(sessions)
    yield Wait(window.catalogue.refresh_finished, window.catalogue.refresh, check=lambda args: bool(args[0]))
    if window.list_model.row_of(str(sessions / SECRETS)) < 0:
        yield Wait(window.catalogue.refresh_finished, window.catalogue.refresh)
    for theme in THEMES:
        window.view.set_theme(theme)
        yield Wait()
        for size in SIZES:
            window.resize(*size)
            yield Wait()
            yield from _more_views(
                window, sessions, outdir, size, lambda view, s=size, t=theme: shot_name(view, s, t)
            )
        yield from _dialogs(window, sessions, outdir, lambda view, t=theme: shot_name(view, SIZES[0], t))
    window.view.set_theme("system")  # not remembered: the settings folder is a temporary one


def _add_extra_sessions(sessions: Path) -> None:
    """Two small sessions (no usage recorded): one with a line cut short, one pasting credentials (fakes)."""
    import json

    def message(prefix: str, number: int, role: str, text: str) -> dict[str, object]:
        moment = f"2026-03-06T18:{number:02d}:00.000Z"
        body = {
            "role": role,
            "content": [{"type": "text", "text": text}],
            "timestamp": 1772820000000 + number,
        }
        parent = f"{prefix}{number - 1:06d}" if number > 1 else None
        return {
            "type": "message",
            "id": f"{prefix}{number:06d}",
            "parentId": parent,
            "timestamp": moment,
            "message": body,
        }

    def header(session_id: str, cwd: str) -> dict[str, object]:
        return {
            "type": "session",
            "version": 3,
            "id": session_id,
            "timestamp": "2026-03-06T18:00:00.000Z",
            "cwd": cwd,
        }

    def lines(entries: list[dict[str, object]]) -> list[bytes]:
        return [json.dumps(entry).encode() + b"\n" for entry in entries]

    damaged = lines(
        [
            header("019cc5a9-7c3e-7000-8000-da4a9ed00001", "/home/dev/config-service"),
            message("c0", 1, "user", "The config loader crashes on an empty YAML file. Can you find why?"),
            message(
                "c0",
                2,
                "assistant",
                "It calls `.items()` on what `yaml.safe_load` returns, which is None here.",
            ),
            message("c0", 3, "user", "Make it treat an empty file as an empty mapping."),
            message("c0", 4, "assistant", "Done: `load()` now returns `{}` for an empty file, with a test."),
        ]
    )
    damaged.insert(3, damaged[3][: len(damaged[3]) // 2] + b"\n")  # a line cut short: a write interrupted
    (sessions / DAMAGED).write_bytes(b"".join(damaged))
    token = "ghp_" + "Zq8Rk2Lm4Np6Tx9Vb3Cd5Fg7Hj1Kw0Ys2Ue4"  # fakes, as the tests use
    said = f"It reads GITHUB_TOKEN={token}, AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLQ and "
    said += "DATABASE_URL=postgres://deploy:S3cr3tP4ssw0rd@db.example.com/app from the shell."
    secrets = [
        header("019cc5aa-0d1e-7000-8000-5ec7e75e0001", "/home/dev/deploy-scripts"),
        message("d0", 1, "user", "Why does the deploy script fail on the staging server?"),
        message("d0", 2, "assistant", "Which credentials does it read, and from where?"),
        message("d0", 3, "user", said),
    ]
    (sessions / SECRETS).write_bytes(b"".join(lines(secrets)))


def _more_views(
    window: Any, sessions: Path, outdir: Path, size: tuple[int, int], name: Callable[[str], str]
) -> Generator[Wait, tuple, None]:
    """The Problems panel, the diff window and the Usage window at one size."""
    # (5) a damaged file open: the Problems panel, as tall as its rows
    source = window.list_model.index_of(str(sessions / DAMAGED))
    if not source.isValid():
        raise RuntimeError(f"{DAMAGED} is not in the session list")
    row = window.proxy.mapFromSource(source).row()
    if window.opened.session is None or window.opened.session.path != str(sessions / DAMAGED):
        yield Wait(window.context.session_loaded, lambda: window.table.selectRow(row))
    if not window.diagnostics_panel.isVisible():
        raise RuntimeError("the Problems panel is not shown for the damaged session")
    yield Wait()
    _clear_status(window, sessions)
    _save(window, outdir / name("problems"))

    # (6) two branches side by side
    path = str(sessions / BRANCHES)
    yield Wait(
        window.diff_controller.diff_opened,
        lambda: window.diff_controller.compare(path, BRANCH_A_LEAF, path, BRANCH_C_LEAF),
    )
    view = window.diff_controller.windows[-1]
    view.resize(*size)
    yield Wait()
    _save(view, outdir / name("diff-window"))
    view.close()

    # (7) the Usage window (its figures are drawn once; shown again it keeps them)
    if window.usage.window is None:
        yield Wait(window.usage.figures_shown, window.usage.show_window)
    else:
        yield Wait(None, window.usage.show_window)
    usage = window.usage.window
    usage.resize(*size)
    yield Wait()
    _save(usage, outdir / name("usage"))
    usage.close()


def _dialogs(
    window: Any, sessions: Path, outdir: Path, name: Callable[[str], str]
) -> Generator[Wait, tuple, None]:
    """The export dialog on the session holding credentials, and Preferences, at their own sizes."""
    source = window.list_model.index_of(str(sessions / SECRETS))
    if not source.isValid():
        raise RuntimeError(f"{SECRETS} is not in the session list")
    row = window.proxy.mapFromSource(source).row()
    if window.opened.session is None or window.opened.session.path != str(sessions / SECRETS):
        yield Wait(window.context.session_loaded, lambda: window.table.selectRow(row))
    holder: list[Any] = []
    yield Wait(None, lambda: holder.append(window.export_controller.open_dialog()))
    dialog = holder[0]
    if dialog.last_counts is None:
        yield Wait(dialog.preview_ready)
    dialog.target_edit.setText("/home/you/exports/why-does-the-deploy-script-fail.md")  # not the run's folder
    yield Wait()
    _save(dialog, outdir / name("export-dialog"))
    dialog.reject()

    preferences = window.resume.edit_preferences()
    # A user's defaults, not this run's temporary folder.
    preferences.set_folders([Path("/home/you/.prime/agent/sessions"), Path("/home/you/.pi/agent/sessions")])
    yield Wait()
    _save(preferences, outdir / name("preferences"))
    preferences.reject()


def _clear_status(window: Any, sessions: Path) -> None:
    bar = window.statusBar()
    if str(sessions.parent) in bar.currentMessage():
        bar.clearMessage()  # "31 entries in /tmp/prime-screenshots-XXXX/...": noise in a picture


def _save(widget: Any, path: Path) -> None:
    """``widget`` as a PNG at ``path`` (in 256 colours when large)."""
    image = widget.grab().toImage()
    if (image.width(), image.height()) != (widget.width(), widget.height()) or image.isNull():
        raise RuntimeError(f"the grab of {path.name} is {image.width()}x{image.height()}")
    if not image.save(str(path), "PNG"):
        raise OSError(f"cannot write {path}")
    if path.stat().st_size > MAX_PNG_BYTES and not _quantized(image).save(str(path), "PNG"):
        raise OSError(f"cannot write {path}")
    size = f"{image.width()}x{image.height()}, {path.stat().st_size // 1024} KB"
    print(f"screenshots: wrote {path} ({size})")


def _views(
    window: Any, sessions: Path, outdir: Path, name: Callable[[str], str]
) -> Generator[Wait, tuple, None]:
    """The five main views, one screenshot each."""

    def save(view: str) -> None:
        _clear_status(window, sessions)
        _save(window, outdir / name(view))

    def select_session(file_name: str) -> Callable[[], None]:
        def action() -> None:
            source = window.list_model.index_of(str(sessions / file_name))
            if not source.isValid():
                raise RuntimeError(f"{file_name} is not in the session list")
            window.table.selectRow(window.proxy.mapFromSource(source).row())

        return action

    def select_entry(entry_id: str) -> None:
        if not window.opened.select_entry(entry_id):
            raise RuntimeError(f"entry {entry_id} is not in the tree")

    def open_session(file_name: str) -> Wait:
        current = window.opened.session.path if window.opened.session is not None else None
        if current == os.path.abspath(sessions / file_name):
            return Wait(None, select_session(file_name))
        return Wait(window.context.session_loaded, select_session(file_name))

    # (1) a session with an assistant message that calls a tool
    window.filter_mode.set_mode("default")
    yield open_session(LINEAR)
    yield Wait(None, lambda: select_entry(LINEAR_EDIT_CALL))
    save("session")

    # (2) a full-text search; the first hit opened (the hit list made taller, as a user would drag it)
    list_sizes = window.left_splitter.sizes()
    hits_height = min(430, sum(list_sizes) // 2)
    window.left_splitter.setSizes([sum(list_sizes) - hits_height, hits_height])
    yield Wait(
        window.catalogue.search_finished,
        lambda: window.catalogue.search(SEARCH_WORD),
        check=lambda a: a[0] > 0,
    )
    hit = window.search_panel.hit_at(0)
    current = window.opened.session.path if window.opened.session is not None else None
    if current != os.path.abspath(hit.path):
        yield Wait(window.context.session_loaded, lambda: window.search_panel.activate(0))
    else:
        yield Wait(None, lambda: window.search_panel.activate(0))
    window.search_panel.results.setFocus()
    yield Wait()
    save("search")
    window.left_splitter.setSizes(list_sizes)
    window.search_edit.clear()  # the next pictures show one thing each
    window.search_panel.clear_hits()

    # (3) what the model saw at the leaf of the compaction session
    yield open_session(COMPACTION)
    yield Wait(window.messages.context_shown, lambda: window.context_toggle.setChecked(True))
    window.transcript.go_home()  # the top: the compaction summary, then what was kept
    yield Wait()
    save("context")
    window.context_toggle.setChecked(False)

    # (4) the branches session, every entry shown: the branch point and its three branches; the
    # transcript at the branch point, its switcher ("1 of 3") at the top
    yield open_session(BRANCHES)
    window.filter_mode.set_mode("all")
    window.tree.expandAll()
    yield Wait(None, lambda: select_entry(BRANCH_POINT))
    yield Wait()
    save("branches")
    window.filter_mode.set_mode("default")

    # (5) find in session: every match on the path marked, the current one stronger, "n of N"
    yield open_session(LINEAR)
    find = window.messages.find
    yield Wait(None, lambda: (find.open(), find.find_bar.open(FIND_WORD), find.query(FIND_WORD)))
    for _ in range(200):  # the count runs in a worker; the first match is gone to when it ends
        if window.transcript.marks.complete and window.transcript.marks.current is not None:
            break
        yield Wait()
    save("find")
    find.close()


def main(argv: list[str] | None = None) -> int:
    """Write the screenshots to the folder given on the command line; the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python packaging/screenshots.py OUTDIR", file=sys.stderr)
        return 2
    if not os.environ.get("DISPLAY") and not os.environ.get("QT_QPA_PLATFORM"):
        return _under_xvfb(args)
    outdir = Path(args[0]).resolve()
    outdir.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="prime-screenshots-") as tmp_name:
        tmp = Path(tmp_name)
        sessions = _isolate(tmp)
        sys.path.insert(0, str(REPO))

        from PySide6.QtCore import QCoreApplication, QSettings
        from PySide6.QtWidgets import QApplication

        from gui.main_window import MainWindow
        from gui.settings import APPLICATION, ORGANIZATION

        for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
            QSettings.setPath(fmt, QSettings.Scope.UserScope, str(tmp / "config"))
        QCoreApplication.setOrganizationName(ORGANIZATION)
        QCoreApplication.setApplicationName(APPLICATION)
        app = QApplication([sys.argv[0]])
        app.setStyle("Fusion")  # the same look on every desktop
        window = MainWindow(roots=[sessions], catalogue_dir=tmp / "catalogue")
        window.show()
        code = _run(app, _scenario(window, sessions, outdir))
        window.close()
        del window
        return code


if __name__ == "__main__":
    sys.exit(main())
