"""Where sessions live, and finding session files under a root.

Sessions are identified by their header id and cwd, never by file name; this module only finds
candidate ``*.jsonl`` files.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


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


def find_session_files(root: str | os.PathLike[str]) -> list[Path]:
    """``*.jsonl`` files directly in ``root`` and in its immediate sub-folders, sorted by path.

    That covers the flat Prime Agent layout, pi's per-project ``--<cwd>--`` folders and legacy
    per-project folders. A file given as ``root`` is returned alone. A missing root gives ``[]``.
    A file reached by two names (a symbolic link to a folder, ``loop -> .``, or a hard link) is
    found once, by the name nearest the root (then the first in name order).
    """
    return sorted(Path(path) for path, _stat in stat_session_files(root))


def stat_session_files(root: str | os.PathLike[str]) -> list[tuple[str, os.stat_result]]:
    """The files :func:`find_session_files` finds, as ``(path, stat)`` pairs, each file once.

    One ``stat`` per file and no ``Path`` objects: the catalogue's pass over an unchanged history
    is nothing but this, for thousands of files. The root's own files come first, then each
    sub-folder's, in name order; a file (device and inode) already found under another name is left
    out, so a folder linked into itself does not list, catalogue and count every session twice.
    """
    base = os.fspath(root)
    try:
        st = os.stat(base)
    except OSError:
        return []
    if stat.S_ISREG(st.st_mode):
        return [(base, st)]
    found: list[tuple[str, os.stat_result]] = []
    seen: set[tuple[int, int]] = set()

    def take(entry: os.DirEntry[str]) -> None:
        st = entry.stat()  # follows a symbolic link, so both names give the one file's identity
        key = (st.st_dev, st.st_ino)
        if key not in seen:
            seen.add(key)
            found.append((entry.path, st))

    try:
        top = sorted(os.scandir(base), key=lambda item: item.name)
    except OSError:
        return []
    folders = []
    for item in top:
        try:
            if item.name.endswith(".jsonl"):
                if item.is_file():
                    take(item)
            elif item.is_dir():  # follows symlinks; only one level deep, so no loops
                folders.append(item)
        except OSError:
            continue
    for item in folders:
        try:
            with os.scandir(item.path) as inner:
                for sub in sorted(inner, key=lambda entry: entry.name):
                    if sub.name.endswith(".jsonl") and sub.is_file():
                        take(sub)
        except OSError:
            continue
    return found
