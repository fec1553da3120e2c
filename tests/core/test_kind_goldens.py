"""Each kind's sample session, rendered by the three back-ends, against its golden files.

A kind of entry that no sample, corpus or demo file holds brings its own session in
``tests/core/kind_samples/NAME.jsonl``; its Markdown export, its HTML page's entries and the message
view's cards are compared with ``tests/core/golden/kinds/NAME.{md,html,view.html}``
(``PRIME_UPDATE_GOLDEN=1`` writes them). The words test (test_backends_agree.py) reads these files too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.export.html import session_to_html
from core.export.markdown import session_to_markdown
from core.kinds import kind_of
from core.render import RenderOptions, render_entries
from core.session import load_session
from tests.core.test_export_html import _data, _parse
from tests.core.test_export_markdown import check_golden

SAMPLES = Path(__file__).parent / "kind_samples"
FILES = sorted(SAMPLES.glob("*.jsonl"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_kind_sample_matches_its_golden_files(path: Path) -> None:
    session = load_session(path, checksum=False)
    assert all(kind_of(entry).known for entry in session.entries), "a sample's entries all have a kind"
    check_golden(f"../kinds/{path.stem}.md", session_to_markdown(session, whole_tree=True).text)
    page = _data(_parse(session_to_html(session, whole_tree=True).text))
    check_golden(f"../kinds/{path.stem}.html", "\n".join(page["h"]) + "\n")
    view = render_entries(session, [entry for entry, _depth in session.tree.walk()], RenderOptions())
    check_golden(f"../kinds/{path.stem}.view.html", view)
