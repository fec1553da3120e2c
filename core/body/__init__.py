"""An entry's body read the one way: content blocks, text, tool calls and which result answers which.

``content`` (the message, content blocks, text extraction, JSON values of the expected type) and
``tools`` (tool calls paired with their results, the arguments of an edit as a diff). The message view,
the tree, the exports, the diff and the session list read bodies through these, so they agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.body.content import (
        Block,
        Body,
        as_dict,
        as_number,
        as_text,
        content_blocks,
        content_of,
        joined_text,
        message_of,
        message_text,
        numbered_blocks,
        tool_calls,
    )
    from core.body.tools import (
        answered_before,
        call_ids,
        edits_as_diff,
        paired,
        result_call_id,
        results_in_window,
        tool_results_for,
    )

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.body.content": (
            "as_dict as_number as_text Block Body content_blocks content_of joined_text message_of "
            "message_text numbered_blocks tool_calls"
        ),
        "core.body.tools": (
            "answered_before call_ids edits_as_diff paired result_call_id results_in_window tool_results_for"
        ),
    },
)
