"""How a body read from disk becomes what its agent holds in memory: legacy migration, child usage.

The reference migrates version 1 and 2 files on open (ids and linear parent ids for v1 chains,
``firstKeptEntryIndex`` -> ``firstKeptEntryId``, ``hookMessage`` -> ``custom``), and Prime Agent then
applies ``child_usage_attributed`` results to the assistant messages they name. Nothing here writes:
the reader keeps what it needs in its index and these functions apply it to one body at a time.
"""

from __future__ import annotations

from core.session.entry import Entry
from core.session.jsonl import JsonObject
from core.session.vocabulary import ASSISTANT, COMPACTION, CUSTOM, HOOK_MESSAGE, MESSAGE

__all__ = ["migrate_body", "resolve_overrides"]


def migrate_body(
    entry: Entry,
    obj: JsonObject,
    version: int,
    by_ordinal: list[Entry | None],
    overrides: dict[str, JsonObject],
) -> JsonObject:
    """Migrate one parsed entry in place, as its agent would hold it after loading; returns ``obj``.

    Args:
        entry: the entry's index record (its synthesised id and parent, if any).
        obj: the object parsed from its line.
        version: the file's format version.
        by_ordinal: v1 files: the parsed JSON values in file order, the header at 0 (what a
            ``firstKeptEntryIndex`` counts); None for values that are not entries.
        overrides: assistant entry id -> the aggregate usage a ``child_usage_attributed`` gives it.
    """
    if entry.synthetic:
        obj["id"] = entry.id
        obj["parentId"] = entry.parent_id
    if version < 2 and entry.kind == COMPACTION:
        index = obj.get("firstKeptEntryIndex")
        if isinstance(index, int | float) and not isinstance(index, bool):
            target = _ordinal_entry(by_ordinal, index)
            if target is not None and target.line < entry.line:
                obj["firstKeptEntryId"] = target.id
            del obj["firstKeptEntryIndex"]
    message = obj.get("message")
    if isinstance(message, dict):
        if version < 3 and entry.type == MESSAGE and message.get("role") == HOOK_MESSAGE:
            message["role"] = CUSTOM
        override = overrides.get(entry.id)
        if override is not None and message.get("role") == ASSISTANT:
            message["usage"] = override
    return obj


def resolve_overrides(
    version: int, by_target: dict[str, JsonObject], written_ids: dict[str, str]
) -> dict[str, JsonObject]:
    """``child_usage_attributed`` results by our entry id: assistant entry id -> its aggregate usage.

    Prime Agent applies them on load, in file order (the last wins), by the ids as written and before
    migrating, whatever the header's version; so in a version 1 file, whose ids every reader
    synthesises anew, they reach the ids given to the entries that were written with those ids.

    Args:
        version: the file's format version.
        by_target: ``targetId`` as written -> ``aggregateUsage``, the last in file order.
        written_ids: v1 files: an assistant message's id as written -> the id synthesised for it.
    """
    if version >= 2:
        return by_target
    return {written_ids[t]: usage for t, usage in by_target.items() if t in written_ids}


def _ordinal_entry(by_ordinal: list[Entry | None], index: float) -> Entry | None:
    if index != int(index) or index < 0 or index >= len(by_ordinal):
        return None
    return by_ordinal[int(index)]
