"""Every write to session files: appends to existing files, and new files for fork and clone.

Session files belong to the user, so the rules are strict:

* An existing file is only ever appended to: one complete line in one ``O_APPEND`` write, then fsync.
  The append holds an advisory lock (``flock``) on the file from the first check to the fsync, so two
  cooperating writers (two windows, the window and the CLI) take turns. Under the lock, every byte
  already read is checked against its checksum; if anything changed in a way that is not an append,
  the write is refused. Entries the agent appended meanwhile are read first, so the new entry hangs
  off the true leaf, and both sets of entries survive.
* A partial last line (bytes after the last newline that are not a complete entry) means someone is
  writing that line in more than one ``write()``: a slow writer, a large line, another agent. The edit
  waits for its newline (polling, at most :data:`TAIL_WAIT` seconds), and if none comes, it is refused
  with a sentence; a line of someone else's is never cut in two. A complete entry whose newline is
  missing (a hand edit) is given one first, as are spaces without one.
* A new file is written to a temporary name in the target folder, fsynced, then hard-linked into
  place (which fails instead of replacing an existing file), and the folder is fsynced
  (:mod:`core.writing.atomic`, which also removes the temporary files a killed write left behind).

What remains, because the agent does not take the lock and a file has no compare-and-append:

* A writer that starts a new line in the instant between the last look at the file's size and our
  ``write()`` (a few microseconds) still has that line cut by ours. To make that rarer, an edit writes
  only once the file has kept its size for :data:`SETTLE` seconds (a writer in a burst, or between
  two pieces of a line, is not written into), and the last look also re-reads the last byte. Should
  it happen all the same, the edit sees it (its bytes did not land where the file ended) and writes
  its line again after the other one's newline: the edit is kept, the other writer's line is lost
  (``benchmarks/run_reliability.py contend``: about 1 edit in 800 with three editing processes and
  an agent writing each line in two ``write()`` calls).
* A same-size rewrite in place of bytes already read, made while the checksum is read or in the few
  milliseconds between the checks and the write, goes unnoticed; a file replaced by a rename or
  truncated in that time is noticed.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from core.errors import InvalidRequestError, SessionChangedError, SessionWriteError
from core.session import Entry, LabelInfo, Session
from core.session.jsonl import JsonObject, encode_json
from core.timefmt import now_iso
from core.writing.atomic import explain_os_error, write_new_file
from core.writing.ids import new_entry_id, new_session_id

_PI_NAME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_.+\.jsonl$")
_ID_NAME = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$")
_ATTEMPTS = 20  # appends racing with the agent: re-read and retry this often before giving up
TAIL_WAIT = 3.0  # seconds an edit waits for someone else's partial last line to get its newline
LOCK_WAIT = 3.0  # seconds an edit waits for another cooperating writer to release the lock
_POLL = 0.005  # seconds between two looks at a file while waiting
SETTLE = 0.003  # seconds a file must keep its size before an edit appends to it
SETTLE_WAIT = 1.0  # seconds an edit waits for such a pause before it settles for less
_SETTLE_POLL = 0.001  # seconds between two looks while it settles


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
    try:
        fd = os.open(session.path, os.O_RDWR | os.O_APPEND)
    except OSError as err:
        raise SessionWriteError(explain_os_error(err, session.path)) from err
    try:
        _lock(fd, session.path)
        entry_id = _append_locked(fd, session, build)
    except OSError as err:
        raise SessionWriteError(explain_os_error(err, session.path)) from err
    finally:
        os.close(fd)  # releases the lock
    session.refresh()
    return entry_id


def _append_locked(
    fd: int, session: Session, build: Callable[[str | None, dict[str, Entry]], JsonObject]
) -> str:
    """Check, catch up and append one line through ``fd``, whose lock is held; the new entry's id."""
    deadline = time.monotonic() + TAIL_WAIT
    settle_until = time.monotonic() + SETTLE_WAIT
    grew = 0
    verified = False
    while True:
        # First a pause in the file's growth (cheap looks at its size), then the checks.
        quiet_size, quiet_since = _quiet(fd, settle_until)
        # Every byte already read is compared with its checksum once under the lock, so a cooperating
        # writer cannot slip in. Later rounds (the agent appended meanwhile) compare the file's identity,
        # size and first and last 4 KiB only: a full read each round takes longer than an agent's pause
        # between two lines, so the edit would never find one to write in (issue 29).
        if (not verified and not session.unchanged_on_disk()) or not _same_file(fd, session.path):
            raise SessionChangedError(
                f"{session.path} was changed on disk in a way that is not an append (lines already read "
                "were modified, removed or replaced), so the edit was refused; reload it and try again."
            )
        # Pick up what the agent appended, so we hang off the true leaf.
        result = session.refresh(checksum=False)  # everything was just compared (above, or a round ago)
        verified = True
        if result.reloaded:
            raise SessionChangedError(f"{session.path} changed while it was being edited ({result.reason}).")
        size = os.fstat(fd).st_size
        end = session.size
        prefix = b""
        expected_tail = os.pread(fd, 1, size - 1) if size else b""
        if size > end:
            # Bytes after the indexed part: complete lines that arrived since the refresh (read them
            # and build again), or a partial line.
            pending = os.pread(fd, size - end, end)
            if b"\n" in pending:
                grew = _grown(grew, session.path)
                continue
            if not pending.isspace():
                # Someone is writing a line in more than one write(): appending now would cut it in two.
                if not _wait_for_newline(fd, size, deadline):
                    raise SessionWriteError(
                        f"The last line of {session.path} is still incomplete after {TAIL_WAIT:g} seconds "
                        f"({len(pending):,} bytes without a newline: another program may be writing it, or "
                        "a write was cut short), so nothing was written rather than cut that line in two; "
                        "try again when the agent is idle, or fork the session to edit a copy."
                    )
                continue
            prefix = b"\n"  # spaces without a newline hold no entry: ending them leaves a blank line
        elif size < end:
            continue  # shrunk since the refresh: the next check refuses the edit
        elif not session.ends_with_newline:
            # A complete entry whose newline is missing (a hand edit, a lost write): give it one. Should
            # its writer still add the newline, that only makes a blank line after ours.
            prefix = b"\n"
        entry = build(session.leaf_id, session.by_id)
        line = prefix + encode_json(entry) + b"\n"
        # Write only once the file has kept its size for a few milliseconds: a writer that has just
        # written (an agent finishing a turn, a line written in pieces) is the one likely to start the
        # next line in the instant between our last look and our write.
        # An agent that never pauses that long (a stream of lines) is written after at the first moment
        # without a partial line once SETTLE_WAIT has passed, rather than refused.
        since = quiet_since if size == quiet_size else time.monotonic()
        if time.monotonic() < settle_until and not _settled(fd, size, since):
            continue
        # The last look, right before the write: the file still ends where it was examined, with the
        # byte it ended with. What is left is the instant between this fstat and the write (see the
        # module docstring).
        tail = os.pread(fd, 1, size - 1) if size else b""
        if os.fstat(fd).st_size != size or tail != expected_tail:
            grew = _grown(grew, session.path)
            continue
        written = os.write(fd, line)  # an error here wrote nothing
        if written != len(line):
            # A full disk (or a file size limit): the start of our line is at the end of the file, with
            # no newline. Left there, the agent's next line would be glued to it and both lost.
            undone = _take_back(fd, size, line[:written])
            raise SessionWriteError(
                f"Only {written} of {len(line)} bytes could be written to {session.path} (is the disk "
                + (
                    "full?); they were removed again, so the file is as it was."
                    if undone
                    else "full?); the file grew meanwhile, so they could not be removed."
                )
            )
        try:
            os.fsync(fd)
        except OSError as err:
            # The line may not be on the disk (a full or failing disk, a network file system): take it back
            # rather than leave an edit that was reported as failed.
            _take_back(fd, size, line)
            raise SessionWriteError(explain_os_error(err, session.path)) from err
        if _glued(fd, size, written):
            # Someone started a line in the instant between our last look and our write (an agent's
            # first write() of a line, without the lock): the start of theirs and ours are one
            # unreadable line now. Theirs is lost; ours is written again once theirs has its newline,
            # so the edit the user asked for is in the file.
            grew = _grown(grew, session.path)
            continue
        return str(entry["id"])


