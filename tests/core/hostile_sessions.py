"""Sessions holding one hostile value, and every reading command run over them (issue 29).

One value in one file must cost that line, never the list: :func:`hostile_file` writes a small session
(a user message, an assistant reply calling a tool, its result, a label, a name, a second branch) with
one field replaced by raw JSON text (nested 1,000 levels deep, an integer of 2**63, a time of
1.5e308...), beside a copy of the demo sessions; :func:`run_everything` runs every command that reads
it, in process, with ``PRIME_SESSIONS_DEBUG`` set so that an internal error raises; :func:`others_unchanged`
compares what the other sessions show with what they show alone. The parametrised cases of
``test_hostile_values.py``, the property test beside them and ``benchmarks/fuzz_values.py`` share it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import orjson
from hypothesis import strategies as st

from core.cli.program import main
from core.session.jsonl import MAX_DEPTH

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
SESSION_ID = "019d0000-0000-7000-8000-00000000beef"
NAME = f"{SESSION_ID}.jsonl"
_HOLE = "\u0000hostile\u0000"  # stands where the raw value goes

_USAGE = {
    "input": 400,
    "output": 20,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 420,
    "cost": {"input": 0.0012, "output": 0.0003, "cacheRead": 0, "cacheWrite": 0, "total": 0.0015},
}


def base_lines() -> list[dict[str, object]]:
    """The session's objects, line by line (fresh each call)."""

    def entry(
        kind: str, entry_id: str, parent: str | None, second: int, **fields: object
    ) -> dict[str, object]:
        stamp = f"2026-03-02T09:16:{second:02d}.000Z"
        return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": stamp, **fields}

    def message(role: str, content: object, second: int, **fields: object) -> dict[str, object]:
        return {"role": role, "content": content, "timestamp": 1772442960000 + second * 1000, **fields}

    call = {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "src/app.ts"}}
    lookup = {"type": "toolCall", "id": "t2", "name": "lookup", "arguments": {"query": "app"}}
    reply = message(
        "assistant",
        [{"type": "text", "text": "Let me read it."}, call, lookup],
        2,
        provider="anthropic",
        model="claude-sonnet-4-5",
        usage=json.loads(json.dumps(_USAGE)),
        stopReason="toolUse",
    )
    result = message("toolResult", [{"type": "text", "text": "export const app = 1;"}], 3)
    result.update(toolCallId="t1", toolName="read", isError=False)
    other = message(
        "assistant",
        [{"type": "text", "text": "Another way."}],
        7,
        provider="anthropic",
        model="claude-sonnet-4-5",
        usage=json.loads(json.dumps(_USAGE)),
        stopReason="stop",
    )
    return [
        {
            "type": "session",
            "version": 3,
            "id": SESSION_ID,
            "timestamp": "2026-03-02T09:14:07.122Z",
            "cwd": "/home/dev/hostile",
        },
        entry("message", "a1", None, 1, message=message("user", "hello hostile world", 1)),
        entry("message", "a2", "a1", 2, message=reply),
        entry("message", "a3", "a2", 3, message=result),
        entry("label", "a4", "a3", 4, targetId="a1", label="start"),
        entry("session_info", "a5", "a4", 5, name="A hostile session"),
        entry("message", "a6", "a1", 6, message=message("user", "try another way", 6)),
        entry("message", "a7", "a6", 7, message=other),
    ]


FIELDS: dict[str, tuple[int, tuple[str | int, ...]]] = {
    "header.extra": (0, ("extra",)),
    "header.cwd": (0, ("cwd",)),
    "header.version": (0, ("version",)),
    "header.timestamp": (0, ("timestamp",)),
    "user.content": (1, ("message", "content")),
    "user.timestamp": (1, ("message", "timestamp")),
    "user.entry-timestamp": (1, ("timestamp",)),
    "assistant.text": (2, ("message", "content", 0, "text")),
    "assistant.arguments": (2, ("message", "content", 1, "arguments")),
    "assistant.tool-name": (2, ("message", "content", 1, "name")),
    "assistant.lookup-arguments": (2, ("message", "content", 2, "arguments")),
    "assistant.model": (2, ("message", "model")),
    "assistant.usage": (2, ("message", "usage")),
    "assistant.input": (2, ("message", "usage", "input")),
    "assistant.total-tokens": (2, ("message", "usage", "totalTokens")),
    "assistant.cost": (2, ("message", "usage", "cost", "total")),
    "assistant.timestamp": (2, ("message", "timestamp")),
    "assistant.entry-timestamp": (2, ("timestamp",)),
    "result.content": (3, ("message", "content")),
    "result.details": (3, ("message", "details")),
    "label.label": (4, ("label",)),
    "label.target": (4, ("targetId",)),
    "name.name": (5, ("name",)),
    "branch.content": (6, ("message", "content")),
    "branch.usage-output": (7, ("message", "usage", "output")),
    "branch.timestamp": (7, ("message", "timestamp")),
    "branch.entry-timestamp": (7, ("timestamp",)),
}
"""Where a hostile value can go: a name -> (line, the keys down to the field)."""


