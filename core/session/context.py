"""What the model saw: ``build_context`` follows the reference's ``buildSessionContext`` exactly.

Walk from the leaf to the root; take the thinking level and model from the whole path; with a
compaction on the path emit its summary, then the kept entries from ``firstKeptEntryId`` up to the
compaction, then everything after it. Message entries are passed through verbatim; custom_message and
non-empty branch_summary entries become messages. Bookkeeping entries contribute nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from typing import Final, NotRequired, TypedDict

from core.session.entry import Entry, js_truthy
from core.session.jsonl import JsonObject
from core.session.session import Session
from core.timefmt import js_date_ms


class DefaultLeaf(Enum):
    """The type of :data:`DEFAULT_LEAF` (an enum, so a type checker can tell it from an entry id)."""

    DEFAULT_LEAF = "DEFAULT_LEAF"

    def __repr__(self) -> str:
        return "DEFAULT_LEAF"


DEFAULT_LEAF: Final = DefaultLeaf.DEFAULT_LEAF
"""Pass as ``leaf`` to use the session's own leaf (the last entry in file order)."""


class ContextSettings(TypedDict):
    """The settings of a context, in the reference's key order (``thinkingLevel`` absent when undefined)."""

    thinkingLevel: NotRequired[object]
    model: object


class SessionContext(ContextSettings):
    """:func:`build_context`'s result: the reference's ``{messages, thinkingLevel, model}``.

    A message is passed through as the file holds it: an object in any valid file, but whatever JSON
    value a damaged ``message`` field holds, as in the reference.
    """

    messages: list[object]


_MISSING: Final = object()
_MESSAGE_KINDS = ("message", "custom_message", "branch_summary")


def build_context(session: Session, leaf: str | DefaultLeaf | None = DEFAULT_LEAF) -> SessionContext:
    """Return ``{"messages", "thinkingLevel", "model"}`` as the reference computes it for ``leaf``.

    See :func:`iter_context` for the same without holding every message in memory at once.

    Args:
        session: a loaded session.
        leaf: an entry id; ``None`` for the explicit null leaf (no messages, thinking ``off``, model
            null); an unknown id or :data:`DEFAULT_LEAF` falls back to the last entry in file order.

    Returns:
        A dict equal, after a JSON round trip, to the reference result. Keys whose value would be
        ``undefined`` in JavaScript are absent.
    """
    settings, messages = iter_context(session, leaf)
    return {"messages": list(messages), **settings}


def iter_context(
    session: Session, leaf: str | DefaultLeaf | None = DEFAULT_LEAF
) -> tuple[ContextSettings, Iterator[object]]:
    """The context as ``(settings, messages)``, the messages produced one at a time.

    Settings are ``thinkingLevel`` (when defined) and ``model``; message bodies are read as needed.

    Args and results are those of :func:`build_context`, which is ``{"messages": list(messages),
    **settings}``. A 20,000-message context can so be written out without holding it all.
    """
    if leaf is None:
        return {"thinkingLevel": "off", "model": None}, iter(())
    target = session.get(leaf) if leaf is not DEFAULT_LEAF and leaf else None
    if target is None:
        target = session.leaf  # no or an unknown id: the last entry in file order, as the reference does
    if target is None:
        return {"thinkingLevel": "off", "model": None}, iter(())
    path = session.path_to(target.id)

    # Only the last thinking change, the last model-bearing entry and the last compaction on the path
    # decide the settings, so only their bodies (and those of the emitted entries) are read: a long
    # compacted session reads a few hundred lines, not the whole path.
    last_thinking = last_model = last_compaction = -1
    for index, entry in enumerate(path):
        kind = entry.kind
        if kind == "thinking_level_change":
            last_thinking = index
        elif kind == "model_change" or (kind == "message" and entry.role == "assistant"):
            last_model = index
        elif kind == "compaction":
            last_compaction = index

    deciding = [path[i] for i in (last_thinking, last_model, last_compaction) if i >= 0]
    bodies = dict(zip((id(e) for e in deciding), session.bodies(deciding), strict=True))

    thinking: object = "off"
    if last_thinking >= 0:
        thinking = bodies[id(path[last_thinking])].get("thinkingLevel", _MISSING)
    model: object = None
    if last_model >= 0:
        entry = path[last_model]
        body = bodies[id(entry)]
        if entry.kind == "model_change":
            model = _pick(body, provider="provider", modelId="modelId")
        else:
            message = body["message"]
            # An assistant role was read from this very object, so it is one (unless the file changed).
            model = _pick(message if isinstance(message, dict) else {}, provider="provider", modelId="model")

    settings: ContextSettings = {"model": model}
    if thinking is not _MISSING:
        settings = {"thinkingLevel": thinking, "model": model}

    head: list[object] = []
    if last_compaction >= 0:
        body = bodies[id(path[last_compaction])]
        head.append(
            _pick(
                body,
                role=("compactionSummary",),
                summary="summary",
                tokensBefore="tokensBefore",
                timestamp=(js_date_ms(body.get("timestamp")),),
            )
        )
        first_kept = body.get("firstKeptEntryId", _MISSING)
        # firstKeptEntryId may name any entry on the path, not only one that makes a message; when it
        # is not on the path before the compaction, nothing before the compaction is kept.
        start = next((i for i in range(last_compaction) if path[i].id == first_kept), last_compaction)
        shown = path[start:last_compaction] + path[last_compaction + 1 :]
    else:
        shown = path
    emitted = [e for e in shown if e.kind in _MESSAGE_KINDS]
    return settings, _messages(session, emitted, bodies, head)


def _messages(
    session: Session, emitted: list[Entry], preloaded: dict[int, JsonObject], head: list[object]
) -> Iterator[object]:
    yield from head
    # Bodies are read in path order as the messages are produced; those read for the settings are reused.
    loading = session.bodies(e for e in emitted if id(e) not in preloaded)
    for entry in emitted:
        body = preloaded[id(entry)] if id(entry) in preloaded else next(loading)
        if entry.kind == "message":
            if "message" in body:
                yield body["message"]
        elif entry.kind == "custom_message":
            yield _pick(
                body,
                role=("custom",),
                customType="customType",
                content="content",
                display="display",
                details="details",
                timestamp=(js_date_ms(body.get("timestamp")),),
            )
        elif js_truthy(body.get("summary")):
            yield _pick(
                body,
                role=("branchSummary",),
                summary="summary",
                fromId="fromId",
                timestamp=(js_date_ms(body.get("timestamp")),),
            )


def _pick(source: JsonObject, **fields: object) -> JsonObject:
    """Build a dict from ``source`` keys (a str) or constants (a 1-tuple); absent keys stay absent."""
    out: dict[str, object] = {}
    for name, spec in fields.items():
        if isinstance(spec, tuple):
            out[name] = spec[0]
        elif spec in source:
            out[name] = source[spec]
    return out
