"""Moving through a session's tree by meaning rather than by row: the next user message, another branch.

The window's Go menu asks these. They work on the session's tree (``Session.tree``), not on the rows of a
filter mode, so they find what a filter hides too (the window then reveals it).

*The conversation an entry is in* is the path from its root to it, continued below it toward the
session's leaf when the leaf lies below, else along the newest child at each step: the one linear thread a
reader follows through that entry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.kinds.registry import kind_of

if TYPE_CHECKING:
    from core.session import Entry, Session

__all__ = ["conversation", "next_user_message", "sibling_branch"]


def conversation(session: Session, entry_id: str) -> list[Entry]:
    """The conversation through ``entry_id`` (see the module docstring); empty for an unknown id."""
    entry = session.get(entry_id)
    if entry is None:
        return []
    path = session.path_to(entry_id)
    on_leaf_path = {e.id for e in session.path_to(session.leaf_id)}
    children = session.tree.children
    seen = {e.id for e in path}
    current = entry
    while True:
        kids = children.get(current.id)
        if not kids:
            break
        toward_leaf = [k for k in kids if k.id in on_leaf_path]
        current = toward_leaf[0] if toward_leaf else kids[-1]  # children are sorted oldest first
        if current.id in seen:  # a broken link cannot loop here, but never trust a file
            break
        seen.add(current.id)
        path.append(current)
    return path


def _is_user_message(entry: Entry) -> bool:
    return kind_of(entry).user_turn


def next_user_message(session: Session, entry_id: str, step: int = 1) -> str | None:
    """The next (``step`` 1) or previous (-1) user message in the conversation through ``entry_id``."""
    thread = conversation(session, entry_id)
    ids = [e.id for e in thread]
    if entry_id not in ids:
        return None
    index = ids.index(entry_id) + step
    while 0 <= index < len(thread):
        if _is_user_message(thread[index]):
            return thread[index].id
        index += step
    return None


def sibling_branch(session: Session, entry_id: str, step: int = 1) -> str | None:
    """The first entry of the next (``step`` 1) or previous (-1) branch beside the one ``entry_id`` is on.

    The branch point is the nearest ancestor (or the entry itself) with more than one child; the answer is
    that point's child after (before) the one leading to ``entry_id``, in the tree's order (oldest first).
    Roots count as the branches of an invisible root. None when there is no such branch.
    """
    path = session.path_to(entry_id)
    if not path:
        return None
    children = session.tree.children
    for depth in range(len(path) - 1, -1, -1):
        here = path[depth]
        siblings = children.get(path[depth - 1].id, []) if depth > 0 else list(session.tree.roots)
        if len(siblings) < 2:
            continue
        ids = [s.id for s in siblings]
        if here.id not in ids:
            continue
        index = ids.index(here.id) + step
        return ids[index] if 0 <= index < len(ids) else None
    return None
