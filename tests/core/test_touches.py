"""The files a session's tools touched (core.kinds.touches, shell_paths), on generated and real sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.diff import diff_paths
from core.kinds.shell_paths import MAX_COMMAND, command_touches, path_like
from core.kinds.touches import (
    TOUCH_KINDS,
    Touch,
    call_touches,
    relative_to,
    resolve,
    session_touches,
    touched_files,
)
from core.session import load_session
from tests.conftest import CORPUS, DEMO, SAMPLES, SHARED
from tests.core.test_diff import Builder, assistant, result, user

SAMPLES_LATEST = SHARED / "reference" / "samples-latest"


# ---------------------------------------------------------------------------- tool calls
@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        # pi 0.x and 1.x, and Prime Agent's file tools
        ("read", {"path": "src/app.ts", "offset": 10, "limit": 20}, [("src/app.ts", "read")]),
        ("edit", {"path": "a.py", "oldText": "x", "newText": "y"}, [("a.py", "edit")]),
        ("edit", {"path": "a.py", "edits": [{"oldText": "x", "newText": "y"}]}, [("a.py", "edit")]),
        ("write", {"path": "notes.md", "content": "hi"}, [("notes.md", "write")]),
        ("grep", {"pattern": "TODO", "path": "src"}, [("src", "search")]),
        ("grep", {"pattern": "TODO"}, []),  # no path: the project, every session's
        ("find", {"pattern": "*.py", "path": "lib"}, [("lib", "search")]),
        ("ls", {"path": "docs"}, [("docs", "search")]),
        ("bash", {"command": "pytest tests/test_auth.py"}, [("tests/test_auth.py", "run")]),
        # other agents' spellings, any case
        ("Read", {"file_path": "/abs/x.py"}, [("/abs/x.py", "read")]),
        ("MultiEdit", {"file_path": "y.py", "edits": []}, [("y.py", "edit")]),
        ("write_file", {"filePath": "z.txt"}, [("z.txt", "write")]),
        ("str_replace_based_edit_tool", {"command": "view", "path": "v.py"}, [("v.py", "read")]),
        ("str_replace_based_edit_tool", {"command": "create", "path": "c.py"}, [("c.py", "write")]),
        (
            "apply_patch",
            {"input": "*** Begin Patch\n*** Update File: a/b.py\n@@\n*** Add File: c.md\n+x\n*** End Patch"},
            [("a/b.py", "edit"), ("c.md", "write")],
        ),
        # Prime Agent's ipython cells
        ("ipython", {"code": "%%bash\ncd pkg && cat setup.cfg\n"}, [("pkg/setup.cfg", "read")]),
        ("ipython", {"code": "x = 1\n!ruff check src/app.py\nprint(x)"}, [("src/app.py", "run")]),
        ("ipython", {"code": "%%writefile out/report.md\n# Report\n"}, [("out/report.md", "write")]),
        ("ipython", {"code": "open('secret.txt').read()"}, []),  # Python itself is not read
        # nothing for what is not a file tool or not an argument object
        ("web_search", {"query": "a.py"}, []),
        ("read", "src/app.ts", []),
        ("read", {"path": 42}, []),
        ("read", {"path": "a\nb"}, []),
        ("read", {"path": "  "}, []),
        ("apply_patch", {"patch": "*** Add File:  \n*** Move to: x.py"}, [("x.py", "write")]),
        (None, {"path": "a.py"}, []),
    ],
)
def test_a_tool_call_names_its_files(
    name: object, arguments: object, expected: list[tuple[str, str]]
) -> None:
    assert call_touches(name, arguments) == [Touch(p, h) for p, h in expected]


# ---------------------------------------------------------------------------- shell commands
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat src/app.ts", [("src/app.ts", "read")]),
        ("cd pkg && pytest -q tests/test_x.py::test_y", [("pkg/tests/test_x.py", "run")]),
        ("(cd sub; cat a.txt); cat b.txt", [("sub/a.txt", "read"), ("b.txt", "read")]),
        ("cd ~ && cat x.py", []),  # where it went is unknown
        ("cd /srv/app && cat x.py", [("/srv/app/x.py", "read")]),
        ("echo done > notes.md 2>/dev/null", [("notes.md", "write")]),
        ("sort < names.txt >> sorted.txt", [("names.txt", "read"), ("sorted.txt", "write")]),
        ("sed -i 's/a/b/' setup.cfg", [("setup.cfg", "edit")]),
        ("sed -n '1,5p' setup.cfg", [("setup.cfg", "read")]),
        ('grep -rn "foo.bar" src/ | head -5', [("src/", "search")]),
        ("grep -e foo.bar x.py", [("x.py", "search")]),
        ("cp a.txt b/c.txt", [("a.txt", "read"), ("b/c.txt", "write")]),
        ("rm -rf build/ dist/app.whl", [("build/", "write"), ("dist/app.whl", "write")]),
        ("git add README.md && git commit -m 'fix a.py' && git checkout origin/main", [("README.md", "run")]),
        ("git diff -- src/a.py", [("src/a.py", "read")]),
        ("npm install lodash.debounce @types/node", []),
        ("npx prettier --write src/app.ts", [("src/app.ts", "run")]),
        ("uv run pytest tests/", [("tests/", "run")]),
        ("python -m pipeline.ingest data/in.csv", [("data/in.csv", "run")]),
        ('python -c "import os; print(1)"', []),
        ("curl https://example.com/a.json -o out.json", []),
        ("for f in *.py; do echo $f; done", []),
        ("cat $HOME/.bashrc `pwd`/x.py", []),
        ("ls -la /etc/hosts /dev/null", [("/etc/hosts", "search")]),
        (
            "cat > notes.md <<'EOF'\nnot/a/file.py here\nEOF\npython3 run.py",
            [("notes.md", "write"), ("run.py", "run")],
        ),
        ("make test # see 'docs/x.md\ncat y.txt", [("y.txt", "read")]),
        ('echo "unterminated\ncat ok.txt', [("ok.txt", "read")]),
        ("sudo -u dev cat /var/log/app.log", [("/var/log/app.log", "read")]),
        ("cat .env .gitignore", [(".env", "read"), (".gitignore", "read")]),
        ("pip install requests==2.0 numpy 1.2.3", []),
    ],
)
def test_a_command_names_its_plain_path_arguments(command: str, expected: list[tuple[str, str]]) -> None:
    assert command_touches(command) == expected


@pytest.mark.parametrize(
    "word",
    ["-x", "*.py", "$HOME/x", "http://a/b.py", "a b.py", "1.2.3", ".", "..", "/dev/null", "@s/p", "a=b.py"],
)
def test_words_that_are_not_paths(word: str) -> None:
    assert not path_like(word)


@pytest.mark.parametrize(
    "word", ["src/app.ts", "a.py", ".env", "/etc/hosts", "src/", "C:\\x\\y.txt", "~/x.md"]
)
def test_words_that_are_paths(word: str) -> None:
    assert path_like(word)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_any_command_gives_paths_or_nothing_and_never_raises(command: str) -> None:
    found = command_touches(command)
    assert all(isinstance(p, str) and p and how in TOUCH_KINDS for p, how in found)
    assert len(found) == len(set(found))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["cat", "cd", "a.py", "'", '"', "<<EOF", "EOF", "\n", ";", "(", ")", ">", "|", "\\"])
    )
)
def test_shell_syntax_soup_never_raises(words: list[str]) -> None:
    command_touches(" ".join(words))


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
_TOOLS = st.sampled_from(["read", "edit", "write", "bash", "ipython", "apply_patch", "grep", "Read", "x"])
_KEYS = st.sampled_from(["path", "file_path", "command", "code", "patch", "input", "edits", "pattern"])


@settings(max_examples=300, deadline=None)
@given(_TOOLS | st.text(max_size=10) | st.none(), st.dictionaries(_KEYS, _JSON, max_size=4) | _JSON)
def test_any_tool_call_gives_touches_or_nothing_and_never_raises(name: object, arguments: object) -> None:
    touches = call_touches(name, arguments)
    assert all(isinstance(t.path, str) and t.path.strip() and t.how in TOUCH_KINDS for t in touches)


def test_a_huge_command_is_read_only_so_far() -> None:
    command = "cat " + " ".join(f"f{i}.py" for i in range(60_000))
    found = command_touches(command)
    assert found and len(found) < 60_000 and len(" ".join(p for p, _ in found)) <= MAX_COMMAND


# ---------------------------------------------------------------------------- paths
def test_paths_resolve_in_the_project_folder_style() -> None:
    assert resolve("src/../lib/a.py", "/home/u/p") == "/home/u/p/lib/a.py"
    assert resolve("/etc/hosts", "/home/u/p") == "/etc/hosts"
    assert resolve("~/x.md", "/home/u/p") == "~/x.md"
    assert resolve("src/a.py", "") == "src/a.py"
    assert resolve("src/a.py", "C:\\Users\\dev\\win proj") == "C:\\Users\\dev\\win proj\\src\\a.py"
    assert relative_to("/home/u/p/lib/a.py", "/home/u/p") == "lib/a.py"
    assert relative_to("/home/u/pq/a.py", "/home/u/p") is None
    assert relative_to("/home/u/p", "/home/u/p/") == "."
    assert relative_to("c:\\users\\dev\\WIN PROJ\\src\\a.py", "C:\\Users\\dev\\win proj") == "src/a.py"


def test_files_are_gathered_with_counts_entries_and_a_sensible_order() -> None:
    touches = [
        ("e1", Touch("README.md", "read")),
        ("e2", Touch("src/a.py", "read")),
        ("e3", Touch("src/a.py", "edit")),
        ("e3", Touch("./src/a.py", "edit")),
        ("e4", Touch("/tmp/log.txt", "write")),
        ("e5", Touch(".", "search")),
        ("e6", Touch("tests", "run")),
    ]
    files = touched_files(touches, "/p")
    assert [f.shown for f in files] == ["src/a.py", "/tmp/log.txt", "README.md", "tests"]
    first = files[0]
    assert first.counts == (("edit", 2), ("read", 1)) and first.entries == ("e2", "e3")
    assert first.first_entry == "e2" and first.path == "/p/src/a.py"
    assert first.to_json()["touches"] == {"edit": 2, "read": 1}


# ---------------------------------------------------------------------------- real sessions
def _sessions() -> list[Path]:
    return sorted(
        [
            *DEMO.glob("*.jsonl"),
            *SAMPLES.rglob("*.jsonl"),
            *SAMPLES_LATEST.rglob("*.jsonl"),
            *CORPUS.glob("*.jsonl"),
        ]
    )


def _brute_force(path: Path) -> list[tuple[str | None, str, str]]:
    """Every read/edit/write tool call's (entry id, path, how), found by reading the JSON by hand.

    The id is None in a version 1 file (its ids are made when it is read).
    """
    kinds = {"read": "read", "edit": "edit", "write": "write"}
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        message = obj.get("message") if isinstance(obj, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("name") in kinds:
                args = block.get("arguments")
                if isinstance(args, dict) and isinstance(args.get("path"), str) and args["path"]:
                    found.append((obj.get("id"), args["path"], kinds[block["name"]]))
    return found


@pytest.mark.parametrize("path", _sessions(), ids=lambda p: p.name[:40])
def test_every_file_tool_call_of_real_sessions_is_a_touch(path: Path) -> None:
    session = load_session(path)
    touches = session_touches(session)
    expected = _brute_force(path)
    got = [(entry_id, t.path, t.how) for entry_id, t in touches if t.how in ("read", "edit", "write")]
    for entry_id, written, how in expected:
        assert any(g[1:] == (written, how) and entry_id in (None, g[0]) for g in got)
    cwd = str((session.header or {}).get("cwd") or "")
    files = {f.path: f for f in touched_files(touches, cwd)}
    for entry_id, written, how in expected:
        if resolve(written, cwd) == resolve(".", cwd):
            continue  # the project folder itself is no file of it
        file = files[resolve(written, cwd)]
        assert how in file.kinds and (entry_id is None or entry_id in file.entries)


def test_the_demo_sessions_touch_what_they_say() -> None:
    session = load_session(DEMO / "019cb402-3c88-737c-a54e-8f5201941e04.jsonl")
    files = touched_files(session_touches(session), "/home/dev/acme-webapp")
    assert [(f.shown, dict(f.counts)) for f in files] == [
        ("src/server/cache/lru.ts", {"write": 1}),
        ("src/server/cache/redis.ts", {"write": 1}),
        ("src/server/routes/products.ts", {"edit": 2, "read": 1}),
    ]
    windows = load_session(DEMO / "019cc409-c2e0-7241-b21f-076963ebceec.jsonl")
    files = touched_files(session_touches(windows), "C:\\Users\\dev\\win proj")
    assert {f.path for f in files} == {
        "C:\\Users\\dev\\win proj\\package.json",
        "C:\\Users\\dev\\win proj\\src",
    }


def test_the_users_shell_runs_touch_files_too(tmp_path: Path) -> None:
    b = Builder()
    b.add(user("go"))
    b.add_raw(
        {
            "type": "message",
            "message": {"role": "bashExecution", "command": "cat logs/app.log", "output": "", "exitCode": 0},
        }
    )
    session = load_session(b.write(tmp_path / "s.jsonl"))
    assert [(t.path, t.how) for _e, t in session_touches(session)] == [("logs/app.log", "read")]


def test_the_calls_a_tool_made_to_other_tools_touch_files_too(tmp_path: Path) -> None:
    b = Builder()
    b.add(user("go"))
    b.add(assistant("", [("codemode", {"code": "..."})]))
    nested = {
        "calls": [
            {"id": "n1", "name": "read", "arguments": {"path": "src/parse.ts"}, "status": "ok"},
            {"id": "n2", "name": "bash", "status": "error"},  # no arguments recorded
            "not a call",
        ],
        "complete": True,
    }
    b.add({**result("codemode", "parser is in src/parse.ts"), "nestedCalls": nested})
    session = load_session(b.write(tmp_path / "s.jsonl"))
    assert [(t.path, t.how) for _e, t in session_touches(session)] == [("src/parse.ts", "read")]


# ---------------------------------------------------------------------------- the branch diff
def test_the_diff_summary_lists_files_changed_by_commands_too(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("Write the notes"))
    b.add(assistant("", [("bash", {"command": "echo hi > notes.md && cat README.md"})]))
    left = b.add(result("bash", ""))
    b.at(root)
    b.add(assistant("", [("ipython", {"code": "%%bash\nsed -i 's/a/b/' setup.cfg"})]))
    right = b.add(result("ipython", ""))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right)
    assert diff.left.files_touched == ("notes.md",)  # README.md was only read
    assert diff.right.files_touched == ("setup.cfg",)
