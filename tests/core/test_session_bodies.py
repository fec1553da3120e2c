"""Session.bodies with kept bodies: the objects parsed while loading, handed over once."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.session import load_session
from tests.conftest import DEMO, SAMPLES

ALL_SESSION_FILES = sorted(SAMPLES.rglob("*.jsonl")) + sorted(DEMO.glob("*.jsonl"))


@pytest.mark.parametrize("path", ALL_SESSION_FILES, ids=lambda p: p.name)
def test_kept_bodies_are_the_bodies_read_from_disk_and_are_handed_over_once(path: Path) -> None:
    plain = load_session(path, checksum=False)
    keeping = load_session(path, checksum=False, keep_bodies=True)
    entries = keeping.entries
    want = list(plain.bodies(plain.entries))
    assert list(keeping.bodies(entries)) == want  # legacy migrations included
    assert not keeping._kept  # every kept object was handed over, none is held any longer
    assert list(keeping.bodies(entries)) == want  # asked again: read from disk
    # A mixed request: some kept, then one already handed over, then kept ones again.
    again = load_session(path, checksum=False, keep_bodies=True)
    if len(entries) >= 3:
        first = list(again.bodies(entries[:1]))
        order = [entries[1], entries[0], entries[2], entries[1]]
        by_line = {e.line: body for e, body in zip(plain.entries, want, strict=True)}
        assert first == [by_line[entries[0].line]]
        assert list(again.bodies(order)) == [by_line[e.line] for e in order]


@pytest.mark.parametrize("path", ALL_SESSION_FILES[-3:], ids=lambda p: p.name)
def test_only_the_first_bytes_of_lines_are_kept_and_the_rest_read_again(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """keep_bodies keeps the objects of the first KEPT_BYTES of lines: a million entries held 850 MB."""
    import core.session.indexing as indexing

    plain = load_session(path, checksum=False)
    want = list(plain.bodies(plain.entries))
    budget = sum(entry.length for entry in plain.entries[:3])
    monkeypatch.setattr(indexing, "KEPT_BYTES", budget)
    keeping = load_session(path, checksum=False, keep_bodies=True)
    assert sorted(keeping._kept or {}) == [entry.line for entry in plain.entries[:3]]
    assert list(keeping.bodies(keeping.entries)) == want  # the first three kept, the rest from disk
    assert not keeping._kept