def _take_back(fd: int, start: int, ours: bytes) -> bool:
    """Cut ``ours``, just written at ``start``, off the end of the file again, under the lock; True if done.

    Only when the file ends with exactly those bytes there: had anyone written before or after them
    since, cutting would cut theirs too, so the file is left as it is. The cut is fsynced.
    """
    try:
        if os.fstat(fd).st_size != start + len(ours) or os.pread(fd, len(ours), start) != ours:
            return False
        os.ftruncate(fd, start)
        os.fsync(fd)
    except OSError:
        return False
    return True


def _glued(fd: int, looked: int, written: int) -> bool:
    """True when the ``written`` bytes just appended through ``fd`` are glued to someone else's line.

    That is, they did not land at ``looked``, where the file ended at the last look, but after bytes
    someone wrote meanwhile that do not end with a newline.
    """
    landed = os.lseek(fd, 0, os.SEEK_CUR) - written  # an O_APPEND write leaves the offset after its bytes
    return landed > looked and os.pread(fd, 1, landed - 1) != b"\n"


def _quiet(fd: int, until: float) -> tuple[int, float]:
    """Look at the file's size until it has kept one for :data:`SETTLE` seconds, or ``until`` passes.

    Returns that size and the moment it was first seen (for :func:`_settled`).
    """
    size = os.fstat(fd).st_size
    since = time.monotonic()
    while True:
        now = time.monotonic()
        if now - since >= SETTLE or now >= until:
            return size, since
        _pause(min(_SETTLE_POLL, since + SETTLE - now))
        current = os.fstat(fd).st_size
        if current != size:
            size, since = current, time.monotonic()


