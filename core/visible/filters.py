"""The branch tree's filter modes: which entries of a session a mode shows (the leaf is always shown)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # typing only: the filters are imported where no session is read yet
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
# The reference's Default filter hides these entry kinds (FORMAT.md section 6).
DEFAULT_HIDDEN = frozenset({"label", "custom", "model_change", "thinking_level_change"})


def check_mode(mode: str) -> str:
    """Return ``mode`` when it is one of :data:`FILTER_MODES`.

    Raises:
        ValueError: for any other mode.
    """
    if mode not in FILTER_MODES:
        raise ValueError(f"unknown filter mode {mode!r}; expected one of {FILTER_MODES}")
    return mode


# The modes that look at nothing but an entry's kind, and the kinds each hides: a caller looping over
# every entry (core.visible.structure) tests ``entry.kind not in HIDDEN_KINDS[mode]`` instead of a call.
HIDDEN_KINDS: dict[str, frozenset[str]] = {"default": DEFAULT_HIDDEN, "all": frozenset()}


def passes(entry: Entry, mode: str, session: Session | None) -> bool:
    """Whether filter ``mode`` shows ``entry`` (the leaf is shown whatever this says).

    ``default`` hides label, custom, model_change and thinking_level_change entries; ``no-tools`` also
    hides tool results; ``user`` shows only user messages; ``labeled`` only entries that have a label in
    ``session`` now; ``all`` everything. Unlike the reference, assistant messages holding only tool calls
    are not hidden: telling them apart needs every body, and the tree reads bodies only for rows shown.
    """
    hidden = HIDDEN_KINDS.get(mode)
    if hidden is not None:
        return entry.kind not in hidden
    if mode == "labeled":
        return bool(session.label_for(entry.id)) if session is not None else False
    if mode == "user":
        return entry.kind == "message" and entry.role == "user"
    if entry.kind in DEFAULT_HIDDEN:
        return False
    return not (mode == "no-tools" and entry.kind == "message" and entry.role == "toolResult")
