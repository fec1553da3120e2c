"""What the Markdown, HTML and PDF exports share.

Options, choosing entries, the metadata block, small text helpers (Markdown fences and escapes, HTML
escapes, UTC times). Tool calls are paired with their results by :func:`core.kinds.pairing.paired`.
Nothing here writes files; :mod:`core.export.files` does that.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from core.errors import InvalidRequestError
from core.formatting import total_cost, whole_tokens
from core.kinds.kind import BOOKKEEPING, CUSTOM, TOOLS
from core.kinds.registry import kind_of
from core.usage.totals import entries_usage

if TYPE_CHECKING:
    from core.export.redact import Redactor
    from core.session import Entry, Session

FORMATS = ("md", "html", "pdf")

_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
_BACKTICKS = re.compile(r"`+")
_LONG_BACKTICKS = re.compile(r"`{3,}")
_INFO_CHARS = re.compile(r"[^A-Za-z0-9_+.#-]")
# Inline-significant punctuation only (emphasis, code, links, HTML, entities, tables, strikethrough):
# escaping every ASCII punctuation mark would be valid but makes the raw Markdown unreadable.
_MD_PUNCT = re.compile(r"([\\`*_\[\]<>|~&])")
_YEAR_10000_MS = 253_402_300_800_000  # 10000-01-01 00:00:00 UTC: the first time utc_time cannot show


@dataclass(frozen=True)
class ExportOptions:
    """What an export contains.

    Attributes:
        thinking: include thinking blocks.
        tools: include tool calls, their results and user shell runs (``bashExecution``).
        custom: include extension entries (``custom``, ``custom_message``, extension messages).
        bookkeeping: include model/thinking-level changes, labels, names and other bookkeeping.
        images: ``"embed"`` (data URIs), ``"beside"`` (files next to the export) or ``"omit"``.
        redact: replace credentials found by :mod:`core.export.redact` with a marker.
        literals: further strings to redact (whether or not ``redact`` is on).
        safe_markdown: in the Markdown export (and the PDF made from it), escape raw HTML and neutralise
            ``javascript:``/``vbscript:``/``data:`` links in message text (:mod:`core.export.safe_markdown`);
            False carries message text exactly as written. The HTML export is safe either way.
        remote_images: in the Markdown export, keep message text's images from the web as images (a
            previewer then fetches them); False writes them as links (:mod:`core.export.remote_images`).
            The HTML export never loads them.
    """

    thinking: bool = True
    tools: bool = True
    custom: bool = True
    bookkeeping: bool = True
    images: str = "embed"
    redact: bool = False
    literals: tuple[str, ...] = ()
    safe_markdown: bool = True
    remote_images: bool = False

    @property
    def redacting(self) -> bool:
        """True when anything is to be redacted."""
        return self.redact or any(self.literals)


@dataclass
class ImageSink:
    """Images an export refers to as files beside it: relative name -> bytes.

    Attributes:
        folder: the folder name, relative to the export, the images go into.
        files: relative path -> image bytes, in the order they were referenced.
    """

    folder: str = "images"
    files: dict[str, bytes] = field(default_factory=dict)

    def add(self, entry_id: str, index: int, data: bytes, mime: str) -> str:
        """Remember one image and return the relative path the export links to (see :func:`image_stem`)."""
        name = f"{self.folder}/{image_stem(entry_id)}-{index}.{_EXTENSIONS.get(mime, 'bin')}"
        self.files[name] = data
        return name


_PLAIN_ID = re.compile(r"[a-z0-9_-]{1,64}")


def image_stem(entry_id: str) -> str:
    """The file name part that stands for ``entry_id``: one per id, the same in every export of it.

    An id of lower-case letters, digits, ``_`` and ``-`` (what agents write) is its own stem. Any other id
    is cut to those characters and followed by ``~`` and a digest of the whole id: ``a.b`` and ``a_b``, or
    ``Ab`` and ``ab`` on a disk that ignores case, would otherwise name the same file and one image would
    overwrite the other. No plain stem holds a ``~``, so the two kinds never meet either. Made from the id
    alone, so the child process that renders part of a large page (:mod:`core.export.parallel`) names its
    images as the parent would.
    """
    if _PLAIN_ID.fullmatch(entry_id):
        return entry_id
    digest = hashlib.sha256(entry_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{re.sub(r'[^A-Za-z0-9_-]', '_', entry_id)[:40] or 'entry'}~{digest}"


def select_entries(session: Session, leaf_id: str | None = None, whole_tree: bool = False) -> list[Entry]:
    """The entries an export covers, in display order.

    Args:
        session: the loaded session.
        leaf_id: the entry whose path (root to it) is exported; the current leaf when None.
        whole_tree: every entry of every branch, in the tree's pre-order, instead of one path.

    Returns:
        The entries. Raises :class:`InvalidRequestError` for an unknown ``leaf_id`` or an empty session.
    """
    if whole_tree:
        return [entry for entry, _depth in session.tree.walk()]
    target = leaf_id if leaf_id is not None else session.leaf_id
    if target is None:
        raise InvalidRequestError(f"{session.path} has no entries to export.")
    if session.get(target) is None:
        raise InvalidRequestError(f"There is no entry {target} in {session.path}.")
    return session.path_to(target)


def wanted(entry: Entry, options: ExportOptions) -> bool:
    """Whether the options keep this entry at all (tool results are decided with their calls).

    Its kind says which option keeps it (``Kind.export_part``): tools, extension entries, bookkeeping, or
    none (always exported).
    """
    part = kind_of(entry).export_part
    if part == TOOLS:
        return options.tools
    if part == CUSTOM:
        return options.custom
    if part == BOOKKEEPING:
        return options.bookkeeping
    return True


def fence(text: str, language: str = "") -> str:
    """A fenced code block whose fence is longer than any backtick run inside ``text``."""
    # Only a run of three or more backticks can lengthen the fence beyond three, so the scan for runs
    # (180 ms of the 20,000-message Markdown export when it looked at every backtick) starts only when one is
    # there, and then looks at the long runs alone.
    longest = max(map(len, _LONG_BACKTICKS.findall(text))) if "```" in text else 0
    marks = "`" * max(3, longest + 1)
    info = _INFO_CHARS.sub("", language)[:40] if language else ""
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{marks}{info}\n{body}{marks}\n"


def md_inline(text: str) -> str:
    """Text for one line of Markdown (a heading, a table cell): punctuation escaped, newlines as spaces."""
    flat = " ".join(str(text).split())
    return _MD_PUNCT.sub(r"\\\1", flat) if _MD_PUNCT.search(flat) else flat


def code_span(text: str) -> str:
    """Inline code that survives any backticks inside ``text`` (newlines become spaces)."""
    flat = " ".join(str(text).split())
    if not flat:
        return ""
    longest = max(map(len, _BACKTICKS.findall(flat))) if "`" in flat else 0
    marks = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{marks}{pad}{flat}{pad}{marks}"


def redacted_cut(text: str, width: int, redactor: Redactor | None) -> str:
    """``text`` redacted whole, then cut to ``width`` characters (the last one ``…`` when cut).

    In this order because a secret across the cut, cut first, lost the part that made it look like one
    (half a GitHub token, a JWT without its signature) and the rest was shown as written. A marker the
    cut would split is left out whole (the text is cut before it), and only the markers shown are
    counted: the counts say what the export holds.

    Args:
        text: the text (one line, for a title).
        width: the most characters shown.
        redactor: replaces the secrets; None for none.
    """
    spans = redactor.replaced(redactor.find(text), width) if redactor is not None and text else []
    if redactor is None or not spans:
        return text if len(text) <= width else text[: width - 1] + "…"
    from core.export.redact import marker

    pieces: list[str] = []
    markers: list[tuple[int, int, str]] = []  # each marker's start and end in the redacted text, its kind
    size = last = 0
    for start, end, kind in spans:
        pieces.append(text[last:start])
        size += start - last
        pieces.append(marker(kind))
        markers.append((size, size + len(pieces[-1]), kind))
        size += len(pieces[-1])
        last = end
    pieces.append(text[last:])
    redacted = "".join(pieces)
    if len(redacted) <= width:
        redactor.counts.update(kind for _start, _end, kind in markers)
        return redacted
    cut = width - 1
    for start, end, _kind in markers:
        if start < cut < end:
            cut = start
    redactor.counts.update(kind for _start, end, kind in markers if end <= cut)
    return redacted[:cut] + "…"


def utc_time(ms: object) -> str:
    """``2026-03-02 09:14:07 UTC`` for a ms timestamp, ``""`` when there is none.

    UTC, not local time: an export is read elsewhere, and the same file must give the same export.
    """
    if type(ms) is int and 0 <= ms < _YEAR_10000_MS:
        # The usual case, once per exported entry: the time of day by arithmetic, the date once per day.
        seconds = ms % 86_400_000 // 1000
        date = _utc_date(ms // 86_400_000)
        return f"{date} {seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d} UTC"
    if isinstance(ms, bool) or not isinstance(ms, int | float) or ms != ms:
        return ""
    try:
        t = time.gmtime(ms // 1000)  # C, and no datetime objects: this runs once per exported entry
    except (OverflowError, OSError, ValueError):
        return ""
    if not 0 < t.tm_year < 10000:
        return ""
    return f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d} {t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} UTC"


@lru_cache(maxsize=1024)
def _utc_date(day: int) -> str:
    """``2026-03-02`` for a day number since 1970-01-01 (within years 1970 to 9999)."""
    t = time.gmtime(day * 86_400)
    return f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}"


def _agent_rows(header: dict[str, object]) -> list[tuple[str, str]]:
    """The rows Prime Agent's header adds: the repository it ran in, how deep a child agent it was."""
    rows = []
    if "git" in header:
        from core.kinds.wording import git_text

        rows.append(("Git", git_text(header.get("git"))))
    depth = header.get("rlmDepth")
    if isinstance(depth, int | float) and not isinstance(depth, bool):
        rows.append(
            ("Agent depth", f"{depth:g}" + (" (the top agent)" if depth == 0 else " (a child agent)"))
        )
    return rows


