"""PDFs that Qt's ``QPdfWriter`` wrote, joined into one: the pages of each in turn (no Qt here).

The child processes of a PDF export each write some of its pages (:mod:`gui.pdf_export.child`). pypdf
took 2.2 s to join the 2,742 pages of the 20,000-message export and pikepdf 1.4 s; this join takes a tenth
of that, because it only has to know the files Qt writes: PDF 1.4, every object listed in one cross-
reference table, one page tree whose ``/Kids`` are the pages. Each file's objects are copied as they are
but renumbered after those of the files before (the references outside streams are rewritten, strings
skipped; stream data is copied byte for byte), the first file's page tree gets every page, and the other
files' catalogue, page tree, document information and metadata are left out. The first file's
document information and metadata (title, creator) stay the joined file's.
"""

from __future__ import annotations

import re

__all__ = ["PdfJoinError", "join_pdfs"]


class PdfJoinError(ValueError):
    """A part is not a PDF as Qt writes them."""


_STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")
_XREF_HEAD = re.compile(rb"xref\s+0\s+(\d+)\s+")
_ENTRY = re.compile(rb"(\d{10}) (\d{5}) ([nf])")
_TRAILER = re.compile(rb"trailer\s*<<(.*?)>>\s*startxref", re.S)
_REF = re.compile(rb"(\d+) 0 R")
_HEADER = re.compile(rb"(\d+) 0 obj")
# Outside streams: a literal string (Qt escapes the parentheses inside), a hex string, or a reference.
_TOKEN = re.compile(rb"\((?:\\.|[^\\()])*\)|<[0-9A-Fa-f\s]*>|(\d+) 0 R", re.S)
_STREAM = re.compile(rb">>\s*stream\r?\n")


class _Part:
    """One PDF as Qt wrote it: where its objects are, and the numbers of its catalogue's objects."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        end = _STARTXREF.search(data, max(0, len(data) - 64))
        if end is None:
            raise PdfJoinError("no startxref at the end")
        xref = int(end.group(1))
        head = _XREF_HEAD.match(data, xref)
        if head is None:
            raise PdfJoinError("no cross-reference table where startxref says")
        self.size = int(head.group(1))
        starts: dict[int, int] = {}
        pos = head.end()
        for number in range(self.size):
            entry = _ENTRY.match(data, pos)
            if entry is None:
                raise PdfJoinError(f"cross-reference entry {number} is unreadable")
            if entry.group(3) == b"n":
                starts[number] = int(entry.group(1))
            pos = entry.end() + 2  # each entry is 20 bytes with its two-byte end of line
        ends = sorted([*starts.values(), xref])
        following = {start: ends[index + 1] for index, start in enumerate(ends[:-1])}
        self.objects = {number: (start, following[start]) for number, start in starts.items()}
        trailer = _TRAILER.search(data, xref)
        if trailer is None:
            raise PdfJoinError("no trailer")
        self.trailer = trailer.group(1)
        self.root = self._ref_in(self.trailer, b"/Root")
        self.info = self._ref_in(self.trailer, b"/Info")
        catalog = self.body(self.root)
        self.pages = self._ref_in(catalog, b"/Pages")
        self.metadata = self._ref_in(catalog, b"/Metadata")
        self.kids = [int(n) for n in _REF.findall(self._value(self.body(self.pages), b"/Kids"))]
        self.first_object = min(start for start, _end in self.objects.values())

    def body(self, number: int) -> bytes:
        start, end = self.objects[number]
        return self.data[start:end]

    def _ref_in(self, text: bytes, key: bytes) -> int:
        match = re.search(re.escape(key) + rb"\s+(\d+) 0 R", text)
        if match is None:
            return -1
        return int(match.group(1))

    def _value(self, text: bytes, key: bytes) -> bytes:
        match = re.search(re.escape(key) + rb"\s*\[([^\]]*)\]", text)
        if match is None:
            raise PdfJoinError(f"no {key.decode()} array")
        return match.group(1)


def join_pdfs(parts: list[bytes]) -> bytes:
    """One PDF with the pages of ``parts`` in order (a single part comes back as it is).

    Raises:
        PdfJoinError: a part is not laid out as Qt writes PDF files.
    """
    if len(parts) == 1:
        return parts[0]
    read = [_Part(data) for data in parts]
    first = read[0]
    out = bytearray(first.data[: first.first_object])
    offsets: dict[int, int] = {}
    kids: list[int] = []
    base = 0
    for index, part in enumerate(read):
        skipped = {part.pages} if index == 0 else {part.root, part.pages, part.info, part.metadata}

        def renumber(match: re.Match[bytes], part: _Part = part, base: int = base) -> bytes:
            if match.group(1) is None:
                return match.group(0)  # a string
            number = int(match.group(1))
            if number == part.pages:
                return b"%d 0 R" % first.pages
            return b"%d 0 R" % (number + base)

        for number in sorted(part.objects, key=lambda n: part.objects[n][0]):
            if number in skipped:
                continue
            body = part.body(number)
            offsets[number + base] = len(out)
            if base == 0:
                out += body
                continue
            header = _HEADER.match(body)
            if header is None or int(header.group(1)) != number:
                raise PdfJoinError(f"object {number} is not where the cross-reference table says")
            stream = _STREAM.search(body) if b"endstream" in body[-40:] else None
            head, rest = (body, b"") if stream is None else (body[: stream.end()], body[stream.end() :])
            out += b"%d 0 obj" % (number + base)
            out += _TOKEN.sub(renumber, head[header.end() :])
            out += rest
        kids += [kid + base for kid in part.kids]
        base += part.size
    offsets[first.pages] = len(out)
    refs = b" ".join(b"%d 0 R" % kid for kid in kids)
    out += b"%d 0 obj\n<<\n/Type /Pages\n/Kids \n[\n%s\n]\n/Count %d\n>>\nendobj\n" % (
        first.pages,
        refs,
        len(kids),
    )
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % base
    for number in range(1, base):
        at = offsets.get(number)
        out += b"%010d 00000 n \n" % at if at is not None else b"0000000000 65535 f \n"
    trailer = re.sub(rb"/Size \d+", b"/Size %d" % base, first.trailer)
    out += b"trailer\n<<%s>>\nstartxref\n%d\n%%%%EOF\n" % (trailer, xref)
    return bytes(out)