def _settled(fd: int, size: int, since: float) -> bool:
    """Wait until the file has kept ``size`` (first seen at ``since``) for :data:`SETTLE` seconds.

    False if it changed meanwhile. Usually at once: the checks after :func:`_quiet` take longer than that.
    """
    while True:
        now = time.monotonic()
        if now - since >= SETTLE:
            return os.fstat(fd).st_size == size
        _pause(min(_SETTLE_POLL, since + SETTLE - now))
        if os.fstat(fd).st_size != size:
            return False


def _grown(times: int, path: str) -> int:
    """One more time the file grew under an edit; refuses when that happened :data:`_ATTEMPTS` times."""
    times += 1
    if times >= _ATTEMPTS:
        raise SessionWriteError(f"{path} kept growing while the edit was attempted; try again.")
    return times


def _wait_for_newline(fd: int, scanned_to: int, deadline: float) -> bool:
    """Poll until the file behind ``fd`` gets a newline after ``scanned_to`` (True) or ``deadline`` passes.

    Only the bytes added since the last look are read, so a long line being written is read once. A
    file that shrank also gives True: the caller's checks then refuse the edit.
    """
    while time.monotonic() < deadline:
        _pause(min(_POLL, max(0.0, deadline - time.monotonic())))
        size = os.fstat(fd).st_size
        if size < scanned_to:
            return True
        if size > scanned_to:
            if b"\n" in os.pread(fd, size - scanned_to, scanned_to):
                return True
            scanned_to = size
    return False


def _lock(fd: int, path: str) -> None:
    """Take the advisory write lock on ``fd`` (``flock``), waiting up to :data:`LOCK_WAIT` seconds.

    Only writers taking the same lock wait for it (other instances of this app, the CLI); the agent does
    not, which is why :func:`_append_locked` checks everything itself. Where there are no locks
    (Windows, some network file systems), the append goes ahead without one.
    """
    if sys.platform == "win32":
        return
    import fcntl

    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise SessionWriteError(
                    f"Another program has held the write lock on {path} for {LOCK_WAIT:g} seconds, so "
                    "nothing was written; try again in a moment."
                ) from None
            _pause(_POLL)
        except OSError:
            return  # a file system without locks: the checks under the lock still apply


def _same_file(fd: int, path: str) -> bool:
    """True when ``path`` still names the file open as ``fd`` (not replaced by a rename meanwhile)."""
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _pause(seconds: float) -> None:
    """Sleep between two looks at the file (one function, so a test can step in while an edit waits)."""
    time.sleep(seconds)


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
    path = [e for e in session.path_to(at_entry_id) if not isinstance(e.info, LabelInfo)]
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
            lines.append(encode_json(entry))
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

    Raises:
        InvalidRequestError: ``cwd`` is not text (a folder name whose bytes are not UTF-8).
    """
    if cwd is not None and not _is_text(cwd):
        raise InvalidRequestError(
            f"The folder {ascii(cwd)[1:-1]} has a name that is not UTF-8 text, so no agent could record it"
            " as a session's project folder; rename it, or choose another."
        )
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
            body = session.body(entry, fold=False)  # copied as written, however deep
            body["parentId"] = want_parent
            raw = encode_json(body)
        lines.append(raw)
        previous = entry.id
    return lines


def _is_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
    data = b"\n".join([encode_json(header), *lines]) + b"\n"
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
