"""One usage object in figures: tokens, cost, its counters, and the record of where it was spent.

pi records usage in five places: on assistant messages, on tool-result messages (``usage``: a nested
model call), in ``usage`` entries (cache warming and other calls outside the conversation), and on
``compaction`` and ``branch_summary`` entries (the summarising call). Each kind of entry says where its
usage is (``Kind.usage_source`` in :mod:`core.kinds`, as a :class:`UsageSource`); the totals over
entries, with Prime Agent's child usage applied, are :func:`core.usage.totals.entries_usage`. The reader
uses :func:`usage_totals` for what the index keeps of an assistant message.
"""

from __future__ import annotations

from typing import NamedTuple

MODEL_LESS = "Tools/summaries"
"""The model of usage recorded without one (tool results, summaries): pi's ``getUsageCostBreakdown`` key."""

UNKNOWN_MODEL = "(unknown)"
"""The model of a ``usage`` entry or assistant message that names none."""

# Where a usage record comes from (UsageSource.kind): an assistant reply, a tool's nested call, a usage
# entry, a compaction's or a branch summary's summarising call.
ASSISTANT_USAGE = "assistant"
TOOL_RESULT_USAGE = "tool_result"
USAGE_RECORD = "usage"
COMPACTION_USAGE = "compaction"
BRANCH_SUMMARY_USAGE = "branch_summary"


MAX_FIGURE = 2**53 - 1
"""The largest count or cost a usage object can hold and be added up (``Number.MAX_SAFE_INTEGER``).

No agent records a count near it (a JavaScript number beyond it is not even exact), and SQLite, which
adds the catalogue's figures up, stops at 2**63: a larger figure (or NaN, or an infinity) is left out
of every sum, as if it were not there, and noted where a diagnostic can be given. The entry still shows
it as recorded."""

_COUNTERS = ("input", "output", "cacheRead", "cacheWrite")


def figure(value: object) -> int | float | None:
    """``value`` when it is a number usage can add up (within :data:`MAX_FIGURE`), else None."""
    if type(value) is int or type(value) is float:
        return value if -MAX_FIGURE <= value <= MAX_FIGURE else None  # NaN compares False
    return None


def _number(value: object) -> int | float:
    found = figure(value)
    return 0 if found is None else found


def usage_totals(usage: object) -> tuple[int | float, float]:
    """``(tokens, cost)`` of one usage object: totalTokens (or the sum of its parts) and cost.total.

    A figure that is not a number within :data:`MAX_FIGURE` counts as missing.
    """
    if not isinstance(usage, dict):
        return 0, 0.0
    tokens = figure(usage.get("totalTokens"))
    if tokens is None:
        tokens = 0
        for key in _COUNTERS:
            part = figure(usage.get(key))
            if part is not None:
                tokens += part
    cost = usage.get("cost")
    total = figure(cost.get("total")) if isinstance(cost, dict) else None
    return tokens, 0.0 if total is None else float(total)


def unusable_figure(usage: object) -> str | None:
    """The first figure of a usage object left out of the sums for its size, as ``name value``; else None.

    Only numbers beyond :data:`MAX_FIGURE` (or not finite) are named: a missing figure, or text, is
    simply not recorded.
    """
    if not isinstance(usage, dict):
        return None
    cost = usage.get("cost")
    named = [(key, usage.get(key)) for key in ("totalTokens", *_COUNTERS)]
    if isinstance(cost, dict):
        named.append(("cost.total", cost.get("total")))
    for name, value in named:
        if (type(value) is int or type(value) is float) and figure(value) is None:
            return f"{name} {value}"
    return None


def unusable_note(figure: str) -> str:
    """The diagnostic's sentence for a figure :func:`unusable_figure` named."""
    return f"A usage figure is out of range ({figure}); it is left out of the totals."


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
