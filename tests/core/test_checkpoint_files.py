"""A session file's name is a path, its header's id is the session id: Prime Agent's checkpoint files.

Prime Agent's ``writeCheckpointFile()`` names a new file by a new id; the file may keep the old session
id in its header (the manager rewrites it from the entries it holds, old header first), so two files
then hold one session id. The history here is the captured Prime Agent session of the wild corpus,
copied twice as that leaves it: the original and its checkpoint (same header, one entry more), both
under pi's ``<time>_<id>.jsonl`` names as a history moved between machines may be; and a fork of
each, made on the Prime Agent machine, whose ``parentSession`` is its parent's flat path there.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from core.catalogue import Catalogue
from core.diff import find_parent_file
from core.session import load_session
from core.session.lineage import parent_paths
from core.session.summary import SessionSummary
from tests.conftest import SHARED

CAPTURED = SHARED / "corpus" / "wild" / "real-primeagent-attribution-captured.jsonl"
OLD = "01a0a7d4-cdd9-7202-b7af-ccec8f0016d7"  # the captured session's id (its header's)
NEW = "01a0a7e2-41b9-7c05-a3d8-9b0e6f2c4d17"  # the checkpoint's file name's
FLAT = "/root/.prime/agent/sessions"  # where Prime Agent wrote them: <id>.jsonl


@pytest.fixture
def history(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "sessions" / "--root-.prime--"
    folder.mkdir(parents=True)
    original = Path(shutil.copyfile(CAPTURED, folder / f"2026-09-16T01-28-18-317Z_{OLD}.jsonl"))
    lines = CAPTURED.read_bytes().splitlines()
    last = json.loads(lines[-1])
    more = {**last, "id": "5b1fa003", "parentId": last["id"], "timestamp": "2026-09-16T01:40:00.000Z"}
    checkpoint = folder / f"2026-09-16T01-40-00-000Z_{NEW}.jsonl"
    checkpoint.write_bytes(b"\n".join([*lines, json.dumps(more).encode()]) + b"\n")
    assert json.loads(checkpoint.read_bytes().splitlines()[0])["id"] == OLD  # the header kept

    def fork(of: Path, name: str, fork_id: str) -> Path:
        parent_lines = of.read_bytes().splitlines()
        header = {**json.loads(parent_lines[0]), "id": fork_id, "parentSession": f"{FLAT}/{name}.jsonl"}
        tail = json.loads(parent_lines[-1])
        own = {
            **tail,
            "id": f"f-{fork_id[:8]}",
            "parentId": tail["id"],
            "timestamp": "2026-09-16T02:00:00.000Z",
        }
        path = folder / f"2026-09-16T02-00-00-000Z_{fork_id}.jsonl"
        path.write_bytes(
            b"\n".join([json.dumps(header).encode(), *parent_lines[1:], json.dumps(own).encode()]) + b"\n"
        )
        return path

    return {
        "original": original,
        "checkpoint": checkpoint,
        "fork of checkpoint": fork(checkpoint, NEW, "01a0a7f0-0000-7000-8000-00000000f0a1"),
        "fork of original": fork(original, OLD, "01a0a7f0-0000-7000-8000-00000000f0a2"),
    }


def _summaries(tmp_path: Path) -> tuple[Catalogue, list[SessionSummary]]:
    catalogue = Catalogue(tmp_path / "catalogue")
    catalogue.refresh([tmp_path / "sessions"])
    return catalogue, catalogue.summaries([tmp_path / "sessions"])


def test_both_files_of_one_session_id_are_listed(tmp_path: Path, history: dict[str, Path]) -> None:
    catalogue, summaries = _summaries(tmp_path)
    catalogue.close()
    by_path = {s.path: s for s in summaries}
    assert len(summaries) == 4
    assert by_path[str(history["original"])].id == by_path[str(history["checkpoint"])].id == OLD
    assert load_session(history["checkpoint"]).session_id == OLD  # the header's, not the name's


def test_forks_are_threaded_under_the_file_their_parent_path_names(
    tmp_path: Path, history: dict[str, Path]
) -> None:
    catalogue, summaries = _summaries(tmp_path)
    catalogue.close()
    parents = parent_paths(summaries)
    # The checkpoint's id is only in its file name; the original's is in its name and in two headers.
    assert parents[str(history["fork of checkpoint"])] == str(history["checkpoint"])
    assert parents[str(history["fork of original"])] == str(history["original"])
    assert str(history["checkpoint"]) not in parents  # a copy with no parentSession: no parent


def test_an_id_only_two_headers_share_decides_nothing(tmp_path: Path, history: dict[str, Path]) -> None:
    """A recorded name whose id no listed name carries, and two headers do: not guessed."""
    stray = history["fork of original"].parent / "2026-09-16T03-00-00-000Z_01a0a7f0-stray.jsonl"
    header = {**json.loads(CAPTURED.read_bytes().splitlines()[0]), "id": "01a0a7f0-stray"}
    stray.write_text(json.dumps({**header, "parentSession": f"/gone/{OLD}.jsonl"}) + "\n")
    history["original"].rename(history["original"].with_name("renamed-by-hand.jsonl"))
    catalogue, summaries = _summaries(tmp_path)
    catalogue.close()
    assert str(stray) not in parent_paths(summaries)  # the original and the checkpoint both say OLD


def test_compare_with_parent_finds_the_file_by_its_name_id(history: dict[str, Path]) -> None:
    for fork, parent in (("fork of checkpoint", "checkpoint"), ("fork of original", "original")):
        recorded = load_session(history[fork]).parent_session
        assert find_parent_file(str(history[fork]), recorded) == str(history[parent])


def test_a_forks_copies_of_a_checkpoint_are_counted_once(tmp_path: Path, history: dict[str, Path]) -> None:
    catalogue, _ = _summaries(tmp_path)
    try:
        cost: dict[str, float] = defaultdict(float)
        for record in catalogue.usage_records([tmp_path / "sessions"]):
            cost[record.path] += record.cost
    finally:
        catalogue.close()
    assert cost[str(history["checkpoint"])] == pytest.approx(0.0090, abs=5e-5)
    assert cost[str(history["fork of checkpoint"])] == 0  # it copied everything it records
