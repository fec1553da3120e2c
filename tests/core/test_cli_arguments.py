"""Options anywhere after the command, for every command: ``search QUERY --json ROOT`` as git takes it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.cli.output import UsageError
from core.cli.program import COMMANDS, build_parser, parse_arguments
from tests.conftest import DEMO
from tests.helpers import run_cli

A = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
B = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in (A, B):
        shutil.copyfile(DEMO / name, folder / name)
    return folder


# command -> (options mixed in among the positionals, the same arguments with the options last). {a} and
# {b} are session files, {s} their folder, {t} another folder.
CASES: dict[str, tuple[str, str]] = {
    "list": ("list {s} --json {t} --no-refresh", "list {s} {t} --json --no-refresh"),
    "index": ("index {s} --catalogue {t} {s}", "index {s} {s} --catalogue {t}"),
    "search": ("search needle --json {s} --limit 5 {t}", "search needle {s} {t} --json --limit 5"),
    "show": ("show --width 40 {a}", "show {a} --width 40"),
    "files": ("files --json {a}", "files {a} --json"),
    "context": ("context --leaf e1 {a}", "context {a} --leaf e1"),
    "tree": ("tree --json {a} --width 30", "tree {a} --json --width 30"),
    "check": ("check {a} -v {b}", "check {a} {b} -v"),
    "label": ("label {a} --clear e1", "label {a} e1 --clear"),
    "rename": ("rename --clear {a}", "rename {a} --clear"),
    "fork": ("fork --at e1 {a} --dest {t}", "fork {a} --at e1 --dest {t}"),
    "clone": ("clone {a} --cwd /elsewhere --dest {t}", "clone {a} --cwd /elsewhere --dest {t}"),
    "trash": ("trash {a} -y {b}", "trash {a} {b} -y"),
    "export": ("export --format md {a} --tree -o -", "export {a} --format md --tree -o -"),
    "diff": (
        "diff {a} e1 --format json e2 --other-file {b}",
        "diff {a} e1 e2 --format json --other-file {b}",
    ),
    "usage": (
        "usage daily --json --timezone UTC {s} -b {t}",
        "usage daily {s} {t} --json --timezone UTC -b",
    ),
    "archive": ("archive {a} {b}", "archive {a} {b}"),
    "unarchive": ("unarchive {a}", "unarchive {a}"),
    "pin": ("pin {a} {b}", "pin {a} {b}"),
    "unpin": ("unpin {b}", "unpin {b}"),
    "tag": ("tag {a} --remove old new", "tag {a} --remove old new"),  # --remove takes the TAGs after it
    "notes": ("notes --force export -o {t}/notes.json", "notes export -o {t}/notes.json --force"),
}


def _argv(template: str, sessions: Path, other: Path) -> list[str]:
    places = {"a": sessions / A, "b": sessions / B, "s": sessions, "t": other}
    return [part.format(**{k: str(v) for k, v in places.items()}) for part in template.split()]


def test_every_command_has_a_case() -> None:
    assert set(CASES) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(CASES))
def test_options_may_come_between_and_after_the_positionals(
    command: str, sessions: Path, tmp_path: Path
) -> None:
    mixed, last = (_argv(t, sessions, tmp_path) for t in CASES[command])
    parser = build_parser(command)
    got = vars(parse_arguments(parser, mixed))
    assert got == vars(parse_arguments(build_parser(command), last))
    assert got["command"] == command


def test_unknown_options_and_a_missing_argument_are_still_usage_errors(sessions: Path) -> None:
    with pytest.raises(UsageError, match="unrecognized arguments: --bogus"):
        parse_arguments(build_parser("tree"), ["tree", str(sessions / A), "--bogus"])
    with pytest.raises(UsageError, match="required"):
        parse_arguments(build_parser("show"), ["show", "--width", "3"])


def test_a_double_dash_still_ends_the_options(tmp_path: Path) -> None:
    odd = tmp_path / "-odd.jsonl"
    odd.write_bytes((DEMO / A).read_bytes())
    args = parse_arguments(build_parser("show"), ["show", "--width", "30", "--", "-odd.jsonl"])
    assert (args.file, args.width) == ("-odd.jsonl", 30)


# ---------------------------------------------------------------------------- as a user runs them
def test_search_with_json_before_the_root(sessions: Path) -> None:
    done = run_cli("search", "double submit", "--json", sessions)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["count"] >= 1 and {Path(h["path"]).name for h in found["hits"]} <= {A, B}


def test_usage_daily_with_options_before_the_root(sessions: Path) -> None:
    done = run_cli("usage", "daily", "--json", "--timezone", "UTC", sessions)
    assert done.returncode == 0, done.stderr
    assert [row["date"] for row in json.loads(done.stdout)["daily"]] == ["2026-03-02", "2026-03-03"]


def test_check_with_verbose_between_the_files(sessions: Path) -> None:
    done = run_cli("check", sessions / A, "-v", sessions / B)
    assert done.returncode == 0, done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines() if line.endswith("in the tree)")] == [
        str(sessions / A),
        str(sessions / B),
    ]


def test_list_with_json_between_the_roots(sessions: Path, tmp_path: Path) -> None:
    other = tmp_path / "more"
    other.mkdir()
    done = run_cli("list", sessions, "--json", other)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) == 2