def nested(depth: int, leaf: bytes = b'"bottom"') -> bytes:
    """JSON text nested ``depth`` levels deep, objects and lists by turns (the outermost a list)."""
    opening = b"".join(b"[" if level % 2 == 0 else b'{"k":' for level in range(depth))
    closing = b"".join(b"]" if level % 2 == 0 else b"}" for level in reversed(range(depth)))
    return opening + leaf + closing


def session_bytes(field: str, raw: bytes, *more: tuple[str, bytes]) -> bytes:
    """The session file with ``field`` (a key of :data:`FIELDS`) holding the JSON text ``raw``.

    ``more`` puts other values in other fields (a field named twice keeps the last value; a field
    inside one replaced before is left out).
    """
    lines = base_lines()
    raws: dict[str, bytes] = dict([(field, raw), *more])
    holes: dict[str, str] = {}
    for number, (name, _raw) in enumerate(raws.items()):
        line, keys = FIELDS[name]
        holder: object = lines[line]
        try:
            for key in keys[:-1]:
                holder = holder[key]  # type: ignore[index]
            holder[keys[-1]] = holes.setdefault(name, f"{_HOLE}{number}")  # type: ignore[index]
        except (KeyError, IndexError, TypeError):  # inside a value replaced already
            continue
    encoded = [orjson.dumps(obj) for obj in lines]
    for name, hole in holes.items():
        line = FIELDS[name][0]
        encoded[line] = encoded[line].replace(orjson.dumps(hole), raws[name])
    return b"\n".join(encoded) + b"\n"


def demo_folder(folder: Path) -> Path:
    """A copy of the demo sessions in ``folder`` (made)."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in DEMO.glob("*.jsonl"):
        shutil.copy2(path, folder / path.name)
    return folder


def hostile_file(folder: Path, field: str, raw: bytes) -> Path:
    """Write the hostile session into ``folder`` (beside the demo copy) and return its path."""
    path = folder / NAME
    path.write_bytes(session_bytes(field, raw))
    return path


@dataclass
class Ran:
    """One command's exit status and what it printed."""

    argv: Sequence[str]
    status: int
    out: str
    err: str


@contextmanager
def _captured() -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdout, sys.stderr
    wrappers = [io.TextIOWrapper(buffer, encoding="utf-8", write_through=True) for buffer in (out, err)]
    sys.stdout, sys.stderr = wrappers
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = saved
        for wrapper in wrappers:
            wrapper.flush()
            wrapper.detach()  # a wrapper closes its buffer when it goes


def run(*argv: str | Path) -> Ran:
    """``prime-sessions ARGV`` in this process; an internal error raises (``PRIME_SESSIONS_DEBUG``)."""
    args = [os.fspath(a) for a in argv]
    previous = os.environ.get("PRIME_SESSIONS_DEBUG")
    os.environ["PRIME_SESSIONS_DEBUG"] = "1"
    try:
        with _captured() as (out, err):
            status = main(args)
    finally:
        if previous is None:
            del os.environ["PRIME_SESSIONS_DEBUG"]
        else:
            os.environ["PRIME_SESSIONS_DEBUG"] = previous
    ran = Ran(
        args, status, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")
    )
    assert "internal error" not in ran.err, (args, ran.err)
    return ran


REPORTS = ("daily", "weekly", "monthly", "session", "model", "project", "blocks")
_USAGE_RUNS = (*(f"usage-{kind}" for kind in REPORTS), "usage-table", "usage-zone")


