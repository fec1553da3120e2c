"""An export without ``--redact`` says on stderr which credentials it wrote as they are (issue 26, item 3).

The export still looks for credentials (a :class:`Redactor` that only reports), and its bytes are those of
an export that does not look.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from core.cli import main
from core.export import ExportOptions, render_export
from core.session import load_session
from tests.conftest import REPO
from tests.core.test_redact import FAKES

URL = "postgres://admin:S3cr3tP4ssw0rd@db.example.com:5432/app"
SECRETS = f"Deploy with {FAKES['github-token']}, key {FAKES['aws-key']} and {URL} please."
WARNING = (
    "Warning: 3 credentials written as is (1 aws-key, 1 github-token, 1 url-password); --redact replaces them"
)


def _message(number: int, parent: str | None, role: str, text: str) -> dict[str, object]:
    body: dict[str, object] = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 0}
    return {
        "type": "message",
        "id": f"{number:08x}",
        "parentId": parent,
        "timestamp": f"2026-05-04T10:0{number}:00.000Z",
        "message": body,
    }


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_secrets_session(tmp_path)


def write_secrets_session(tmp_path: Path) -> Path:
    """A user asks (no secret in the title), then pastes a GitHub token, an AWS key and a URL password."""
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "s-secrets",
            "timestamp": "2026-05-04T10:00:00.000Z",
            "cwd": "/w",
        },
        _message(1, None, "user", "Help me deploy the service"),
        _message(2, "00000001", "assistant", "Which credentials does it use?"),
        _message(3, "00000002", "user", SECRETS),
    ]
    path = tmp_path / "secrets.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_an_export_without_redaction_names_what_it_wrote_as_is(
    session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    target = tmp_path / f"out.{fmt}"
    assert main(["export", str(session), "-o", str(target)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"Wrote {target}", WARNING]
    assert FAKES["github-token"] in target.read_text()  # written as is: the user did not ask otherwise


def test_to_standard_output_too_and_never_with_redact(
    session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(session), "--format", "md", "-o", "-"]) == 0
    out, err = capsys.readouterr()
    assert FAKES["aws-key"] in out and err.splitlines() == [WARNING]
    assert main(["export", str(session), "--format", "md", "--redact", "-o", "-"]) == 0
    out, err = capsys.readouterr()
    assert FAKES["aws-key"] not in out and not any(line.startswith("Warning") for line in err.splitlines())
    assert err.startswith("Redacted: 1 aws-key, 1 github-token, 1 url-password")


def test_a_literal_redacted_still_warns_of_the_credentials_left(
    session: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(session), "--format", "md", "--redact-literal", "please", "-o", "-"]) == 0
    out, err = capsys.readouterr()
    assert "[REDACTED:literal]" in out and FAKES["github-token"] in out
    assert err.splitlines() == ["Redacted: 1 literal", WARNING]


def test_nothing_found_nothing_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "clean.jsonl"
    header = {
        "type": "session",
        "version": 3,
        "id": "s-clean",
        "timestamp": "2026-05-04T10:00:00.000Z",
        "cwd": "/",
    }
    path.write_bytes(orjson.dumps(header) + b"\n" + orjson.dumps(_message(1, None, "user", "hello")) + b"\n")
    assert main(["export", str(path), "--format", "md", "-o", "-"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_looking_changes_no_byte(session: Path, fmt: str) -> None:
    loaded = load_session(session, keep_bodies=True)
    for scope in ({}, {"whole_tree": True}):
        plain = render_export(loaded, fmt, ExportOptions(), **scope)
        looked = render_export(loaded, fmt, ExportOptions(), report_found=True, **scope)
        assert looked.data == plain.data
        assert sum(looked.found.values()) == 3 and not looked.counts and not plain.found


def test_as_a_whole_process(session: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "core.cli", "export", str(session), "-o", str(tmp_path / "p.md")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert result.returncode == 0 and result.stderr.splitlines()[-1] == WARNING, result.stderr