@dataclass
class Metadata:
    """The facts at the top of an export.

    Attributes:
        title: the session name, else its first user message, else the file name.
        rows: ``(label, value)`` pairs in display order (plain text, already redacted).
    """

    title: str
    rows: list[tuple[str, str]]


def metadata(
    session: Session,
    entries: list[Entry],
    redactor: Redactor | None,
    scope: str,
    models: Iterable[str] = (),
    usage: tuple[int | float, float] | None = None,
) -> Metadata:
    """The title and metadata rows of an export of ``entries`` (tokens and cost over those entries).

    Args:
        session: the session.
        entries: the entries exported.
        redactor: applied to every value taken from the session; None for none.
        scope: a description of what is exported (``"path to the current leaf"``...).
        models: ``provider/model`` names seen in the exported messages; the session's when empty.
        usage: ``entries_usage(session, entries)`` when the caller summed it already (the HTML
            export does while a child process renders); summed here when None.
    """

    def clean(text: str) -> str:
        return redactor.text(text) if redactor is not None else text

    models = list(dict.fromkeys(models)) or list(session.models)
    tokens, cost = usage if usage is not None else entries_usage(session, entries)
    # The conversation's span: bookkeeping appended later (a label, a name) does not move it.
    known = [e.ts_ms for e in entries if e.ts_ms is not None and kind_of(e).activity]
    title = redacted_cut(" ".join((session.name or session.first_message or "").split()), 100, redactor)
    rows = [
        ("Session", session.session_id or "(no id)"),
        ("Name", session.name or ""),
        ("Project", session.cwd),
        ("File", session.path.replace("\\", "/").rsplit("/", 1)[-1]),
        ("Exported", scope),
        ("Entries", f"{len(entries):,}"),
        ("Models", ", ".join(models)),
        ("Created", utc_time(session.created_ms)),
        ("First entry", utc_time(min(known)) if known else ""),
        ("Last entry", utc_time(max(known)) if known else ""),
        ("Tokens", whole_tokens(tokens)),
        ("Cost", total_cost(cost)),
        *_agent_rows(session.header or {}),
    ]
    return Metadata(
        title=title or "Session " + (session.session_id or ""),
        rows=[(label, clean(value)) for label, value in rows if value],
    )
