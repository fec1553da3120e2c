"""Tool calls and their results: which toolResult entry answers which call of an assistant message.

An assistant message holds ``toolCall`` blocks (each with an ``id``); the agent then appends one
toolResult message per call, whose ``toolCallId`` names the call. Normally the results follow their
message directly, but a file may be cut, branched or edited, so each reader pairs them in the way it
can afford:

* :func:`paired`: a stream of entries in order (the exports), looking one entry ahead;
* :func:`results_in_window`: a stretch of a path rendered at once (the message view);
* :func:`tool_results_for`: one assistant entry, searching its descendants in the session tree;
* :func:`context_results`: the messages of what the model saw (no entries, only messages in order).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeAlias

from core.session.content import Body, as_dict, as_text, message_of
from core.session.vocabulary import ASSISTANT, MESSAGE, TOOL_CALL_BLOCK, TOOL_RESULT

if TYPE_CHECKING:
    from core.session import Entry, Session

__all__ = [
    "RESULT_SEARCH_LIMIT",
    "Results",
    "answered_before",
    "call_ids",
    "context_results",
    "edits_as_diff",
    "paired",
    "result_call_id",
    "results_in_window",
    "tool_results_for",
]

RESULT_SEARCH_LIMIT = 256
"""Entries looked at after (or before) an assistant message for its tool results."""

Results: TypeAlias = dict[str, Body]
"""toolCallId -> the body of the toolResult entry that answers it."""


def call_ids(body: Body) -> list[str]:
    """The ids of an assistant message's tool calls, in order (calls without a string id are left out)."""
    content = message_of(body).get("content")
    if not isinstance(content, list):  # a string content has no tool calls
        return []
    return [
        call_id
        for b in content
        if isinstance(b, dict)
        and b.get("type") == TOOL_CALL_BLOCK
        and isinstance(call_id := b.get("id"), str)
    ]


def result_call_id(entry: Entry, body: Body) -> str | None:
    """The ``toolCallId`` of a toolResult entry, or None for anything else (or a result without one)."""
    if entry.kind != MESSAGE or entry.role != TOOL_RESULT:
        return None
    value = message_of(body).get("toolCallId")
    return value if isinstance(value, str) else None


def _is_assistant(entry: Entry) -> bool:
    return entry.kind == MESSAGE and entry.role == ASSISTANT


def paired(entries: list[Entry], bodies: Iterable[Body]) -> Iterator[tuple[Entry, Body, Results | None]]:
    """Walk entries with their bodies, attaching tool results to the assistant message that called them.

    The toolResult entries that directly follow an assistant message (in the order given: a path, or
    the tree's pre-order, where a first child follows its parent) and answer one of its calls are
    handed over with it and not yielded on their own. Bodies are read one entry ahead at most, so a
    20,000-entry export never holds more than one turn in memory.

    Args:
        entries: the entries, in order.
        bodies: their bodies, in the same order (``Session.bodies(entries)``).

    Yields:
        ``(entry, body, results)``: results is toolCallId -> toolResult body for assistant messages
        (``{}`` when none was found), None for every other entry.
    """
    items = iter(zip(entries, bodies, strict=True))
    pending = next(items, None)
    while pending is not None:
        entry, body = pending
        pending = next(items, None)
        if not _is_assistant(entry):
            yield entry, body, None
            continue
        wanted_ids = set(call_ids(body))
        results: Results = {}
        while pending is not None and wanted_ids:
            call_id = result_call_id(pending[0], pending[1])
            if call_id is None or call_id not in wanted_ids or call_id in results:
                break
            results[call_id] = pending[1]
            pending = next(items, None)
        yield entry, body, results


def results_in_window(
    session: Session, items: Sequence[Entry], bodies: Sequence[Body]
) -> tuple[dict[int, Results], set[int]]:
    """Pair the tool calls and results of a stretch of a path that is rendered at once.

    An assistant message takes the results that answer its calls among the entries up to the next
    assistant message (the first result for a call wins). The last assistant message also looks past
    the stretch (:func:`tool_results_for`) when it ends before all its calls are answered, and a result
    before the first assistant message that answers the message above it is shown by the stretch
    before: a path rendered in consecutive windows shows every result exactly once.

    Args:
        session: the session the entries belong to.
        items: the entries, in order.
        bodies: their bodies, in the same order.

    Returns:
        ``(results, shown_under_call)``: the results of each assistant message by its index in
        ``items``, and the indexes of the toolResult entries shown under a call (not on their own).
    """
    is_assistant = [_is_assistant(e) for e in items]
    results: dict[int, Results] = {}
    shown_under_call: set[int] = set()
    last_assistant = max((i for i, a in enumerate(is_assistant) if a), default=-1)
    for i, assistant in enumerate(is_assistant):
        if not assistant:
            continue
        wanted_ids = set(call_ids(bodies[i]))
        found: Results = {}
        j = i + 1
        while j < len(items) and not is_assistant[j]:
            call_id = result_call_id(items[j], bodies[j])
            if call_id is not None and call_id in wanted_ids and call_id not in found:
                found[call_id] = bodies[j]
                shown_under_call.add(j)
            j += 1
        if i == last_assistant and len(found) < len(wanted_ids) and j == len(items):
            for call_id, body in tool_results_for(session, items[i]).items():
                found.setdefault(call_id, body)
        results[i] = found
    first_assistant = is_assistant.index(True) if True in is_assistant else len(items)
    owner_calls: dict[str, set[str]] = {}
    for i in range(first_assistant):
        if answered_before(session, items[i], bodies[i], owner_calls):
            shown_under_call.add(i)
    return results, shown_under_call


