"""The HTML export in two processes (core.export.parallel): the same page, images and counts as in one.

``MIN_BYTES`` is lowered so that a small session is split too; ``PRIME_SESSIONS_EXPORT_STATS`` says
whether the child's stretch was taken, so each test knows which way the page was made.
"""

from __future__ import annotations

import base64
import json
import os
import zlib
from pathlib import Path

import pytest

from core.export import ExportOptions, parallel, render_export
from core.export.common import select_entries
from core.export.island import island, json_for_script
from core.export.usage_summary import collector_for, usage_rows, wants_usage
from core.render.highlight import Highlighter
from core.session import load_session
from tests.conftest import DEMO, SAMPLES
from tests.core.current_entries import write_current_session
from tests.core.test_render import assistant, chain, message, write

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the export forks only where os.fork exists")

_CODE = "\n".join(f"def f{i}(x):\n    return x + {i}  # <b>&amp;</b>" for i in range(40))


def _png() -> str:
    raw = b"\x00\xff\x00\x00" * 4
    body = b"IHDR" + (2).to_bytes(4, "big") * 2 + bytes([8, 6, 0, 0, 0])
    chunk = len(body[4:]).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")
    data = zlib.compress(raw)
    idat = len(data).to_bytes(4, "big") + b"IDAT" + data + zlib.crc32(b"IDAT" + data).to_bytes(4, "big")
    end = (0).to_bytes(4, "big") + b"IEND" + zlib.crc32(b"IEND").to_bytes(4, "big")
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk + idat + end).decode()


def _session(tmp_path: Path, turns: int, code: bool = True) -> Path:
    """Turns of a user question, a reply (Markdown, code), a bash call with its result; two models."""
    rows: list[dict] = []
    for n in range(turns):
        model = "model-a" if n < turns // 2 or n % 3 == 0 else "model-b"
        fence = f"\n\n```python\n{_CODE}\n```\n" if code else ""
        rows.append(message("user", content=f"Question {n}: *why* <script>x</script>?{fence}"))
        call = {"type": "toolCall", "id": f"c{n}", "name": "bash", "arguments": {"command": f"ls {n}"}}
        text = {
            "type": "text",
            "text": f"Answer {n} with `code` and a [link](https://example.com/{n}).{fence}",
        }
        rows.append(assistant([{"type": "thinking", "thinking": "hmm"}, text, call], model=model))
        content: list[dict] = [{"type": "text", "text": f"out {n} AWS=AKIAIOSFODNN7EXAMPL{n % 10}"}]
        if n % 7 == 6:
            content.append({"type": "image", "data": _png(), "mimeType": "image/png"})
        rows.append(message("toolResult", toolCallId=f"c{n}", toolName="bash", content=content))
    rows = chain(rows)
    # A label and a second branch from the middle, so the tree's pre-order is not the file's order.
    rows.append({"type": "label", "id": "lab", "parentId": rows[-1]["id"], "label": "the end"})
    side = dict(message("user", content="another way"), id="side", parentId=rows[len(rows) // 2]["id"])
    rows.append(dict(side, timestamp=rows[-2]["timestamp"]))
    return write(tmp_path / "s.jsonl", rows)


def _export(path: Path, workers: int, stats: Path, **options: object) -> tuple[bytes, dict, dict, list]:
    os.environ["PRIME_SESSIONS_EXPORT_STATS"] = str(stats)
    report = bool(options.pop("report_found", False))
    try:
        done = render_export(
            load_session(path, keep_bodies=True),
            "html",
            ExportOptions(**options),  # type: ignore[arg-type]
            whole_tree=True,
            target=path.with_suffix(".html"),
            workers=workers,
            report_found=report,
        )
    finally:
        del os.environ["PRIME_SESSIONS_EXPORT_STATS"]
    records = [json.loads(line) for line in stats.read_text().splitlines()] if stats.exists() else []
    stats.unlink(missing_ok=True)
    counts = dict(done.counts) | {f"found {kind}": n for kind, n in done.found.items()}
    return done.data, dict(done.images.files), counts, records


@pytest.fixture
def split_small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)


@pytest.mark.usefixtures("split_small")
@pytest.mark.parametrize(
    "options",
    [{}, {"redact": True}, {"report_found": True}, {"images": "beside"}, {"thinking": False, "tools": False}],
    ids=["default", "redacted", "reported", "images-beside", "lean"],
)
def test_two_processes_make_the_same_page_as_one(tmp_path: Path, options: dict) -> None:
    path = _session(tmp_path, 80)
    one, one_images, one_counts, none = _export(path, 1, tmp_path / "stats", **options)
    two, two_images, two_counts, records = _export(path, 2, tmp_path / "stats", **options)
    assert none == []  # one worker: no child
    assert [r["child_used"] for r in records] == [True]  # the child's stretch is in the page
    assert 0 < records[0]["split"] < records[0]["entries"]
    assert two == one
    assert two_images == one_images
    assert two_counts == one_counts
    if options.get("images") == "beside":
        assert len(one_images) == 80 // 7  # images from the child's stretch too
    if options.get("redact"):
        assert one_counts["aws-key"] == 80 and b"AKIAIOSFODNN7EXAMPL" not in two
    if options.get("report_found"):  # the child's findings too, and the page as written
        assert one_counts == {"found aws-key": 80} and b"AKIAIOSFODNN7EXAMPL" in two
    assert b"anthropic/model-a, anthropic/model-b" in two  # the order one process meets them in


@pytest.mark.usefixtures("split_small")
def test_budget_still_open_at_the_split_renders_the_childs_stretch_here(tmp_path: Path) -> None:
    # Little code: the colouring budget never closes, so the child (which renders with it closed)
    # would leave code uncoloured that one process colours; its work is dropped.
    path = _session(tmp_path, 40, code=False)
    one, *_ = _export(path, 1, tmp_path / "stats")
    two, _images, _counts, records = _export(path, 2, tmp_path / "stats")
    assert [r["child_used"] for r in records] == [False]
    assert two == one


@pytest.mark.usefixtures("split_small")
def test_a_failing_child_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object) -> None:
        raise RuntimeError("the child fails")

    path = _session(tmp_path, 60)
    one, *_ = _export(path, 1, tmp_path / "stats")
    monkeypatch.setattr(parallel, "_child", broken)  # the forked child runs the patched module
    two, _images, _counts, records = _export(path, 2, tmp_path / "stats")
    assert [r["child_used"] for r in records] == [False]
    assert two == one


