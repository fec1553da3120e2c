"""A :class:`~core.diff.types.BranchDiff` as a JSON document.

JSON (``format: "prime-sessions-diff"``, ``version: 1``)::

    {"format", "version",
     "left"/"right": {file, entryId, messages, toolCalls, tokens, cost, durationMs, filesTouched,
                      models, ended, lastRole, errorMessage},
     "common": {ancestorId, rightAncestorId, entries, messages, matchedBy, tail: [message]},
     "counts": {same, changed, inserted, deleted},
     "rows": [{kind, left: message|null, right: message|null, similarity,
               sections: [{name, unit: "word"|"line", ops: [[tag, text], ...]}]}]}

    message = {entryId, kind, role, text, toolCalls: [{name, arguments, path}], result, toolName,
               model, stopReason, errorMessage, isError, tokens, cost, timestamp}

``tag`` is ``equal``, ``delete`` (left only) or ``insert`` (right only). Keys are never removed within a
version; new keys may be added.
"""

from __future__ import annotations

from core.diff.types import BranchDiff

__all__ = ["render_json"]


def render_json(diff: BranchDiff) -> bytes:
    """The diff as UTF-8 JSON (the shape in this module's docstring), indented, ending with a newline."""
    import orjson

    value = diff.to_json()
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"
    except (TypeError, orjson.JSONEncodeError):
        # Lone surrogates from a damaged file: written back as escapes, as core.cli.program does.
        import json

        return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")
