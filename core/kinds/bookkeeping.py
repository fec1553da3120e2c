"""Bookkeeping: settings changed (model, thinking level, service tier), labels and the session's name.

None of them holds conversation; each is one line in the view and the exports (kept there unless the
export leaves bookkeeping out). The reference's default filter hides labels and the model and thinking
level changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.kinds.common import one_line
from core.kinds.document import Card, Span, bold, code, entry_link
from core.kinds.kind import BOOKKEEPING, DEFAULT_MODE, Kind
from core.kinds.wording import model_change_name, model_change_role, thinking_level_text
from core.session.content import as_text
from core.session.vocabulary import (
    LABEL,
    MODEL_CHANGE,
    SERVICE_TIER_CHANGE,
    SESSION_INFO,
    THINKING_LEVEL_CHANGE,
    spellings,
)

if TYPE_CHECKING:
    from core.kinds.notes import EntryNotes
    from core.kinds.pairing import Results
    from core.session import Entry
    from core.session.content import Body

__all__ = ["LabelKind", "ModelChangeKind", "ServiceTierKind", "SessionInfoKind", "ThinkingLevelKind"]


class _Bookkeeping(Kind):
    family = "meta"
    export_part = BOOKKEEPING


class ModelChangeKind(_Bookkeeping):
    """The model switched (``provider``/``modelId``, or oh-my-pi's ``model`` with its ``role``)."""

    name = MODEL_CHANGE
    types = spellings(MODEL_CHANGE)
    title = "Model change"
    hidden_in = frozenset({DEFAULT_MODE})

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[model: provider/model]``, or ``[model: provider/model, for the smol role]``."""
        role = model_change_role(body)
        return one_line(f"[model: {model_change_name(body)}{', ' + role if role else ''}]", width)

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``Switched to model provider/model`` (``, for the smol role``, ``, a retry fallback``)."""
        role = model_change_role(body)
        line: tuple[str | Span, ...] = ("Switched to model ", code(model_change_name(body)))
        return self.line_card(entry, (*line, f", {role}") if role else line)


class ThinkingLevelKind(_Bookkeeping):
    """The thinking level changed."""

    name = THINKING_LEVEL_CHANGE
    types = spellings(THINKING_LEVEL_CHANGE)
    title = "Thinking level"
    hidden_in = frozenset({DEFAULT_MODE})

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[thinking: high]`` (``off`` for a null level, as pi and oh-my-pi read it)."""
        return one_line(f"[thinking: {thinking_level_text(body)}]", width)

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``Thinking level: high`` (``medium (set to auto)`` when oh-my-pi's auto mode chose it)."""
        return self.line_card(entry, ("Thinking level: ", code(thinking_level_text(body))))


class ServiceTierKind(_Bookkeeping):
    """Prime Agent's service tier changed (it sets the context's ``serviceTier``)."""

    name = SERVICE_TIER_CHANGE
    types = spellings(SERVICE_TIER_CHANGE)
    title = "Service tier"

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[service tier: priority]``."""
        return f"[service tier: {body.get('serviceTier')}]"

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``Service tier: priority``."""
        return self.line_card(entry, ("Service tier: ", code(as_text(body.get("serviceTier")))))


class LabelKind(_Bookkeeping):
    """A label set on (or cleared from) another entry."""

    name = LABEL
    types = spellings(LABEL)
    title = "Label"
    icon = "label"
    hidden_in = frozenset({DEFAULT_MODE})
    activity = False  # a label added today says nothing of when the conversation took place

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[label ID: text]`` or ``[label ID cleared]``."""
        label = body.get("label")
        target = body.get("targetId")
        return f"[label {target}: {label}]" if label else f"[label {target} cleared]"

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``Label TEXT set on ID`` or ``Label cleared on ID``."""
        target = entry_link(as_text(body.get("targetId")) or "?")
        label = body.get("label")
        if isinstance(label, str) and label:
            return self.line_card(entry, ("Label ", bold(label), " set on ", target))
        return self.line_card(entry, ("Label cleared on ", target))


class SessionInfoKind(_Bookkeeping):
    """The session named (or its name cleared)."""

    name = SESSION_INFO
    types = spellings(SESSION_INFO)
    title = "Session name"
    activity = False  # nor does a name

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[name: Harden cookie parser]`` or ``[name cleared]``."""
        name = body.get("name")
        return (
            one_line(f"[name: {name}]", width) if isinstance(name, str) and name.strip() else "[name cleared]"
        )

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``Session named NAME`` or ``Session name cleared``."""
        name = body.get("name")
        if isinstance(name, str) and name.strip():
            return self.line_card(entry, ("Session named ", bold(name.strip())))
        return self.line_card(entry, ("Session name cleared",))
