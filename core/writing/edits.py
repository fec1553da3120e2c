"""Label and name edits as plain command objects, each with its inverse computed here in core.

An edit never removes anything from a file: applying one appends a ``label`` or ``session_info`` entry
through :mod:`core.writing.writer`,
and undoing it applies the inverse, which appends the entry that restores the
previous value. The GUI's undo stack only wraps these objects.

Every edit remembers the value it replaces (``old``). :meth:`SetLabel.apply` and :meth:`SetName.apply`
refuse when the file no longer holds that value (the agent or another tool changed it meanwhile), so an
undo never silently overwrites someone else's change.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import InvalidRequestError, SessionChangedError
from core.session import Session

__all__ = ["Edit", "SetLabel", "SetName", "label_edit", "name_edit"]

_DESCRIPTION_WIDTH = 40  # characters of a label or name shown in an undo menu entry


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DESCRIPTION_WIDTH else text[: _DESCRIPTION_WIDTH - 1] + "…"


def _clean_name(name: str | None) -> str:
    """A name as the session will hold it (what ``append_session_name`` and the reference store)."""
    return (name or "").replace("\r\n", " ").replace("\r", " ").replace("\n", " ").strip()


def _clean_label(label: str | None) -> str | None:
    """A label as the session will hold it: ``""`` and None both mean no label."""
    return label if label else None


def _refresh(session: Session) -> None:
    """Read what was appended since the session was loaded, so the current value is the file's."""
    result = session.refresh()
    if result.reloaded:
        raise SessionChangedError(
            f"{session.path} changed on disk in a way that is not an append ({result.reason}), so the edit "
            "was refused; it is being reloaded."
        )


@dataclass(frozen=True, slots=True)
class SetLabel:
    """Give entry ``entry_id`` of the session at ``path`` the label ``new`` (None clears it).

    ``old`` is the label it had when the edit was made; :meth:`inverse` swaps the two.
    """

    path: str
    entry_id: str
    new: str | None
    old: str | None

    @property
    def description(self) -> str:
        """A short text for menus: ``Label "checkpoint"`` or ``Clear label``."""
        return f'Label "{_short(self.new)}"' if self.new else "Clear label"

    def inverse(self) -> SetLabel:
        """The edit that restores the label this one replaced."""
        return SetLabel(self.path, self.entry_id, self.old, self.new)

    def apply(self, session: Session) -> str:
        """Append the label entry to ``session`` (which must be the file at ``path``).

        Returns:
            The id of the appended label entry.

        Raises:
            InvalidRequestError: the entry's label is no longer ``old`` (it was changed meanwhile).
            SessionChangedError: the file changed in a way that is not an append.
            SessionWriteError: the write failed; nothing on disk changed.
        """
        from core.writing.writer import append_label

        _check_path(session, self.path)
        _refresh(session)
        current = session.label_for(self.entry_id)
        if current != self.old:
            raise InvalidRequestError(
                f"The label of entry {self.entry_id} was changed to {_quoted(current)} since it was "
                f"{_quoted(self.old)}, so it was left as it is."
            )
        return append_label(session, self.entry_id, self.new)


@dataclass(frozen=True, slots=True)
class SetName:
    """Give the session at ``path`` the name ``new`` (``""`` clears it); ``old`` is the name it had."""

    path: str
    new: str
    old: str

    @property
    def description(self) -> str:
        """A short text for menus: ``Rename to "Fix login"`` or ``Clear name``."""
        return f'Rename to "{_short(self.new)}"' if self.new else "Clear name"

    def inverse(self) -> SetName:
        """The edit that restores the name this one replaced."""
        return SetName(self.path, self.old, self.new)

    def apply(self, session: Session) -> str:
        """Append the ``session_info`` entry to ``session`` (which must be the file at ``path``).

        Returns:
            The id of the appended entry.

        Raises:
            InvalidRequestError: the name is no longer ``old`` (it was changed meanwhile).
            SessionChangedError: the file changed in a way that is not an append.
            SessionWriteError: the write failed; nothing on disk changed.
        """
        from core.writing.writer import append_session_name

        _check_path(session, self.path)
        _refresh(session)
        current = session.name or ""
        if current != self.old:
            raise InvalidRequestError(
                f"The session name was changed to {_quoted(current)} since it was {_quoted(self.old)}, "
                "so it was left as it is."
            )
        return append_session_name(session, self.new)


Edit = SetLabel | SetName


def label_edit(session: Session, entry_id: str, new: str | None) -> SetLabel | None:
    """The edit that gives ``entry_id`` the label ``new`` (None or ``""`` clears it).

    The current label is read from ``session``, so the inverse restores it.

    Returns:
        The edit, or None when the entry already has that label (nothing to write).

    Raises:
        InvalidRequestError: the session has no such entry.
    """
    if session.get(entry_id) is None:
        raise InvalidRequestError(f"There is no entry {entry_id} in {session.path}.")
    wanted = _clean_label(new)
    old = session.label_for(entry_id)
    if wanted == old:
        return None
    return SetLabel(session.path, entry_id, wanted, old)


def name_edit(session: Session, new: str | None) -> SetName | None:
    """The edit that names the session ``new`` (None or ``""`` clears the name).

    The name is cleaned as the writer cleans it (trimmed, line breaks as spaces), and the current name is
    read from ``session``, so the inverse restores it.

    Returns:
        The edit, or None when the session already has that name.
    """
    wanted = _clean_name(new)
    old = session.name or ""
    if wanted == old:
        return None
    return SetName(session.path, wanted, old)


def _check_path(session: Session, path: str) -> None:
    if session.path != path:
        raise InvalidRequestError(f"This edit is for {path}, not {session.path}.")


def _quoted(value: str | None) -> str:
    return f'"{_short(value)}"' if value else "nothing"
