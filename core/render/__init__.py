"""Entries shown: safe HTML for the message view, one-line previews for the tree, images.

``message`` (entries as HTML fragments for Qt's rich-text viewer, by kind), ``blocks`` (the pieces an
entry is made of), ``tools`` (tool calls with their results, shell runs), ``markdown`` and
``highlight`` (message Markdown and code, markdown-it and Pygments loaded on first use), ``palette``
(colours and the stylesheet), ``links`` (toggle, entry links and image sources), ``text`` (escaping,
JSON, times), ``preview`` (one line per entry), ``images`` (image blocks: size and decoding),
``cards`` (pi 1.6's and Prime Agent's newer entries), ``notes`` (what context edits and child-usage
attributions say about the entries they name) and ``wording`` (the newer fields in words, shared with
the exports). Which toolResult answers which call is :mod:`core.kinds.pairing`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.kinds.pairing import tool_results_for
    from core.render.links import block_key, image_bytes, parse_action, parse_image_src
    from core.render.message import RenderOptions, render_entries, render_entry
    from core.render.notes import EntryNotes, context_edit_marks, session_notes
    from core.render.palette import stylesheet
    from core.render.preview import entry_preview

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.kinds.pairing": "tool_results_for",
        "core.render.links": "block_key image_bytes parse_action parse_image_src",
        "core.render.message": "render_entries render_entry RenderOptions",
        "core.render.notes": "context_edit_marks EntryNotes session_notes",
        "core.render.palette": "stylesheet",
        "core.render.preview": "entry_preview",
    },
)
