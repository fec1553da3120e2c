"""Files other pi-compatible agents write: oh-my-pi's title slot, its model roles, its attributions.

oh-my-pi (``omp``) writes pi's format with a fixed-width line before the header holding the session's
title (``{"type":"title","v":1,...,"pad":"   "}``, 256 bytes, rewritten in place), model changes as
``{model, role?, resolvedModelIsFallback?}``, thinking level changes with a null level and a
``configured`` selector, and extension messages with an ``attribution``. Such a file used to read as
one without a header: no session id, not listed at all, its title line a card of raw JSON.
``tests/core/kind_samples/omp-shapes.jsonl`` is shaped after the files oh-my-pi 18 writes (its goldens
show every card).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.catalogue import Catalogue
from core.export.html import session_to_html
from core.export.markdown import session_to_markdown
from core.kinds import entry_preview, kind_of
from core.kinds.wording import GENERIC_MARK
from core.render import RenderOptions, render_entries
from core.session import load_session
from tests.core.test_export_html import _data, _parse

SAMPLE = Path(__file__).parent / "kind_samples" / "omp-shapes.jsonl"
SESSION_ID = "01a0f3c2-5b7e-7d21-9c44-2e8f6a1b3d90"


def _copy(tmp_path: Path, name: str = "2026-11-03T10-00-00-000Z_01a0f3c2.jsonl") -> Path:
    folder = tmp_path / "sessions" / "--home-dev-notes--"
    folder.mkdir(parents=True)
    return Path(shutil.copyfile(SAMPLE, folder / name))


def _rewrite_title(path: Path, title: str) -> None:
    """Change the title slot in place, to the same width, as oh-my-pi does."""
    data = path.read_bytes()
    first, rest = data.split(b"\n", 1)
    slot = json.loads(first)
    slot["title"], slot["pad"] = title, ""
    width = len(first) - len(json.dumps(slot, separators=(",", ":")).encode())
    slot["pad"] = " " * width
    line = json.dumps(slot, separators=(",", ":")).encode()
    assert len(line) == len(first)
    path.write_bytes(line + b"\n" + rest)


def test_the_header_after_the_title_slot_is_the_header(tmp_path: Path) -> None:
    session = load_session(_copy(tmp_path))
    assert session.session_id == SESSION_ID and session.cwd == "/home/dev/notes"
    assert session.header_line == 2 and session.title_slot is not None
    assert session.diagnostics == []
    assert [e.line for e in session.entries][:1] == [3]  # the slot is no entry
    assert all(kind_of(e).known for e in session.entries)
    assert session.name == "Tidy the release notes"  # oh-my-pi's title, as it lists the session


def test_a_session_info_name_wins_over_the_title(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    entry = {"type": "session_info", "id": "c9", "parentId": "b1000010", "timestamp": "2026-11-03T11:00:00Z"}
    with path.open("a") as f:
        f.write(json.dumps({**entry, "name": "Release notes 2.4"}) + "\n")
    assert load_session(path).name == "Release notes 2.4"
    with path.open("a") as f:
        f.write(json.dumps({**entry, "id": "c10", "parentId": "c9", "name": ""}) + "\n")
    assert load_session(path).name is None  # cleared by the user: the title does not come back


def test_oh_my_pi_sessions_are_listed_and_renamed_with_their_title(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    catalogue = Catalogue(tmp_path / "catalogue")
    try:
        catalogue.refresh([tmp_path / "sessions"])
        [summary] = catalogue.summaries([tmp_path / "sessions"])
        assert (summary.id, summary.name) == (SESSION_ID, "Tidy the release notes")
        assert summary.cwd == "/home/dev/notes"
        _rewrite_title(path, "Release notes for 2.4")
        catalogue.refresh([tmp_path / "sessions"])
        [summary] = catalogue.summaries([tmp_path / "sessions"])
        assert summary.name == "Release notes for 2.4"
    finally:
        catalogue.close()


def test_only_a_title_slot_before_any_entry_counts(tmp_path: Path) -> None:
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/p"}
    entry = {"type": "message", "id": "m", "parentId": None, "timestamp": "2026-01-01T00:00:01Z"}
    entry["message"] = {"role": "user", "content": "hi"}
    odd = tmp_path / "odd.jsonl"  # a "title" object without a title string is an entry of an unknown type
    odd.write_text("\n".join(json.dumps(o) for o in ({"type": "title", "v": 1}, header, entry)) + "\n")
    session = load_session(odd)
    assert session.header is None and [e.type for e in session.entries] == ["title", "message"]
    alone = tmp_path / "alone.jsonl"  # a slot and no header: the file has no header
    alone.write_text("\n".join(json.dumps(o) for o in ({"type": "title", "title": "x"}, entry)) + "\n")
    session = load_session(alone)
    assert session.header is None and [e.id for e in session.entries] == ["m"]
    assert [(d.line, d.kind) for d in session.diagnostics] == [(2, "missing-header")]


@pytest.mark.parametrize(
    ("entry_id", "words"),
    [
        ("b1000002", "Switched to model anthropic/claude-haiku-4-5, for the smol role"),
        ("b1000009", "Switched to model openai/gpt-5-mini, a retry fallback"),
        ("b1000003", "Thinking level: off"),
        ("b1000007", "Thinking level: medium (set to auto)"),
        ("b1000005", "skill-prompt · started by the user"),
        ("b1000006", "hidden from the agent's screen · started by the agent"),
    ],
)
def test_oh_my_pi_fields_are_said_in_every_back_end(entry_id: str, words: str) -> None:
    session = load_session(SAMPLE)
    entry = session.by_id[entry_id]
    markdown = session_to_markdown(session, whole_tree=True).text.replace("`", "")
    page = "\n".join(_data(_parse(session_to_html(session, whole_tree=True).text))["h"])
    view = render_entries(session, [entry], RenderOptions())
    for shown in (markdown, page, view):
        plain = shown.replace("<code>", "").replace("</code>", "").replace("&#x27;", "'")
        assert words in plain.replace("<small>", "").replace("</small>", "")
        assert GENERIC_MARK not in plain.lower()


def test_previews_name_the_role_and_the_level() -> None:
    session = load_session(SAMPLE)
    bodies = session.bodies(session.entries)
    previews = {e.id: entry_preview(e, b) for e, b in zip(session.entries, bodies, strict=True)}
    assert previews["b1000002"] == "[model: anthropic/claude-haiku-4-5, for the smol role]"
    assert previews["b1000003"] == "[thinking: off]"  # was "[thinking: None]"
    assert previews["b1000007"] == "[thinking: medium (set to auto)]"


def test_a_file_without_header_shows_the_same_cards_as_with_one(tmp_path: Path) -> None:
    """The entries of a headed file, written without its title slot and header, render the same."""
    headless = tmp_path / "headless.jsonl"
    headless.write_bytes(SAMPLE.read_bytes().split(b"\n", 2)[2])
    with_header, without = load_session(SAMPLE), load_session(headless)
    assert without.header is None and [e.id for e in without.entries] == [e.id for e in with_header.entries]

    def cards(session: object) -> tuple[str, list[str], str]:
        markdown = session_to_markdown(session, whole_tree=True).text  # type: ignore[arg-type]
        page = _data(_parse(session_to_html(session, whole_tree=True).text))["h"]  # type: ignore[arg-type]
        walk = [entry for entry, _depth in session.tree.walk()]  # type: ignore[attr-defined]
        view = render_entries(session, walk, RenderOptions())  # type: ignore[arg-type]
        return markdown.split("|\n\n", 1)[1], page, view  # the cards, after the metadata table

    assert cards(without) == cards(with_header)
