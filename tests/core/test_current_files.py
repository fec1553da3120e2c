"""Every file current agents wrote (``samples-latest``, ``corpus/wild``): shown and exported, never raw JSON.

For each file: the three exports (PDF through a stand-in writer; the real one is a GUI test) and the
message-view card and tree preview of every entry finish without a traceback; an entry of a known type
never gets the generic card (the words :data:`core.kinds.wording.GENERIC_MARK`, which only that card
says); and the file is byte for byte what it was.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from core.export import ExportOptions, entry_to_markdown, render_export
from core.kinds import entry_preview, kind_of, session_notes, tool_results_for
from core.kinds.wording import GENERIC_MARK
from core.render import RenderOptions, render_entry
from core.session import Session, load_session
from core.session.vocabulary import KNOWN_TYPES, MESSAGE_ROLES
from tests.conftest import SHARED
from tests.core.test_export_html import _data, _parse

LATEST = SHARED / "reference" / "samples-latest"
WILD = SHARED / "corpus" / "wild"
FILES = sorted(LATEST.rglob("*.jsonl")) + sorted(WILD.glob("*.jsonl"))
# The types and roles the cards know: the format document's, and pi 1.6's (the session reader may not list
# these yet).
SHOWN_TYPES = KNOWN_TYPES | {"usage", "context_edit"}
SHOWN_ROLES = MESSAGE_ROLES | {"system", "hookMessage"}
MARK = GENERIC_MARK[0].upper() + GENERIC_MARK[1:]


def _known(session: Session, entry_id: str) -> bool:
    entry = session.get(entry_id)
    if entry is None or entry.kind not in SHOWN_TYPES:
        return False
    return entry.kind != "message" or entry.role in SHOWN_ROLES


def _pdf(markdown: str, title: str) -> bytes:
    assert markdown.startswith("# ") and title
    return b"%PDF-stand-in\n" + markdown.encode("utf-8", "backslashreplace")


def test_the_files_are_there() -> None:
    assert len(list(WILD.glob("*.jsonl"))) == 16
    assert any("01a139df" in p.name for p in FILES)  # the modern sample, with every pi 1.6 type


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem[-20:])
def test_every_entry_is_shown_and_every_export_finishes(path: Path) -> None:
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    session = load_session(path, checksum=False)
    notes = session_notes(session)
    options = RenderOptions()
    for entry, body in zip(session.entries, session.bodies(session.entries), strict=True):
        results = tool_results_for(session, entry)
        html = render_entry(entry, body, results, options, notes.for_card(entry.id, results))
        assert entry_preview(entry, body)
        if _known(session, entry.id):
            where = f"{entry.kind} {entry.role} on line {entry.line}"
            assert kind_of(entry).known, f"{where} has no kind of its own: it would be shown generically"
            assert MARK not in html, f"{where} shown as raw JSON in the message view"
            assert MARK not in entry_to_markdown(session, entry.id), f"{where} exported as raw JSON"
    if session.leaf_id is not None:
        for whole_tree in (False, True):
            assert render_export(session, "md", whole_tree=whole_tree).data.startswith(b"# ")
            data = _data(_parse(render_export(session, "html", whole_tree=whole_tree).data.decode()))
            for node, fragment in zip(data["n"], data["h"], strict=True):
                assert not (MARK in fragment and _known(session, node[4])), f"{node} exported as raw JSON"
            pdf = render_export(session, "pdf", whole_tree=whole_tree, pdf_writer=_pdf)
            assert pdf.data.startswith(b"%PDF-")
        lean = ExportOptions(thinking=False, tools=False, custom=False, bookkeeping=False, redact=True)
        assert render_export(session, "html", lean, whole_tree=True).entries == len(session.tree.order)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
