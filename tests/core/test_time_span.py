"""Bookkeeping appended later (a label, a name) does not move a session's time span (issue 26, item 9).

A label added today to an October session turned its twenty minutes into "1242 h" in the diff summary,
and the "Last entry" of its export into today. Durations and first and last entries count the
conversation's entries only; the list's Modified never counted anything else.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from core.catalogue import Catalogue
from core.diff import diff_paths, diff_sessions
from core.export import ExportOptions, render_export
from core.kinds import kind_of
from core.session import load_session
from core.writing import fork_session
from tests.conftest import DEMO

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # 2026-03-02, about 20 minutes
BRANCHES = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"
LATER = "2027-10-20T08:00:00.000Z"  # "today": months after the conversation


def _append_later(path: Path, *, label_on: str | None = None, name: str | None = None) -> None:
    """Append a label (on ``label_on``) and a session name stamped :data:`LATER`, as the agent writes them."""
    session = load_session(path)
    parent = session.leaf_id
    lines = []
    if label_on is not None:
        lines.append(
            {
                "type": "label",
                "id": "l8r0bel1",
                "parentId": parent,
                "timestamp": LATER,
                "targetId": label_on,
                "label": "looked at again",
            }
        )
        parent = "l8r0bel1"
    if name is not None:
        lines.append(
            {"type": "session_info", "id": "l8r0name", "parentId": parent, "timestamp": LATER, "name": name}
        )
    with path.open("ab") as file:
        file.write(b"".join(orjson.dumps(line) + b"\n" for line in lines))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    target = tmp_path / "sessions"
    target.mkdir()
    for name in (LINEAR, BRANCHES):
        shutil.copy2(DEMO / name, target / name)
    return target


def test_bookkeeping_kinds_are_not_activity() -> None:
    session = load_session(DEMO / LINEAR)
    kinds = {kind_of(entry).name: kind_of(entry).activity for entry in session.entries}
    assert kinds["label"] is False and kinds["session_info"] is False
    assert kinds["user"] and kinds["assistant"] and kinds["toolResult"] and kinds["model_change"]


def test_a_label_added_later_does_not_stretch_a_branch_of_the_diff(folder: Path) -> None:
    path = folder / BRANCHES
    before = load_session(path)
    leaves = sorted({e.id for e in before.entries} - {e.parent_id for e in before.entries})
    left = next(leaf for leaf in leaves if leaf != before.leaf_id and before.get(leaf).role is not None)
    durations = diff_paths(before, left, before.leaf_id)
    _append_later(path, label_on=before.leaf_id, name="Caching, three ways")
    after = load_session(path)
    assert after.leaf_id == "l8r0name"  # the bookkeeping hangs off the leaf: it is on the compared path
    diff = diff_paths(after, left, after.leaf_id)
    assert diff.right.duration_ms == durations.right.duration_ms
    assert diff.right.duration_ms is not None and diff.right.duration_ms < 3600_000
    assert diff.left.duration_ms == durations.left.duration_ms


def test_a_fork_of_a_labelled_session_keeps_its_conversations_span(folder: Path) -> None:
    path = folder / LINEAR
    _append_later(path, label_on=load_session(path).leaf_id)
    parent = load_session(path)
    fork = load_session(fork_session(parent, parent.leaf_id, folder))
    diff = diff_sessions(parent, None, fork, None)
    assert diff.right.duration_ms is None or diff.right.duration_ms < 3600_000
    markdown = render_export(fork, "md", ExportOptions()).data.decode()
    assert "| Last entry | 2026-03-02 " in markdown, markdown[:1200]
    assert "2027-10-20" not in markdown.split("\n\n", 3)[1]  # the metadata table


def test_the_exports_first_and_last_entry_are_the_conversations(folder: Path) -> None:
    path = folder / LINEAR
    _append_later(path, label_on=load_session(path).leaf_id, name="Renamed much later")
    markdown = render_export(load_session(path), "md", ExportOptions()).data.decode()
    table = markdown.split("\n\n", 2)[1]
    assert "| First entry | 2026-03-02 09:" in table and "| Last entry | 2026-03-02 09:" in table, table
    assert "2027" not in table


def test_the_lists_modified_is_the_last_message_not_a_later_label(folder: Path, tmp_path: Path) -> None:
    catalogue = Catalogue(tmp_path / "catalogue")
    try:
        catalogue.refresh([folder])
        before = {s.path: s.modified for s in catalogue.summaries([folder])}
        _append_later(folder / LINEAR, label_on=load_session(folder / LINEAR).leaf_id, name="Later")
        catalogue.refresh([folder])
        after = {s.path: s.modified for s in catalogue.summaries([folder])}
    finally:
        catalogue.close()
    assert after == before and after[str(folder / LINEAR)].startswith("2026-03-02T09:")
