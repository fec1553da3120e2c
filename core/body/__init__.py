"""An entry's body read the one way: content blocks, text, tool calls and which result answers which.

``content`` (the message, content blocks, text extraction, JSON values of the expected type) and
``tools`` (tool calls paired with their results, the arguments of an edit as a diff). The message view,
the tree, the exports, the diff and the session list read bodies through these, so they agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.body.content import Block as Block
    from core.body.content import Body as Body
    from core.body.content import as_dict as as_dict
    from core.body.content import as_number as as_number
    from core.body.content import as_text as as_text
    from core.body.content import content_blocks as content_blocks
    from core.body.content import content_of as content_of
    from core.body.content import joined_text as joined_text
    from core.body.content import message_of as message_of
    from core.body.content import message_text as message_text
    from core.body.content import numbered_blocks as numbered_blocks
    from core.body.content import tool_calls as tool_calls
    from core.body.tools import answered_before as answered_before
    from core.body.tools import call_ids as call_ids
    from core.body.tools import edits_as_diff as edits_as_diff
    from core.body.tools import paired as paired
    from core.body.tools import result_call_id as result_call_id
    from core.body.tools import results_in_window as results_in_window
    from core.body.tools import tool_results_for as tool_results_for

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "Block": "core.body.content",
        "Body": "core.body.content",
        "as_dict": "core.body.content",
        "as_number": "core.body.content",
        "as_text": "core.body.content",
        "content_blocks": "core.body.content",
        "content_of": "core.body.content",
        "joined_text": "core.body.content",
        "message_of": "core.body.content",
        "message_text": "core.body.content",
        "numbered_blocks": "core.body.content",
        "tool_calls": "core.body.content",
        "answered_before": "core.body.tools",
        "call_ids": "core.body.tools",
        "edits_as_diff": "core.body.tools",
        "paired": "core.body.tools",
        "result_call_id": "core.body.tools",
        "results_in_window": "core.body.tools",
        "tool_results_for": "core.body.tools",
    },
)
