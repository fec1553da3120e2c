"""Where sessions live, and finding session files under a root.

Sessions are identified by their header id and cwd, never by file name; this module only finds
candidate ``*.jsonl`` files.
"""

from __future__ import annotations

import os
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
    """
    base = Path(root)
    if base.is_file():
        return [base]
    found: list[Path] = []
    try:
        top = list(os.scandir(base))
    except OSError:
        return []
    for item in top:
        try:
            if item.name.endswith(".jsonl") and item.is_file():
                found.append(Path(item.path))
            elif item.is_dir():  # follows symlinks; only one level deep, so no loops
                with os.scandir(item.path) as inner:
                    found.extend(
                        Path(sub.path) for sub in inner if sub.name.endswith(".jsonl") and sub.is_file()
                    )
        except OSError:
            continue
    found.sort()
    return found
