"""Diagnostics: what was wrong with a session file, where, and what was done about it.

Damaged input is normal input. Every bad line, cycle, orphan or truncated write becomes a
:class:`Diagnostic` with a 1-based line number instead of an exception.
"""

from __future__ import annotations

from enum import StrEnum


class Severity(StrEnum):
    """How bad a diagnostic is. ``ERROR`` means data was skipped; ``WARNING`` means it was read leniently."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


# Kinds, with their severity. Kept in one table so the CLI, the GUI panel and the tests agree.
KINDS: dict[str, Severity] = {
    "invalid-json": Severity.ERROR,  # the line is not JSON; skipped
    "not-an-object": Severity.ERROR,  # valid JSON but not an object; skipped
    "truncated-line": Severity.ERROR,  # last line without newline that does not parse (crash mid-write)
    "missing-header": Severity.ERROR,  # first parsed line is not a session header
    "not-a-session": Severity.ERROR,  # no line is a JSON object (binary, another format); once, line 0
    "duplicate-header": Severity.WARNING,  # a second header line; ignored, as the reference does
    "newer-version": Severity.WARNING,  # a header version above 3 (a newer agent); read as version 3
    "invalid-utf8": Severity.WARNING,  # bytes replaced by U+FFFD, as the reference's UTF-8 decoding does
    "missing-id": Severity.WARNING,  # an entry without id in a v2/v3 file; given one and chained
    "duplicate-id": Severity.WARNING,  # the later entry wins for lookups; the earlier stays listed
    "orphan": Severity.WARNING,  # parentId names no entry; shown as a root
    "self-parent": Severity.WARNING,  # parentId equals id; shown as a root
    "cycle": Severity.ERROR,  # parent links loop; broken at the first entry of the loop in file order
    "invalid-timestamp": Severity.WARNING,
    "invalid-field": Severity.WARNING,  # a field has the wrong JSON type (e.g. a non-string name)
    "deep-value": Severity.WARNING,  # a value nested deeper than jsonl.MAX_DEPTH levels; shown folded
    "unknown-type": Severity.INFO,  # kept and shown as a generic entry
    "variant": Severity.INFO,  # a variant spelling accepted leniently (camelCase type, header/workingDir)
}


class Diagnostic:
    """One problem found in a session file (immutable).

    Attributes:
        line: 1-based line number in the file (0 when the problem is about the whole file).
        kind: a key of :data:`KINDS`.
        message: one human sentence saying what is wrong and what was done.
        entry_id: the entry concerned, when there is one.
    """

    __slots__ = ("entry_id", "kind", "line", "message")
    line: int
    kind: str
    message: str
    entry_id: str | None

    def __init__(self, line: int, kind: str, message: str, entry_id: str | None = None) -> None:
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "entry_id", entry_id)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Diagnostic is immutable")

    def _key(self) -> tuple[int, str, str, str | None]:
        return (self.line, self.kind, self.message, self.entry_id)

    def __reduce__(self) -> tuple[type[Diagnostic], tuple[int, str, str, str | None]]:
        return (Diagnostic, self._key())  # made again by __init__: pickle's default would set attributes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Diagnostic) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Diagnostic({self.line}, {self.kind!r}, {self.message!r}, {self.entry_id!r})"

    @property
    def severity(self) -> Severity:
        """The severity of this diagnostic's kind."""
        return KINDS.get(self.kind, Severity.WARNING)

    @property
    def is_problem(self) -> bool:
        """True when this diagnostic means the file is damaged (not merely informative)."""
        return self.severity is not Severity.INFO

    def format(self, path: str = "") -> str:
        """Render as ``path:line: severity kind: message``, the form the CLI prints."""
        where = f"{path}:{self.line}" if path else f"line {self.line}"
        return f"{where}: {self.severity.value} {self.kind}: {self.message}"
