"""The branch tree's filter modes: which entries of a session a mode shows (the leaf is always shown)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.kinds.kind import DEFAULT_MODE, NO_TOOLS_MODE
from core.kinds.registry import hidden_types, kind_of

if TYPE_CHECKING:  # typing only
    from core.session import Entry, Session

FILTER_MODES = ("default", "no-tools", "user", "labeled", "all")
# What people read for each mode (the window's "Show:" box).
FILTER_LABELS = {
    "default": "Default",
    "no-tools": "No tools",
    "user": "User messages",
    "labeled": "Labeled",
    "all": "All entries",
}


def check_mode(mode: str) -> str:
    """Return ``mode`` when it is one of :data:`FILTER_MODES`.

    Raises:
        ValueError: for any other mode.
    """
    if mode not in FILTER_MODES:
        raise ValueError(f"unknown filter mode {mode!r}; expected one of {FILTER_MODES}")
    return mode


# The modes that look at nothing but an entry's kind, and the entry types each hides (their kinds say
# so: ``Kind.hidden_in``): a caller looping over every entry (core.visible.structure) tests
# ``entry.kind not in HIDDEN_KINDS[mode]`` instead of a call. The reference's Default filter hides labels,
# extension data, and model and thinking level changes (FORMAT.md section 6).
HIDDEN_KINDS: dict[str, frozenset[str]] = {"default": hidden_types(DEFAULT_MODE), "all": frozenset()}
DEFAULT_HIDDEN = HIDDEN_KINDS["default"]


def passes(entry: Entry, mode: str, session: Session | None) -> bool:
    """Whether filter ``mode`` shows ``entry`` (the leaf is shown whatever this says).

    ``default`` hides the kinds hidden in it (labels, extension data, model and thinking level changes);
    ``no-tools`` also hides tool results; ``user`` shows only user messages; ``labeled`` only entries that
    have a label in ``session`` now; ``all`` everything. Unlike the reference, assistant messages holding
    only tool calls are not hidden: telling them apart needs every body, and the tree reads bodies only
    for rows shown.
    """
    hidden = HIDDEN_KINDS.get(mode)
    if hidden is not None:
        return entry.kind not in hidden
    if mode == "labeled":
        return bool(session.label_for(entry.id)) if session is not None else False
    kind = kind_of(entry)
    if mode == "user":
        return kind.user_turn
    if DEFAULT_MODE in kind.hidden_in:
        return False
    return not (mode == NO_TOOLS_MODE and NO_TOOLS_MODE in kind.hidden_in)
