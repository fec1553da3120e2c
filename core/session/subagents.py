"""Child sessions: which listed session started which, how deep, and each family's cost counted once.

A child (a subagent's session) is a session of its own that another session started. Agents record the
link in two ways, and this module reads both from what a session list knows (paths, header ids and
fields: no file is read):

* **Where the file is.** Prime Agent's RLM runtime writes a child to
  ``session-artifacts/<root-session-id>/sub-<8 hex>/<child-id>.jsonl``, a grandchild one ``sub-`` folder
  deeper, so the folder above a child's ``sub-`` folder holds its parent (or, at the top, is named after
  the root session's id). The ``pi-subagents`` extension writes ``<folder of the parent>/<parent file's
  stem>/<runId>/[run-<n>/]<file>.jsonl`` (older versions: a folder named after the parent's id). Files in
  ``<agentDir>/subagent-sessions/`` (``pi-interactive-subagents``) are children, their parent named by the
  header if at all.
* **The header.** ``parentSession`` (the parent's path) and Prime Agent's ``rlmDepth``. A fork and a
  clone record ``parentSession`` too; they copy their parent's entries, where a subagent's session starts
  a conversation of its own, so a session whose header names a parent is a child only when it shares no
  entry id with it and was made while the parent ran (the parent recorded a message after it: the answer
  the subagent's tool returned), as the ``tintinweb/pi-subagents`` extension and
  ``pi-interactive-subagents``' blank sessions are; or when its folder or ``rlmDepth`` says so. A blank
  session made after its parent's last message (pi's ``newSession({parentSession})``, a hand-over) is
  not a child.

**Cost counted once.** Prime Agent's parent records ``child_usage_attributed`` entries that replace the
launching message's usage with the aggregate (parent + child): its children's cost is inside its own
figure already. The pi extensions record nothing in the parent, so their children's cost is added. A
child is *inside* its parent's aggregate when it is an RLM child and the parent recorded attributions;
:func:`family_costs` then never adds it again (only what its own descendants outside any aggregate cost).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from core.session.entry import AssistantInfo
from core.session.lineage import file_name_ids, parent_paths
from core.session.summary import SessionSummary

if TYPE_CHECKING:
    from core.session.session import Session

__all__ = [
    "ChildLink",
    "ChildSession",
    "FamilyCost",
    "Listed",
    "child_links",
    "family_costs",
    "family_heads",
    "launches",
    "layout_depth",
    "rlm_depth",
    "with_families",
]

_K = TypeVar("_K", tuple[str, str], str)
_SEPARATORS = re.compile(r"[\\/]")
_ARTIFACTS = "session-artifacts"
_SUBAGENT_FOLDER = "subagent-sessions"
_SUB = "sub-"
_TOOL_USE = "toolUse"  # the stopReason of an assistant message that called a tool
# Folders looked at above a file: pi-subagents' <parent stem>/<runId>/run-<n>/ is the deepest layout.
_FOLDERS_UP = 4


@dataclass(frozen=True, slots=True)
class Listed:
    """What :func:`child_links` needs of one listed session.

    Attributes:
        path: its file (absolute, as the list has it).
        id: its header id.
        parent_recorded: the header's ``parentSession``, or None.
        rlm_depth: Prime Agent's header ``rlmDepth``, or None.
        created_ms: its header's time, in ms (None when unknown).
        last_ms: the time of its last user or assistant message, in ms (None when unknown).
    """

    path: str
    id: str | None
    parent_recorded: str | None = None
    rlm_depth: int | None = None
    created_ms: float | None = None
    last_ms: float | None = None


@dataclass(frozen=True, slots=True)
class ChildLink:
    """One child session.

    Attributes:
        path: the child's file.
        parent: the listed session that started it, or None when it is not listed.
        depth: 1 for a child, 2 for a grandchild... (Prime Agent's ``rlmDepth`` when recorded).
        rlm: Prime Agent's RLM runtime wrote it (its parent may hold its cost in an aggregate).
    """

    path: str
    parent: str | None
    depth: int
    rlm: bool


def child_links(listed: Iterable[Listed], shares_entries: Callable[[str, str], bool]) -> dict[str, ChildLink]:
    """The child sessions among ``listed``, by path.

    Args:
        listed: the sessions of a list.
        shares_entries: ``(child path, parent path)`` -> whether the child holds an entry id of the parent
            (then it is a fork or a clone, not a child); asked only of sessions that only their header
            links to a parent.

    Returns:
        A link for every child: its parent among ``listed`` (by its header's path when that resolves, as
        :func:`core.session.lineage.parent_paths` resolves it, else by its folder), and its depth. A chain
        of parents that comes back to a session is cut there (that session heads it).
    """
    rows = list(listed)
    summaries = [SessionSummary(r.path, r.id, "", None, r.parent_recorded, None, None, 0, "") for r in rows]
    recorded = parent_paths(summaries)
    by_folder_name: dict[tuple[str, str], str | None] = {}  # (folder, stem or id of a file in it) -> file
    in_folder: dict[str, list[str]] = {}
    by_id: dict[str, str | None] = {}
    for r in rows:
        folder, name = os.path.split(r.path)
        in_folder.setdefault(folder, []).append(r.path)
        for key in set(file_name_ids(name)):
            _note(by_folder_name, (folder, key), r.path)
        if r.id:
            _note(by_id, r.id, r.path)
    by_path = {r.path: r for r in rows}
    links: dict[str, ChildLink] = {}
    for r in rows:
        kind, layout_parent, subs = _layout(r.path, by_folder_name, in_folder, by_id)
        parent = recorded.get(r.path)
        rlm = kind == "rlm" or (r.rlm_depth is not None and r.rlm_depth > 0)
        if kind is None and not rlm:
            if parent is None or not _ran_after(by_path[parent], r) or shares_entries(r.path, parent):
                continue  # not a child: a session of its own, a hand-over, or a fork or clone
        parent = parent if parent is not None else layout_parent
        if parent == r.path:
            parent = None
        depth = r.rlm_depth if r.rlm_depth is not None and r.rlm_depth > 0 else subs
        links[r.path] = ChildLink(r.path, parent, depth, rlm)
    return _settled(links)


def _ran_after(parent: Listed, child: Listed) -> bool:
    """Whether ``parent`` recorded a message after ``child`` was made (so it ran while the child did)."""
    return parent.last_ms is not None and child.created_ms is not None and parent.last_ms > child.created_ms


def layout_depth(path: str) -> int:
    """How many of Prime Agent's ``sub-`` folders ``path`` lies in, under ``session-artifacts`` (0: none)."""
    parts = _SEPARATORS.split(path)[:-1]
    if _ARTIFACTS not in parts:
        return 0
    after = parts[len(parts) - parts[::-1].index(_ARTIFACTS) :]
    return sum(1 for part in after if part.startswith(_SUB))


def _layout(
    path: str,
    by_folder_name: Mapping[tuple[str, str], str | None],
    in_folder: Mapping[str, list[str]],
    by_id: Mapping[str, str | None],
) -> tuple[str | None, str | None, int]:
    """What a file's folders say: (``"rlm"``, ``"folder"`` or None; the parent they name; ``sub-`` depth).

    Only the few folders a layout puts above a child are looked at (string operations: this runs for
    every listed session after every catalogue pass).
    """
    subs = layout_depth(path) if _ARTIFACTS in path else 0
    folder = path.rpartition(os.sep)[0]
    for step in range(_FOLDERS_UP):
        above, _sep, name = folder.rpartition(os.sep)
        if not name or not above:
            break
        if step == 0 and subs and name.startswith(_SUB):
            # The parent is the session file in the folder above (a child's own sub- folder), or, at the
            # top, the session the folder above is named after (session-artifacts/<root-session-id>/).
            files = [p for p in in_folder.get(above, ()) if p != path]
            parent = files[0] if len(files) == 1 else None
            if parent is None and above.rpartition(os.sep)[0].endswith(os.sep + _ARTIFACTS):
                parent = by_id.get(above.rpartition(os.sep)[2])
            return "rlm", parent, subs
        named = by_folder_name.get((above, name))
        if named is not None:
            return "folder", named, max(subs, 1)
        if name == _SUBAGENT_FOLDER:
            return "folder", None, max(subs, 1)
        folder = above
    return None, None, max(subs, 1)


def _settled(links: dict[str, ChildLink]) -> dict[str, ChildLink]:
    """``links`` with chains of parents cut where they loop, and depths without ``rlmDepth`` made whole.

    A child's depth is its parent's plus one when the parent is a child too (pi extensions record no
    depth); a recorded ``rlmDepth`` or ``sub-`` depth is kept when it is deeper than the chain says.
    """
    settled = dict(links)
    for path in links:  # a loop: the first of it met here heads it
        seen = {path}
        current = settled[path].parent
        while current is not None and current in settled:
            if current in seen:
                link = settled[path]
                settled[path] = ChildLink(link.path, None, link.depth, link.rlm)
                break
            seen.add(current)
            current = settled[current].parent
    depths: dict[str, int] = {}
    for path in settled:
        chain = []
        up: str | None = path
        while up is not None and up in settled and up not in depths:
            chain.append(up)
            up = settled[up].parent
        base = depths.get(up, 0) if up is not None else 0
        for link_path in reversed(chain):
            base = max(base + 1, settled[link_path].depth)
            depths[link_path] = base
    return {p: ChildLink(link.path, link.parent, depths[p], link.rlm) for p, link in settled.items()}


@dataclass(frozen=True, slots=True)
class FamilyCost:
    """A session's cost split: its own, and its children's counted once in its figure.

    Attributes:
        own: what the session's own model calls cost (an attributed aggregate's child share taken out).
        children: what its children (and theirs) cost, counted once: the share inside its aggregate and
            every child outside it.
    """

    own: float
    children: float

    @property
    def total(self) -> float:
        """The figure a list shows for the session: its own cost and its children's."""
        return self.own + self.children


def family_costs(
    links: Mapping[str, ChildLink],
    costs: Mapping[str, tuple[float, float]],
    aggregating: Iterable[str],
) -> dict[str, FamilyCost]:
    """Each session's own cost and its children's, every child counted once.

    Args:
        links: :func:`child_links`.
        costs: path -> (the cost the file records, attributed aggregates included; the child share inside
            those aggregates).
        aggregating: the sessions that recorded ``child_usage_attributed`` entries.

    Returns:
        path -> :class:`FamilyCost`, for every session of ``costs``. A child inside its parent's aggregate
        (an RLM child of an aggregating parent) adds only what its descendants outside any aggregate cost.
    """
    holds = set(aggregating)
    kids: dict[str, list[str]] = {}
    for link in links.values():
        if link.parent is not None and link.parent in costs and link.path in costs:
            kids.setdefault(link.parent, []).append(link.path)
    result: dict[str, FamilyCost] = {}
    # Post-order without recursion: a session is settled after all its children.
    for top in costs:
        if top in result:
            continue
        stack: list[tuple[str, bool]] = [(top, False)]
        while stack:
            path, expanded = stack.pop()
            if path in result:
                continue
            if not expanded:
                stack.append((path, True))
                stack.extend((kid, False) for kid in kids.get(path, ()) if kid not in result)
                continue
            cost, share = costs[path]
            children = share
            for kid in kids.get(path, ()):
                figure = result.get(kid)
                if figure is None:  # a loop cut elsewhere: counted where it heads
                    continue
                inside = links[kid].rlm and path in holds
                children += figure.total - (costs[kid][0] if inside else 0.0)
            result[path] = FamilyCost(cost - share, children)
    return result


def family_heads(summaries: Iterable[SessionSummary]) -> dict[str, str]:
    """Child session path -> the top session of its family (the farthest listed parent), from summaries."""
    parent = {s.path: s.subagentOf for s in summaries if s.subagentOf is not None}
    heads: dict[str, str] = {}
    for path in parent:
        top, seen = path, {path}
        while (up := parent.get(top)) is not None and up not in seen:
            seen.add(up)
            top = up
        if top != path:
            heads[path] = top
    return heads


class ChildSession(NamedTuple):
    """A child session as its parent's transcript names it.

    Attributes:
        path: its file.
        title: what the list calls it (its name, else its first message).
        created_ms: its header's time in ms, or None.
    """

    path: str
    title: str
    created_ms: float | None


def launches(session: Session, children: Iterable[ChildSession]) -> dict[str, tuple[ChildSession, ...]]:
    """Which entry of ``session`` launched each of its ``children``: entry id -> the children, oldest first.

    Neither agent records it by child, so it is found by time: the launching message is the latest one
    before the child's file was made among the messages that can launch one, the targets of Prime Agent's
    ``child_usage_attributed`` entries (their usage holds a child's) when there are any, else the
    assistant messages that stopped for a tool call (the subagent tool of the pi extensions). A child made
    before every such message goes to the first of them; a session without any launches nothing.
    """
    children = list(children)
    if not children:
        return {}  # most sessions: no pass over their entries (0.35 s at 520,000)
    targets = set(session.usage_overrides)
    candidates = [e for e in session.entries if e.id in targets and isinstance(e.info, AssistantInfo)]
    if not candidates:
        candidates = [
            e
            for e in session.entries
            if isinstance(e.info, AssistantInfo) and e.info.stop_reason == _TOOL_USE
        ]
    if not candidates:
        return {}
    timed = sorted(candidates, key=lambda e: (e.ts_ms if e.ts_ms is not None else -1.0, e.line))
    found: dict[str, list[ChildSession]] = {}
    for child in sorted(children, key=lambda c: (c.created_ms or 0.0, c.path)):
        chosen = timed[0]
        if child.created_ms is not None:
            for entry in timed:
                if entry.ts_ms is not None and entry.ts_ms <= child.created_ms:
                    chosen = entry
        found.setdefault(chosen.id, []).append(child)
    return {entry_id: tuple(kids) for entry_id, kids in found.items()}


def rlm_depth(header: Mapping[str, object]) -> int | None:
    """Prime Agent's ``rlmDepth`` in a header, or None (absent, or not a whole number)."""
    value = header.get("rlmDepth")
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def with_families(
    summaries: list[SessionSummary], links: Mapping[str, ChildLink], shares: Mapping[str, float]
) -> list[SessionSummary]:
    """``summaries`` with their parent, depth, child count and cost split filled in (the others as given).

    Args:
        summaries: a list's sessions.
        links: the children among them (:func:`child_links`), parents outside ``summaries`` left out.
        shares: path -> the child share inside the session's attributed aggregates (Prime Agent), for the
            sessions that hold one; it counts even when the children are not listed.

    Returns:
        The summaries in the same order; a parent's figure (``family_cost``) counts each child once
        (:func:`family_costs`).
    """
    if not links and not shares:
        return summaries
    by_path = {s.path: s for s in summaries}
    involved = set(links) | set(shares) | {link.parent for link in links.values() if link.parent is not None}
    involved &= set(by_path)
    costs = {path: (by_path[path].cost, shares.get(path, 0.0)) for path in involved}
    figures = family_costs(links, costs, shares)
    counts: dict[str, int] = {}
    for link in links.values():
        if link.parent is not None:
            counts[link.parent] = counts.get(link.parent, 0) + 1
    changed: dict[str, SessionSummary] = {}
    for path in involved:
        found = links.get(path)
        figure = figures[path]
        changed[path] = dataclasses.replace(
            by_path[path],
            subagentOf=found.parent if found is not None else None,
            subagentDepth=found.depth if found is not None else 0,
            subagents=counts.get(path, 0),
            ownCost=round(figure.own, 10) if shares.get(path) else None,
            childCost=round(figure.children, 10),
        )
    return [changed.get(s.path, s) for s in summaries]


def _note(table: dict[_K, str | None], key: _K, path: str) -> None:
    """``table[key] = path``, or None (ambiguous) when another path has that key already."""
    table[key] = None if key in table and table[key] != path else path
