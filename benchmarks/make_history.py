"""Generate a realistic session history for the catalogue benchmark (about 2,000 files, 500 MB).

The sessions are written by the reference implementation itself (``oracle/gen.mjs``, pi 0.73.1):
a few runs of the small scenarios (``linear, branches, compaction, fork, edge``) and of the
``large`` scenario for a spread of sizes, with different seeds, plus ONE session with 20,000
message entries (about 36 MB) that ``run_catalogue.py`` appends to. These templates are then
copied into pi's folder layout, ``<out>/sessions/--<encoded cwd>--/<ISO-ts>_<uuidv7>.jsonl``,
spread over 25 project folders. Each copy gets a fresh header: a new ``id`` (uuidv7), a new
``timestamp`` (spread over six months), the ``cwd`` of its project and, for forks, a
``parentSession`` pointing at a copy of its parent. Every other line is kept byte for byte.

Sizes follow a long-tailed distribution (most sessions small, some medium, a few large); the
number of the largest templates (3,000 messages) is solved for so that the total comes close to
``--target-mb``. Everything except the entry ids inside the templates (pi draws them at random)
is deterministic for a given ``--seed``.

The result is cached: when ``<out>/manifest.json`` exists with the same parameters and every file
listed in it has the recorded size, nothing is done. ``manifest.json`` records the count, the
total bytes, the size distribution, the 36 MB session, search words that occur in the text (with
the number of sessions holding them) and one word that occurs in few sessions.

Usage::

    python benchmarks/make_history.py [--out benchmarks/out/history] [--count 2000] [--target-mb 500]
                                      [--seed 20260301] [--force]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_core import BenchError, prepare_oracle, run_checked

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "benchmarks" / "out"
FORMAT_VERSION = 3  # bump when the history or its manifest changes: cached histories are rebuilt
TEMPLATE_VERSION = 2  # bump when the gen.mjs runs change: cached templates are regenerated

SMALL_SCENARIOS = "linear,branches,compaction,fork,edge"
# Share of the small tier per scenario (edge is kept rare: it supplies the rare search word).
SMALL_WEIGHTS = {
    "linear": 24,
    "branches": 20,
    "compaction": 20,
    "fork-from": 11,
    "branched-session": 11,
    "new-with-parent": 13,
    "edge": 1,
}
# Large tiers: messages -> share of all sessions. The 3,000-message tier takes what is needed to
# reach the target size; the small scenarios take the rest of the count.
LARGE_SHARES = {20: 0.150, 50: 0.165, 100: 0.125, 200: 0.085, 500: 0.055, 1000: 0.0325}
FILL_MESSAGES = 3000
HUGE_MESSAGES = 20000
SEEDS_PER_TIER = 3

PROJECTS = [
    "/home/dev/acme-webapp",
    "/home/dev/data-pipeline",
    "/home/dev/monorepo",
    "/home/dev/infra/terraform",
    "/home/dev/mobile-app",
    "/home/dev/oss/prime-sessions",
    "/home/dev/work/billing-service",
    "/home/dev/work/auth-gateway",
    "/home/dev/work/search-indexer",
    "/home/dev/experiments/llm-evals",
    "/home/dev/dotfiles",
    "/home/dev/blog",
    "/home/dev/oss/tiny-http",
    "/home/dev/work/reporting",
    "/home/dev/work/etl-jobs",
    "/home/dev/clients/northwind/portal",
    "/home/dev/clients/contoso/api",
    "/home/dev/games/roguelike",
    "/home/dev/research/notebooks",
    "/home/dev/work/design-system",
    "/home/dev/oss/cli-kit",
    "/home/dev/scratch",
    "/srv/build-agent/workspace",
    "/home/dev/My Projects/household budget",
    "C:\\Users\\dev\\win proj",
]
START = datetime(2025, 9, 1, tzinfo=UTC)
SPAN = timedelta(days=182)

# Words from gen.mjs's vocabulary and scenarios that make sensible searches.
# Common (in nearly every session), medium (one scenario) and specific words.
SEARCH_WORD_CANDIDATES = [
    "tokenizer",
    "middleware",
    "retryWithBackoff",
    "LruCache",
    "CHANGELOG",
    "ioredis",
    "ETag",
]
PHRASE_CANDIDATES = [("double", "submit"), ("cache", "headers"), ("nightly", "ingest")]

WORD_RE = re.compile(rb"[a-z0-9]+")
ALPHA_RE = re.compile(r"[a-z]+")


@dataclass
class Template:
    """One session written by gen.mjs.

    Attributes:
        key: stable name, for example ``large-500-s2`` or ``small-s1-linear``.
        tier: ``small``, ``large-N`` or ``huge``.
        file: where gen.mjs wrote it.
        parent: the template file its header's ``parentSession`` points at, if any.
    """

    key: str
    tier: str
    file: Path
    parent: Path | None = None
    size: int = 0
    tokens: set[str] = field(default_factory=set)
    text_words: set[str] = field(default_factory=set)


@dataclass
class Copy:
    """One file of the history."""

    template: Template
    rel: str
    session_id: str
    timestamp: str
    cwd: str
    mtime: float
    parent_rel: str | None = None


# ---------------------------------------------------------------------------------------------- helpers
def encode_cwd(cwd: str) -> str:
    """Pi's folder name for a cwd: one leading separator dropped, ``/ \\ :`` become ``-``."""
    if cwd[:1] in ("/", "\\"):
        cwd = cwd[1:]
    return "--" + re.sub(r"[/\\:]", "-", cwd) + "--"


