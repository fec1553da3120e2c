"""New files written whole and atomically, and the temporary files that makes, cleaned up if left behind.

A new file (a fork, a clone, an export, a diff page) is written to a temporary file in its target
folder, fsynced, then hard-linked (or, when replacing was confirmed, renamed) into place, and the folder
is fsynced. A reader sees no file or the whole file, never half of one.

A process killed between creating the temporary file and putting it in place (SIGKILL, a power cut)
leaves the temporary file behind; for a large export that is megabytes. Temporary files are therefore
named recognisably, ``.prime-sessions-tmp-<pid>-<random>``, and every write to a folder first removes
the ones there that are stale: older than :data:`STALE_SECONDS` and whose process is gone. (A process
on another machine sharing the folder is not seen; its temporary file is safe as long as it was written
to within the last minute, which holds while it is being written.)
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from core.errors import SessionWriteError

__all__ = [
    "TEMPORARY_PREFIX",
    "Content",
    "explain_os_error",
    "remove_stale_temporaries",
    "write_file",
    "write_new_file",
]

TEMPORARY_PREFIX = ".prime-sessions-tmp-"
STALE_SECONDS = 60.0
_TEMPORARY_NAME = re.compile(re.escape(TEMPORARY_PREFIX) + r"(\d+)-[0-9a-f]{16}\Z")

Content = bytes | Iterable[bytes]
"""A new file's bytes: whole, or in pieces written in order."""


def explain_os_error(err: OSError, path: str) -> str:
    """One sentence for a failed write to ``path``: disk full, read-only, vanished, or the system's words."""
    if err.errno == errno.ENOSPC:
        return f"The disk is full; nothing was written to {path}."
    if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{path} or its folder is read-only; nothing was written."
    if err.errno == errno.ENOENT:
        return f"{path} was deleted or moved; nothing was written."
    return f"Cannot write {path}: {err.strerror or err}."


def write_new_file(target: str | os.PathLike[str], data: Content) -> None:
    """Create ``target`` with ``data`` atomically, never replacing an existing file.

    ``data`` is the bytes, or the file in pieces written one after the other (a page need not be
    joined into one more copy of itself in memory).

    The bytes go to a temporary file in the same folder, are fsynced, and the temporary file is
    hard-linked to ``target`` (``link`` fails if ``target`` exists, unlike ``rename``). The folder is
    fsynced so the new name survives a crash.

    Raises:
        SessionWriteError: ``target`` exists, or it cannot be written (one sentence saying why).
    """
    target = Path(target)
    if target.exists():
        raise SessionWriteError(f"{target} already exists; it was left untouched.")
    temporary, fd = _open_temporary(target)
    try:
        _write_all(fd, data)
        try:
            os.link(temporary, target)
        except FileExistsError as err:
            raise SessionWriteError(f"{target} already exists; it was left untouched.") from err
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.EXDEV, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                raise
            # A file system without hard links: rename, after checking that the name is still free.
            if target.exists():
                raise SessionWriteError(f"{target} already exists; it was left untouched.") from err
            os.rename(temporary, target)
        _fsync_folder(target.parent)
    except SessionWriteError:
        raise
    except OSError as err:
        raise SessionWriteError(explain_os_error(err, str(target))) from err
    finally:
        _discard(temporary)


def write_file(target: str | os.PathLike[str], data: Content, *, overwrite: bool = False) -> None:
    """Write ``data`` (bytes, or pieces of bytes) to ``target`` through a temporary file, fsynced.

    Without ``overwrite`` this is :func:`write_new_file` (an existing file is never replaced). With it
    (the user confirmed), the temporary file is renamed over ``target``, so a reader sees the old file
    or the new one, never half of one. Used for exports and diff pages, never for session files.

    Raises:
        SessionWriteError: ``target`` exists (without ``overwrite``), is a folder, or cannot be written;
            whatever was at ``target`` is then left as it was.
    """
    target = Path(target)
    if not overwrite or not target.exists():
        write_new_file(target, data)
        return
    if target.is_dir():
        raise SessionWriteError(f"{target} is a folder; choose a file name.")
    temporary, fd = _open_temporary(target)
    try:
        _write_all(fd, data)
        os.replace(temporary, target)
        _fsync_folder(target.parent)
    except OSError as err:
        raise SessionWriteError(explain_os_error(err, str(target))) from err
    finally:
        _discard(temporary)


def remove_stale_temporaries(folder: str | os.PathLike[str], now: float | None = None) -> list[Path]:
    """Remove the temporary files in ``folder`` that a killed write left behind.

    A file counts as left behind when its name is ours (:data:`TEMPORARY_PREFIX`, a pid, 16 hex
    digits), it was last written more than :data:`STALE_SECONDS` ago, and no process with that pid
    runs on this machine. Anything else, and anything that cannot be checked, is left alone; a failure
    to remove one is no reason to fail the write that triggered the clean-up.

    Args:
        folder: the folder to clean (not its sub-folders).
        now: the current time (``time.time()`` when None), for tests.

    Returns:
        The paths removed.
    """
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        candidates = [e for e in os.scandir(folder) if e.name.startswith(TEMPORARY_PREFIX)]
    except OSError:
        return removed
    for item in candidates:
        match = _TEMPORARY_NAME.match(item.name)
        if match is None:
            continue
        try:
            st = item.stat(follow_symlinks=False)
        except OSError:
            continue
        if not item.is_file(follow_symlinks=False) or now - st.st_mtime <= STALE_SECONDS:
            continue
        if _process_running(int(match.group(1))):
            continue
        try:
            os.unlink(item.path)
        except OSError:
            continue
        removed.append(Path(item.path))
    return removed


def _process_running(pid: int) -> bool:
    """True when a process with ``pid`` may exist here (when in doubt: True, so nothing is removed)."""
    if pid == os.getpid():
        return True
    if sys.platform == "win32":
        # os.kill would terminate the process on Windows. An open file cannot be removed there, so a
        # temporary file still being written is protected by the system; its age is enough.
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists but belongs to someone else (EPERM), or the check itself failed
    return True


def _open_temporary(target: Path) -> tuple[Path, int]:
    """A new, uniquely named temporary file beside ``target`` (in its folder, to be linked or renamed).

    Stale temporary files in that folder are removed first (see :func:`remove_stale_temporaries`).
    """
    remove_stale_temporaries(target.parent)
    temporary = target.with_name(f"{TEMPORARY_PREFIX}{os.getpid()}-{secrets.token_hex(8)}")
    try:
        return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as err:
        raise SessionWriteError(explain_os_error(err, str(target))) from err


def _write_all(fd: int, data: Content) -> None:
    """Write every byte of ``data`` to ``fd``, fsync it and close it (closed even when writing fails)."""
    try:
        for piece in (data,) if isinstance(data, bytes | bytearray | memoryview) else data:
            view = memoryview(piece)
            while view:
                view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _discard(temporary: Path) -> None:
    try:
        os.unlink(temporary)
    except FileNotFoundError:
        pass  # linked or renamed into place, or never created


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a folder; the file itself is already synced
    finally:
        os.close(fd)
