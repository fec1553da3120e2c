"""Where sessions live, and finding session files under a root.

Sessions are identified by their header id and cwd, never by file name; this module only finds
candidate ``*.jsonl`` files.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Iterable, Set
from pathlib import Path

from core.session.lineage import file_name_ids


def default_roots(environ: dict[str, str] | None = None) -> list[Path]:
    """The session folders to look in, most specific first, without duplicates.

    ``PRIME_AGENT_DIR`` (an agent folder; its ``sessions`` sub-folder is used) overrides everything.
    Otherwise: ``~/.prime/agent/sessions`` (the format document's location),
    ``$PI_CODING_AGENT_SESSION_DIR``, and ``$PI_CODING_AGENT_DIR/sessions`` or
    ``~/.pi/agent/sessions`` (real pi installs).
    """
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or Path.home())
    override = env.get("PRIME_AGENT_DIR")
    if override:
        return [Path(override).expanduser() / "sessions"]
    roots = [home / ".prime" / "agent" / "sessions"]
    if env.get("PI_CODING_AGENT_SESSION_DIR"):
        roots.append(Path(env["PI_CODING_AGENT_SESSION_DIR"]).expanduser())
    pi_dir = env.get("PI_CODING_AGENT_DIR")
    roots.append((Path(pi_dir).expanduser() if pi_dir else home / ".pi" / "agent") / "sessions")
    unique: list[Path] = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return unique


CHILD_FOLDER_PREFIX = "sub-"
"""Prime Agent's RLM runtime keeps each child in a ``sub-<8 hex>`` folder (grandchildren one deeper)."""

ARTIFACTS_FOLDER = "session-artifacts"
"""Beside ``sessions``: ``session-artifacts/<root-session-id>/sub-.../<child>.jsonl``."""

SUBAGENT_FOLDER = "subagent-sessions"
"""pi subagent extensions' folder beside ``sessions`` (``<agentDir>/subagent-sessions``)."""

_MAX_DEPTH = 12  # folders below a root: deep enough for any nesting an agent allows, and no symlink loop


def search_roots(roots: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """``roots``; beside a ``sessions`` folder, its ``session-artifacts`` and ``subagent-sessions``.

    Prime Agent writes its children beside its sessions folder (``getSessionArtifactsRoot``); pi subagent
    extensions that keep their own folder put it beside the agent's ``sessions``. A missing folder finds
    nothing, so naming it costs one failed ``stat``.
    """
    unique: list[Path] = []
    for root in roots:
        path = Path(root)
        extra = (
            [path.parent / ARTIFACTS_FOLDER, path.parent / SUBAGENT_FOLDER] if path.name == "sessions" else []
        )
        for candidate in (path, *extra):
            if candidate not in unique:
                unique.append(candidate)
    return unique


def find_session_files(root: str | os.PathLike[str]) -> list[Path]:
    """``*.jsonl`` files directly in ``root``, in its immediate sub-folders and in child folders, sorted.

    That covers the flat Prime Agent layout, pi's per-project ``--<cwd>--`` folders and legacy
    per-project folders, and the folders subagents' sessions are kept in (:func:`is_child_folder`). A file
    given as ``root`` is returned alone. A missing root gives ``[]``. A file reached by two names (a
    symbolic link to a folder, ``loop -> .``, or a hard link) is found once, by the name nearest the root
    (then the first in name order).
    """
    return sorted(Path(path) for path, _stat in stat_session_files(root))


def is_child_folder(name: str, sibling_ids: Set[str]) -> bool:
    """Whether a folder called ``name`` holds subagents' sessions: everything below it is looked in.

    Prime Agent's ``sub-<hex>`` folders, and a folder named after a session file beside it (its stem or an
    id the name carries: the ``pi-subagents`` extension keeps ``<parent file's stem>/<runId>/run-<n>/``).
    """
    return name.startswith(CHILD_FOLDER_PREFIX) or name in sibling_ids


def stat_session_files(root: str | os.PathLike[str]) -> list[tuple[str, os.stat_result]]:
    """The files :func:`find_session_files` finds, as ``(path, stat)`` pairs, each file once.

    One ``stat`` per file and no ``Path`` objects: the catalogue's pass over an unchanged history
    is nothing but this, for thousands of files. Folders are looked in nearest the root first, each in
    name order; a file (device and inode) already found under another name is left out, so a folder
    linked into itself does not list, catalogue and count every session twice. Under a
    ``session-artifacts`` root only files in child folders are sessions (the folder holds a session's
    other artifacts too). No recursion: a queue of folders, at most :data:`_MAX_DEPTH` deep.
    """
    base = os.fspath(root)
    try:
        st = os.stat(base)
    except OSError:
        return []
    if stat.S_ISREG(st.st_mode):
        return [(base, st)]
    children_only = os.path.basename(os.path.normpath(base)) == ARTIFACTS_FOLDER
    found: list[tuple[str, os.stat_result]] = []
    seen: set[tuple[int, int]] = set()
    queue: deque[tuple[str, int, bool]] = deque([(base, 0, False)])  # folder, depth, in a child folder
    while queue:
        folder, depth, inside = queue.popleft()
        try:
            with os.scandir(folder) as listing:
                items = sorted(listing, key=lambda item: item.name)
        except OSError:
            continue
        ids: set[str] = set()
        folders: list[os.DirEntry[str]] = []
        for item in items:
            try:
                if item.name.endswith(".jsonl"):
                    if item.is_file():
                        ids.update(file_name_ids(item.name))
                        if inside or (depth <= 1 and not children_only):
                            item_stat = item.stat()  # follows a link: both names give one identity
                            key = (item_stat.st_dev, item_stat.st_ino)
                            if key not in seen:
                                seen.add(key)
                                found.append((item.path, item_stat))
                elif depth < _MAX_DEPTH and item.is_dir():  # follows symlinks; the depth bounds any loop
                    folders.append(item)
            except OSError:
                continue
        for item in folders:
            child = inside or is_child_folder(item.name, ids)
            if depth == 0 or child:
                queue.append((item.path, depth + 1, child))
    return found


def reached(path: str, root: str) -> bool:
    """Whether :func:`stat_session_files` of ``root`` (absolute) would look at ``path`` (absolute).

    A file in the root or one of its folders always; deeper, only through a child folder, decided as the
    search decides it (one listing per folder on the way, for the few files that deep).
    """
    if path == root:
        return True
    prefix = root.rstrip(os.sep) + os.sep
    if not path.startswith(prefix):
        return False
    parts = path[len(prefix) :].split(os.sep)
    children_only = os.path.basename(os.path.normpath(root)) == ARTIFACTS_FOLDER
    if len(parts) <= 2 and not children_only:
        return True
    if len(parts) - 1 > _MAX_DEPTH:
        return False
    folder, inside = root, False
    for depth, name in enumerate(parts[:-1]):
        if not inside:
            inside = name.startswith(CHILD_FOLDER_PREFIX) or name in _jsonl_ids(folder)
            if depth >= 1 and not inside:
                return False
        folder = os.path.join(folder, name)
    return inside


def _jsonl_ids(folder: str) -> set[str]:
    """The ids the names of the session files in ``folder`` carry (empty when it cannot be listed)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return set()
    return {i for name in names if name.endswith(".jsonl") for i in file_name_ids(name)}
