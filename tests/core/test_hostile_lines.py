"""Malformed lines from outside (issue 15) through the whole command line: one bad line costs only itself.

Each case is a line an outside audit fed the CLI that crashed it: a ``type`` that is a list or an
object, ids holding half a surrogate pair. Every reading command must finish without an internal
error, list the session, and leave the file as it was.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import orjson
import pytest

from tests.conftest import SAMPLES
from tests.helpers import run_cli

LINEAR = (
    SAMPLES
    / "pi-layout"
    / "sessions"
    / "--home-dev-acme-webapp--"
    / "2026-03-02T09-14-07-122Z_019cadd3-8790-713f-9a8d-f2ee097914b9.jsonl"
)
LINES = LINEAR.read_bytes()[:-1].split(b"\n")
SESSION_ID = "019cadd3-8790-713f-9a8d-f2ee097914b9"
LEAF = "8721c1f9"


def _relinked(line: bytes, **changes: object) -> bytes:
    obj = orjson.loads(line)
    obj.update(changes)
    return orjson.dumps(obj)


def _no_internal_error(result: subprocess.CompletedProcess[str]) -> None:
    assert "internal error" not in result.stderr, result.stderr
    assert "Traceback" not in result.stderr, result.stderr


def _odd_type_file(folder: Path, odd: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    bad = _relinked(LINES[31], id="odd00001", parentId=LEAF).replace(b'"type":"message"', b'"type":' + odd, 1)
    path = folder / "odd.jsonl"
    path.write_bytes(b"\n".join([*LINES, bad]) + b"\n")
    return path


@pytest.mark.parametrize("odd", [b"[]", b'{"a":[1]}'], ids=["list", "object"])
def test_a_type_that_is_not_text_does_not_stop_any_reading_command(tmp_path: Path, odd: bytes) -> None:
    path = _odd_type_file(tmp_path / "sessions", odd)
    before = path.read_bytes()
    check = run_cli("check", path)
    _no_internal_error(check)
    assert check.returncode == 1  # a damaged line is a problem, reported with its line number
    assert f"{path}:33: warning invalid-field" in check.stdout
    for command in (["show"], ["tree"], ["tree", "--json"], ["context"]):
        result = run_cli(*command, path)
        _no_internal_error(result)
        assert result.returncode == 0, (command, result.stderr)
    assert "odd00001" in run_cli("tree", path).stdout
    catalogue = tmp_path / "catalogue"
    index = run_cli("index", tmp_path / "sessions", "--catalogue", catalogue)
    _no_internal_error(index)
    assert index.returncode == 0, index.stderr
    for extra in ([], ["--no-catalogue"]):
        listed = run_cli("list", tmp_path / "sessions", "--json", "--catalogue", catalogue, *extra)
        _no_internal_error(listed)
        assert [s["id"] for s in json.loads(listed.stdout)] == [SESSION_ID]
    assert path.read_bytes() == before


def test_lone_surrogates_in_ids_do_not_stop_any_reading_command(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    header = LINES[0].replace(SESSION_ID.encode(), b"s\\ud800", 1)
    idless = orjson.loads(LINES[1])
    del idless["id"], idless["parentId"]
    odd = LINES[2].replace(b'"id":"', b'"id":"\\udc00', 1)
    path = folder / "surrogates.jsonl"
    path.write_bytes(b"\n".join([header, orjson.dumps(idless), odd, *LINES[3:]]) + b"\n")
    before = path.read_bytes()
    for command in (["check"], ["show"], ["tree"], ["tree", "--json"], ["context"]):
        result = run_cli(*command, path)
        _no_internal_error(result)
        assert result.returncode in (0, 1), (command, result.stderr)
    # Printed as the escapes, as JSON.stringify writes them.
    assert "Session   s\\ud800" in run_cli("show", path).stdout
    assert "\\udc00" in run_cli("tree", path).stdout
    listed = run_cli("list", folder, "--json", "--catalogue", tmp_path / "catalogue")
    _no_internal_error(listed)
    assert len(json.loads(listed.stdout)) == 1
    assert path.read_bytes() == before
