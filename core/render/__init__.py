"""The HTML back-ends' shared parts and the message view's back-end.

``view`` (cards of :mod:`core.kinds` as HTML for Qt's rich-text viewer) with ``view_blocks`` (each block),
``markdown`` (message Markdown as safe HTML through cmark-gfm, for the view and the exports alike) with
``pieces`` (huge texts a piece at a time), ``highlight`` (code coloured by Pygments, one highlighter for
every back-end), ``palette`` (colours and the view's stylesheet), ``links`` (toggle and entry links,
image sources), ``text`` (escaping, local times) and ``images`` (image blocks: size and decoding). What
an entry shows is its kind's (:mod:`core.kinds`); one-line previews are :func:`core.kinds.entry_preview`.
``reading`` is what a transcript view reads (a conversation's or a context's cards, a stretch at a time)
and ``find`` the text it searches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.render.links import block_key, image_bytes, parse_action, parse_image_src
    from core.render.palette import stylesheet
    from core.render.view import RenderOptions, render_card, render_entries, render_entry

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.render.links": "block_key image_bytes parse_action parse_image_src",
        "core.render.palette": "stylesheet",
        "core.render.view": "render_card render_entries render_entry RenderOptions",
    },
)
