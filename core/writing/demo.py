"""The user's own copy of the demo sessions, so that editing "the demo" never changes the shipped files.

The app ships its demo sessions inside the installation (``resources/demo``: the checkout, or read-only
under ``/opt`` in a package). Labelling, renaming, forking or trashing there would change or delete
the shipped files, so every way of opening the demo (``--demo``, the shipped folder or one of its files
named on the command line or in File ▸ Open, the window's "Open the demo sessions" link) opens a copy in
the user's data folder instead, made the first time it is asked for. The copy is the user's from then on:
it is never made again over a folder that exists, whatever the user did to it (an edited session, a
trashed one, an empty folder), until the user asks for a fresh one (:func:`reset_demo_copy`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from core.errors import SessionReadError, SessionWriteError
from core.writing.atomic import write_new_file

__all__ = [
    "DEMO_FOLDER_NAME",
    "default_data_dir",
    "demo_copy",
    "in_demo_copy",
    "reset_demo_copy",
    "shipped_demo_dir",
]

DEMO_FOLDER_NAME = "demo"


def shipped_demo_dir() -> Path:
    """``resources/demo`` of the installation (the checkout, or the bundle, which keeps the same layout)."""
    return Path(__file__).resolve().parent.parent.parent / "resources" / DEMO_FOLDER_NAME


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


def in_demo_copy(
    path: str | os.PathLike[str],
    source: str | os.PathLike[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
) -> Path | None:
    """Where ``path`` is in the user's copy when it names the shipped demo folder or a file in it, else None.

    The copy is made first when there is none (:func:`demo_copy`). A path elsewhere is left alone (None),
    also when it does not exist.

    Args:
        path: what the user asked to open.
        source: the shipped demo folder (default :func:`shipped_demo_dir`).
        data_dir: as for :func:`demo_copy`.

    Raises:
        SessionReadError, SessionWriteError: as :func:`demo_copy`, when the copy has to be made.
    """
    shipped = Path(source if source is not None else shipped_demo_dir())
    try:
        resolved, folder = Path(path).expanduser().resolve(), shipped.resolve()
    except (OSError, RuntimeError):  # a loop of links, an unreadable folder: not the demo then
        return None
    if resolved != folder and folder not in resolved.parents:
        return None
    return demo_copy(shipped, data_dir) / resolved.relative_to(folder)


def reset_demo_copy(
    source: str | os.PathLike[str] | None = None, data_dir: str | os.PathLike[str] | None = None
) -> Path:
    """Replace the user's copy of the demo by a fresh one, as shipped; the copy's folder.

    Nothing of the user's is lost: a file of the old copy that is byte for byte the shipped one is
    removed (the installation holds the same bytes), every other one (a session labelled, renamed, forked
    or added) goes to the trash. Only then is the emptied folder removed and a new copy made.

    Raises:
        SessionWriteError: a file could not be moved to the trash (the old copy is then left as it is,
            less what was already handled), or the new copy cannot be made.
        SessionReadError: as :func:`demo_copy`.
    """
    from core.writing.trash import trash_sessions

    shipped = Path(source if source is not None else shipped_demo_dir())
    target = Path(data_dir if data_dir is not None else default_data_dir()) / DEMO_FOLDER_NAME
    if target.is_dir():
        changed: list[Path] = []
        for path in sorted(target.iterdir()):
            original = shipped / path.name
            if (
                path.is_file()
                and not path.is_symlink()
                and original.is_file()
                and _same_bytes(path, original)
            ):
                path.unlink()
            else:
                changed.append(path)
        errors = [result.error for result in trash_sessions(changed) if result.error]
        if errors:
            raise SessionWriteError(f"The demo sessions were not reset: {' '.join(errors)}")
        try:
            target.rmdir()
        except OSError as err:
            raise SessionWriteError(
                f"The demo sessions were not reset: {target} cannot be removed ({err.strerror or err})."
            ) from err
    return demo_copy(shipped, target.parent)


def _same_bytes(one: Path, other: Path) -> bool:
    """Whether two files hold the same bytes (read in pieces: a session file can be large)."""
    try:
        if one.stat().st_size != other.stat().st_size:
            return False
        with one.open("rb") as first, other.open("rb") as second:
            while True:
                a, b = first.read(1 << 20), second.read(1 << 20)
                if a != b:
                    return False
                if not a:
                    return True
    except OSError:
        return False
