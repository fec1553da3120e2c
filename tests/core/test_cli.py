"""The command line, run as a user runs it: a subprocess, compared with the reference's own output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import EXPECTED, REPO, SAMPLES
from tests.helpers import run_cli

INDEX = json.loads((EXPECTED / "index.json").read_text())
PI = SAMPLES / "pi-layout" / "sessions"
LINEAR = (
    PI / "--home-dev-acme-webapp--" / "2026-03-02T09-14-07-122Z_019cadd3-8790-713f-9a8d-f2ee097914b9.jsonl"
)
BRANCHES = (
    PI / "--home-dev-acme-webapp--" / "2026-03-03T14-02-51-403Z_019cb402-3c88-7599-9816-357889a14de5.jsonl"
)
ALL_SAMPLES = sorted(SAMPLES.rglob("*.jsonl"))
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def run(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, timeout=timeout)


def assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def assert_one_line_error(result: subprocess.CompletedProcess[str], status: int, *phrases: str) -> str:
    assert result.returncode == status, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("prime-sessions: ")
    for phrase in phrases:
        assert phrase in lines[0]
    return lines[0]


def session_path(case: dict) -> Path:
    return (EXPECTED / case["session"]).resolve()


def expected(case: dict) -> dict:
    return json.loads((EXPECTED / case["expected"]).read_text())


CONTEXT_CASES = [c for c in INDEX["contexts"] if c["layout"] != "corpus"]
TREE_CASES = [c for c in CONTEXT_CASES if not c["cliArgs"] and c["versionOnDisk"] >= 2]


# ---------------------------------------------------------------------------- context
@pytest.mark.parametrize("case", CONTEXT_CASES, ids=[c["expected"] for c in CONTEXT_CASES])
def test_context_equals_the_reference(case: dict) -> None:
    result = run("context", session_path(case), *case["cliArgs"])
    assert_clean(result)
    ours = json.loads(result.stdout)
    want = expected(case)["context"]
    # The reference's three keys, and serviceTier (Prime Agent's, printed for every file) before model.
    assert list(ours) == ["messages", "thinkingLevel", "serviceTier", "model"]
    assert ours.pop("serviceTier") == "default"
    assert ours["messages"] == want["messages"]
    assert len(ours["messages"]) == want["messageCount"]
    if case["compare"] == "full":
        assert ours == {k: want[k] for k in ("messages", "thinkingLevel", "model")}


def test_context_leaf_null_is_empty() -> None:
    result = run("context", BRANCHES, "--leaf", "null")
    assert_clean(result)
    assert json.loads(result.stdout) == {
        "messages": [],
        "thinkingLevel": "off",
        "serviceTier": "default",
        "model": None,
    }


def test_an_unknown_leaf_falls_back_to_the_last_entry_like_the_reference() -> None:
    fallback = run("context", BRANCHES, "--leaf", "doesnotexist")
    default = run("context", BRANCHES)
    empty = run("context", BRANCHES, "--leaf", "")
    for result in (fallback, default, empty):
        assert_clean(result)
    assert json.loads(fallback.stdout) == json.loads(default.stdout) == json.loads(empty.stdout)
    want = json.loads((EXPECTED / "branches.leaf-missing.context.json").read_text())["context"]
    assert json.loads(fallback.stdout)["messages"] == want["messages"]


def test_context_output_is_one_message_per_line_utf8_json() -> None:
    # Streamed message by message, so a 20,000-message context is never held in memory whole.
    result = run("context", LINEAR)
    lines = result.stdout.split("\n")
    assert lines[0] == '{"messages": ['
    assert result.stdout.endswith("}\n")
    messages = json.loads(result.stdout)["messages"]
    assert len(lines) == len(messages) + 2
    assert [json.loads(line.rstrip(",")) for line in lines[1:-2]] == messages[:-1]


# ---------------------------------------------------------------------------- tree
@pytest.mark.parametrize("case", TREE_CASES, ids=[c["name"] + "-" + c["layout"] for c in TREE_CASES])
def test_tree_json_equals_the_reference(case: dict) -> None:
    result = run("tree", "--json", session_path(case))
    assert_clean(result)
    assert json.loads(result.stdout) == expected(case)["tree"]


def test_tree_text_marks_the_path_and_the_leaf() -> None:
    result = run("tree", BRANCHES, "--width", "40")
    assert_clean(result)
    lines = result.stdout.splitlines()
    assert len(lines) == 35
    leaf_lines = [line for line in lines if line.startswith("@")]
    assert len(leaf_lines) == 1 and leaf_lines[0].split()[1] == "c5a192f8"
    assert lines[-1].split()[1] == "c5a192f8"
    on_path = [line.split()[1] for line in lines if line.startswith(("*", "@"))]
    want = json.loads((EXPECTED / "branches.context.json").read_text())["branch"]
    assert on_path == want
    assert all(len(line) < 40 + 40 for line in lines)


# ---------------------------------------------------------------------------- list
LIST_FIELDS = [
    "path",
    "id",
    "cwd",
    "name",
    "parentSessionPath",
    "created",
    "modified",
    "messageCount",
    "firstMessage",
]


@pytest.mark.parametrize("case", INDEX["lists"], ids=[c["expected"] for c in INDEX["lists"]])
def test_list_json_has_the_reference_fields_and_values(case: dict) -> None:
    root = (EXPECTED / case["root"]).resolve()
    result = run("list", root, "--json")
    assert_clean(result)
    ours = json.loads(result.stdout)
    want = json.loads((EXPECTED / case["expected"]).read_text())["sessions"]
    assert len(ours) == len(want) == case["sessions"]
    for row in ours:
        assert list(row)[: len(LIST_FIELDS)] == LIST_FIELDS
    prefix = case["pathPrefix"]
    shown = [prefix + row["path"][len(str(root)) :] for row in ours]
    assert shown == [row["path"] for row in want]  # newest first, as the reference sorts
    for row, reference in zip(ours, want, strict=True):
        assert {k: row[k] for k in LIST_FIELDS[1:]} == {k: reference[k] for k in LIST_FIELDS[1:]}


def test_list_text_and_an_empty_folder(tmp_path: Path) -> None:
    result = run("list", PI / "--home-dev-acme-webapp--")
    assert_clean(result)
    lines = result.stdout.splitlines()
    assert lines[-1] == "4 sessions"
    assert any("Fix double submit on login form" in line for line in lines)
    empty = run("list", tmp_path)
    assert_clean(empty)
    assert empty.stdout == f"No sessions found in {tmp_path}.\n"
    assert json.loads(run("list", tmp_path, "--json").stdout) == []


def test_list_skips_files_without_a_header_and_reports_unreadable_ones(tmp_path: Path) -> None:
    (tmp_path / "good.jsonl").write_bytes(LINEAR.read_bytes())
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "noheader.jsonl").write_bytes(LINEAR.read_bytes().split(b"\n", 1)[1])
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.jsonl")
    result = run("list", tmp_path, "--json")
    assert result.returncode == 0
    assert [row["id"] for row in json.loads(result.stdout)] == ["019cadd3-8790-713f-9a8d-f2ee097914b9"]
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------------- check
def test_check_passes_every_good_sample() -> None:
    result = run("check", *ALL_SAMPLES)
    assert_clean(result)
    lines = result.stdout.splitlines()
    assert len(lines) == len(ALL_SAMPLES)
    for line, sample in zip(lines, ALL_SAMPLES, strict=True):
        assert line.startswith(f"{sample}: ok (")


def test_check_reports_damage_as_path_line_and_exits_1(tmp_path: Path) -> None:
    lines = LINEAR.read_bytes()[:-1].split(b"\n")
    lines.insert(5, b"{not json")  # line 6
    lines[20] = lines[20].replace(b'"parentId":"', b'"parentId":"x', 1)  # line 21: an orphan
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\n".join(lines) + b"\n" + lines[-1][:30])  # and a cut-off last line (34)
    result = run("check", bad, LINEAR)
    assert result.returncode == 1
    assert result.stderr == ""
    out = result.stdout.splitlines()
    assert out[0] == f"{bad}:6: error invalid-json: The line is not valid JSON; it was skipped."
    assert out[1].startswith(f"{bad}:21: warning orphan: Parent x")
    assert out[2].startswith(f"{bad}:34: error truncated-line: ")
    assert out[3] == f"{bad}: 3 problems (31 entries, 31 in the tree)"
    assert out[4] == f"{LINEAR}: ok (31 entries, 31 in the tree)"
    assert len(out) == 5


def test_check_verbose_shows_notes_without_failing(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + LINEAR.read_bytes())
    quiet = run("check", path)
    assert_clean(quiet)
    assert quiet.stdout == f"{path}: ok (31 entries, 31 in the tree)\n"
    loud = run("check", "-v", path)
    assert_clean(loud)
    assert (
        loud.stdout.splitlines()[0]
        == f"{path}:1: info variant: The line starts with a byte order mark; it was ignored."
    )


def test_check_of_an_empty_file_fails(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    result = run("check", path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}:0: error missing-header: The file is empty; it has no session header.",
        f"{path}: 1 problem (0 entries, 0 in the tree)",
    ]


def test_check_goes_on_after_a_missing_file(tmp_path: Path) -> None:
    result = run("check", tmp_path / "missing.jsonl", LINEAR)
    assert result.returncode == 1
    assert_one_line_error(result, 1, "missing.jsonl does not exist.")
    assert result.stdout == f"{LINEAR}: ok (31 entries, 31 in the tree)\n"


# ---------------------------------------------------------------------------- show
def test_show_prints_the_summary_and_the_current_branch() -> None:
    result = run("show", LINEAR, "--width", "60")
    assert_clean(result)
    lines = result.stdout.splitlines()
    assert lines[0] == "Session   019cadd3-8790-713f-9a8d-f2ee097914b9"
    assert lines[2] == "Project   /home/dev/acme-webapp"
    assert lines[3] == "Name      Fix double submit on login form"
    assert "Version   3    Entries 31    Messages 25" in lines
    assert "Models    anthropic/claude-sonnet-4-5" in lines
    body = lines[lines.index("") + 1 :]
    assert len(body) == 31
    assert body[0] == "5cc0dd08  [model: anthropic/claude-sonnet-4-5]"
    assert body[2].startswith("3e61bbfd [bug-report]  user: The login form submits twice")
    assert body[-1].startswith("8721c1f9  assistant: ")


def test_show_on_a_branched_session_follows_the_leaf() -> None:
    result = run("show", BRANCHES)
    assert_clean(result)
    ids = [line.split()[0] for line in result.stdout.split("\n\n", 1)[1].splitlines()]
    assert ids == json.loads((EXPECTED / "branches.context.json").read_text())["branch"]


# ---------------------------------------------------------------------------- damaged input on the CLI
def test_lone_surrogates_and_huge_numbers_are_printed_not_a_crash(tmp_path: Path) -> None:
    lines = LINEAR.read_bytes()[:-1].split(b"\n")
    extra = orjson.loads(lines[3])
    extra.update(id="surr0001", parentId="8721c1f9")
    line = orjson.dumps(extra).replace(b'"content":"', b'"content":"\\ud83d and \\udc00 \xff ', 1)
    line = line.replace(b'"timestamp":1772442982126', b'"timestamp":123456789012345678901234567890')
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"\n".join([*lines, line]) + b"\n")
    context = run("context", path)
    assert_clean(context)
    assert '"content": "\\ud83d and \\udc00 \ufffd The login form' in context.stdout
    message = json.loads(context.stdout)["messages"][-1]
    assert message["content"].startswith("\ud83d and \udc00 \ufffd The login form")
    assert message["timestamp"] == 1.2345678901234568e29
    for command in ("show", "tree"):
        result = run(command, path)
        assert_clean(result)
        assert "surr0001" in result.stdout
        assert "\\ud83d and \\udc00" in result.stdout
    tree = run("tree", "--json", path)
    assert_clean(tree)
    assert json.loads(tree.stdout)["order"][-1] == "surr0001"


def test_tree_into_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    entries = [orjson.loads(line) for line in LINEAR.read_bytes()[:-1].split(b"\n")]
    lines = [orjson.dumps(entries[0])]
    template = entries[3]
    for i in range(5000):
        template.update(id=f"{i:08x}", parentId=f"{i - 1:08x}" if i else None)
        lines.append(orjson.dumps(template))
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "core.cli", "tree", str(path)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read()
    process.stderr.close()
    process.wait(timeout=60)
    assert first.startswith(b"* 00000000 user: ")
    assert stderr == b""
    assert process.returncode == 0


# ---------------------------------------------------------------------------- bad usage
def test_unknown_command() -> None:
    result = run("frobnicate", LINEAR)
    line = assert_one_line_error(result, 2, "invalid choice: 'frobnicate'", "--help")
    assert result.stdout == ""
    assert line.startswith("prime-sessions: argument COMMAND: ")


@pytest.mark.parametrize(
    "args",
    [
        ["context"],
        ["show", LINEAR, "--width", "wide"],
        ["context", LINEAR, "--leaf"],
        ["check"],
        ["tree", "--bogus", LINEAR],
    ],
    ids=["no-file", "bad-width", "leaf-without-value", "check-nothing", "unknown-option"],
)
def test_bad_arguments(args: list) -> None:
    result = run(*args)
    assert_one_line_error(result, 2, "see 'prime-sessions")
    assert result.stdout == ""


@pytest.mark.parametrize("command", ["context", "show", "tree", "check", "label", "rename"])
def test_a_missing_file(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "nope.jsonl"
    extra = ["x", "y"] if command == "label" else ["name"] if command == "rename" else []
    result = run(command, missing, *extra)
    assert_one_line_error(result, 1, f"{missing} does not exist.")


@pytest.mark.parametrize("command", ["context", "show", "tree", "check"])
def test_a_folder_as_file(tmp_path: Path, command: str) -> None:
    result = run(command, tmp_path)
    assert_one_line_error(result, 1, f"{tmp_path} is a folder, not a session file.")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_file_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = run("context", fifo, timeout=60)
    assert_one_line_error(result, 1, "is not a regular file.")


@pytest.mark.skipif(IS_ROOT or sys.platform == "win32", reason="root reads files whatever their mode")
def test_an_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.jsonl"
    path.write_bytes(LINEAR.read_bytes())
    path.chmod(0)
    try:
        result = run("show", path)
        assert_one_line_error(result, 1, f"You do not have permission to read {path}.")
    finally:
        path.chmod(0o600)


def test_a_permission_error_is_one_line_even_as_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # root reads anything, so simulate the refusal the kernel gives everyone else
    import core.session.session
    from core.cli import main

    path = tmp_path / "secret.jsonl"
    path.write_bytes(LINEAR.read_bytes())
    real_open = os.open

    def refusing_open(name: object, *args: object, **kwargs: object) -> int:
        if os.fspath(name) == str(path):  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", str(name))
        return real_open(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(core.session.session.os, "open", refusing_open)
    assert main(["show", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"prime-sessions: You do not have permission to read {path}.\n"


def test_a_missing_list_root(tmp_path: Path) -> None:
    result = run("list", tmp_path / "nowhere")
    assert_one_line_error(result, 1, "nowhere does not exist.")


def test_no_command_prints_help_and_version_works() -> None:
    result = run()
    assert_clean(result)
    assert result.stdout.startswith("usage: prime-sessions")
    version = run("--version")
    assert_clean(version)
    assert version.stdout.startswith("prime-sessions ")


# ---------------------------------------------------------------------------- no Qt on the CLI path
def test_the_cli_never_imports_qt() -> None:
    code = (
        "import sys\n"
        "import core.cli\n"
        "qt = ('PySide6', 'shiboken6', 'gui')\n"
        "assert not any(m.split('.')[0] in qt for m in sys.modules), sorted(sys.modules)\n"
        "from core.cli import main\n"
        f"main(['check', {str(LINEAR)!r}])\n"
        f"main(['tree', '--json', {str(LINEAR)!r}])\n"
        "assert not any(m.split('.')[0] in qt for m in sys.modules), sorted(sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


def test_an_unexpected_error_is_one_line_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import core.cli
    import core.session
    import core.session.context

    def broken(*_args: object, **_kwargs: object) -> dict:
        raise RuntimeError("something impossible")

    # core.session re-exports it lazily and keeps what it resolved: patch that name first (so the real
    # function is what the undo puts back), or a first lookup during this test would keep ``broken``
    # there for every later test.
    monkeypatch.setattr(core.session, "iter_context", broken)
    monkeypatch.setattr(core.session.context, "iter_context", broken)
    monkeypatch.delenv("PRIME_SESSIONS_DEBUG", raising=False)
    assert core.cli.main(["context", str(LINEAR)]) == 70
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "prime-sessions: internal error: RuntimeError: something impossible"
        " (set PRIME_SESSIONS_DEBUG=1 for details)\n"
    )
    monkeypatch.setenv("PRIME_SESSIONS_DEBUG", "1")
    with pytest.raises(RuntimeError):
        core.cli.main(["context", str(LINEAR)])


def test_the_status_line_draws_on_a_terminal_only_and_at_most_ten_times_a_second(monkeypatch) -> None:
    import io

    from core.cli.status import ProgressBar, StatusLine

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    bar = ProgressBar()
    bar(1, 3, 10, 30)
    bar(2, 3, 20, 30)  # under 0.1 s after the first: skipped
    bar(3, 3, 30, 30)  # the last one is always drawn
    bar.finish()
    assert terminal.getvalue() == (
        f"\r[{'#' * 10:<30}] 1/3 files  0.0/0.0 MB\r[{'#' * 30}] 3/3 files  0.0/0.0 MB\n"
    )
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    line = StatusLine()
    line.show("text", final=True)
    line.finish()
    assert piped.getvalue() == ""
