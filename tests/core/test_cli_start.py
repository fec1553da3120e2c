"""The command line's start: a command builds only its own module's sub-parsers, the rest is not imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli.program import COMMANDS, build_parser
from tests.helpers import REPO


def _commands(parser) -> set[str]:
    names: set[str] = set()
    for action in parser._actions:  # argparse keeps the sub-parsers here
        choices = getattr(action, "choices", None)
        if isinstance(choices, dict):
            names.update(choices)
    return names


def test_the_table_names_every_command_and_its_module() -> None:
    assert _commands(build_parser()) == set(COMMANDS)
    for command in COMMANDS:
        assert command in _commands(build_parser(command))
    assert _commands(build_parser("no-such-command")) == set(COMMANDS)  # the error lists them all


@pytest.mark.parametrize(
    ("argv", "status"),
    [(["usage", "daily", "--json"], 0), (["usage", "hourly"], 2), (["no-such-command"], 2)],
)
def test_a_command_imports_only_its_module(tmp_path: Path, argv: list[str], status: int) -> None:
    sessions = tmp_path / "s"
    sessions.mkdir()
    args = (
        [*argv[:2], str(sessions), *argv[2:], "--catalogue", str(tmp_path / "c")] if len(argv) > 1 else argv
    )
    script = (
        "import json, sys\n"
        "from core.cli.program import main\n"
        f"status = main({args!r})\n"
        "names = ['core.cli.' + m for m in ('reading', 'edit', 'export', 'diff', 'usage')]\n"
        "print(json.dumps([status, [n for n in names if n in sys.modules]]), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120, check=True
    )
    got_status, imported = json.loads(done.stderr.strip().splitlines()[-1])
    assert got_status == status
    if argv[0] == "usage":
        # reading is imported for its catalogue helpers when the command runs; edit, export and diff never
        assert set(imported) <= {"core.cli.usage", "core.cli.reading"} and "core.cli.usage" in imported
    else:
        assert len(imported) == 5
