"""A command's FILE argument: a path, or a session named by its id, a unique id prefix or its exact name.

``prime-sessions show 01a139df`` finds the session through the catalogue
(:func:`core.catalogue.lookup.match_sessions`); every command that takes a session file declares its
argument with ``type=session_file``, so they all read references alike. A path that exists is taken as it
is, at no cost: the catalogue is opened only for what is not a file. Before a lookup the catalogue is
brought up to date with the usual session folders, as ``list`` does, so a session written a moment ago is
found and a stale prefix never picks the wrong session.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from core.errors import InvalidRequestError, PrimeSessionsError

if TYPE_CHECKING:
    from core.catalogue import Catalogue

__all__ = ["FILE_HELP", "session_file"]

FILE_HELP = "a session file, or a session's id, unique id prefix or exact name"
_SHOWN = 5  # candidates named in an "ambiguous" sentence


def _looks_like_a_path(ref: str) -> bool:
    return os.sep in ref or bool(os.altsep and os.altsep in ref) or ref.endswith(".jsonl")


def session_file(ref: str) -> str:
    """The session file ``ref`` names (an ``argparse`` type for FILE arguments).

    ``ref`` itself when something exists at that path (the loader then says what is wrong with it, if
    anything), or when it looks like a path (a separator, ``.jsonl``) and no catalogued session has it as
    its name: the loader then says it does not exist.

    Raises:
        InvalidRequestError: ``ref`` names several sessions (the sentence lists them), or none.
    """
    if os.path.lexists(ref) or not ref:
        return ref
    path_like = _looks_like_a_path(ref)
    found = _catalogued(ref, refresh=not path_like)
    if found is None or (not found and path_like):
        return ref
    if len(found) == 1:
        return found[0][0]
    if not found:
        raise InvalidRequestError(
            f"{ref} is not a session file, nor the id, id prefix or name of a catalogued session "
            "('prime-sessions list' shows them)."
        )
    listed = "; ".join(f"{short} {title} ({path})" for path, short, title in found[:_SHOWN])
    more = f"; and {len(found) - _SHOWN} more" if len(found) > _SHOWN else ""
    raise InvalidRequestError(
        f"{ref} could be any of {len(found)} sessions: {listed}{more}. Give more of the id, or the path."
    )


def _catalogued(ref: str, refresh: bool) -> list[tuple[str, str, str]] | None:
    """``(path, short id, title)`` of the existing files ``ref`` names, or None without a catalogue."""
    from core.catalogue import Catalogue, CatalogueError, default_catalogue_dir
    from core.catalogue.lookup import short_ids
    from core.formatting import title

    if not refresh and not (default_catalogue_dir() / "catalogue.sqlite3").is_file():
        return None  # a mistyped path must not build a catalogue of every session
    try:
        catalogue = Catalogue()
        try:
            if refresh:
                _refresh(catalogue)
            matches = catalogue.find_sessions(ref)
            shorts = short_ids(catalogue.session_keys()) if len(matches) > 1 else {}
        finally:
            catalogue.close()
    except CatalogueError as err:
        if not refresh:
            return None
        raise PrimeSessionsError(
            f"{ref} is not a file, and the catalogue to look it up as a session id or name is unusable: {err}"
        ) from err
    found: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for summary in matches:
        real = os.path.realpath(summary.path)
        if real in seen or not os.path.isfile(summary.path):
            continue  # the same file by another name, or one gone since the catalogue saw it
        seen.add(real)
        shown = title(summary.name, summary.firstMessage, 50)
        found.append((summary.path, shorts.get(summary.path, summary.id or ""), f'"{shown}"'))
    return found


def _refresh(catalogue: Catalogue) -> None:
    """Bring the catalogue up to date with the usual session folders (a progress bar on a terminal)."""
    from core.cli.status import ProgressBar
    from core.session import default_roots

    bar = ProgressBar()
    try:
        catalogue.refresh(default_roots(), progress=bar)  # unreadable files: not this command's concern
    finally:
        bar.finish()
