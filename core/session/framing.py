r"""Reading a session file, stage 1 of 3 (framing): its bytes -> complete lines, numbered, with offsets.

The file is read in chunks and split on ``\n`` only (U+2028 and friends are legal inside entries, so
``str.splitlines`` must never be used). Each chunk's complete lines go to the next stage
(:mod:`core.session.decoding`) as one batch, with the number and offset of the line before it: that
stage works through a batch in its own loop, so framing adds nothing per line (the file is read on
every open, and files of 520,000 lines exist). A line that continues past the end of what was read
is carried until its newline arrives; the caller decides what an unfinished last line is.

Framing knows nothing of JSON or of entries; it also keeps the crc32 of the bytes it has framed, which
the writer uses to prove that no byte it saw has changed (:func:`crc32_combine` joins the crc32 of parts
framed by worker processes, :mod:`core.session.parallel`).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from typing import NamedTuple, TypeAlias

CHUNK = 4 << 20  # 4 MiB: large enough that per-chunk overhead vanishes, small enough for memory

LineSink: TypeAlias = Callable[[list[bytes], int, int], None]
"""Takes a batch of complete lines (without their ``\n``), the number of the line before the first
(lines are numbered from 1) and the first line's byte offset."""

PiecesSink: TypeAlias = Callable[[list[bytes], int, int], None]
"""Takes one complete line longer than a chunk as the pieces it was read in (never joined here), the
number of the line before it and its byte offset; it may empty the list to let the pieces go."""


class Framed(NamedTuple):
    """Where framing stopped.

    Attributes:
        carry: the bytes after the last newline (a line not finished yet), ``b""`` when there are none.
        line_no: the number of the last complete line (lines framed so far, those before ``start`` included).
        offset: just after the last complete line's newline (where ``carry`` starts).
        crc: crc32 of the bytes before ``offset`` (continuing the one given), None when not kept.
    """

    carry: bytes
    line_no: int
    offset: int
    crc: int | None


def frame_lines(
    fd: int,
    start: int,
    line_no: int,
    crc: int | None,
    take: LineSink,
    take_long: PiecesSink | None = None,
    end: int | None = None,
) -> Framed:
    """Hand every complete line from byte ``start`` to EOF (or ``end``) to ``take``, a chunk's at a time.

    ``start`` is just after a newline (or 0) and ``line_no`` the number of lines before it; ``crc``
    is the crc32 of the bytes before ``start`` (None: keep no checksum). A line longer than a chunk
    goes to ``take_long`` in its pieces when given (joining a 100 MB line would hold it twice), else
    joined to ``take``. Returns the unfinished last line and where the complete ones end
    (:class:`Framed`). ``end`` (just after a newline) stops the read there: a part of the file read
    by a worker process (:mod:`core.session.parallel`).
    """
    offset = start
    position = start
    pending: list[bytes] = []  # the start of a line longer than what was read so far
    while True:
        chunk = os.pread(fd, CHUNK if end is None else min(CHUNK, end - position), position)
        if not chunk:
            break
        position += len(chunk)
        if b"\n" not in chunk:
            # Inside one long line (a big image or tool output): collect the pieces and join them
            # once, rather than re-joining and re-splitting a growing buffer for every chunk.
            pending.append(chunk)
            continue
        if crc is not None:
            for piece in pending:
                crc = zlib.crc32(piece, crc)
            crc = zlib.crc32(memoryview(chunk)[: chunk.rindex(b"\n") + 1], crc)
        lines = chunk.split(b"\n")
        del chunk  # the lines hold the bytes now: a 200 MB line is held once while it is parsed
        tail = lines.pop()
        if pending:
            pending.append(lines[0])
            if take_long is None:
                # Only the first line is joined with what came before, not the whole chunk.
                lines[0] = b"".join(pending)
                pending.clear()  # the pieces of a long line go now, before it is parsed
            else:
                length = sum(map(len, pending))
                del lines[0]
                take_long(pending, line_no, offset)
                pending.clear()
                line_no += 1
                offset += length + 1
        take(lines, line_no, offset)
        line_no += len(lines)
        offset = position - len(tail)  # the complete lines end where the unfinished one starts
        pending = [tail] if tail else []
    return Framed(b"".join(pending), line_no, offset, crc)


def crc32_combine(crc1: int, crc2: int, length2: int) -> int:
    """The crc32 of two byte strings joined, from each one's crc32 and the second's length (zlib's way)."""
    if length2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]  # the operator for one zero bit
    even = _gf2_square(odd)  # two zero bits
    odd = _gf2_square(even)  # four zero bits
    while True:
        even = _gf2_square(odd)
        if length2 & 1:
            crc1 = _gf2_times(even, crc1)
        length2 >>= 1
        if not length2:
            break
        odd = _gf2_square(even)
        if length2 & 1:
            crc1 = _gf2_times(odd, crc1)
        length2 >>= 1
        if not length2:
            break
    return crc1 ^ crc2


def _gf2_times(matrix: list[int], vector: int) -> int:
    total = 0
    row = 0
    while vector:
        if vector & 1:
            total ^= matrix[row]
        vector >>= 1
        row += 1
    return total


def _gf2_square(matrix: list[int]) -> list[int]:
    return [_gf2_times(matrix, matrix[n]) for n in range(32)]
