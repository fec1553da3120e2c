"""Writing export files: to a temporary name, fsynced, then renamed into place.

A new file never replaces an existing one unless the caller says the user confirmed it
(``overwrite=True``, the CLI's ``--force``); without it, :func:`core.writing.writer.write_file` links the
temporary file into place, which fails rather than replace. Nor does any file replace a session the
export was made from, confirmed or not (:func:`check_targets`): the same path, or the same file by a
symlink or a hard link, would be the session replaced without going to the trash. Every target is
checked before the first byte is written, so a refused export leaves nothing behind.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import SessionWriteError
from core.writing import write_file

if TYPE_CHECKING:
    from core.writing.atomic import Content

__all__ = ["check_targets", "image_folder_for", "input_at", "write_export"]

Inputs = Iterable[str | os.PathLike[str]]
"""The session files an export or a diff was made from: never written over."""


def image_folder_for(target: str | os.PathLike[str]) -> str:
    """The folder name, beside ``target``, that an export's image files go into (``NAME_images``)."""
    return Path(target).stem + "_images"


def input_at(path: str | os.PathLike[str], inputs: Inputs) -> str | None:
    """The input that ``path`` is (the same name once resolved, or the same file by a link), or None.

    Symlinks anywhere along either name are followed; a hard link, or another name for the same file on a
    case-insensitive disk, is the same device and inode.
    """
    real = os.path.realpath(path)
    try:
        st: os.stat_result | None = os.stat(path)
    except (OSError, ValueError):
        st = None  # nothing there (or a name the system refuses): only its resolved name can match
    for source in inputs:
        if os.path.realpath(source) == real:
            return os.fspath(source)
        if st is None:
            continue
        try:
            other = os.stat(source)
        except (OSError, ValueError):
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return os.fspath(source)
    return None


def check_targets(
    targets: Iterable[str | os.PathLike[str]], *, inputs: Inputs = (), overwrite: bool = False
) -> None:
    """Refuse, in one sentence, a write to ``targets`` that must not happen; before any work is done.

    Raises:
        SessionWriteError: a target is a folder; or it is one of ``inputs`` (whatever ``overwrite``
            says: replacing a session would lose it without the trash); or it exists and ``overwrite``
            is False.
    """
    sources = [os.fspath(i) for i in inputs]
    for path in targets:
        if os.path.isdir(path):
            raise SessionWriteError(f"{path} is a folder; choose a file name.")
        source = input_at(path, sources)
        if source is not None:
            same = os.path.abspath(path) == os.path.abspath(source)
            how = "" if same else f" (the same file as {source}, by a link)"
            raise SessionWriteError(
                f"{path} is the session being read{how}; choose another file name, a session is never "
                "written over."
            )
        if not overwrite and os.path.lexists(path):
            raise SessionWriteError(f"{path} already exists; use --force to replace it.")


def write_export(
    target: str | os.PathLike[str],
    data: Content,
    extra_files: dict[str, bytes] | None = None,
    *,
    overwrite: bool = False,
    inputs: Inputs = (),
) -> list[Path]:
    """Write an export and the files beside it (images), each atomically.

    Args:
        target: the export file.
        data: its bytes, whole or in pieces written in order.
        extra_files: path relative to ``target``'s folder -> bytes (folders are created).
        overwrite: replace files that exist (only when the user confirmed it).
        inputs: the session files the export was made from; no file written may be one of them.

    Returns:
        Every path written, ``target`` first. Raises :class:`SessionWriteError` with one sentence when
        a file exists and ``overwrite`` is False, or a file is an input (see :func:`check_targets`;
        nothing is written then), or writing fails.
    """
    target = Path(target)
    folder = target.parent
    extras = {folder / name: content for name, content in (extra_files or {}).items()}
    check_targets([target, *extras], inputs=inputs, overwrite=overwrite)
    if not folder.is_dir():
        raise SessionWriteError(f"The folder {folder} does not exist.")
    written = []
    contents: list[tuple[Path, Content]] = [(target, data), *extras.items()]
    for path, content in contents:
        if path.parent != folder:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise SessionWriteError(f"Cannot create {path.parent}: {err.strerror or err}.") from err
        write_file(path, content, overwrite=overwrite)
        written.append(path)
    return written
