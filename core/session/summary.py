"""A session summary: what a session list shows, with the reference's field names.

:func:`core.catalogue.summary.summarize` makes one from a loaded session.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One row of a session list.

    The first ten fields are the reference's ``SessionInfo`` (``allMessagesText`` aside), derived over
    the whole file (all branches) exactly as its ``buildSessionInfo`` does. The rest are ours.

    Attributes:
        path: the session file.
        id: the header id (None when the header has none).
        cwd: the header's project folder, or ``""``.
        name: the latest session_info name, or None.
        parentSessionPath: the header's ``parentSession``, or None.
        created: the header timestamp (ISO), or None when invalid.
        modified: the latest user/assistant message time (ISO); falls back to created, then the mtime.
        messageCount: every ``message`` entry of any role, across all branches.
        firstMessage: the text of the first user message with text, or ``"(no messages)"``.
        version: the format version on disk.
        entryCount: entries in the file (the header excluded).
        models: ``provider/model`` names used, in order of first use.
        totalTokens: the sum of ``usage.totalTokens`` over assistant messages (child usage applied).
        cost: the sum of ``usage.cost.total`` over assistant messages (child usage applied).
        leafId: the current leaf.
        fileSize: bytes read.
        problems: how many diagnostics say the file is damaged.
        lastStopReason: the stopReason of the last assistant message on the current branch.
        firstProblem: the first of those problems in a sentence (``line 12: The line is not JSON; ...``),
            or None.
        subagentOf: for a child session (a subagent's), the listed session that started it, else None.
        subagentDepth: 1 for a child, 2 for a grandchild...; 0 for a session no other started.
        subagents: how many listed child sessions this session started.
        ownCost: this session's own cost when its children's differs from what ``cost`` holds (a Prime
            Agent aggregate's child share taken out), else None (``cost`` is all its own).
        childCost: its children's cost, each counted once (:mod:`core.session.subagents`).
    """

    path: str
    id: str | None
    cwd: str
    name: str | None
    parentSessionPath: str | None
    created: str | None
    modified: str | None
    messageCount: int
    firstMessage: str
    version: int = 3
    entryCount: int = 0
    models: list[str] = field(default_factory=list)
    totalTokens: int | float = 0
    cost: float = 0.0
    leafId: str | None = None
    fileSize: int = 0
    problems: int = 0
    lastStopReason: str | None = None
    firstProblem: str | None = None
    subagentOf: str | None = None
    subagentDepth: int = 0
    subagents: int = 0
    ownCost: float | None = None
    childCost: float = 0.0

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output (the reference's field names first)."""
        return asdict(self)

    @property
    def own_cost(self) -> float:
        """What this session's own model calls cost, without its children's."""
        return self.cost if self.ownCost is None else self.ownCost

    @property
    def family_cost(self) -> float:
        """The figure shown for the session: its own cost and its children's, each counted once."""
        return self.own_cost + self.childCost

    @property
    def title(self) -> str:
        """What a list shows: the name, else the first message."""
        return self.name or self.firstMessage


def problem_sentence(line: int, message: str) -> str:
    """A diagnostic as :attr:`SessionSummary.firstProblem` says it: where, then what."""
    return f"line {line}: {message}" if line > 0 else message
