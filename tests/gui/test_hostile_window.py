"""The window over sessions holding hostile values and names (issue 29): nothing blanks it.

A value nested 1,000 levels deep in a header showed 0 sessions; an integer of 2**63 in a usage counter
left the list blank; a time of year 33,658 stopped the Usage window for every session; a file whose
name is not UTF-8 was missing; a folder linked into itself listed every session twice. Here all of them
are in one folder: every session is listed once, the hostile one opens with its problems listed, and the
Usage window shows the figures, saying what it left off the days.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.export.markdown import session_to_markdown
from core.session import load_session
from gui.main_window import MainWindow
from gui.pdf_export import markdown_to_pdf
from tests.core.hostile_sessions import demo_folder, nested, session_bytes
from tests.gui.windows import TIMEOUT, make_window, open_session


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    folder = demo_folder(tmp_path / "sessions")
    (folder / "loop").symlink_to(".")
    os.rename(folder / "019cb402-3c88-737c-a54e-8f5201941e04.jsonl", folder / os.fsdecode(b"caf\xe9.jsonl"))
    data = session_bytes(
        "header.extra",
        nested(1000),
        ("assistant.lookup-arguments", b'{"q":' + nested(1000) + b"}"),
        ("assistant.input", b"9223372036854775808"),
        ("branch.entry-timestamp", b"1e15"),
    )
    (folder / "hostile.jsonl").write_bytes(data)
    return folder


def test_every_session_is_listed_once_and_the_hostile_one_opens(qtbot, hostile: Path, tmp_path: Path) -> None:
    window: MainWindow = make_window(qtbot, [hostile], tmp_path / "catalogue")
    qtbot.waitUntil(lambda: window.list_model.rowCount() == 8, timeout=TIMEOUT)
    paths = sorted(window.proxy.summary_at(r).path for r in range(window.proxy.rowCount()))
    assert len(paths) == 8 and not any("/loop/" in p for p in paths)
    assert str(hostile / os.fsdecode(b"caf\xe9.jsonl")) in paths
    open_session(qtbot, window, hostile / "hostile.jsonl")
    assert window.tree_model.rowCount() > 0
    kinds = {d.kind for d in window.diagnostics_panel.diagnostics}
    assert "deep-value" in kinds  # the header's value, folded


def test_the_usage_window_shows_the_figures_and_what_is_on_no_day(
    qtbot, hostile: Path, tmp_path: Path
) -> None:
    window: MainWindow = make_window(qtbot, [hostile], tmp_path / "catalogue")
    with qtbot.waitSignal(window.usage.figures_shown, timeout=TIMEOUT):
        usage = window.usage.show_window()
    figures = usage.figures
    assert figures is not None and figures.undated is not None
    assert figures.totals.sessions == 8
    assert figures.undated.total_cost == pytest.approx(0.0015)
    assert "dated outside the years 1 to 9999 is on no day" in usage.status.text()
    assert sum(row.total_cost for row in figures.days) == pytest.approx(figures.totals.total_cost - 0.0015)


def test_the_pdf_of_a_deep_session_is_written(qapp, hostile: Path) -> None:
    session = load_session(hostile / "hostile.jsonl", checksum=False)
    markdown = session_to_markdown(session, whole_tree=True).text
    assert "nested more than 100 levels deep: folded" in markdown
    assert markdown_to_pdf(markdown, "Deep").startswith(b"%PDF-")
