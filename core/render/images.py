"""Images in sessions: decoding base64 image blocks safely, and reading their size.

Only png, jpeg, gif and webp are handed out, and only when the bytes really are such an image (the
declared type is not trusted); the size is read from the image header without decoding pixels.
"""

from __future__ import annotations

import base64
import binascii
import struct

IMAGE_MIME_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""Image types :func:`decode_image` hands out; anything else is shown as text."""

_MIME_ALIASES = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg"}


def decode_image(block: dict[str, object]) -> tuple[bytes, str] | None:
    """Decode an image content block: ``(bytes, sniffed mime type)``, or None when it is not an allowed image.

    The declared ``mimeType`` must be an allowed type, the base64 valid (line-wrapped is accepted) and
    the bytes really an image of an allowed type; the type returned is the one found in the bytes.
    """
    declared = block.get("mimeType")
    data = block.get("data")
    if not isinstance(declared, str) or not isinstance(data, str) or not data:
        return None
    declared = declared.strip().lower()
    declared = _MIME_ALIASES.get(declared, declared)
    if declared not in IMAGE_MIME_TYPES:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        try:  # line-wrapped base64 is still base64
            raw = base64.b64decode("".join(data.split()), validate=True)
        except (binascii.Error, ValueError):
            return None
    sniffed = _sniff(raw)
    return (raw, sniffed) if sniffed is not None else None


def _sniff(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the image header, or None when they cannot be read."""
    try:
        if data.startswith(b"\x89PNG") and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
        elif data.startswith((b"GIF87a", b"GIF89a")):
            width, height = struct.unpack("<HH", data[6:10])
        elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            chunk = data[12:16]
            if chunk == b"VP8 ":
                width, height = (v & 0x3FFF for v in struct.unpack("<HH", data[26:30]))
            elif chunk == b"VP8L":
                bits = int.from_bytes(data[21:25], "little")
                width, height = (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
            elif chunk == b"VP8X":
                width = int.from_bytes(data[24:27], "little") + 1
                height = int.from_bytes(data[27:30], "little") + 1
            else:
                return None
        elif data.startswith(b"\xff\xd8"):
            size = _jpeg_size(data)
            if size is None:
                return None
            width, height = size
        else:
            return None
    except struct.error:
        return None
    return (width, height) if width > 0 and height > 0 else None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    end = len(data)
    while i + 9 < end:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD9)):  # markers without a length
            i += 2
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if length < 2:
            return None
        i += 2 + length
    return None