def test_small_sessions_stay_in_one_process(tmp_path: Path) -> None:
    path = _session(tmp_path, 20)
    _page, _images, _counts, records = _export(path, 2, tmp_path / "stats")
    assert records == []


def test_workers_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIME_SESSIONS_EXPORT_WORKERS", "1")
    assert parallel.export_workers() == 1
    monkeypatch.setenv("PRIME_SESSIONS_EXPORT_WORKERS", "nonsense")
    assert parallel.export_workers() == 1
    monkeypatch.setenv("PRIME_SESSIONS_EXPORT_WORKERS", "2")
    assert parallel.export_workers() == 2
    monkeypatch.delenv("PRIME_SESSIONS_EXPORT_WORKERS")
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.9, 0.5, 0.5))
    assert parallel.export_workers() == 2  # a processor idle
    monkeypatch.setattr(os, "getloadavg", lambda: (1.7, 1.5, 1.5))
    assert parallel.export_workers() == 2  # partly idle: the child still paid (1.14 against 1.37 s)
    monkeypatch.setattr(os, "getloadavg", lambda: (2.4, 2.0, 1.5))
    assert parallel.export_workers() == 1  # both busy with other work: the child would only slow it


def test_the_budget_closes_at_the_first_block_it_cannot_take() -> None:
    highlighter = Highlighter(budget=100)
    assert highlighter.block("x = 1", "python").startswith('<pre class="hl">')
    assert not highlighter.closed
    assert highlighter.block("y = 2\n" * 30, "python").startswith("<pre><code>")  # 180 > 95 left
    assert highlighter.closed
    # Small enough for what is left, but after the refused block: not coloured (before, it was).
    assert highlighter.block("z = 3", "python").startswith("<pre><code>")
    assert highlighter.budget == 95
    plain = Highlighter(budget=10)
    plain.block("a" * 50, "text")  # plain output neither spends nor closes the budget
    plain.block("b" * 20_001, "python")  # nor does code too large to colour with any budget
    assert not plain.closed and plain.budget == 10


