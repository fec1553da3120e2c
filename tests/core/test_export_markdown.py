"""The Markdown export: golden files, structure that survives hostile content, and every sample.

Golden files live in ``tests/core/golden/export/``. After an intended change of the output, regenerate
them with ``PRIME_UPDATE_GOLDEN=1 python -m pytest tests/core/test_export_markdown.py
tests/core/test_export_html.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from markdown_it import MarkdownIt

from core.errors import InvalidRequestError
from core.export.common import ExportOptions, fence
from core.export.markdown import entry_to_markdown, session_to_markdown
from core.session import load_session
from tests.browser.hostile import write_hostile_session
from tests.conftest import CORPUS, DEMO, SAMPLES, SHARED, shallow_stack
from tests.core.current_entries import write_current_session
from tests.core.test_render import chain, write

GOLDEN = Path(__file__).parent / "golden" / "export"
UPDATE = bool(os.environ.get("PRIME_UPDATE_GOLDEN"))
DEMO_FILES = sorted(DEMO.glob("*.jsonl"))
SAMPLE_FILES = sorted(SAMPLES.rglob("*.jsonl"))
CORPUS_FILES = sorted(CORPUS.rglob("*.jsonl"))
# pi 1.6's sample that uses every new entry type (system messages, usage records, context edits...).
MODERN = next((SHARED / "reference" / "samples-latest" / "pi-layout").rglob("*01a139df*.jsonl"))


def check_golden(name: str, text: str) -> None:
    """Compare ``text`` with the golden file ``name`` (or write it when PRIME_UPDATE_GOLDEN is set)."""
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        return
    assert path.exists(), f"missing golden file {path}; run with PRIME_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs from its golden file (PRIME_UPDATE_GOLDEN=1 regenerates it)"


def _scenario(path: Path) -> str:
    return f"{path.parent.name.strip('-')[:40]}-{path.stem[-12:]}"


@pytest.mark.parametrize("path", DEMO_FILES, ids=lambda p: p.stem[-8:])
def test_demo_sessions_match_golden_markdown(path: Path) -> None:
    session = load_session(path, checksum=False)
    check_golden(f"demo-{path.stem}.tree.md", session_to_markdown(session, whole_tree=True).text)
    check_golden(f"demo-{path.stem}.leaf.md", session_to_markdown(session).text)


@pytest.mark.parametrize("path", [p for p in SAMPLE_FILES if "pi-layout" in p.parts], ids=_scenario)
def test_sample_sessions_match_golden_markdown(path: Path) -> None:
    session = load_session(path, checksum=False)
    check_golden(f"sample-{_scenario(path)}.tree.md", session_to_markdown(session, whole_tree=True).text)


def test_modern_sample_matches_golden_markdown() -> None:
    session = load_session(MODERN, checksum=False)
    check_golden("latest-modern.tree.md", session_to_markdown(session, whole_tree=True).text)
    check_golden("latest-modern.leaf.md", session_to_markdown(session).text)


@pytest.mark.parametrize("path", DEMO_FILES + SAMPLE_FILES + CORPUS_FILES, ids=lambda p: p.stem[-12:])
def test_every_session_exports_with_every_option(path: Path) -> None:
    session = load_session(path, checksum=False)
    if session.leaf_id is None:
        with pytest.raises(InvalidRequestError):
            session_to_markdown(session)
        return
    full = session_to_markdown(session, whole_tree=True)
    lean = session_to_markdown(
        session,
        ExportOptions(thinking=False, tools=False, custom=False, bookkeeping=False, images="omit"),
        whole_tree=True,
    )
    assert full.text.startswith("# ")
    assert len(lean.text) <= len(full.text)
    assert full.entries == lean.entries == len(session.tree.order)
    for entry in session.entries[:50]:
        assert entry_to_markdown(session, entry.id).endswith("\n")


def _code_blocks(markdown: str) -> list[str]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [t.content for t in tokens if t.type in ("fence", "code_block")]


def test_fences_are_longer_than_any_backtick_run_inside() -> None:
    for text in ["plain", "a ``` b", "````\n```js\nx\n```\n````", "`", "``````````"]:
        assert _code_blocks(fence(text, "js")) == [text + "\n"]


def test_hostile_tool_output_stays_inside_its_code_block(tmp_path: Path) -> None:
    session = load_session(write_hostile_session(tmp_path))
    text = session_to_markdown(session, whole_tree=True).text
    blocks = _code_blocks(text)
    # The bash command and both tool outputs come back byte for byte as code blocks.
    body = session.body("e0000004")
    output = body["message"]["content"][0]["text"]
    assert output + "\n" in blocks
    assert "$ echo '</script>window.__pwned = (window.__pwned || 0) + 1'\n" in blocks
    # The session name cannot become a heading or raw HTML in the title line.
    title = text.split("\n", 1)[0]
    assert title.startswith("# \\</title\\>")
    tokens = MarkdownIt("commonmark").parse(title)
    assert [t.type for t in tokens] == ["heading_open", "inline", "heading_close"]
    assert not any(c.type == "html_inline" for c in tokens[1].children or [])


def test_metadata_table_is_a_gfm_table() -> None:
    session = load_session(DEMO_FILES[0], checksum=False)
    text = session_to_markdown(session).text
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    rows = [t for t in tokens if t.type == "tr_open"]
    assert len(rows) >= 8
    assert "| Tokens |" in text and "| Cost | $" in text


def test_entry_to_markdown_is_the_entry_as_in_the_full_export() -> None:
    session = load_session(DEMO_FILES[1], checksum=False)
    full = session_to_markdown(session).text
    path = session.path_to(session.leaf_id)
    assistants = [e for e in path if e.role == "assistant"]
    assert assistants
    for entry in assistants:
        assert entry_to_markdown(session, entry.id) in full
    with pytest.raises(InvalidRequestError):
        entry_to_markdown(session, "no-such-id")


def test_options_leave_out_what_they_say(tmp_path: Path) -> None:
    session = load_session(write_hostile_session(tmp_path))
    full = session_to_markdown(session, whole_tree=True).text
    assert "> *Thinking*" in full and "**bash**" in full and "Extension data" in full
    lean = session_to_markdown(
        session, ExportOptions(thinking=False, tools=False, custom=False, bookkeeping=False), whole_tree=True
    ).text
    for gone in (
        "> *Thinking*",
        "**Tool call:",
        "Extension data",
        "Extension message",
        "Shell (run by",
        "Label ",
    ):
        assert gone not in lean
    assert "needle-alpha" in lean and "needle-beta" in lean


def test_images_embedded_beside_or_omitted(tmp_path: Path) -> None:
    session = load_session(write_hostile_session(tmp_path))
    embedded = session_to_markdown(session, whole_tree=True).text
    assert embedded.count("](data:image/png;base64,") == 1  # the one real PNG; HTML "images" are not
    # The message's own data: link, neutralised in its text (safe Markdown) and as written in tool
    # output (code); no other data:text/html appears.
    assert "(unsafe:data:text/html;base64,PHNj" in embedded
    link = "(data:text/html;base64,PHNj"
    assert "data:text/html" not in embedded.replace("(unsafe:" + link[1:], "").replace(link, "")
    beside = session_to_markdown(
        session, ExportOptions(images="beside"), whole_tree=True, image_folder="x_images"
    )
    assert list(beside.images.files) == ["x_images/e0000002-2.png"]
    assert "](x_images/e0000002-2.png)" in beside.text
    omitted = session_to_markdown(session, ExportOptions(images="omit"), whole_tree=True)
    assert "data:image/png" not in omitted.text and "image omitted" in omitted.text


def test_a_long_chain_exports_without_recursion(tmp_path: Path) -> None:
    lines = [
        {"type": "session", "version": 3, "id": "deep", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}
    ]
    for i in range(3000):
        message = {"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}", "timestamp": i}
        lines.append(
            {
                "type": "message",
                "id": f"{i:08x}",
                "parentId": f"{i - 1:08x}" if i else None,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": message,
            }
        )
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    session = load_session(path)
    with shallow_stack():
        text = session_to_markdown(session, whole_tree=True).text
    assert text.count("### ") == 3000


def test_settings_changes_keep_the_space_before_their_value(tmp_path: Path) -> None:
    rows = [
        {"type": "model_change", "provider": "anthropic", "modelId": "claude-opus-4-5"},
        {"type": "thinking_level_change", "thinkingLevel": "high"},
        {"type": "service_tier_change", "serviceTier": "priority"},
    ]
    path = write(tmp_path / "s.jsonl", chain(rows))
    text = session_to_markdown(load_session(path)).text
    assert "*Switched to model `anthropic/claude-opus-4-5`*" in text
    assert "*Thinking level: `high`*" in text
    assert "*Service tier: `priority`*" in text


def test_tree_export_of_a_session_without_branches_has_no_branch_notes(tmp_path: Path) -> None:
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.py"}}
    call2 = {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "b.py"}}
    result = {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": "x", "isError": False}
    result2 = {**result, "toolCallId": "c2"}
    rows = [
        {"type": "message", "message": {"role": "user", "content": "look"}},
        {"type": "message", "message": {"role": "assistant", "content": [call, call2]}},
        {"type": "message", "message": result},
        {"type": "message", "message": result2},
        {"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}]}},
        {"type": "message", "message": {"role": "user", "content": "thanks"}},
    ]
    session = load_session(write(tmp_path / "s.jsonl", chain(rows)))
    assert len(session.tree.roots) == 1 and all(
        len(session.tree.children_of(e.id)) <= 1 for e in session.entries
    )
    text = session_to_markdown(session, whole_tree=True).text
    assert "Another branch" not in text and "Another root" not in text
    assert text.count("**read** `") == 2 and "done" in text and "thanks" in text


def test_every_current_entry_type_has_its_place_in_the_markdown(tmp_path: Path) -> None:
    session = load_session(write_current_session(tmp_path / "current.jsonl"))
    text = session_to_markdown(session).text
    for line in (
        "| Git | branch main · commit 141986b61970 · https://github.com/acme/proj.git |",
        "*Switched to model `openrouter/qwen3-coder`*",
        "### System message · 2 sections · 1 tool added · 1 tool removed",
        "> *System prompt (47 characters)*",
        "> **Section old-rules**",
        "*✎ Edited in the context later: entry `edit2` dropped it from what the model sees*",
        "### Assistant · openai/gpt-5 · answered by gpt-5-2026-08-01 · thinking high · took 4.2 s",
        "*took 1.2 s · tool usage 200 in · 10 out · $0.0010 · 2 nested calls (record incomplete)*",
        "- bash · error · arguments (90,000 bytes) not kept · exit 2: boom",
        "*✎ Edited in the context later: entry `edit1` replaced its content in what the model sees*",
        "**The arguments were not valid JSON:** not JSON: {cmd",
        "*Usage includes 1 child run (spawn task): 1.0k in · 100 out · $0.2500; with them the message used",
        "*Child run usage added to `asst1`: spawn task · child 1.0k in · 100 out · $0.2500",
        "*Usage record: cache\\_warm · openai/gpt-5 · 3.5k in · 120 out (40 reasoning)",
        "entry `res1` in what the model sees from here on with:\n\n[elided parser listing]",
        "Drops entry `user1` from what the model sees from here on.",
        "*Deferred: the provider returns this reply later",
        "*Session state: `archived`*",
        "*Agent status (needs input · after 6 messages): Waiting for the parser review.*",
        "*Git: branch fix-parser · commit 0123456789ab*",
        "### Compaction · compacted from 61k tokens · summarised for 3.5k in",
        "*Keeps no earlier message",
        "> *System message at the compaction (47 characters)*",
        "### Branch summary · summarised for 3.5k in",
        "*Pending: the reply had not arrived when this was written.*",
    ):
        assert line in text, line
    # Usage records are bookkeeping: left out with it; context edits and system messages stay.
    lean = session_to_markdown(session, ExportOptions(bookkeeping=False)).text
    assert "Usage record" not in lean and "Session state" not in lean
    assert "### Context edit" in lean and "### System message" in lean