def run_everything(
    folder: Path, path: Path, catalogue: Path, out: Path, strict: Sequence[str] | None = None
) -> dict[str, Ran]:
    """Every reading command over ``folder`` (the list, search, usage) and over ``path`` (the rest).

    Returns the runs by a short name. Statuses are checked: ``check`` ends in 0 or 1 (a problem
    found); the commands named in ``strict`` (default: all but ``check``) in 0, the others in 0 or in
    1 with one sentence on standard error.
    """
    out.mkdir(parents=True, exist_ok=True)
    cat = ("--catalogue", catalogue)
    commands: dict[str, tuple[str | Path, ...]] = {
        "check": ("check", "-v", path),
        "show": ("show", path),
        "tree": ("tree", path),
        "tree-json": ("tree", "--json", path),
        "context": ("context", path),
        "md": ("export", path, "-o", out / "path.md", "--force"),
        "html": ("export", path, "-o", out / "path.html", "--force"),
        "html-tree": ("export", path, "--tree", "-o", out / "tree.html", "--force"),
        "md-tree": ("export", path, "--tree", "--redact", "-o", out / "tree.md", "--force"),
        "diff": ("diff", path, "a5", "a7"),
        "diff-json": ("diff", path, "a5", "a7", "--format", "json"),
        "diff-html": ("diff", path, "a5", "a7", "-o", out / "diff.html", "--force"),
        "list": ("list", "--json", folder, *cat),
        "list-files": ("list", "--json", "--no-catalogue", folder),
        "search": ("search", "hostile", folder, "--json", *cat),
        **{f"usage-{kind}": ("usage", kind, folder, "--json", *cat) for kind in REPORTS},
        "usage-table": ("usage", "daily", folder, "-b", *cat),
        "usage-zone": ("usage", "session", folder, "-z", "Pacific/Kiritimati", *cat),
    }
    ran = {name: run(*argv) for name, argv in commands.items()}
    strict = list(commands) if strict is None else strict
    for name, result in ran.items():
        if name == "check":
            assert result.status in (0, 1), (result.argv, result.status, result.err)
        elif name in strict or result.status != 1:
            assert result.status == 0, (name, result.argv, result.status, result.err)
        else:  # a user error: one sentence (an entry the diff names may be gone: a legacy version, ...)
            assert result.err.startswith("prime-sessions: ") and result.err.count("\n") == 1, result.err
    return ran


def listed(ran: dict[str, Ran]) -> dict[str, dict[str, object]]:
    """Session id -> its ``list --json`` summary, from the catalogue's list."""
    return {str(item["id"]): item for item in json.loads(ran["list"].out)}


_SHOWN = ("id", "path", "messageCount", "firstMessage", "totalTokens", "cost", "name", "modified", "cwd")


def summary_facts(summary: dict[str, object]) -> tuple[object, ...]:
    """What the list shows of a session (its path without the folder)."""
    return tuple(os.path.basename(str(v)) if k == "path" else v for k, v in summary.items() if k in _SHOWN)


def render_everything(path: Path) -> int:
    """What the window makes of the session, without Qt: every filter mode's tree with every preview,
    every card (light and dark, everything expanded), the path's cards, what the model saw at every
    entry as cards, the transcript. Returns the characters made (so nothing is optimised away)."""
    from core.kinds.cards import context_cards
    from core.kinds.notes import context_edit_marks
    from core.render.view import RenderOptions, render_card, render_entries, render_entry
    from core.session import load_session
    from core.session.context import build_context
    from core.visible.filters import FILTER_MODES
    from core.visible.structure import prepare, read_previews
    from core.visible.transcript import transcript_of

    session = load_session(path)
    made = 0
    for mode in FILTER_MODES:
        structure = prepare(session, mode)
        previews: dict[str, str] = {}
        read_previews(session, list(session.entries), 100, previews)
        made += sum(map(len, previews.values())) + len(structure.previews)
        made += len(transcript_of(session, session.leaf_id, mode))
    for entry in session.entries:
        body = session.body(entry)
        for options in (RenderOptions(), RenderOptions(dark=True, expand_all=True)):
            made += len(render_entry(entry, body, {}, options, label=session.label_for(entry.id)))
        messages = build_context(session, entry.id)["messages"]
        marks = context_edit_marks(session, entry.id, messages)
        made += sum(len(render_card(card)) for _index, card in context_cards(list(messages), marks))
    made += len(render_entries(session, session.path_to(session.leaf_id)))
    made += len(session.diagnostics)
    return made


