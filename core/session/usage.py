"""Token and cost totals, counted in the five places pi 1.x records usage, with child attribution applied.

pi records usage on assistant messages, on tool-result messages (``usage``: a nested model call), in
``usage`` entries (cache warming and other calls outside the conversation), and on ``compaction`` and
``branch_summary`` entries (the summarising call). Prime Agent's ``child_usage_attributed`` replaces its
target assistant message's usage by the aggregate (file order, last wins), as its loader does. These
rules are the same for the session list, the session header, the exports and the usage report
(:mod:`core.usage`); :func:`usage_source` is the one place that says where an entry's usage is.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

import orjson

from core.session.entry import AssistantInfo, Entry

if TYPE_CHECKING:
    from core.session.session import Session

MODEL_LESS = "Tools/summaries"
"""The model of usage recorded without one (tool results, summaries): pi's ``getUsageCostBreakdown`` key."""

UNKNOWN_MODEL = "(unknown)"
"""The model of a ``usage`` entry or assistant message that names none."""

# Entry kinds whose usage is on the entry itself (message roles are decided by usage_source).
_ENTRY_USAGE_KINDS = frozenset({"usage", "compaction", "branch_summary"})


def _number(value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return value


def usage_totals(usage: object) -> tuple[int | float, float]:
    """``(tokens, cost)`` of one usage object: totalTokens (or the sum of its parts) and cost.total."""
    if not isinstance(usage, dict):
        return 0, 0.0
    tokens = usage.get("totalTokens")
    if isinstance(tokens, bool) or not isinstance(tokens, int | float):
        tokens = 0
        for key in ("input", "output", "cacheRead", "cacheWrite"):
            part = usage.get(key)
            if isinstance(part, int | float) and not isinstance(part, bool):
                tokens += part
    cost = usage.get("cost")
    total = cost.get("total") if isinstance(cost, dict) else None
    if isinstance(total, bool) or not isinstance(total, int | float):
        total = 0.0
    return tokens, float(total)


class UsageParts(NamedTuple):
    """The counters of one usage object, as recorded (never re-priced).

    Attributes:
        input, output, cache_read: ``input``, ``output``, ``cacheRead``.
        cache_write: ``cacheWrite``, which already includes ``cacheWrite1h`` (pi-ai prices the 1-hour
            writes as a part of it: ``shortWrite = cacheWrite - cacheWrite1h``).
        total: ``totalTokens``, or the sum of the four counters when it is missing.
        cost: ``cost.total``.
    """

    input: int | float
    output: int | float
    cache_read: int | float
    cache_write: int | float
    total: int | float
    cost: float


def usage_parts(usage: object) -> UsageParts | None:
    """The :class:`UsageParts` of a usage object, None when it is not an object."""
    if not isinstance(usage, dict):
        return None
    tokens, cost = usage_totals(usage)
    return UsageParts(
        _number(usage.get("input")),
        _number(usage.get("output")),
        _number(usage.get("cacheRead")),
        _number(usage.get("cacheWrite")),
        tokens,
        cost,
    )


class UsageSource(NamedTuple):
    """Where one entry records usage: its kind of record, the usage object and the model it is billed to.

    Attributes:
        kind: ``assistant``, ``tool_result``, ``usage``, ``compaction`` or ``branch_summary``.
        usage: the usage object as written (an assistant message's may be missing: child usage may
            still be attributed to it).
        model: ``provider/model`` (``responseModel`` first, as pi's breakdown), the model alone
            without a provider, :data:`MODEL_LESS` for tool results and summaries.
    """

    kind: str
    usage: object
    model: str


def model_key(provider: object, model: object) -> str:
    """``provider/model`` as pi's usage breakdown names it (the model alone without a provider)."""
    name = model if isinstance(model, str) and model else UNKNOWN_MODEL
    return f"{provider}/{name}" if isinstance(provider, str) and provider else name


def usage_source(kind: str, obj: Mapping[str, object]) -> UsageSource | None:
    """Where the entry ``obj`` (of normalised ``kind``) records usage, None when it records none.

    Args:
        kind: the entry's normalised type (:attr:`core.session.Entry.kind`).
        obj: the entry object as parsed.
    """
    if kind == "message":
        message = obj.get("message")
        if not isinstance(message, dict):
            return None
        role = message.get("role")
        if role == "assistant":
            model = message.get("responseModel") or message.get("model")
            return UsageSource("assistant", message.get("usage"), model_key(message.get("provider"), model))
        usage = message.get("usage")
        if role == "toolResult" and isinstance(usage, dict):
            return UsageSource("tool_result", usage, MODEL_LESS)
        return None
    if kind in _ENTRY_USAGE_KINDS:
        usage = obj.get("usage")
        if not isinstance(usage, dict):
            return None
        if kind == "usage":
            return UsageSource("usage", usage, model_key(obj.get("provider"), obj.get("model")))
        return UsageSource(kind, usage, MODEL_LESS)
    return None


def may_record_usage(entry: Entry) -> bool:
    """True when ``entry`` may record usage outside an assistant message (its body must be read to know)."""
    return entry.kind in _ENTRY_USAGE_KINDS or entry.role == "toolResult"


# Session -> line -> (the entry, its tokens, its cost): the usage of entries the index does not keep
# (tool results, usage, compaction and branch summary entries). Filled on first use, or by the
# catalogue from the objects it parsed anyway (remember_totals), so a file is never read twice for it.
_EXTRA: weakref.WeakKeyDictionary[Session, dict[int, tuple[Entry, int | float, float]]] = (
    weakref.WeakKeyDictionary()
)


def remember_totals(session: Session, entry: Entry, tokens: int | float, cost: float) -> None:
    """Note the ``(tokens, cost)`` of one non-assistant entry, worked out by a reader that parsed it."""
    _EXTRA.setdefault(session, {})[entry.line] = (entry, tokens, cost)


def _extra_usage(session: Session, entries: list[Entry]) -> dict[int, tuple[Entry, int | float, float]]:
    """The cache of ``session``'s non-assistant usage, with ``entries`` read into it if missing."""
    known = _EXTRA.setdefault(session, {})
    missing = [e for e in entries if (found := known.get(e.line)) is None or found[0] is not e]
    if missing:
        for entry, raw in zip(missing, session.raw_lines(missing), strict=True):
            tokens: int | float = 0
            cost = 0.0
            if b'"usage"' in raw:  # most tool results record none: skip parsing their output
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    obj = None
                if isinstance(obj, dict):
                    source = usage_source(entry.kind, obj)
                    if source is not None:
                        tokens, cost = usage_totals(source.usage)
            known[entry.line] = (entry, tokens, cost)
    return known


def entries_usage(session: Session, entries: Iterable[Entry]) -> tuple[int | float, float]:
    """``(tokens, cost)`` summed in file order over the usage ``entries`` of ``session`` record.

    All five places count (see the module); a ``child_usage_attributed`` aggregate recorded for an
    assistant message replaces that message's own usage, as the reference does.
    """
    items = list(entries)
    extra = _extra_usage(session, [e for e in items if may_record_usage(e)])
    tokens: int | float = 0
    cost = 0.0
    # Keyed by the ids the entries have here: the session maps a legacy file's written ids already.
    overrides = session.usage_overrides
    for entry in items:
        info = entry.info
        if isinstance(info, AssistantInfo):
            usage = overrides.get(entry.id)
            if usage is not None:
                entry_tokens, entry_cost = usage_totals(usage)
                tokens += entry_tokens
                cost += entry_cost
            else:
                tokens += info.tokens
                cost += info.cost
        elif may_record_usage(entry):
            _entry, entry_tokens, entry_cost = extra[entry.line]
            tokens += entry_tokens
            cost += entry_cost
    return tokens, cost
