"""What the model saw: ``build_context`` follows the reference's ``buildSessionContext`` exactly.

Walk from the leaf to the root; take the thinking level and model from the whole path; with a
compaction on the path emit its summary, then the kept entries from ``firstKeptEntryId`` up to the
compaction, then everything after it. Message entries are passed through verbatim; custom_message and
non-empty branch_summary entries become messages. Bookkeeping entries contribute nothing.
"""

from __future__ import annotations

from typing import Any

from core.entry import js_truthy
from core.session import Session
from core.timefmt import js_date_ms


class _DefaultLeaf:
    def __repr__(self) -> str:
        return "DEFAULT_LEAF"


DEFAULT_LEAF: Any = _DefaultLeaf()
"""Pass as ``leaf`` to use the session's own leaf (the last entry in file order)."""

_MISSING = object()
_MESSAGE_KINDS = ("message", "custom_message", "branch_summary")

# Entry kinds that can contribute a message or a setting; everything else is skipped unread.
_CONTEXT_KINDS = frozenset(
    {"message", "custom_message", "branch_summary", "compaction", "thinking_level_change", "model_change"}
)


def build_context(session: Session, leaf: str | None = DEFAULT_LEAF) -> dict:
    """Return ``{"messages", "thinkingLevel", "model"}`` as the reference computes it for ``leaf``.

    Args:
        session: a loaded session.
        leaf: an entry id; ``None`` for the explicit null leaf (no messages, thinking ``off``, model
            null); an unknown id or :data:`DEFAULT_LEAF` falls back to the last entry in file order.

    Returns:
        A dict equal, after a JSON round trip, to the reference result. Keys whose value would be
        ``undefined`` in JavaScript are absent.
    """
    empty = {"messages": [], "thinkingLevel": "off", "model": None}
    if leaf is None:
        return empty
    target = session.get(leaf) if leaf is not DEFAULT_LEAF and leaf else None
    if target is None:
        target = session.entries[-1] if session.entries else None
        if target is not None and session.by_id.get(target.id) is not target:
            target = session.by_id[target.id]
    if target is None:
        return empty
    path = session.path_to(target.id)
    wanted = [e for e in path if e.kind in _CONTEXT_KINDS]
    bodies = dict(zip((id(e) for e in wanted), session.bodies(wanted), strict=True))

    thinking: object = "off"
    model: object = None
    compaction = None
    for entry in wanted:
        kind = entry.kind
        body = bodies[id(entry)]
        if kind == "thinking_level_change":
            thinking = body.get("thinkingLevel", _MISSING)
        elif kind == "model_change":
            model = _pick(body, provider="provider", modelId="modelId")
        elif kind == "message" and entry.role == "assistant":
            model = _pick(body["message"], provider="provider", modelId="model")
        elif kind == "compaction":
            compaction = entry

    messages: list[Any] = []

    def emit(entry_: Any) -> None:
        if entry_.kind not in _MESSAGE_KINDS:
            return
        body_ = bodies[id(entry_)]
        if entry_.kind == "message":
            if "message" in body_:
                messages.append(body_["message"])
        elif entry_.kind == "custom_message":
            messages.append(
                _pick(
                    body_,
                    role=("custom",),
                    customType="customType",
                    content="content",
                    display="display",
                    details="details",
                    timestamp=(js_date_ms(body_.get("timestamp")),),
                )
            )
        elif js_truthy(body_.get("summary")):
            messages.append(
                _pick(
                    body_,
                    role=("branchSummary",),
                    summary="summary",
                    fromId="fromId",
                    timestamp=(js_date_ms(body_.get("timestamp")),),
                )
            )

    if compaction is not None:
        body = bodies[id(compaction)]
        messages.append(
            _pick(
                body,
                role=("compactionSummary",),
                summary="summary",
                tokensBefore="tokensBefore",
                timestamp=(js_date_ms(body.get("timestamp")),),
            )
        )
        first_kept = body.get("firstKeptEntryId", _MISSING)
        position = next(i for i, e in enumerate(path) if e is compaction)
        keeping = False
        # firstKeptEntryId may name any entry on the path, not only one that makes a message.
        for entry in path[:position]:
            if entry.id == first_kept:
                keeping = True
            if keeping:
                emit(entry)
        for entry in path[position + 1 :]:
            emit(entry)
    else:
        for entry in wanted:
            emit(entry)

    result: dict[str, Any] = {"messages": messages}
    if thinking is not _MISSING:
        result["thinkingLevel"] = thinking
    result["model"] = model
    return result


def _pick(source: dict, **fields: Any) -> dict:
    """Build a dict from ``source`` keys (a str) or constants (a 1-tuple); absent keys stay absent."""
    out: dict[str, Any] = {}
    for name, spec in fields.items():
        if isinstance(spec, tuple):
            out[name] = spec[0]
        elif spec in source:
            out[name] = source[spec]
    return out
