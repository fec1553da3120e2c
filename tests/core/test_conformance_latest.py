"""Conformance with current pi (1.6.0): its recorded answers for ``samples-latest/``, and the oracle live.

``shared/reference/samples-latest`` holds sessions pi 1.6.0 wrote and what it derived from them (the
same layout as ``samples/``): those answers are compared here in full, without node. The oracle then
builds the context at every leaf of every sample (1.6.0 for ``samples-latest/``, 0.73.1 for
``samples/``) and of hand-made files that use each of pi 1.x's context rules at its edges; those
tests are marked ``oracle`` and skip without node.

:func:`reference_contexts` (also used by ``test_conformance_wild.py``) runs a reference over files in
one node process and returns its context at the default leaf, the null leaf and every tree leaf.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import orjson
import pytest

from core import build_context, find_session_files, load_session, summarize
from core.session import DEFAULT_LEAF, Flavour, Session
from core.session.context import DefaultLeaf
from tests.conftest import SHARED
from tests.core.test_conformance import LIST_FIELDS, _tree_json

LATEST = SHARED / "reference" / "samples-latest"
LATEST_EXPECTED = LATEST / "expected"
OLD_SAMPLES = SHARED / "reference" / "samples"
INDEX = json.loads((LATEST_EXPECTED / "index.json").read_text())
CASES = INDEX["contexts"]
KEYS = ("messages", "thinkingLevel", "model")

# One node process per reference and file list: load as the reference's SessionManager does
# (loadEntriesFromFile, then migration), optionally apply child_usage_attributed first as Prime Agent
# does on load (FORMAT-latest.md §6: by the ids as written, before migrating, the last one wins),
# then buildSessionContext at the default leaf, the null leaf and every entry no other names as parent.
# The reference hangs on parent loops, so a leaf whose path loops is reported, not built.
HARNESS = r"""
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
const { loadPi } = await import(pathToFileURL(process.env.ORACLE_LIB).href);
const pi = await loadPi({ quiet: true });
const attribute = process.env.ATTRIBUTE === "1";
const files = JSON.parse(fs.readFileSync(0, "utf8"));
const out = {};
for (const file of files) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prime-leaves-"));
  const copy = path.join(tmp, "session.jsonl");
  fs.copyFileSync(file, copy);
  try {
    const all = pi.loadEntriesFromFile(copy);
    if (attribute) {
      const targets = new Map();
      for (const e of all) {
        if (e && e.type === "message" && e.message && e.message.role === "assistant") targets.set(e.id, e);
      }
      for (const e of all) {
        if (!e || e.type !== "child_usage_attributed") continue;
        const target = targets.get(e.targetId);
        if (target) target.message.usage = structuredClone(e.aggregateUsage);
      }
    }
    pi.migrateSessionEntries(all);
    const entries = all.filter((e) => e.type !== "session");
    const parents = new Set(entries.map((e) => e.parentId));
    const byId = new Map(entries.map((e) => [e.id, e]));
    const result = { count: entries.length, contexts: {} };
    const build = (key, leaf) => {
      const seen = new Set();
      for (let e = leaf ? byId.get(leaf) : undefined; e; e = e.parentId ? byId.get(e.parentId) : undefined) {
        if (seen.has(e.id)) { result.contexts[key] = { error: "parent links loop" }; return; }
        seen.add(e.id);
      }
      try { result.contexts[key] = JSON.parse(JSON.stringify(pi.buildSessionContext(entries, leaf))); }
      catch (err) { result.contexts[key] = { error: String(err) }; }
    };
    build("default", undefined);
    build("null", null);
    entries.forEach((e, i) => { if (!parents.has(e.id)) build(String(i), e.id); });
    out[file] = result;
  } catch (err) {
    out[file] = { error: String(err) };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
process.stdout.write(JSON.stringify(out));
"""


def reference_contexts(
    oracle_dir: Path, files: list[Path], ref: str, *, attribute: bool = False
) -> dict[str, dict[str, object]]:
    """``{file: {"count": entries, "contexts": {leaf key: context or {"error"}}}}`` from one reference.

    Leaf keys: ``"default"``, ``"null"`` and, for every tree leaf, its position among the entries
    (the reference's v1 ids are random, so positions are what both sides share).

    Args:
        oracle_dir: the installed oracle (the ``oracle_dir`` fixture).
        files: session files (only read, through temporary copies).
        ref: ``"0.73"`` (0.73.1) or ``"latest"`` (1.6.0).
        attribute: apply ``child_usage_attributed`` on load first, as Prime Agent does.
    """
    env = {
        **os.environ,
        "PI_REF": ref,
        "ORACLE_LIB": str(oracle_dir / "lib.mjs"),
        "ATTRIBUTE": "1" if attribute else "0",
    }
    env.pop("PI_PKG_DIR", None)
    with tempfile.TemporaryDirectory(prefix="prime-leaves-") as folder:
        script = Path(folder) / "leaves.mjs"  # lib.mjs finds the packages from its own folder
        script.write_text(HARNESS)
        result = subprocess.run(
            ["node", str(script)],
            input=json.dumps([str(f) for f in files]),
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    found: dict[str, dict[str, object]] = json.loads(result.stdout)
    return {str(Path(name)): value for name, value in found.items()}


def our_contexts(session: Session, keys: list[str]) -> dict[str, dict[str, object]]:
    """Our contexts for the reference's leaf keys, after a JSON round trip, with the reference's keys."""
    found: dict[str, dict[str, object]] = {}
    for key in keys:
        leaf: str | DefaultLeaf | None
        if key == "default":
            leaf = DEFAULT_LEAF
        elif key == "null":
            leaf = None
        else:
            leaf = session.entries[int(key)].id
        context = json.loads(orjson.dumps(build_context(session, leaf)))
        found[key] = {k: context[k] for k in KEYS if k in context}
    return found


def assert_same_contexts(session: Session, reference: dict[str, object], name: str) -> int:
    """Our context equals the reference's at every leaf it built; returns how many were compared."""
    assert "error" not in reference, (name, reference)
    assert reference["count"] == len(session.entries), name
    contexts = reference["contexts"]
    assert isinstance(contexts, dict)
    ours = our_contexts(session, list(contexts))
    for key, want in contexts.items():
        assert "error" not in want, (name, key, want)
        assert ours[key] == want, (name, key)
    return len(contexts)


# ---------------------------------------------------------------------------- recorded answers
def _session_path(case: dict) -> Path:
    return (LATEST_EXPECTED / case["session"]).resolve()


def _leaf(args: list[str]) -> str | DefaultLeaf | None:
    if not args:
        return DEFAULT_LEAF
    value = args[args.index("--leaf") + 1]
    return None if value == "null" else value


@pytest.mark.parametrize("case", CASES, ids=[c["expected"] for c in CASES])
def test_context_matches_pi_latest(case: dict) -> None:
    session = load_session(_session_path(case))
    want = json.loads((LATEST_EXPECTED / case["expected"]).read_text())["context"]
    ours = json.loads(orjson.dumps(build_context(session, _leaf(case["cliArgs"]))))
    assert list(ours) == list(KEYS)  # a pi file's context has no serviceTier, as pi's has none
    assert ours["messages"] == want["messages"]
    assert len(ours["messages"]) == want["messageCount"]
    if case["compare"] == "full":
        assert (ours["thinkingLevel"], ours["model"]) == (want["thinkingLevel"], want["model"])


FILE_CASES = [c for c in CASES if not c["cliArgs"]]


@pytest.mark.parametrize("case", FILE_CASES, ids=[c["expected"] for c in FILE_CASES])
def test_tree_labels_name_leaf_match_pi_latest(case: dict) -> None:
    session = load_session(_session_path(case))
    want = json.loads((LATEST_EXPECTED / case["expected"]).read_text())
    assert (session.session_id, session.cwd, session.name) == (
        want["sessionId"],
        want["cwd"],
        want["sessionName"],
    )
    assert len(session.entries) == want["entryCount"]
    if session.version >= 2:
        assert session.leaf_id == want["leafId"]
        assert [e.id for e in session.path_to(session.leaf_id)] == want["branch"]
        assert session.labels == want["labels"]
        assert _tree_json(session) == want["tree"]
    else:
        assert len(session.path_to(session.leaf_id)) == len(want["branch"])


LISTS = [c for c in INDEX["lists"] if c["sessions"]]  # 1.6.0's list() of one folder keeps only its cwd's


@pytest.mark.parametrize("case", LISTS, ids=[c["expected"] for c in LISTS])
def test_list_all_matches_pi_latest(case: dict) -> None:
    root = (LATEST_EXPECTED / case["root"]).resolve()
    expected = json.loads((LATEST_EXPECTED / case["expected"]).read_text())["sessions"]
    files = [f for f in find_session_files(root) if f.parent != root]  # listAll reads sub-folders only
    ours = sorted((summarize(load_session(f)) for f in files), key=lambda s: s.modified or "", reverse=True)
    assert len(ours) == case["sessions"] == len(expected)
    by_path = {e["path"]: e for e in expected}
    for summary in ours:
        shown = case["pathPrefix"] + summary.path[len(str(root)) :]
        got = summary.to_json()
        assert {k: got[k] for k in LIST_FIELDS} == {k: by_path[shown][k] for k in LIST_FIELDS}, shown


def test_every_latest_sample_is_covered_and_read_as_pi_1_where_it_uses_a_1x_type() -> None:
    files = {p.resolve() for p in LATEST.rglob("*.jsonl")}
    assert files <= {_session_path(c) for c in CASES}
    flavours = {p.name: load_session(p).flavour for p in files}
    modern = [name for name, flavour in flavours.items() if flavour is Flavour.PI_1]
    assert len(modern) == 1 and "01a139df" in modern[0]  # the modern sample: every 1.x entry type
    assert set(flavours.values()) == {Flavour.PI_0, Flavour.PI_1}


# ---------------------------------------------------------------------------- the oracle, every leaf
def test_every_leaf_of_every_latest_sample_equals_pi_latest(oracle_dir: Path) -> None:
    files = sorted(LATEST.rglob("*.jsonl"))
    reference = reference_contexts(oracle_dir, files, "latest")
    compared = sum(assert_same_contexts(load_session(f), reference[str(f)], f.name) for f in files)
    assert compared >= 50


def test_every_leaf_of_every_sample_still_equals_pi_0_73(oracle_dir: Path) -> None:
    files = sorted(OLD_SAMPLES.rglob("*.jsonl"))
    reference = reference_contexts(oracle_dir, files, "0.73")
    compared = sum(assert_same_contexts(load_session(f), reference[str(f)], f.name) for f in files)
    assert compared >= 50


# ---------------------------------------------------------------------------- pi 1.x's rules at their edges
class _Builder:
    """Writes a session file entry by entry; ``add`` chains to the previous entry unless told a parent."""

    def __init__(self) -> None:
        self.lines = [
            {
                "type": "session",
                "version": 3,
                "id": "edge-1x",
                "timestamp": "2026-10-01T00:00:00.000Z",
                "cwd": "/w",
            }
        ]
        self.last: str | None = None
        self.count = 0

    def add(self, entry_type: str, parent: object = "last", **fields: object) -> str:
        self.count += 1
        entry_id = f"e{self.count:07d}"
        entry: dict[str, object] = {
            "type": entry_type,
            "id": entry_id,
            "parentId": self.last if parent == "last" else parent,
            "timestamp": f"2026-10-01T00:{self.count // 60:02d}:{self.count % 60:02d}.000Z",
        }
        entry.update(fields)
        self.lines.append(entry)
        self.last = entry_id
        return entry_id

    def message(self, role: str, parent: object = "last", **fields: object) -> str:
        return self.add("message", parent, message={"role": role, **fields})

    def write(self, path: Path) -> Path:
        path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in self.lines))
        return path


