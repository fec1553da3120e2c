r"""Remote images in message text written as links, so previewing an exported .md loads nothing.

A Markdown image whose target is on the web (``![plot](https://…)``, ``![x][ref]`` with a remote
reference, ``//host/…``) is fetched by any previewer that opens the export (an editor, a forge): the
server learns who read it and when. As the HTML export does, it becomes a link labelled
``[image: ALT]`` to the same target; an image inside a link becomes its label alone (a link holds no
link). Local images (relative paths, ``data:`` URIs) stay images. Code is left as written: fenced and
indented blocks (as CommonMark parses them) and code spans on one line.

``ExportOptions.remote_images`` (``--remote-images``, the dialog's *Load remote images*) keeps them as
images.
"""

from __future__ import annotations

import re

from core.export.safe_markdown import _LINE, _structure

__all__ = ["remote_images_as_links"]

# ![alt] then an inline destination (with an optional title), a full reference [ref] or nothing (a
# shortcut reference). The alt text may hold escaped brackets.
_IMAGE = re.compile(
    r"!\[((?:[^\[\]\\\n]|\\.){0,500})\]"
    r"(?:\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)((?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?\s*)\)"
    r"|\[((?:[^\[\]\\\n]|\\.){0,500})\])?"
)
_REMOTE = ("http://", "https://", "//")
_BACKTICKS = re.compile(r"`+")


def remote_images_as_links(text: str) -> str:
    """``text`` (Markdown) with every remote image written as a link to it, outside code."""
    if "![" not in text:
        return text
    lines = _LINE.findall(text)
    code, _blocks, references = _structure(text, len(lines))
    out = []
    for number, line in enumerate(lines):
        out.append(line if number in code or "![" not in line else _outside_spans(line, references))
    return "".join(out)


def _outside_spans(line: str, references: dict[str, object]) -> str:
    """One line with its images rewritten outside its code spans (backtick runs that pair up)."""
    pieces: list[str] = []
    done = 0
    position = 0
    while (opening := _BACKTICKS.search(line, position)) is not None:
        run = opening.group(0)
        closing = re.compile(rf"(?<!`){run}(?!`)").search(line, opening.end())
        if closing is None:
            position = opening.end()
            continue
        pieces.append(_rewrite(line[done : opening.start()], references))
        pieces.append(line[opening.start() : closing.end()])
        done = position = closing.end()
    pieces.append(_rewrite(line[done:], references))
    return "".join(pieces)


def _rewrite(text: str, references: dict[str, object]) -> str:
    def one(match: re.Match[str]) -> str:
        alt, destination, ref = match.group(1), match.group(2), match.group(4)
        if destination is not None:
            target = destination.strip("<>")
        else:
            target = _reference_target(ref if ref else alt, references)
        if not target.lower().startswith(_REMOTE):
            return match.group(0)
        label = rf"\[image: {alt}\]" if alt.strip() else r"\[image\]"
        before, after = text[: match.start()], text[match.end() :]
        if before.endswith("[") and after.startswith("]("):
            return label  # an image inside a link: its label, the link stays the link
        rest = match.group(0)[len(alt) + 3 :]  # what followed ![alt]
        return f"[{label}]{rest}"

    return _IMAGE.sub(one, text)


def _reference_target(label: str, references: dict[str, object]) -> str:
    """The destination of a link reference definition, as CommonMark matches labels (case, spaces)."""
    key = " ".join(label.split()).casefold().upper()
    for name, definition in references.items():
        if " ".join(name.split()).casefold().upper() == key and isinstance(definition, dict):
            return str(definition.get("href", ""))
    return ""