def tool_results_for(session: Session, entry: Entry) -> Results:
    """Find the toolResult entries that answer the tool calls of an assistant entry.

    The entries after it are searched breadth-first through its descendants (children in display
    order, so the first branch wins), not beyond the next assistant message and not beyond
    :data:`RESULT_SEARCH_LIMIT` entries.

    Args:
        session: the loaded session.
        entry: an assistant message entry (anything else gives ``{}``).

    Returns:
        toolCallId -> the toolResult entry body, for every call a result was found for.
    """
    if not _is_assistant(entry):
        return {}
    wanted_ids = set(call_ids(session.body(entry)))
    if not wanted_ids:
        return {}
    children_of = session.tree.children_of
    candidates: list[Entry] = []
    queue = deque(children_of(entry.id))
    seen = 0
    while queue and seen < RESULT_SEARCH_LIMIT:
        current = queue.popleft()
        seen += 1
        if _is_assistant(current):
            continue
        if current.kind == MESSAGE and current.role == TOOL_RESULT:
            candidates.append(current)
        queue.extend(children_of(current.id))
    found: Results = {}
    if not candidates:
        return found
    for candidate, body in zip(candidates, session.bodies(candidates), strict=True):
        call_id = result_call_id(candidate, body)
        if call_id is not None and call_id in wanted_ids and call_id not in found:
            found[call_id] = body
    return found


def answered_before(session: Session, entry: Entry, body: Body, cache: dict[str, set[str]]) -> bool:
    """True when a toolResult entry answers a call of the assistant message above it on its path.

    The ancestors are searched upwards to the nearest assistant message, at most
    :data:`RESULT_SEARCH_LIMIT` of them.

    Args:
        session: the session.
        entry: the entry (anything but a toolResult gives False).
        body: its body.
        cache: assistant entry id -> its call ids, kept by the caller across calls.
    """
    call_id = result_call_id(entry, body)
    if call_id is None:
        return False
    current = entry
    for _ in range(RESULT_SEARCH_LIMIT):
        parent = session.get(current.parent_id)
        if parent is None or parent is entry:
            return False
        if _is_assistant(parent):
            if parent.id not in cache:
                cache[parent.id] = set(call_ids(session.body(parent)))
            return call_id in cache[parent.id]
        current = parent
    return False


def edits_as_diff(args: dict[str, object]) -> str:
    """The ``edits`` of an edit tool call (or the older single oldText/newText) as -/+ lines.

    Edits are separated by ``@@`` lines. Shared by the message view and the exports.

    Args:
        args: the call's ``arguments``.
    """
    edits = args.get("edits")
    pairs = [as_dict(e) for e in edits if isinstance(e, dict)] if isinstance(edits, list) else [args]
    lines: list[str] = []
    for pair in pairs:
        if lines:
            lines.append("@@")
        old, new = as_text(pair.get("oldText")), as_text(pair.get("newText"))
        if old:
            lines.extend("-" + line for line in old.split("\n"))
        if new:
            lines.extend("+" + line for line in new.split("\n"))
    return "\n".join(lines)


def context_results(messages: Sequence[object]) -> tuple[dict[int, dict[str, int]], set[int]]:
    """Pair the tool calls and results among the messages of what the model saw.

    An assistant message takes the toolResult messages after it, up to the next assistant message,
    whose ``toolCallId`` names one of its calls (the first result for a call wins). A message that is not
    an object (a damaged line the reference passes through) pairs with nothing.

    Args:
        messages: the context's messages, in order.

    Returns:
        ``(results, answered)``: for each assistant message by its index, toolCallId -> the index of the
        message answering it; and the indexes of the toolResult messages shown under a call.
    """
    results: dict[int, dict[str, int]] = {}
    answered: set[int] = set()
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") != ASSISTANT:
            continue
        found: dict[str, int] = {}
        j = i + 1
        while j < len(messages) and isinstance(later := messages[j], dict):
            role = later.get("role")
            if role == ASSISTANT:
                break
            call_id = later.get("toolCallId")
            if role == TOOL_RESULT and isinstance(call_id, str) and call_id not in found:
                found[call_id] = j
                answered.add(j)
            j += 1
        results[i] = found
    return results, answered
