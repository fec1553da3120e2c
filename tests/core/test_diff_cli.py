"""``prime-sessions diff``: formats, output files, a second session, and errors as one sentence."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from core.cli import main
from tests.core.test_diff import Builder, assistant, result, user

DEMO_BRANCHES = (
    Path(__file__).resolve().parents[2] / "resources" / "demo" / "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"
)


@pytest.fixture
def branched(tmp_path: Path) -> tuple[Path, str, str]:
    b = Builder()
    root = b.add(user("What is the answer?"))
    b.add(assistant("", [("read", {"path": "notes.md"})]))
    b.add(result("read", "42\n"))
    left = b.add(assistant("The answer is 42."))
    right = b.at(root).add(assistant("The answer is 43."))
    return b.write(tmp_path / "s.jsonl"), left, right


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_text_is_the_default(capsys, branched) -> None:
    path, left, right = branched
    status, out, err = run(capsys, "diff", str(path), left, right)
    assert status == 0 and err == ""
    assert f"--- left   {path} @ {left}" in out
    assert "Common part: 1 message up to" in out
    assert "- assistant: read notes.md" in out
    assert "~ assistant: The answer is 42." in out
    assert "The answer is [-42-]{+43+}." in out
    assert re.search(r"^tool calls +1 +0$", out, re.M)


def test_json_has_the_documented_shape(capsys, branched) -> None:
    path, left, right = branched
    status, out, _err = run(capsys, "diff", str(path), left, "leaf", "--format", "json")
    assert status == 0
    data = orjson.loads(out)
    assert (data["format"], data["version"]) == ("prime-sessions-diff", 1)
    assert data["left"]["entryId"] == left and data["right"]["entryId"] == right
    assert data["counts"] == {"same": 0, "changed": 1, "inserted": 0, "deleted": 2}
    assert [row["kind"] for row in data["rows"]] == ["deleted", "deleted", "changed"]
    changed = data["rows"][2]
    assert changed["sections"][0] == {
        "name": "text",
        "unit": "word",
        "ops": [["equal", "The answer is "], ["delete", "42"], ["insert", "43"], ["equal", "."]],
    }
    assert set(changed["left"]) >= {"entryId", "role", "text", "toolCalls", "model", "tokens", "cost"}


def test_html_to_a_file_refuses_to_overwrite_unless_forced(capsys, branched, tmp_path: Path) -> None:
    path, left, right = branched
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    out_file = tmp_path / "out" / "diff.html"
    out_file.parent.mkdir()
    status, out, _err = run(capsys, "diff", str(path), left, right, "--format", "html", "-o", str(out_file))
    assert status == 0 and out == ""
    page = out_file.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in page
    first = hashlib.sha256(out_file.read_bytes()).hexdigest()
    status, _out, err = run(capsys, "diff", str(path), left, right, "--format", "json", "-o", str(out_file))
    assert status == 1 and err.count("\n") == 1 and "already exists" in err
    assert hashlib.sha256(out_file.read_bytes()).hexdigest() == first
    status, _out, _err = run(
        capsys, "diff", str(path), left, right, "--format", "json", "-o", str(out_file), "--force"
    )
    assert status == 0 and orjson.loads(out_file.read_bytes())["format"] == "prime-sessions-diff"
    assert sorted(p.name for p in out_file.parent.iterdir()) == ["diff.html"]  # no temporary file left
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # the session file is never written


def test_other_file_compares_two_sessions(capsys, tmp_path: Path) -> None:
    one, two = Builder("aaaa-0001"), Builder("bbbb-0002")
    one.add(user("Hello"))
    one.add(assistant("Hi there"))
    two.add(user("Hello"))
    two.add(assistant("Hi there!"))
    first, second = one.write(tmp_path / "one.jsonl"), two.write(tmp_path / "two.jsonl")
    status, out, _err = run(
        capsys, "diff", str(first), "leaf", "leaf", "--other-file", str(second), "--format", "json"
    )
    assert status == 0
    data = orjson.loads(out)
    assert data["common"]["matchedBy"] == "content" and data["common"]["messages"] == 1
    assert data["left"]["file"] == str(first) and data["right"]["file"] == str(second)
    assert [row["kind"] for row in data["rows"]] == ["changed"]


def test_errors_are_one_sentence(capsys, branched, tmp_path: Path) -> None:
    path, left, _right = branched
    status, out, err = run(capsys, "diff", str(path), left, "nosuchid")
    assert status == 1 and out == "" and err == f"prime-sessions: There is no entry nosuchid in {path}.\n"
    status, _out, err = run(capsys, "diff", str(tmp_path / "missing.jsonl"), "a", "b")
    assert status == 1 and err.count("\n") == 1 and "does not exist" in err
    status, _out, err = run(capsys, "diff", str(path), left, left, "--format", "pdf")
    assert status == 2 and err.count("\n") == 1 and "invalid choice" in err
    status, _out, err = run(capsys, "diff", str(path), left)
    assert status == 2 and err.count("\n") == 1


def test_the_installed_command_on_the_demo(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("prime-sessions")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "core.cli"]
    done = subprocess.run(
        [*command, "diff", str(DEMO_BRANCHES), "ed797cc2", "leaf", "--format", "text"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Common part: 4 messages up to 21229440 (matched by tree)." in done.stdout
    assert "+ branch_summary:" in done.stdout
