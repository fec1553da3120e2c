"""Child sessions for ``list --no-catalogue``: what the catalogue records of them, from the files read.

The catalogue works them out from its tables (:mod:`core.catalogue.children`); a list made by reading
every file works them out here, by the same rules (:mod:`core.session.subagents`), so both lists agree.
"""

from __future__ import annotations

from core.session.session import Session
from core.session.subagents import Listed, child_links, rlm_depth, with_families
from core.session.summary import SessionSummary
from core.usage.records import entry_usages


class Families:
    """What a scan notes of each session read, then the summaries with their families filled in."""

    def __init__(self) -> None:
        self._listed: list[Listed] = []
        self._ids: dict[str, frozenset[str]] = {}
        self._shares: dict[str, float] = {}

    def note(self, session: Session) -> None:
        """Remember what the families need of one session read (its header, entry ids, child share)."""
        header = session.header or {}
        self._listed.append(
            Listed(
                session.path,
                session.session_id,
                session.parent_session,
                rlm_depth(header),
                session.created_ms,
                session.last_activity_ms,
            )
        )
        self._ids[session.path] = frozenset(e.id for e in session.entries)
        share = sum(row.child_cost for row in entry_usages(session) if row.kind != "attribution")
        if share:
            self._shares[session.path] = share

    def apply(self, summaries: list[SessionSummary]) -> list[SessionSummary]:
        """``summaries`` (of the sessions noted) with parents, depths, child counts and cost split."""
        links = child_links(self._listed, lambda child, parent: bool(self._ids[child] & self._ids[parent]))
        return with_families(summaries, links, self._shares)
