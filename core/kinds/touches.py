"""The files a session's tools touched: which tool call named which file, and how (read, edit, write...).

One extraction for everything that asks: a kind's :meth:`~core.kinds.kind.Kind.touches` (an assistant's
tool calls, the user's shell runs, the article's tool call entries) calls :func:`call_touches` or
:func:`~core.kinds.shell_paths.command_touches`; the catalogue stores what they return for every entry,
the branch diff lists the files its edit and write calls changed, and the ``files`` command and the
window's *Files* view list them per session (:func:`session_touches`, :func:`touched_files`).

Tool names are those of pi (0.x and 1.x: ``read``, ``edit``, ``write``, ``bash``, ``grep``, ``find``,
``ls``), of Prime Agent (the same, and ``ipython``, whose ``%%bash`` cells and ``!command`` lines are
shell commands and whose ``%%writefile`` writes), and the common spellings of other agents'
(``read_file``, ``write_file``, ``edit_file``, ``multi_edit``, ``apply_patch``...), in any case.

A path is kept as the tool wrote it and resolved against the session's project folder
(:func:`resolve`): relative paths become absolute when the folder is known, in that folder's style (a
Windows project's paths with backslashes).
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from core.kinds.shell_paths import EDIT, READ, RUN, SEARCH, WRITE, command_touches

if TYPE_CHECKING:
    from core.session import Entry, Session

__all__ = [
    "CHANGES",
    "EDIT",
    "READ",
    "RUN",
    "SEARCH",
    "TOUCH_KINDS",
    "WRITE",
    "Touch",
    "TouchedFile",
    "call_touches",
    "command_touches",
    "relative_to",
    "resolve",
    "session_touches",
    "touch_words",
    "touched_files",
]

TOUCH_KINDS = (EDIT, WRITE, READ, RUN, SEARCH)  # strongest first: a file's kinds are listed in this order
CHANGES = frozenset({EDIT, WRITE})  # the touches that change a file (what a branch diff lists)

_READ_TOOLS = frozenset({"read", "read_file", "view", "view_file", "open_file", "cat", "readfile"})
_EDIT_TOOLS = frozenset(
    {"edit", "multiedit", "multi_edit", "edit_file", "str_replace", "replace", "hashline_edit", "editfile"}
)
_WRITE_TOOLS = frozenset({"write", "write_file", "create_file", "create", "writefile"})
_SEARCH_TOOLS = frozenset({"grep", "find", "ls", "glob", "list_dir", "list_files", "search_files", "rg"})
_SHELL_TOOLS = frozenset({"bash", "shell", "sh", "run_command", "execute_command", "exec", "terminal"})
_CELL_TOOLS = frozenset({"ipython", "python", "jupyter"})  # Prime Agent's code cells
_PATCH_TOOLS = frozenset({"apply_patch", "patch"})
_PATH_KEYS = ("path", "file_path", "filePath", "filename", "file", "notebook_path")
_COMMAND_KEYS = ("command", "cmd", "script")
# An editor tool with a command argument (str_replace_based_edit_tool and its kin).
_EDITOR_COMMANDS = {"view": READ, "create": WRITE, "str_replace": EDIT, "insert": EDIT, "undo_edit": EDIT}
_PATCH_FILE = re.compile(
    r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.MULTILINE
)
_PATCH_KINDS = {"Add": WRITE, "Update": EDIT, "Delete": WRITE}
_CELL_SHELL = re.compile(r"%%(?:bash|sh|script (?:bash|sh))\b")
_WRITEFILE = re.compile(r"%%writefile(?:\s+-a)?\s+(\S+)")
_WINDOWS = re.compile(r"[A-Za-z]:[\\/]|\\\\")


class Touch(NamedTuple):
    """One file a tool call named: its path as written (joined to a ``cd`` of its command) and how."""

    path: str
    how: str  # one of TOUCH_KINDS


def call_touches(name: object, arguments: object) -> list[Touch]:
    """The files one tool call touches, from its tool's name and arguments (none for an unknown tool).

    Never raises: arguments of the wrong shape (a string, a list, a number for a path) give nothing.
    """
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return []
    tool = name.lower()
    if tool in _SHELL_TOOLS:
        command = _first_text(arguments, _COMMAND_KEYS)
        return [Touch(p, h) for p, h in command_touches(command)] if command else []
    if tool in _CELL_TOOLS:
        return _cell_touches(_first_text(arguments, ("code", "source", "cell")))
    if tool in _PATCH_TOOLS:
        return _patch_touches(_first_text(arguments, ("patch", "input", "command", "diff")))
    path = _first_text(arguments, _PATH_KEYS)
    editor = arguments.get("command")
    if isinstance(editor, str) and editor in _EDITOR_COMMANDS and path.strip():
        return [Touch(path, _EDITOR_COMMANDS[editor])]
    how = _tool_kind(tool)
    if how is None or not path.strip() or "\n" in path or len(path) > 4096:
        return []
    return [Touch(path, how)]


def _tool_kind(tool: str) -> str | None:
    if tool in _READ_TOOLS:
        return READ
    if tool in _EDIT_TOOLS:
        return EDIT
    if tool in _WRITE_TOOLS:
        return WRITE
    if tool in _SEARCH_TOOLS:
        return SEARCH
    return None


def _first_text(arguments: dict[str, object], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _cell_touches(code: str) -> list[Touch]:
    """An ``ipython`` cell's files: a ``%%bash`` cell's commands, ``!command`` lines, ``%%writefile``."""
    if not code:
        return []
    stripped = code.lstrip()
    first, _, rest = stripped.partition("\n")
    if _CELL_SHELL.match(first):
        return [Touch(p, h) for p, h in command_touches(rest)]
    written = _WRITEFILE.match(first)
    if written:
        return [Touch(written.group(1), WRITE)]
    touches: list[Touch] = []
    for line in code.split("\n"):
        line = line.strip()
        if line.startswith("!") and len(line) > 1:
            touches += [Touch(p, h) for p, h in command_touches(line[1:])]
    return touches


def _patch_touches(patch: str) -> list[Touch]:
    """The files of an ``apply_patch`` envelope (``*** Update File: path`` and its kin)."""
    touches: list[Touch] = []
    for match in _PATCH_FILE.finditer(patch[:1_000_000]):
        path = (match.group(3) or match.group(2)).strip()
        if path:
            touches.append(Touch(path, WRITE if match.group(3) else _PATCH_KINDS[match.group(1)]))
    return touches


# ---------------------------------------------------------------------------- paths
def windows_style(folder: str) -> bool:
    """True when ``folder`` is a Windows path (a drive letter, or a server's share)."""
    return _WINDOWS.match(folder) is not None


def resolve(path: str, cwd: str) -> str:
    """``path`` as an absolute, normalised path: joined to the project folder ``cwd`` when relative.

    In the project folder's style: a Windows folder's paths are normalised by Windows' rules
    (backslashes), any other by POSIX rules. A path starting with ``~`` stays as it is (whose home it
    was is not known); so does a relative path when ``cwd`` is empty.
    """
    if path.startswith("~"):
        return posixpath.normpath(path)
    if cwd and windows_style(cwd):
        return ntpath.normpath(path if ntpath.isabs(path) else ntpath.join(cwd, path))
    if path.startswith("/") or not cwd:
        return posixpath.normpath(path)
    return posixpath.normpath(posixpath.join(cwd, path))


def relative_to(path: str, cwd: str) -> str | None:
    """``path`` (resolved) relative to the project folder ``cwd``, with ``/`` between names; None outside it.

    The folder itself is ``"."``.
    """
    if not cwd:
        return None if _absolute(path) else path.replace("\\", "/")
    windows = windows_style(cwd)
    base = ntpath.normpath(cwd) if windows else posixpath.normpath(cwd)
    sep = "\\" if windows else "/"
    if path == base:
        return "."
    prefix = base if base.endswith(sep) else base + sep
    if windows:
        if not path.lower().startswith(prefix.lower()):
            return None
        return path[len(prefix) :].replace("\\", "/")
    return path[len(prefix) :] if path.startswith(prefix) else None


def _absolute(path: str) -> bool:
    return path.startswith(("/", "~", "\\")) or windows_style(path)


# ---------------------------------------------------------------------------- a session's files
@dataclass(frozen=True, slots=True)
class TouchedFile:
    """One file a session's tools touched, with every touch.

    Attributes:
        path: the file, resolved (:func:`resolve`).
        shown: relative to the project folder when inside it, else ``path``.
        counts: ``(how, count)`` per kind of touch, strongest first (:data:`TOUCH_KINDS`).
        entries: the ids of the entries that touched it, in file order, each once.
    """

    path: str
    shown: str
    counts: tuple[tuple[str, int], ...]
    entries: tuple[str, ...]

    @property
    def first_entry(self) -> str:
        """The entry that touched it first."""
        return self.entries[0]

    @property
    def kinds(self) -> tuple[str, ...]:
        """How it was touched, strongest first."""
        return tuple(how for how, _count in self.counts)

    @property
    def total(self) -> int:
        """How many touches in all."""
        return sum(count for _how, count in self.counts)

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output."""
        return {
            "path": self.shown,
            "absolutePath": self.path,
            "touches": dict(self.counts),
            "entries": list(self.entries),
            "firstEntryId": self.first_entry,
        }


def touched_files(touches: Iterable[tuple[str, Touch]], cwd: str) -> list[TouchedFile]:
    """Touches ``(entry id, touch)`` in file order, gathered per file, sorted as :func:`file_order` says.

    The project folder itself (a ``ls`` or ``grep`` of ``.``) is left out: every session is in it.
    """
    counts: dict[str, dict[str, int]] = {}
    entries: dict[str, dict[str, None]] = {}
    for entry_id, touch in touches:
        path = resolve(touch.path, cwd)
        shown = relative_to(path, cwd)
        if shown == ".":
            continue
        per_file = counts.setdefault(path, {})
        per_file[touch.how] = per_file.get(touch.how, 0) + 1
        entries.setdefault(path, {})[entry_id] = None
    files = [
        TouchedFile(
            path,
            relative_to(path, cwd) or path,
            tuple((how, counts[path][how]) for how in TOUCH_KINDS if how in counts[path]),
            tuple(entries[path]),
        )
        for path in counts
    ]
    files.sort(key=file_order)
    return files


def touch_words(counts: tuple[tuple[str, int], ...]) -> str:
    """``edit 3, read 2``: how a file was touched, strongest first (:attr:`TouchedFile.counts`)."""
    return ", ".join(f"{how} {count}" for how, count in counts)


def file_order(file: TouchedFile) -> tuple[int, bool, str]:
    """How files are listed: changed first, then read, run, searched; the project's before others; by path."""
    strongest = TOUCH_KINDS.index(file.counts[0][0]) if file.counts else len(TOUCH_KINDS)
    group = 0 if strongest <= 1 else strongest - 1  # edit and write together
    return group, file.shown == file.path, file.shown.casefold()


def session_touches(session: Session, entries: Iterable[Entry] | None = None) -> list[tuple[str, Touch]]:
    """``(entry id, touch)`` of every entry of ``session`` (or of ``entries``), in file order.

    Only entries whose kind can touch files have their bodies read again.
    """
    from core.kinds.registry import kind_of

    found: list[tuple[str, Touch]] = []
    for entry in session.entries if entries is None else entries:
        kind = kind_of(entry)
        if not kind.touches_files:
            continue
        found += [(entry.id, touch) for touch in kind.touches(entry, session.body(entry))]
    return found