def usage_rows(ran: Ran) -> dict[str, tuple[object, ...]]:
    """Session path's file name -> (tokens, cost) of a ``usage session --json`` report."""
    rows = json.loads(ran.out)["sessions"]
    return {os.path.basename(r["session"]): (r["totalTokens"], round(r["totalCost"], 10)) for r in rows}


# ---------------------------------------------------------------------------- generated hostile values
_EDGE_INTS = [2**53 - 1, 2**53, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30, -(10**30)]
_EDGE_NUMBERS = [
    b"1.5e308", b"-1.5e308", b"1e400", b"-1e400", b"NaN", b"Infinity", b"-Infinity", b"-0.0", b"5e-324",
    b"1e15", b"-1e14", b"8.64e15", b"8.640000000000001e15", b"-62135596800001", b"253402300800000",
]  # fmt: skip
_EDGE_TEXTS = [b'"\\ud800"', b'"x \\udcff y"', b'""', b'"\\u0000"', b'"' + b"ab " * 4000 + b'"', b'"\\u2028"']


def _json_values() -> st.SearchStrategy[object]:
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=12,
    )


def hostile_raw() -> st.SearchStrategy[bytes]:
    """Raw JSON text for one field: deep, huge, out of range, of any JSON type (or not JSON at all)."""
    deep = st.integers(min_value=MAX_DEPTH - 3, max_value=1100).map(nested)
    return st.one_of(
        deep,
        deep.map(lambda text: b'{"q":' + text + b"}"),
        st.sampled_from(_EDGE_INTS).map(lambda n: str(n).encode()),
        st.integers(min_value=-(2**70), max_value=2**70).map(lambda n: str(n).encode()),
        st.sampled_from(_EDGE_NUMBERS),
        st.floats(allow_nan=False, allow_infinity=False).map(lambda f: repr(f).encode()),
        st.sampled_from(_EDGE_TEXTS),
        _json_values().map(lambda value: json.dumps(value).encode()),
    )


def placements() -> st.SearchStrategy[list[tuple[str, bytes]]]:
    """One to three fields of the session, each with a hostile value."""
    return st.lists(st.tuples(st.sampled_from(sorted(FIELDS)), hostile_raw()), min_size=1, max_size=3)


def alone_facts(base: Path) -> tuple[dict[str, tuple[object, ...]], dict[str, tuple[object, ...]]]:
    """What the list and the session usage report show of the demo sessions alone (in ``base``)."""
    folder = demo_folder(base / "sessions")
    catalogue = ("--catalogue", base / "catalogue")
    listed = json.loads(run("list", "--json", folder, *catalogue).out)
    return (
        {str(s["id"]): summary_facts(s) for s in listed},
        usage_rows(run("usage", "session", folder, "--json", *catalogue)),
    )


def check_hostile(
    base: Path,
    chosen: Sequence[tuple[str, bytes]],
    alone: tuple[dict[str, tuple[object, ...]], dict[str, tuple[object, ...]]],
) -> None:
    """The property: with these values in the session, every command and the renderings work, the
    session is listed (when its header is still one), the demo sessions show what they show alone, and
    the file is unchanged."""
    folder = demo_folder(base / "sessions")
    path = folder / NAME
    path.write_bytes(session_bytes(*chosen[0], *chosen[1:]))
    before = path.read_bytes()
    # The list, search and usage must always work; a command on the session itself may refuse in one
    # sentence (a diff of entries whose ids a hostile version or id took away).
    strict = ["list", "list-files", "search", *(name for name in _USAGE_RUNS)]
    ran = run_everything(folder, path, base / "catalogue", base / "out", strict)
    render_everything(path)
    summaries, usage = alone
    shown = listed(ran)
    assert {sid: summary_facts(s) for sid, s in shown.items() if sid in summaries} == summaries
    header_touched = any(FIELDS[field][0] == 0 for field, _raw in chosen)
    assert SESSION_ID in shown or header_touched, "the session is missing from the list"
    others = {name: row for name, row in usage_rows(ran["usage-session"]).items() if name != NAME}
    assert others == usage
    assert path.read_bytes() == before
