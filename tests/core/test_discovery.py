"""Where sessions are looked for, and which files are found."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from core import default_roots, find_session_files, load_session
from tests.conftest import SAMPLES


def test_default_roots_cover_prime_and_pi_layouts() -> None:
    roots = default_roots({"HOME": "/home/u"})
    assert roots == [Path("/home/u/.prime/agent/sessions"), Path("/home/u/.pi/agent/sessions")]


def test_pi_environment_variables_are_honoured() -> None:
    env = {"HOME": "/home/u", "PI_CODING_AGENT_DIR": "/opt/pi", "PI_CODING_AGENT_SESSION_DIR": "/data/flat"}
    assert default_roots(env) == [
        Path("/home/u/.prime/agent/sessions"),
        Path("/data/flat"),
        Path("/opt/pi/sessions"),
    ]


def test_prime_agent_dir_overrides_everything() -> None:
    env = {"HOME": "/home/u", "PRIME_AGENT_DIR": "/srv/prime", "PI_CODING_AGENT_DIR": "/opt/pi"}
    assert default_roots(env) == [Path("/srv/prime/sessions")]


def test_finds_flat_files_and_one_level_of_project_folders(tmp_path: Path) -> None:
    shutil.copytree(SAMPLES / "pi-layout" / "sessions", tmp_path / "root")
    flat = next((SAMPLES / "spec-layout").glob("*.jsonl"))
    shutil.copy(flat, tmp_path / "root" / flat.name)  # a root-level file (Prime Agent layout)
    deep = tmp_path / "root" / "--a--" / "nested"
    deep.mkdir(parents=True)
    shutil.copy(flat, deep / "too-deep.jsonl")  # two levels down: not a session location
    (tmp_path / "root" / "notes.txt").write_text("not a session")
    found = find_session_files(tmp_path / "root")
    names = [p.name for p in found]
    assert flat.name in names
    assert "too-deep.jsonl" not in names
    assert len(found) == 9 + 1
    assert found == sorted(found)


def test_symlinked_project_folder_is_followed(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    shutil.copytree(SAMPLES / "pi-layout" / "sessions" / "--home-dev-legacy--", real)
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(real, root / "--home-dev-legacy--")
    assert len(find_session_files(root)) == 2


def test_missing_root_and_single_file(tmp_path: Path) -> None:
    assert find_session_files(tmp_path / "nope") == []
    one = next((SAMPLES / "spec-layout").glob("*.jsonl"))
    assert find_session_files(one) == [one]


def test_sessions_are_identified_by_header_not_file_name(tmp_path: Path) -> None:
    source = next((SAMPLES / "spec-layout").glob("*.jsonl"))
    renamed = tmp_path / "whatever-name.jsonl"
    shutil.copy(source, renamed)
    assert load_session(renamed).session_id == load_session(source).session_id == source.stem
