"""Files other people published (``shared/corpus/wild``): read as both references read them, at every leaf.

Both references (0.73.1 and 1.6.0) run through the oracle; where they agree, our context equals
theirs at the default leaf, the null leaf and every tree leaf. Two kinds of file get a documented
answer of their own instead:

* Prime Agent's files: the spec wins where pi ignores ``child_usage_attributed`` (the corpus README),
  so their reference is the oracle with Prime Agent's load-time attribution applied first.
* Entries without ids in a versioned file: pi gives them all one empty id and shows only the last;
  we keep every entry visible, chained, and the ``missing-id`` diagnostic says what pi does.

Every file of ``corpus/wild`` and ``samples-latest`` also goes through ``check``, ``tree``,
``context`` and ``show`` without an internal error, and is left byte for byte as it was.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from core import load_session
from core.cli.program import main
from core.session import Flavour
from tests.conftest import SHARED
from tests.core.test_conformance_latest import LATEST, assert_same_contexts, our_contexts, reference_contexts

WILD = SHARED / "corpus" / "wild"
WILD_FILES = sorted(WILD.glob("*.jsonl"))
PRIME_AGENT_FILES = {"fx-primeagent-scorecard.jsonl", "real-primeagent-attribution-captured.jsonl"}
ID_LESS_FILES = {"fx-pidoctor.jsonl"}  # a v3 fixture whose entries have no ids


def test_the_corpus_is_all_here_and_each_file_has_the_flavour_of_who_wrote_it() -> None:
    assert len(WILD_FILES) == 16
    for path in WILD_FILES:
        flavour = load_session(path).flavour
        assert flavour is (Flavour.PRIME_AGENT if path.name in PRIME_AGENT_FILES else Flavour.PI_0), path.name


def test_every_leaf_equals_both_references_where_they_agree(oracle_dir: Path) -> None:
    old = reference_contexts(oracle_dir, WILD_FILES, "0.73")
    new = reference_contexts(oracle_dir, WILD_FILES, "latest")
    compared = 0
    for path in WILD_FILES:
        if path.name in PRIME_AGENT_FILES | ID_LESS_FILES:
            continue
        session = load_session(path)
        a, b = old[str(path)], new[str(path)]
        agreed = {k: v for k, v in a["contexts"].items() if b["contexts"].get(k) == v}  # type: ignore[union-attr]
        # Where they differ, the file's flavour says whose answer it gets (none differ in this corpus).
        own = b if session.flavour is Flavour.PI_1 else a
        disputed = {k: v for k, v in own["contexts"].items() if k not in agreed}  # type: ignore[union-attr]
        compared += assert_same_contexts(session, {**a, "contexts": {**agreed, **disputed}}, path.name)
    assert compared >= 35


def test_prime_agent_files_equal_the_reference_with_child_usage_applied_on_load(oracle_dir: Path) -> None:
    files = [WILD / name for name in sorted(PRIME_AGENT_FILES)]
    plain = reference_contexts(oracle_dir, files, "0.73")
    attributed = reference_contexts(oracle_dir, files, "0.73", attribute=True)
    assert plain != attributed  # the attribution changes what both files show
    for path in files:
        session = load_session(path)
        assert_same_contexts(session, attributed[str(path)], path.name)
        assert our_contexts(session, ["default"])["default"] != plain[str(path)]["contexts"]["default"]  # type: ignore[index]


def test_entries_without_ids_stay_visible_where_pi_shows_only_the_last(oracle_dir: Path) -> None:
    path = WILD / "fx-pidoctor.jsonl"
    session = load_session(path)
    reference = reference_contexts(oracle_dir, [path], "latest")[str(path)]
    assert len(reference["contexts"]["default"]["messages"]) == 1  # type: ignore[index]
    ours = our_contexts(session, ["default"])["default"]
    assert len(ours["messages"]) == len(session.entries) == 15  # type: ignore[arg-type]
    missing = [d for d in session.diagnostics if d.kind == "missing-id"]
    assert len(missing) == 15 and all("shows only the last" in d.message for d in missing)


READ_FILES = WILD_FILES + sorted(LATEST.rglob("*.jsonl"))


@pytest.mark.parametrize("path", READ_FILES, ids=[p.name[:40] for p in READ_FILES])
def test_reading_commands_finish_and_leave_the_file_as_it_was(
    path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRIME_SESSIONS_DEBUG", "1")  # an internal error raises here instead of printing
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    mtime = path.stat().st_mtime_ns
    for command in (["check", "-v"], ["tree"], ["tree", "--json"], ["context"], ["show"]):
        status = main([*command, str(path)])
        assert status in ((0, 1) if command[0] == "check" else (0,)), command
    out, err = capsys.readouterr()
    assert out and err == ""
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert path.stat().st_mtime_ns == mtime
