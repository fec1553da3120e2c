"""The user's own copy of the demo sessions, so that editing "the demo" never changes the shipped files.

The app ships its demo sessions inside the installation (``resources/demo``: the checkout, or read-only
under ``/opt`` in a package). Labelling, renaming, forking or trashing there would change or delete
the shipped files, so "Open the demo sessions" opens a copy in the user's data folder instead, made the
first time it is asked for. The copy is the user's from then on: it is never made again over a folder
that exists, whatever the user did to it (an edited session, a trashed one, an empty folder).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from core.errors import SessionReadError, SessionWriteError
from core.writing.atomic import write_new_file

__all__ = ["DEMO_FOLDER_NAME", "default_data_dir", "demo_copy"]

DEMO_FOLDER_NAME = "demo"


def default_data_dir() -> Path:
    """``prime-sessions`` in the user's data folder (platformdirs: ``~/.local/share/prime-sessions``)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("prime-sessions", appauthor=False))


def demo_copy(source: str | os.PathLike[str], data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The folder of the user's copy of the demo sessions, made from ``source`` when it does not exist yet.

    Every regular file of ``source`` is written to a staging folder beside the copy (each by temporary
    name, fsync and link, as every new file is), and the staging folder is then renamed into place, so a
    crash or a second app doing the same never leaves half a copy under the final name. When the folder
    already exists it is returned as it is: the copy is made once, and never over the user's changes.

    Args:
        source: the shipped demo folder (read only).
        data_dir: the folder to make the copy in (default :func:`default_data_dir`); the copy is its
            ``demo`` sub-folder.

    Returns:
        The copy's folder.

    Raises:
        SessionReadError: ``source`` holds no session file (a broken installation).
        SessionWriteError: the copy cannot be written; nothing is left under the final name.
    """
    target = Path(data_dir if data_dir is not None else default_data_dir()) / DEMO_FOLDER_NAME
    if target.exists():
        return target
    source = Path(source)
    try:
        files = sorted(path for path in source.iterdir() if path.is_file() and not path.name.startswith("."))
    except OSError as err:
        raise SessionReadError(
            f"The demo sessions cannot be read from {source}: {err.strerror or err}."
        ) from err
    if not any(path.suffix == ".jsonl" for path in files):
        raise SessionReadError(f"There are no demo sessions in {source}; the installation is incomplete.")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{DEMO_FOLDER_NAME}-", suffix=".tmp", dir=target.parent))
    except OSError as err:
        raise SessionWriteError(
            f"The demo sessions cannot be copied to {target.parent}: {err.strerror or err}."
        ) from err
    try:
        for path in files:
            try:
                data = path.read_bytes()
            except OSError as err:
                raise SessionReadError(f"{path} cannot be read: {err.strerror or err}.") from err
            write_new_file(staging / path.name, data)
        try:
            os.rename(staging, target)
        except OSError as err:
            if target.is_dir():
                return target  # made meanwhile (another window asked at the same time): theirs stays
            raise SessionWriteError(
                f"The demo sessions cannot be copied to {target}: {err.strerror or err}."
            ) from err
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # gone after the rename; what is left after a failure
    return target