def uuid7(ms: int, rng: random.Random) -> str:
    """A uuidv7 string for the Unix time ``ms``, with seeded random bits."""
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= rng.getrandbits(12) << 64
    value |= 0b10 << 62
    value |= rng.getrandbits(62)
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def iso_ms(moment: datetime) -> str:
    """``Date.toISOString()`` format: ``2026-03-02T09:14:07.122Z``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _text_of(message: dict[str, object]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                out.append(block["text"])
    return out


def scan_template(t: Template) -> None:
    """Record the template's size, its tokens in any field and the words of its user/assistant text."""
    data = t.file.read_bytes()
    t.size = len(data)
    flat = data.lower().replace(b"\\n", b" ").replace(b"\\t", b" ").replace(b'\\"', b" ")
    t.tokens = {m.decode() for m in set(WORD_RE.findall(flat))}
    words: set[str] = set()
    for line in data.split(b"\n"):
        if b'"role":"user"' not in line and b'"role":"assistant"' not in line:
            continue
        entry = orjson.loads(line)
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") in ("user", "assistant"):
            for text in _text_of(message):
                words.update(ALPHA_RE.findall(text.lower()))
    t.text_words = words


# ---------------------------------------------------------------------------------------------- templates
def _gen_jobs(seed: int) -> list[tuple[str, list[str]]]:
    jobs: list[tuple[str, list[str]]] = []
    for i in range(SEEDS_PER_TIER):
        jobs.append((f"small-s{i}", ["--only", SMALL_SCENARIOS, "--seed", str(seed + 101 + i)]))
    for n in [*LARGE_SHARES, FILL_MESSAGES]:
        for i in range(SEEDS_PER_TIER):
            extra: list[str] = []
            if i == 1 and n >= 200:
                extra = ["--large-branch-every", str(max(50, n // 4))]
            if i == 2 and n >= 500:
                extra = ["--large-compact-every", str(n // 3)]
            args = ["--only", "large", "--large", str(n), "--seed", str(seed + 1000 * n + i), *extra]
            jobs.append((f"large-{n}-s{i}", args))
    jobs.append(("huge", ["--only", "large", "--large", str(HUGE_MESSAGES), "--seed", str(seed + 7)]))
    return jobs


def ensure_templates(oracle: Path, node: str, work: Path, seed: int) -> list[Template]:
    """Run gen.mjs for every template (once; cached in ``work``) and return the templates."""
    jobs = _gen_jobs(seed)
    stamp = work / "templates.json"
    wanted = json.loads(json.dumps({"templateVersion": TEMPLATE_VERSION, "seed": seed, "jobs": jobs}))
    if not (stamp.is_file() and json.loads(stamp.read_text()) == wanted):
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)

        def run(job: tuple[str, list[str]]) -> None:
            run_checked([node, "gen.mjs", str(work / job[0]), *job[1]], oracle, f"gen.mjs {job[0]}")

        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
            list(pool.map(run, jobs))
        print(f"templates generated in {time.perf_counter() - started:.1f} s", flush=True)
        stamp.write_text(json.dumps(wanted, indent=1) + "\n")
    templates: list[Template] = []
    for name, _args in jobs:
        manifest = json.loads((work / name / "manifest.json").read_text())
        for s in manifest["sessions"]:
            file = work / name / s["relPath"]
            parent = Path(s["parentSession"]) if s.get("parentSession") else None
            if name.startswith("small"):
                key, tier = f"{name}-{s['name']}", "small"
            elif name == "huge":
                key, tier = name, "huge"
            else:
                key, tier = name, name.rsplit("-", 1)[0]
            templates.append(Template(key, tier, file, parent))
    templates_by_file = {t.file.resolve(): t for t in templates}
    for t in templates:  # gen.mjs wrote absolute paths inside its own output folder
        if t.parent is not None and t.parent.resolve() not in templates_by_file:
            t.parent = None
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(scan_template, templates))
    return templates


# ---------------------------------------------------------------------------------------------- plan
def plan_history(templates: list[Template], count: int, target: int, seed: int) -> list[Copy]:
    """Choose a template, project, id and timestamp for each of ``count`` files, deterministically."""
    rng = random.Random(seed)
    tiers: dict[str, list[Template]] = {}
    for t in templates:
        tiers.setdefault(t.tier, []).append(t)
    huge = tiers["huge"][0]
    mean = {tier: sum(t.size for t in ts) / len(ts) for tier, ts in tiers.items()}
    small_weights = [SMALL_WEIGHTS.get(_scenario(t), 1) for t in tiers["small"]]
    mean["small"] = sum(w * t.size for w, t in zip(small_weights, tiers["small"], strict=True)) / sum(
        small_weights
    )
    rest = count - 1
    counts = {f"large-{n}": round(share * rest) for n, share in LARGE_SHARES.items()}
    fixed_bytes = huge.size + sum(counts[k] * mean[k] for k in counts)
    left = rest - sum(counts.values())
    fill_tier = f"large-{FILL_MESSAGES}"
    k = round((target - fixed_bytes - left * mean["small"]) / (mean[fill_tier] - mean["small"]))
    counts[fill_tier] = max(0, min(left, k))
    counts["small"] = left - counts[fill_tier]

    chosen: list[Template] = [huge]
    for tier, n in counts.items():
        pool = tiers[tier]
        if tier == "small":
            chosen += rng.choices(pool, weights=small_weights, k=n)
        else:
            chosen += [pool[i % len(pool)] for i in range(n)]
    rng.shuffle(chosen)

    project_weights = [1 / (i + 1) ** 0.9 for i in range(len(PROJECTS))]
    copies: list[Copy] = []
    by_template: dict[Path, list[Copy]] = {}
    for t in chosen:
        moment = START + timedelta(milliseconds=rng.randrange(int(SPAN.total_seconds() * 1000)))
        cwd = PROJECTS[0] if t is huge else rng.choices(PROJECTS, weights=project_weights)[0]
        sid = uuid7(int(moment.timestamp() * 1000), rng)
        mtime = moment.timestamp() + rng.uniform(300, 4 * 3600)
        c = Copy(t, "", sid, iso_ms(moment), cwd, mtime)
        copies.append(c)
        by_template.setdefault(t.file.resolve(), []).append(c)
    parent_of: dict[int, Copy] = {}
    for i, c in enumerate(copies):  # forks point at an older copy of their parent, when there is one
        if c.template.parent is not None:
            parents = by_template.get(c.template.parent.resolve(), [])
            older = [p for p in parents if p.timestamp < c.timestamp] or parents
            if older:
                parent = rng.choice(older)
                parent_of[i] = parent
                if _scenario(c.template) != "fork-from":  # fork-from moves to another cwd
                    c.cwd = parent.cwd
    for c in copies:
        name = f"{c.timestamp.replace(':', '-').replace('.', '-')}_{c.session_id}.jsonl"
        c.rel = f"sessions/{encode_cwd(c.cwd)}/{name}"
    for i, parent in parent_of.items():
        copies[i].parent_rel = parent.rel
    return copies


def _scenario(t: Template) -> str:
    # small-s<i>-<scenario>
    return t.key.split("-", 2)[2]


# ---------------------------------------------------------------------------------------------- write
def write_history(copies: list[Copy], out: Path) -> None:
    """Write every copy: a new header line, then the template's other lines unchanged."""
    sessions = out / "sessions"
    shutil.rmtree(sessions, ignore_errors=True)
    cache: dict[Path, tuple[dict[str, object], bytes]] = {}
    for c in copies:
        cached = cache.get(c.template.file)
        if cached is None:
            data = c.template.file.read_bytes()
            nl = data.index(b"\n")
            cached = (orjson.loads(data[:nl]), data[nl:])
            cache[c.template.file] = cached
        header, rest = cached
        new = dict(header)
        new["id"] = c.session_id
        new["timestamp"] = c.timestamp
        new["cwd"] = c.cwd
        if "parentSession" in new:
            new["parentSession"] = str(out / c.parent_rel) if c.parent_rel else new["parentSession"]
        line = json.dumps(new, ensure_ascii=False, separators=(",", ":")).encode()
        path = out / c.rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(line)
            handle.write(rest)
        os.utime(path, (c.mtime, c.mtime))


# ---------------------------------------------------------------------------------------------- words
def choose_words(templates: list[Template], copies: list[Copy]) -> dict[str, object]:
    """Search words with the number of sessions whose text holds them as a token (any field)."""
    uses = Counter(c.template.key for c in copies)
    used = [t for t in templates if uses[t.key]]

    def sessions_with(token: str) -> int:
        return sum(uses[t.key] for t in used if token in t.tokens)

    words = [{"word": w, "sessions": sessions_with(w.lower())} for w in SEARCH_WORD_CANDIDATES]
    words = [w for w in words if w["sessions"]]
    phrases = []
    for a, b in PHRASE_CANDIDATES:
        n = sum(uses[t.key] for t in used if a in t.text_words and b in t.text_words)
        if n:
            phrases.append({"phrase": f"{a} {b}", "sessionsWithBothWords": n})
    # rare: a word of some user/assistant text that few sessions hold in any field
    limit = max(1, len(copies) // 100)
    candidates = set().union(*(t.text_words for t in used))
    candidates = {w for w in candidates if 6 <= len(w) <= 14}
    rare = sorted((sessions_with(w), w) for w in candidates if 0 < sessions_with(w) <= limit)
    rare_word = {"word": rare[0][1], "sessions": rare[0][0]} if rare else None
    return {"searchWords": words, "phrases": phrases, "rareWord": rare_word}


# ---------------------------------------------------------------------------------------------- main
BUCKETS = [(50_000, "< 50 KB"), (200_000, "50-200 KB"), (1_000_000, "200 KB-1 MB"), (5_000_000, "1-5 MB")]


def distribution(sizes: list[int]) -> list[dict[str, object]]:
    """Counts and bytes per size bucket."""
    rows: list[dict[str, object]] = []
    low = 0
    for high, label in [*BUCKETS, (1 << 62, "> 5 MB")]:
        inside = [s for s in sizes if low <= s < high]
        rows.append({"bucket": label, "files": len(inside), "bytes": sum(inside)})
        low = high
    return rows


def history_ok(out: Path, params: dict[str, object]) -> dict[str, object] | None:
    """The cached manifest when it matches ``params`` and every file has its recorded size."""
    path = out / "manifest.json"
    if not path.is_file():
        return None
    manifest = json.loads(path.read_text())
    if manifest.get("params") != params:
        return None
    append = manifest["appendSession"]
    target = out / append["path"]
    if target.is_file() and target.stat().st_size > append["bytes"]:  # an interrupted append test
        print(f"restoring {target.name} to {append['bytes']:,} B (left longer by an interrupted run)")
        with open(target, "r+b") as handle:
            handle.truncate(append["bytes"])
    for rel, size in manifest["files"].items():
        try:
            if (out / rel).stat().st_size != size:
                return None
        except OSError:
            return None
    return manifest


def ensure_history(
    out: Path, count: int = 2000, target_mb: float = 500, seed: int = 20260301, force: bool = False
) -> dict[str, object]:
    """Build the history in ``out`` unless a matching one is there; return its manifest."""
    params = {"formatVersion": FORMAT_VERSION, "count": count, "targetMB": target_mb, "seed": seed}
    if not force:
        cached = history_ok(out, params)
        if cached is not None:
            print(f"history: cached in {out} ({cached['count']} files, {cached['totalBytes'] / 1e6:.0f} MB)")
            return cached
    started = time.perf_counter()
    oracle = prepare_oracle(out.parent)  # the work folder that holds the history
    node = shutil.which("node") or "node"
    templates = ensure_templates(oracle, node, out.parent / "history-templates", seed)
    copies = plan_history(templates, count, int(target_mb * 1e6), seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").unlink(missing_ok=True)
    write_history(copies, out)
    sizes = {c.rel: (out / c.rel).stat().st_size for c in copies}
    huge = next(c for c in copies if c.template.tier == "huge")
    tiers: dict[str, dict[str, int]] = {}
    for c in copies:
        row = tiers.setdefault(c.template.tier, {"files": 0, "bytes": 0})
        row["files"] += 1
        row["bytes"] += sizes[c.rel]
    gen_manifest = json.loads((huge.template.file.parent.parent.parent / "manifest.json").read_text())
    manifest: dict[str, object] = {
        "generator": "benchmarks/make_history.py from oracle/gen.mjs sessions",
        "reference": gen_manifest.get("reference"),
        "params": params,
        "count": len(copies),
        "totalBytes": sum(sizes.values()),
        "sessionsDir": "sessions",
        "projects": len({c.cwd for c in copies}),
        "headerTimestamps": [min(c.timestamp for c in copies), max(c.timestamp for c in copies)],
        "appendSession": {
            "path": huge.rel,
            "bytes": sizes[huge.rel],
            "sessionId": huge.session_id,
            "messages": HUGE_MESSAGES,
        },
        **choose_words(templates, copies),
        "tiers": dict(sorted(tiers.items(), key=lambda kv: kv[1]["bytes"] / kv[1]["files"])),
        "distribution": distribution(list(sizes.values())),
        "files": sizes,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(
        f"history: {len(copies)} files, {manifest['totalBytes'] / 1e6:.0f} MB in {out} "
        f"({time.perf_counter() - started:.1f} s)"
    )
    return manifest


def main(argv: list[str] | None = None) -> int:
    """Command line: build (or confirm) the history and print its summary."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=DEFAULT_OUT / "history", help="history folder")
    p.add_argument("--count", type=int, default=2000, help="number of session files (default 2000)")
    p.add_argument("--target-mb", type=float, default=500, help="approximate total size (default 500)")
    p.add_argument("--seed", type=int, default=20260301, help="seed for the choices and the text")
    p.add_argument("--force", action="store_true", help="rebuild even when a matching history exists")
    args = p.parse_args(argv)
    try:
        manifest = ensure_history(args.out.resolve(), args.count, args.target_mb, args.seed, args.force)
    except BenchError as err:
        print(f"make_history: {err}", file=sys.stderr)
        return 1
    summary = {k: v for k, v in manifest.items() if k != "files"}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
