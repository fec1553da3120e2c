"""Opening a session file for reading: regular files only, and never blocking on a FIFO."""

from __future__ import annotations

import os
import stat

from core.errors import SessionReadError

__all__ = ["READ_FLAGS", "open_regular"]

# A plain open() of a FIFO named *.jsonl would block until a writer appears; O_NONBLOCK makes it
# return at once so the file-type check below can refuse it. It changes nothing for regular files.
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def open_regular(path: str, missing: str) -> tuple[int, os.stat_result]:
    """Open ``path`` for reading and check it is a regular file; every failure is a SessionReadError.

    Args:
        path: the session file.
        missing: how to finish the sentence "<path> ..." when the file does not exist.

    Returns:
        The open descriptor (the caller closes it) and its ``fstat``.
    """
    try:
        fd = os.open(path, READ_FLAGS)
    except FileNotFoundError as err:
        raise SessionReadError(f"{path} {missing}.") from err
    except IsADirectoryError as err:
        raise SessionReadError(f"{path} is a folder, not a session file.") from err
    except PermissionError as err:
        if os.path.isdir(path):  # Windows refuses to open folders with a permission error
            raise SessionReadError(f"{path} is a folder, not a session file.") from err
        raise SessionReadError(f"You do not have permission to read {path}.") from err
    except OSError as err:
        raise SessionReadError(f"Cannot read {path}: {err.strerror or err}.") from err
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise SessionReadError(f"{path} is a folder, not a session file.")
        if not stat.S_ISREG(st.st_mode):
            raise SessionReadError(f"{path} is not a regular file.")
    except OSError as err:
        os.close(fd)
        raise SessionReadError(f"Cannot read {path}: {err.strerror or err}.") from err
    except BaseException:
        os.close(fd)
        raise
    return fd, st
