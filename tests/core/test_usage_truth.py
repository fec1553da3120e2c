"""The catalogue's usage figures against a second, independent count: a plain loop over the files.

The loop below uses nothing of core (plain ``json``, ``datetime``): it applies the counting rules of issue
16 as they are written (five places; every branch; child_usage_attributed replaces its target's usage,
last one wins; a fork's or clone's entries with the id and timestamp of an entry of a session its header
links to, transitively, count once; tokens and cost as recorded) and adds up per UTC day. Every day and
every total must agree with ``Catalogue.usage_report`` on the samples (with forks and clones),
samples-latest, the wild corpus and a small instance of the benchmark history.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

from core.catalogue import Catalogue
from core.usage import UsageFilter
from tests.conftest import SHARED as SHARED_DIR

REPO = Path(__file__).resolve().parents[2]
SHARED = SHARED_DIR  # PRIME_SHARED_DIR, else beside the checkout
REFERENCE = SHARED / "reference"

ALIASES = {"branchSummary": "branch_summary", "childUsageAttributed": "child_usage_attributed"}


def _num(value: object) -> float:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _tokens_cost(usage: dict) -> tuple[float, float]:
    total = usage.get("totalTokens")
    if not isinstance(total, int | float) or isinstance(total, bool):
        total = sum(_num(usage.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite"))
    cost = usage.get("cost")
    money = cost.get("total") if isinstance(cost, dict) else 0
    return total, float(_num(money))


def _moment(value: object) -> datetime | None:
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return None


def _read(path: Path) -> tuple[dict | None, list[dict]]:
    header = None
    entries = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            obj = json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        if header is None and not entries and obj.get("type") == "session":
            header = obj
        elif obj.get("type") != "session":
            entries.append(obj)
    return header, entries


def plain_count(files: list[Path]) -> tuple[dict[str, list[float]], list[float]]:
    """Per UTC day ``[tokens, cost]``, and the totals, by the rules of issue 16."""
    read = {os.path.normpath(p): _read(p) for p in files}
    by_name = {os.path.basename(p): p for p in read}
    records: dict[str, list[tuple[str, str, datetime, float, float]]] = {}
    for path, (header, entries) in read.items():
        if header is None:
            continue
        created = _moment(header.get("timestamp")) or datetime.fromtimestamp(0, UTC)
        aggregates = {}
        for obj in entries:
            if ALIASES.get(obj.get("type"), obj.get("type")) == "child_usage_attributed":
                if isinstance(obj.get("targetId"), str) and isinstance(obj.get("aggregateUsage"), dict):
                    aggregates[obj["targetId"]] = obj["aggregateUsage"]
        rows = []
        for obj in entries:
            kind = ALIASES.get(obj.get("type"), obj.get("type"))
            message = obj.get("message") if isinstance(obj.get("message"), dict) else {}
            usage = None
            if kind == "message" and message.get("role") == "assistant":
                usage = aggregates.get(obj.get("id"), message.get("usage"))
            elif kind == "message" and message.get("role") == "toolResult":
                usage = message.get("usage")
            elif kind in ("usage", "compaction", "branch_summary"):
                usage = obj.get("usage")
            if not isinstance(usage, dict):
                continue
            tokens, cost = _tokens_cost(usage)
            moment = _moment(obj.get("timestamp"))
            if moment is None and isinstance(message.get("timestamp"), int | float):
                moment = datetime.fromtimestamp(message["timestamp"] / 1000, UTC)
            rows.append((str(obj.get("id")), str(obj.get("timestamp")), moment or created, tokens, cost))
        records[path] = rows

    def parent(path: str) -> str | None:
        recorded = read[path][0].get("parentSession")
        if not isinstance(recorded, str):
            return None
        found = os.path.normpath(recorded) if os.path.normpath(recorded) in read else None
        found = found or by_name.get(recorded.replace("\\", "/").rsplit("/", 1)[-1])
        return found if found != path else None

    days: dict[str, list[float]] = {}
    totals = [0.0, 0.0]
    for path, rows in records.items():
        inherited: set[tuple[str, str]] = set()
        seen = {path}
        up = parent(path)
        while up is not None and up not in seen and up in records:
            seen.add(up)
            inherited |= {(r[0], r[1]) for r in records[up]}
            up = parent(up)
        for entry_id, stamp, moment, tokens, cost in rows:
            if (entry_id, stamp) in inherited:
                continue
            if not tokens and not cost:
                continue
            day = days.setdefault(moment.astimezone(UTC).date().isoformat(), [0.0, 0.0])
            day[0] += tokens
            day[1] += cost
            totals[0] += tokens
            totals[1] += cost
    return days, totals


def assert_catalogue_agrees(tmp_path: Path, roots: list[Path]) -> None:
    files = [p for root in roots for p in root.rglob("*.jsonl")]
    days, totals = plain_count(files)
    catalogue = Catalogue(tmp_path / "catalogue")
    try:
        catalogue.refresh(roots)
        got = catalogue.usage_report("daily", UsageFilter(timezone=UTC), True, roots)
        records = catalogue.usage_records(roots)
        seen = catalogue.usage_overview(UsageFilter(timezone=UTC), "daily", roots)  # the Usage window's
    finally:
        catalogue.close()
    assert {row.key: [row.total_tokens, pytest.approx(row.total_cost, abs=1e-9)] for row in got.rows} == {
        day: [tokens, pytest.approx(cost, abs=1e-9)] for day, (tokens, cost) in days.items()
    }
    assert got.totals.total_tokens == totals[0]
    assert got.totals.total_cost == pytest.approx(totals[1], abs=1e-9)
    assert sum(r.total for r in records) == totals[0]
    assert {row.key: [row.total_tokens, pytest.approx(row.total_cost, abs=1e-9)] for row in seen.days} == {
        day: [tokens, pytest.approx(cost, abs=1e-9)] for day, (tokens, cost) in days.items()
    }
    assert seen.totals.total_tokens == totals[0]
    for row in got.rows:  # the breakdown adds up to its row
        assert sum(m.total_tokens for m in row.model_breakdowns) == row.total_tokens


def test_the_samples_with_their_forks_and_clones(tmp_path: Path) -> None:
    assert_catalogue_agrees(
        tmp_path, [REFERENCE / "samples" / "pi-layout" / "sessions", REFERENCE / "samples" / "spec-layout"]
    )


def test_samples_latest(tmp_path: Path) -> None:
    latest = REFERENCE / "samples-latest"
    assert_catalogue_agrees(tmp_path, [latest / "pi-layout" / "sessions", latest / "spec-layout"])


def test_the_wild_corpus(tmp_path: Path) -> None:
    assert_catalogue_agrees(tmp_path, [SHARED / "corpus" / "wild"])


def test_forks_count_once_and_hand_copies_count_again(tmp_path: Path) -> None:
    # The same two-reply session three times: a fork of it, and a copy made by hand (no parentSession).
    sessions = tmp_path / "s"
    sessions.mkdir()
    usage = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
             "cost": {"total": 0.5}}  # fmt: skip
    lines = [
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-05-01T10:00:00.000Z",
         "message": {"role": "user", "content": "hi", "timestamp": 1}},
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-05-01T10:00:01.000Z",
         "message": {"role": "assistant", "content": [], "provider": "p", "model": "m", "usage": usage}},
    ]  # fmt: skip
    reply = {"role": "assistant", "content": [], "provider": "p", "model": "m", "usage": usage}
    extra = {
        "type": "message",
        "id": "a2",
        "parentId": "a1",
        "timestamp": "2026-05-02T10:00:01.000Z",
        "message": reply,
    }

    def write(name: str, header: dict, rows: list[dict]) -> Path:
        path = sessions / name
        path.write_text("".join(json.dumps(r) + "\n" for r in [header, *rows]))
        return path

    base = {"type": "session", "version": 3, "timestamp": "2026-05-01T10:00:00.000Z", "cwd": "/p"}
    parent = write("a.jsonl", {**base, "id": "a"}, lines)
    write("b.jsonl", {**base, "id": "b", "parentSession": str(parent)}, [*lines, extra])
    write("c.jsonl", {**base, "id": "c"}, lines)
    assert_catalogue_agrees(tmp_path, [sessions])
    catalogue = Catalogue(tmp_path / "catalogue")
    got = catalogue.usage_report("session", UsageFilter(timezone=UTC), False, [sessions])
    catalogue.close()
    assert {Path(r.key).name: r.total_tokens for r in got.rows} == {
        "a.jsonl": 15,
        "b.jsonl": 15,
        "c.jsonl": 15,
    }
    assert got.totals.total_tokens == 45  # 15 in a, the fork's new reply, and the hand copy again


# ------------------------------------------------------------------ a small benchmark history
def _make_history() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_history", REPO / "benchmarks" / "make_history.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_history"] = module
    spec.loader.exec_module(module)
    return module


def test_a_small_benchmark_history(tmp_path: Path, oracle_dir: Path) -> None:
    """The benchmark's generator (its templates, copies and forks), on 60 files instead of 2,000."""
    mh = _make_history()
    node = shutil.which("node")
    assert node is not None
    work = tmp_path / "templates"
    jobs = [
        ("small", ["--only", "linear,branches,compaction,fork,edge", "--seed", "11"]),
        ("large", ["--only", "large", "--large", "60", "--seed", "12", "--large-branch-every", "20"]),
    ]
    templates = []
    for name, args in jobs:
        subprocess.run(
            [node, "gen.mjs", str(work / name), *args], cwd=oracle_dir, check=True, capture_output=True
        )
        manifest = json.loads((work / name / "manifest.json").read_text())
        for s in manifest["sessions"]:
            parent = Path(s["parentSession"]) if s.get("parentSession") else None
            templates.append(mh.Template(f"{name}-{s['name']}", name, work / name / s["relPath"], parent))
    files = {t.file.resolve() for t in templates}
    rng = random.Random(3)
    copies: list = []
    by_template: dict[Path, list] = {}
    for i in range(60):
        t = rng.choice(templates)
        moment = mh.START + mh.timedelta(hours=rng.randrange(24 * 180))
        c = mh.Copy(t, "", mh.uuid7(int(moment.timestamp() * 1000), rng), mh.iso_ms(moment),
                    rng.choice(mh.PROJECTS[:5]), moment.timestamp())  # fmt: skip
        if t.parent is not None and t.parent.resolve() in files:
            older = by_template.get(t.parent.resolve())
            if older:
                c.parent_rel = rng.choice(older).rel
        c.rel = f"sessions/{mh.encode_cwd(c.cwd)}/{i:03d}_{c.session_id}.jsonl"
        copies.append(c)
        by_template.setdefault(t.file.resolve(), []).append(c)
    assert any(c.parent_rel for c in copies)  # some forks link to a copy of their parent
    out = tmp_path / "history"
    mh.write_history(copies, out)
    assert_catalogue_agrees(tmp_path, [out / "sessions"])
