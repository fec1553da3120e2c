"""Writing export files: to a temporary name, fsynced, then renamed into place.

A new file never replaces an existing one unless the caller says the user confirmed it
(``overwrite=True``, the CLI's ``--force``); without it, :func:`core.writing.writer.write_file` links the
temporary file into place, which fails rather than replace. Every target is checked before the
first byte is written, so a refused export leaves nothing behind.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import SessionWriteError
from core.writing import write_file

if TYPE_CHECKING:
    from core.writing.atomic import Content

__all__ = ["image_folder_for", "write_export"]


def image_folder_for(target: str | os.PathLike[str]) -> str:
    """The folder name, beside ``target``, that an export's image files go into (``NAME_images``)."""
    return Path(target).stem + "_images"


def write_export(
    target: str | os.PathLike[str],
    data: Content,
    extra_files: dict[str, bytes] | None = None,
    *,
    overwrite: bool = False,
) -> list[Path]:
    """Write an export and the files beside it (images), each atomically.

    Args:
        target: the export file.
        data: its bytes, whole or in pieces written in order.
        extra_files: path relative to ``target``'s folder -> bytes (folders are created).
        overwrite: replace files that exist (only when the user confirmed it).

    Returns:
        Every path written, ``target`` first. Raises :class:`SessionWriteError` with one sentence when
        a file exists and ``overwrite`` is False (nothing is written then) or writing fails.
    """
    target = Path(target)
    folder = target.parent
    extras = {folder / name: content for name, content in (extra_files or {}).items()}
    for path in [target, *extras]:
        if path.is_dir():
            raise SessionWriteError(f"{path} is a folder; choose a file name.")
        if not overwrite and path.exists():
            raise SessionWriteError(f"{path} already exists; use --force to replace it.")
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
