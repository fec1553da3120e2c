"""Entries shown: safe HTML for the message view, one-line previews for the tree, images.

``message`` (entries as HTML fragments for Qt's rich-text viewer), ``preview`` (one line per entry) and
``images`` (image blocks: size and decoding).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.render.message import (
        RenderOptions,
        image_bytes,
        parse_action,
        parse_image_src,
        render_entries,
        render_entry,
        stylesheet,
        tool_results_for,
    )
    from core.render.preview import entry_preview

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "RenderOptions": "core.render.message",
        "render_entries": "core.render.message",
        "render_entry": "core.render.message",
        "stylesheet": "core.render.message",
        "entry_preview": "core.render.preview",
        "image_bytes": "core.render.message",
        "parse_action": "core.render.message",
        "parse_image_src": "core.render.message",
        "tool_results_for": "core.render.message",
    },
)
