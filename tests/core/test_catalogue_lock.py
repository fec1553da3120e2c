"""A catalogue another process holds (issue 29): said at once; ``list`` reads the files, ``search`` waits."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.catalogue import Catalogue, CatalogueBusyError
from tests.conftest import SHARED
from tests.helpers import REPO, run_cli

SAMPLES = SHARED / "reference" / "samples" / "pi-layout" / "sessions" / "--home-dev-acme-webapp--"
BUSY = "Another process (another Prime Sessions window or command) is updating the catalogue"

# Another process holding the catalogue: ``write`` as another Prime Sessions pass does (a write
# transaction: readers go on, writers wait), ``all`` in SQLite's exclusive locking mode (readers wait too).
HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "all":
    conn.execute("PRAGMA locking_mode=EXCLUSIVE")
conn.execute("BEGIN IMMEDIATE")
conn.execute("CREATE TABLE IF NOT EXISTS held(x)")  # a write: the exclusive mode takes its lock now
print("held", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


@contextmanager
def held(catalogue: Path, mode: str) -> Iterator[subprocess.Popen[str]]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(catalogue / "catalogue.sqlite3"), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield holder
    finally:
        if holder.poll() is None:
            holder.communicate("\n", timeout=60)


@pytest.fixture
def catalogued(tmp_path: Path) -> tuple[Path, Path]:
    """A folder of four sessions and a catalogue of them; then the sessions change (a pass has work)."""
    sessions = tmp_path / "sessions" / "--w--"
    sessions.mkdir(parents=True)
    for file in SAMPLES.glob("*.jsonl"):
        shutil.copy(file, sessions / file.name)
    catalogue = tmp_path / "catalogue"
    first = Catalogue(catalogue)
    first.refresh([sessions.parent])
    first.close()
    for file in sessions.iterdir():
        file.write_bytes(file.read_bytes())  # touched: the next pass reads them again
    return sessions.parent, catalogue


@pytest.mark.parametrize("mode", ["write", "all"])
def test_list_says_at_once_that_another_process_holds_it_and_reads_the_files(
    catalogued: tuple[Path, Path], mode: str
) -> None:
    roots, catalogue = catalogued
    with held(catalogue, mode):
        result = run_cli("list", "--catalogue", str(catalogue), str(roots), "--json")
    assert result.returncode == 0
    assert BUSY in result.stderr
    assert "Reading the session files directly instead." in result.stderr
    assert "locked" not in result.stderr  # SQLite's words are not the user's
    assert len(json.loads(result.stdout)) == 4


def test_search_waits_with_a_note_and_searches_once_the_other_process_lets_go(
    catalogued: tuple[Path, Path],
) -> None:
    roots, catalogue = catalogued
    with held(catalogue, "write") as holder:
        search = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "core.cli",
                "search",
                "--catalogue",
                str(catalogue),
                "approach",
                str(roots),
            ],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert search.stderr is not None
        note = search.stderr.readline()  # before the other process lets go: the search says it waits
        assert "is updating the catalogue" in note and "Waiting for it (up to 60 s)" in note
        holder.communicate("\n", timeout=60)
        out, _err = search.communicate(timeout=120)
    assert search.returncode == 0
    assert "«approach»" in out


def test_the_catalogue_says_who_holds_it_in_one_sentence(catalogued: tuple[Path, Path]) -> None:
    roots, catalogue = catalogued
    with held(catalogue, "write"):
        quick = Catalogue(catalogue, lock_wait=0.1)
        try:
            assert len(quick.summaries([roots])) == 4  # reading goes on while another process writes
            with pytest.raises(CatalogueBusyError, match=r"^Another process .* could not update it now\.$"):
                quick.refresh([roots])
        finally:
            quick.close()
    with held(catalogue, "all"), pytest.raises(CatalogueBusyError, match="cannot be opened now"):
        Catalogue(catalogue, lock_wait=0.1)
