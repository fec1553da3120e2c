"""Every write to session files: appends to existing files, and new files for fork and clone.

Session files belong to the user, so the rules are strict:

* An existing file is only ever appended to: one complete line (or a newline first, when the file
  does not end with one) in one ``O_APPEND`` write, then fsync. Before writing, every byte already
  read is checked against its checksum; if anything changed in a way that is not an append, the
  write is refused. Entries the agent appended meanwhile are read first, so the new entry hangs off
  the true leaf, and both sets of entries survive.
* A new file is written to a temporary name in the target folder, fsynced, then hard-linked into
  place (which fails instead of replacing an existing file), and the folder is fsynced
  (:mod:`core.writing.atomic`, which also removes the temporary files a killed write left behind).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import orjson

from core.errors import InvalidRequestError, SessionChangedError, SessionWriteError
from core.session import Entry, Session
from core.session.jsonl import JsonObject
from core.timefmt import now_iso
from core.writing.atomic import explain_os_error, write_new_file
from core.writing.ids import new_entry_id, new_session_id

_PI_NAME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_.+\.jsonl$")
_ID_NAME = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$")
_ATTEMPTS = 20  # appends racing with the agent: re-read and retry this often before giving up


# ---------------------------------------------------------------------------- appends
def append_label(session: Session, target_id: str, label: str | None) -> str:
    """Set (or with ``None``/``""`` clear) the label of an entry by appending a label entry.

    The entry is written as the reference writes it: ``{type, id, parentId, timestamp, targetId,
    label}`` parented on the current leaf, with no ``label`` key when clearing.

    Returns:
        The new label entry's id.
    """
    if session.version < 2:
        raise InvalidRequestError(
            "This is a legacy version-1 session whose entry ids are reassigned by every reader, so a "
            "label cannot point at an entry; clone it first (the clone is a current-format file)."
        )
    text = label if label else None

    def build(leaf: str | None, taken: dict[str, Entry]) -> JsonObject:
        if target_id not in taken:
            raise InvalidRequestError(f"There is no entry {target_id} in {session.path}.")
        entry: JsonObject = {
            "type": "label",
            "id": new_entry_id(taken),
            "parentId": leaf,
            "timestamp": now_iso(),
            "targetId": target_id,
        }
        if text is not None:
            entry["label"] = text
        return entry

    return _append(session, build)


def append_session_name(session: Session, name: str) -> str:
    """Set the session name (``""`` clears it) by appending a ``session_info`` entry.

    The name is trimmed and line breaks become spaces, as the current reference does.

    Returns:
        The new entry's id.
    """
    clean = name.replace("\r\n", " ").replace("\r", " ").replace("\n", " ").strip()

    def build(leaf: str | None, taken: dict[str, Entry]) -> JsonObject:
        return {
            "type": "session_info",
            "id": new_entry_id(taken),
            "parentId": leaf,
            "timestamp": now_iso(),
            "name": clean,
        }

    return _append(session, build)


def _append(session: Session, build: Callable[[str | None, dict[str, Entry]], JsonObject]) -> str:
    if session.header is None:
        raise InvalidRequestError(
            f"{session.path} has no session header, so other tools would not read an appended entry; "
            "fork it into a new file instead."
        )
    if not session.can_verify:
        raise InvalidRequestError(f"{session.path} was opened read-only; open it again to edit it.")
    for _attempt in range(_ATTEMPTS):
        if not session.unchanged_on_disk():
            raise SessionChangedError(
                f"{session.path} was changed on disk in a way that is not an append (lines already read "
                "were modified, removed or replaced), so the edit was refused; reload it and try again."
            )
        result = session.refresh()  # pick up what the agent appended, so we hang off the true leaf
        if result.reloaded:
            raise SessionChangedError(f"{session.path} changed while it was being edited ({result.reason}).")
        entry = build(session.leaf_id, session.by_id)
        line = orjson.dumps(entry) + b"\n"
        try:
            fd = os.open(session.path, os.O_RDWR | os.O_APPEND)
        except OSError as err:
            raise SessionWriteError(explain_os_error(err, session.path)) from err
        try:
            size = os.fstat(fd).st_size
            if size < session.size:
                continue  # shrunk since the refresh: the next check refuses the edit
            # Bytes after the indexed part may only be a partial line (an agent mid-write); a newline
            # there means complete lines arrived since the refresh: read them and build again.
            if size > session.size and b"\n" in os.pread(fd, size - session.size, session.size):
                continue
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # a partial last line (crash mid-write) stays its own line
            written = os.write(fd, line)
            if written != len(line):
                raise SessionWriteError(
                    f"Only {written} of {len(line)} bytes could be written to {session.path} "
                    "(is the disk full?); earlier content is unchanged."
                )
            os.fsync(fd)
        except OSError as err:
            raise SessionWriteError(explain_os_error(err, session.path)) from err
        finally:
            os.close(fd)
        session.refresh()
        return str(entry["id"])
    raise SessionWriteError(f"{session.path} kept growing while the edit was attempted; try again.")


# ---------------------------------------------------------------------------- new files
def fork_session(session: Session, at_entry_id: str, dest_dir: str | os.PathLike[str] | None = None) -> Path:
    """Write a new session holding the path from the root to ``at_entry_id`` (a branched session).

    The header names the source file as ``parentSession``. Entries keep their ids, timestamps and
    content; label entries on the path are dropped and the labels of path entries are re-added at
    the end (as the reference does). Unlike the reference, an entry whose parent was a dropped label
    is re-chained to its nearest kept ancestor instead of becoming an orphan. Legacy sources are
    migrated first, so the result is always a valid version-3 file.

    Returns:
        The path of the new file, in ``dest_dir`` (default: the source's folder).
    """
    target = session.get(at_entry_id)
    if target is None:
        raise InvalidRequestError(f"There is no entry {at_entry_id} in {session.path}.")
    path = [e for e in session.path_to(at_entry_id) if e.kind != "label"]
    lines = _copy_chain(session, path, rechain=True)
    kept = {e.id for e in path}
    taken = set(kept)
    parent = path[-1].id if path else None
    for target_id, label in session.labels.items():
        if target_id in kept:
            label_id = new_entry_id(taken)
            entry = {
                "type": "label",
                "id": label_id,
                "parentId": parent,
                "timestamp": session.label_timestamp(target_id),
                "targetId": target_id,
                "label": label,
            }
            taken.add(label_id)
            parent = label_id
            lines.append(orjson.dumps(entry))
    folder = Path(dest_dir) if dest_dir is not None else Path(session.path).parent
    return _write_session(folder, session.cwd, session.path, lines)


def clone_session(
    session: Session,
    cwd: str | None = None,
    dest_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """Write a copy of the whole session (every branch) with a new id and ``parentSession`` set.

    With ``cwd`` it forks the session into another project folder, like the reference's
    ``forkFrom``: in a per-project layout (``--<cwd>--`` folders) the copy goes to that project's
    folder. Legacy version-1 sources are migrated first (the reference writes a broken file there).

    Returns:
        The path of the new file.
    """
    new_cwd = session.cwd if cwd is None else cwd
    lines = _copy_chain(session, list(session.entries), rechain=False)
    if dest_dir is not None:
        folder = Path(dest_dir)
    else:
        folder = Path(session.path).parent
        if cwd is not None and _is_project_folder(folder):
            folder = folder.parent / project_folder_name(new_cwd)
    return _write_session(folder, new_cwd, session.path, lines)


def project_folder_name(cwd: str) -> str:
    """The reference's per-project folder name: ``/home/dev/app`` -> ``--home-dev-app--``."""
    trimmed = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    return "--" + re.sub(r"[/\\:]", "-", trimmed) + "--"


def _is_project_folder(folder: Path) -> bool:
    return folder.name.startswith("--") and folder.name.endswith("--") and len(folder.name) >= 4


def _copy_chain(session: Session, entries: list[Entry], *, rechain: bool) -> list[bytes]:
    """Serialised lines for ``entries``: verbatim bytes where possible, migrated JSON where needed.

    With ``rechain`` the entries form one chain: each entry's parent becomes the previous entry.
    """
    lines: list[bytes] = []
    previous: str | None = None
    must_rewrite = session.version < 3  # v1/v2 lines need the in-memory migration written out
    for entry, raw in zip(entries, session.raw_lines(entries), strict=True):
        want_parent = previous if rechain else entry.parent_id
        if must_rewrite or entry.synthetic or want_parent != entry.parent_id or not _is_utf8(raw):
            # Migrated JSON; invalid UTF-8 is written in its decoded (U+FFFD) form, never copied.
            body = session.body(entry)
            body["parentId"] = want_parent
            raw = orjson.dumps(body)
        lines.append(raw)
        previous = entry.id
    return lines


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _write_session(folder: Path, cwd: str, parent_path: str, lines: list[bytes]) -> Path:
    session_id = new_session_id()
    timestamp = now_iso()
    header = {
        "type": "session",
        "version": 3,
        "id": session_id,
        "timestamp": timestamp,
        "cwd": cwd,
        "parentSession": os.path.abspath(parent_path),
    }
    data = b"\n".join([orjson.dumps(header), *lines]) + b"\n"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise SessionWriteError(explain_os_error(err, str(folder))) from err
    target = folder / new_file_name(folder, session_id, timestamp)
    write_new_file(target, data)
    return target


def new_file_name(folder: Path, session_id: str, timestamp: str) -> str:
    """A file name following the folder's convention.

    pi's ``<ISO timestamp>_<id>.jsonl`` in per-project folders or where such names dominate, the Prime
    Agent's flat ``<id>.jsonl`` otherwise.
    """
    pi_style = f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"
    id_style = f"{session_id}.jsonl"
    if _is_project_folder(folder):
        return pi_style
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".jsonl")]
    except OSError:
        names = []
    pi_count = sum(1 for n in names if _PI_NAME.match(n))
    id_count = sum(1 for n in names if _ID_NAME.match(n))
    if pi_count > id_count:
        return pi_style
    if id_count > pi_count:
        return id_style
    return pi_style if ".pi" in folder.parts else id_style