def _text(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


def _edge_file(path: Path) -> Path:
    """Every pi 1.x context rule, at and around its edges, on several branches."""
    b = _Builder()
    b.add("model_change", provider="anthropic", modelId="claude-opus-4-5")
    b.message("system", content="You are a coding agent (v1).", timestamp=1)
    first_user = b.message("user", content="First question", timestamp=2)
    b.message("assistant", content=_text("First answer"), provider="anthropic", model="m1", stopReason="stop")
    early_tool = b.message(
        "toolResult", toolCallId="t1", toolName="read", content=_text("old file"), isError=False
    )
    b.add("context_edit", targetId=first_user, replacement={"content": "edited before the kept range"})
    kept_start = b.message("user", content=None, timestamp=3)  # null content
    b.message("system", content="You are a coding agent (v2).", timestamp=4)  # skipped inside the kept range
    b.message("assistant", provider="anthropic", model="m2", stopReason="stop")  # no content at all
    tool = b.message("toolResult", toolCallId="t2", toolName="bash", content=None, isError=False)
    bash = b.message(
        "bashExecution", command="ls", output="a b", exitCode=0, cancelled=False, truncated=False
    )
    custom = b.add("custom_message", customType="note", content="a custom note", display=True)
    b.add("custom_message", customType="empty", content=None, display=False)
    b.add("custom_message", customType="absent", display=True)
    inner = b.add(
        "compaction",
        summary="Older summary",
        firstKeptEntryId=early_tool,
        tokensBefore=1000,
        systemMessage=None,
    )
    b.add("usage", kind="cache_warm", provider="anthropic", model="m2", usage={"input": 1, "output": 1})
    compaction = b.add(
        "compaction",
        summary="The summary",
        firstKeptEntryId=kept_start,
        tokensBefore=5000,
        systemMessage={"role": "system", "content": "System at the boundary", "timestamp": 5},
    )
    b.message("system", content=None, timestamp=6)  # after the compaction: emitted, content ""
    assistant = b.message(
        "assistant", content=_text("Second answer"), provider="openai", model="m3", stopReason="stop"
    )
    b.add("context_edit", targetId=assistant, replacement={"content": "string for an assistant"})
    b.add("context_edit", targetId=tool, replacement={"content": "string for a tool result"})
    b.add("context_edit", targetId=kept_start, replacement={"content": "a user keeps a string"})
    b.add("context_edit", targetId=kept_start, replacement={"content": "the latest edit wins"})
    b.add("context_edit", targetId=custom, replacement={"content": _text("custom edited")})
    b.add("context_edit", targetId=bash, replacement={"content": "a bash execution is not editable"})
    b.add("context_edit", targetId=inner, replacement=None)  # an older compaction makes nothing anyway
    fork = b.add("thinking_level_change", thinkingLevel="high")
    b.add("context_edit", targetId=compaction, replacement=None)  # drops the system message and summary
    b.message("user", content="branch A leaf", timestamp=7)
    b.add("context_edit", fork, targetId=compaction, replacement={"content": "summaries are not editable"})
    branch = b.add("branch_summary", fromId=assistant, summary="Left a branch")
    b.add("context_edit", targetId=branch, replacement=None)
    b.message("user", content="branch B leaf", timestamp=8)
    b.add("context_edit", fork, targetId=assistant, replacement="not an object")
    b.add("context_edit", targetId=tool, replacement={"other": 1})
    b.add("context_edit", targetId=kept_start, replacement={"content": None})
    b.message("user", content="branch C leaf", timestamp=9)
    own = b.add("compaction", fork, summary="Keeps nothing", tokensBefore=9, firstKeptEntryId="")
    b.lines[-1]["firstKeptEntryId"] = own  # pi 1.x writes its own id when asked to keep nothing
    b.message("user", content="after keeping nothing", timestamp=10)
    b.add("context_edit", targetId="no-such-entry", replacement=None)
    b.add("context_edit", targetId=12345, replacement=None)
    return b.write(path)


def test_pi_1x_rules_at_their_edges_equal_pi_latest_at_every_leaf(tmp_path: Path, oracle_dir: Path) -> None:
    path = _edge_file(tmp_path / "edge-1x.jsonl")
    session = load_session(path)
    assert session.flavour is Flavour.PI_1
    reference = reference_contexts(oracle_dir, [path], "latest")[str(path)]
    assert assert_same_contexts(session, reference, path.name) == 6  # default, null and four leaves


def _null_content_file(path: Path, *, marked: bool) -> Path:
    b = _Builder()
    b.message("user", content=None, timestamp=1)
    b.message("assistant", provider="p", model="m", stopReason="stop")
    b.add("custom_message", customType="x", content=None, display=True)
    if marked:
        b.add("usage", kind="cache_warm", provider="p", model="m", usage={"input": 1})
    b.message("toolResult", toolCallId="t", toolName="read", content=None, isError=False)
    return b.write(path)


@pytest.mark.parametrize("marked", [False, True], ids=["no-1x-type", "with-a-usage-entry"])
def test_null_content_is_filled_in_only_for_a_file_pi_1x_wrote(
    tmp_path: Path, oracle_dir: Path, marked: bool
) -> None:
    # Where 0.73.1 and 1.6.0 differ on the same bytes, a file gets the answer of the agent that wrote it.
    path = _null_content_file(tmp_path / "null.jsonl", marked=marked)
    session = load_session(path)
    assert session.flavour is (Flavour.PI_1 if marked else Flavour.PI_0)
    old = reference_contexts(oracle_dir, [path], "0.73")[str(path)]
    new = reference_contexts(oracle_dir, [path], "latest")[str(path)]
    assert old["contexts"] != new["contexts"]
    assert_same_contexts(session, new if marked else old, path.name)