def test_island_in_chunks_is_the_island_at_once() -> None:
    texts = [f"<article>{i} {'é' * (i % 50)}\u2028</article>" * (i % 40) for i in range(3000)]
    fragments: list = [json_for_script(t) for t in texts]
    fragments[100] = [b'"', json_for_script("piece one")[1:-1], json_for_script(" two")[1:-1], b'"']
    texts[100] = "piece one two"
    nodes = [[-1, "user", "x", None, str(i), "message"] for i in range(3000)]
    joined = b"".join(island(nodes, fragments, {"1": 0}, 2))
    assert joined == json_for_script({"n": nodes, "h": texts, "u": {"1": 0}, "leaf": 2})


_USAGE_FILES = sorted(
    [*DEMO.glob("*.jsonl"), *SAMPLES.rglob("*.jsonl"), *(SAMPLES.parent / "samples-latest").rglob("*.jsonl")]
)


@pytest.mark.parametrize("path", _USAGE_FILES, ids=lambda p: p.name[:40])
def test_usage_counted_from_the_rendered_bodies_is_the_usage_read_back(path: Path) -> None:
    # The page's usage summary comes from the bodies it renders where that cannot differ from
    # reading the lines again (collector_for); where it could, the lines are read as before.
    session = load_session(path)
    if not session.entries:
        return
    collector = collector_for(session)
    if collector is None:
        return
    entries = select_entries(session, None, True)
    for entry, body in zip(entries, session.bodies(entries), strict=True):
        if wants_usage(entry):
            collector.add(entry, body)
    rows = usage_rows(session, entries, None, True, collector.finish())
    assert rows == usage_rows(session, entries, None, True)


def test_usage_is_read_back_where_an_attribution_or_an_old_format_could_change_it(tmp_path: Path) -> None:
    session = load_session(write_current_session(tmp_path / "current.jsonl"))
    assert any(e.kind == "child_usage_attributed" for e in session.entries)
    assert collector_for(session) is None
    v2 = write(tmp_path / "v2.jsonl", chain([message("user", content="hi")]))
    v2.write_text(v2.read_text().replace('"version":3', '"version":2', 1))
    assert collector_for(load_session(v2)) is None
    assert collector_for(load_session(_session(tmp_path, 3))) is not None


@pytest.mark.usefixtures("split_small")
def test_no_child_to_be_had_renders_in_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused() -> int:
        raise BlockingIOError("Resource temporarily unavailable")

    path = _session(tmp_path, 60)
    one, *_ = _export(path, 1, tmp_path / "stats")
    monkeypatch.setattr(os, "fork", refused)
    two, _images, _counts, records = _export(path, 2, tmp_path / "stats")
    assert records == [] and two == one


@pytest.mark.usefixtures("split_small")
def test_the_command_line_exports_html_with_a_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.cli import main

    path = _session(tmp_path, 60)
    one, *_ = _export(path, 1, tmp_path / "stats")
    stats = tmp_path / "cli-stats"
    monkeypatch.setenv("PRIME_SESSIONS_EXPORT_WORKERS", "2")
    monkeypatch.setenv("PRIME_SESSIONS_EXPORT_STATS", str(stats))
    out = tmp_path / "page.html"
    assert main(["export", str(path), "--format", "html", "--tree", "-o", str(out)]) == 0
    assert [json.loads(line)["child_used"] for line in stats.read_text().splitlines()] == [True]
    assert out.read_bytes() == one
    markdown = tmp_path / "page.md"  # only the HTML export forks
    assert main(["export", str(path), "--format", "md", "--tree", "-o", str(markdown)]) == 0
    assert len(stats.read_text().splitlines()) == 1
