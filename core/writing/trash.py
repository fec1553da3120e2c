"""Moving session files to the trash (send2trash), never deleting them.

send2trash moves files to the freedesktop trash on Linux (a rename, or a copy then removal into the home
trash across devices, which still ends in the trash), to the Trash on macOS and to the Recycle Bin on
Windows. The one path where a "trash" can become a permanent delete is Windows' legacy shell API
(``SHFileOperation``, used when pywin32 is missing) on a drive without a Recycle Bin (network, removable):
there this module refuses instead. Each failure is one sentence; the other files are still tried.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["TrashResult", "trash_sessions"]


@dataclass(frozen=True, slots=True)
class TrashResult:
    """What happened to one file: ``error`` is None when it is now in the trash, else the sentence why not."""

    path: str
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the file was moved to the trash."""
        return self.error is None


def trash_sessions(paths: Iterable[str | os.PathLike[str]]) -> list[TrashResult]:
    """Move each file to the trash; a file that cannot be moved is left where it is.

    Only regular files are moved (a folder is refused). Never falls back to deleting.

    Returns:
        One result per path, in the order given (a path given twice is tried once).
    """
    results: list[TrashResult] = []
    seen: set[str] = set()
    for given in paths:
        path = os.path.abspath(os.fspath(given))
        if path in seen:
            continue
        seen.add(path)
        results.append(TrashResult(path, _trash_one(path)))
    return results


def _trash_one(path: str) -> str | None:
    if not os.path.lexists(path):
        return f"{path} was already deleted or moved; nothing was moved to the trash."
    if os.path.isdir(path) and not os.path.islink(path):
        return f"{path} is a folder; only session files are moved to the trash."
    refusal = _permanent_delete_risk(path)
    if refusal is not None:
        return refusal
    try:
        import send2trash
        from send2trash.exceptions import TrashPermissionError
    except ImportError:  # a broken install: say so rather than fall back to deleting
        return "The trash cannot be used because send2trash is not installed; nothing was moved."
    try:
        send2trash.send2trash(path)
    except TrashPermissionError:
        return f"There is no trash folder that can take {path} on its drive; it was left where it is."
    except OSError as err:
        return _explain(err, path)
    if os.path.lexists(path):  # never claim success for a file that is still there
        return f"{path} could not be moved to the trash; it was left where it is."
    return None


def _explain(err: OSError, path: str) -> str:
    if err.errno == errno.ENOENT:
        return f"{path} was already deleted or moved; nothing was moved to the trash."
    if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{path} or its folder is read-only, so it could not be moved to the trash."
    if err.errno == errno.ENOSPC:
        return f"The disk is full, so {path} could not be moved to the trash; it was left where it is."
    reason = err.strerror or (str(err.args[0]) if err.args else type(err).__name__)
    return f"{path} could not be moved to the trash ({reason}); it was left where it is."


def _permanent_delete_risk(path: str) -> str | None:
    """A sentence when trashing ``path`` could silently delete it for good (Windows legacy API only)."""
    # The whole check under one platform test, so type checkers on other systems skip it.
    if sys.platform == "win32":
        try:
            from send2trash.win import send2trash as implementation
        except ImportError:
            return None
        if implementation.__module__.endswith("modern"):
            return None  # IFileOperation: its progress sink aborts any delete that would not recycle
        import ctypes

        drive = os.path.splitdrive(path)[0]
        drive_fixed = 3  # DRIVE_FIXED: the only kind of drive that always has a Recycle Bin
        if not drive or ctypes.windll.kernel32.GetDriveTypeW(drive + "\\") != drive_fixed:
            return (
                f"{path} is on a drive without a Recycle Bin, where Windows would delete it for good; "
                "it was left where it is."
            )
    return None
