"""The registry: every kind of entry, and the lookups that find an entry's kind.

A message entry's kind is its role's (``user``, ``assistant``, ``toolResult``...); any other entry's is
its type's (``compaction``, ``label``...), variant spellings included. A type or role nobody declared
gets the generic kind (:class:`~core.kinds.generic.GenericKind`, or
:class:`~core.kinds.conversation.MessageKind` for a message of an unknown role): it is kept and shown
as its JSON. Adding a kind is one module with its class, listed in :data:`KINDS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.kinds.article import ToolCallEntryKind, ToolResultEntryKind
from core.kinds.bookkeeping import (
    LabelKind,
    ModelChangeKind,
    ServiceTierKind,
    SessionInfoKind,
    ThinkingLevelKind,
)
from core.kinds.conversation import AssistantKind, MessageKind, SystemKind, UserKind
from core.kinds.extensions import CustomMessageKind, CustomRoleKind, ExtensionDataKind
from core.kinds.generic import GenericKind
from core.kinds.kind import Kind
from core.kinds.records import (
    AgentStatusKind,
    ChildUsageKind,
    ContextEditKind,
    GitStateKind,
    SessionStateKind,
    UsageKind,
)
from core.kinds.summaries import (
    BranchSummaryKind,
    BranchSummaryMessageKind,
    CompactionKind,
    CompactionMessageKind,
)
from core.kinds.tools import BashExecutionKind, ToolResultKind
from core.session.vocabulary import MESSAGE

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.session import Entry
    from core.session.content import Body
    from core.session.usage import UsageSource

__all__ = [
    "GENERIC",
    "KINDS",
    "UNKNOWN_MESSAGE",
    "entry_preview",
    "hidden_types",
    "kind_for",
    "kind_of",
    "usage_source",
]

KINDS: tuple[Kind, ...] = (
    # messages, by role
    UserKind(),
    AssistantKind(),
    ToolResultKind(),
    BashExecutionKind(),
    CustomRoleKind(),
    BranchSummaryMessageKind(),
    CompactionMessageKind(),
    SystemKind(),
    # entries, by type
    CompactionKind(),
    BranchSummaryKind(),
    CustomMessageKind(),
    ExtensionDataKind(),
    ModelChangeKind(),
    ThinkingLevelKind(),
    ServiceTierKind(),
    LabelKind(),
    SessionInfoKind(),
    UsageKind(),
    ContextEditKind(),
    ChildUsageKind(),
    SessionStateKind(),
    AgentStatusKind(),
    GitStateKind(),
    # the second format document's shapes
    ToolCallEntryKind(),
    ToolResultEntryKind(),
)
"""Every declared kind."""

GENERIC = GenericKind()
"""The kind of an entry whose type nobody declared."""
UNKNOWN_MESSAGE = MessageKind()
"""The kind of a message whose role nobody declared (or that has no message object)."""


def _claims(attribute: str) -> dict[str, Kind]:
    """Name -> kind for every type (or role) the kinds declare; two kinds may not claim one name."""
    found: dict[str, Kind] = {}
    for kind in KINDS:
        for name in getattr(kind, attribute):
            if name in found:
                raise ValueError(f"{name!r} is claimed by both {found[name]!r} and {kind!r}")
            found[name] = kind
    return found


_BY_TYPE = _claims("types")
_BY_ROLE = _claims("roles")
# The lookup kind_of makes for an entry without a role: its type's kind, and a message that has no
# role (no message object, or a role that is not text) is a message of an unknown role.
_WITHOUT_ROLE = {**_BY_TYPE, MESSAGE: UNKNOWN_MESSAGE}


def kind_of(entry: Entry) -> Kind:
    """The kind of an entry: by its role for a message, else by its type (variant spellings included)."""
    # Asked several times of every entry an export or a catalogue pass touches: one lookup when it can.
    role = entry.role  # only a message entry has one
    if role is not None:
        return _BY_ROLE.get(role, UNKNOWN_MESSAGE)
    found = _WITHOUT_ROLE.get(entry.kind)
    return found if found is not None else _BY_TYPE.get(entry.type, GENERIC)


def kind_for(type_name: str, role: str | None = None) -> Kind:
    """The kind of an entry of ``type_name`` (and, for a message, ``role``), without an entry at hand."""
    if type_name == MESSAGE:
        return _BY_ROLE.get(role or "", UNKNOWN_MESSAGE)
    return _BY_TYPE.get(type_name, GENERIC)


def entry_preview(entry: Entry, body: Body, width: int = 100) -> str:
    """A one-line description of an entry, as the reference's tree shows it (its kind's preview).

    Args:
        entry: the entry's index record.
        body: its body.
        width: the most characters of the line (longer texts end with ``…``).

    Returns:
        For example ``user: ...``, ``read src/app.ts``, ``[compaction: 148k tokens]``, ``[model: p/m]``.
    """
    return kind_of(entry).preview(entry, body if isinstance(body, dict) else {}, width)


def usage_source(entry: Entry, body: Mapping[str, object]) -> UsageSource | None:
    """Where ``entry`` records usage (its kind says), None when it records none."""
    return kind_of(entry).usage_source(body)


def hidden_types(mode: str) -> frozenset[str]:
    """The entry types (``Entry.kind`` values) that filter ``mode`` hides by their kind alone.

    Only kinds of non-message entries are hidden this way (a message's kind depends on its role).
    """
    return frozenset(name for name, kind in _BY_TYPE.items() if mode in kind.hidden_in)
