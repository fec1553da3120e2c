"""One side of a diff row as HTML for Qt's rich text: the app's diff table cells.

Inline colours only (Qt's subset has no classes across documents); long texts are cut, since a cell
taller than the window cannot be read in a table.
"""

from __future__ import annotations

from core.diff.types import CHANGED, DiffMessage, DiffRow, Op
from core.render.text import esc

__all__ = ["QT_CELL_CHARS", "QT_CELL_LINES", "cell_html"]

_QT_LIGHT = {"muted": "#656d76", "del": "#ffb3ad", "ins": "#8ae99c", "code": "#f6f8fa"}
_QT_DARK = {"muted": "#8d96a0", "del": "#8e1519", "ins": "#1f6f3c", "code": "#161b22"}
QT_CELL_CHARS = 3_000  # one text in a table cell; the message view shows the rest
QT_CELL_LINES = 40  # lines of one text in a table cell


def cell_html(row: DiffRow, side: str, dark: bool = False, max_chars: int = QT_CELL_CHARS) -> str:
    """One side of a row as HTML for Qt's rich text (a ``QTextDocument`` in a table cell).

    Inline colours only (Qt's subset has no classes across documents); changed words are highlighted,
    deletions on the left and insertions on the right. Long texts are cut at ``max_chars``.

    Args:
        row: the aligned row.
        side: ``"left"`` or ``"right"``.
        dark: the dark palette.
        max_chars: the most characters shown of one text.

    Returns:
        An HTML fragment, or ``""`` when the row has nothing on that side; session text is escaped.
    """
    message = row.left if side == "left" else row.right
    if message is None:
        return ""
    pal = _QT_DARK if dark else _QT_LIGHT
    parts = [_qt_head(message, pal)]
    if row.kind == CHANGED:
        keep = "delete" if side == "left" else "insert"
        for section in row.sections:
            pieces = [op for op in section.ops if op.tag in ("equal", keep)]
            if section.name == "meta" or not any(p.text for p in pieces):
                continue
            if section.name.startswith("call "):
                parts.append(f'<div style="color:{pal["muted"]}">{esc(section.name)}</div>')
            body = "".join(_qt_op(op, pal, max_chars) for op in pieces)
            parts.append(_qt_block(body, section.name != "text", pal))
        return "".join(parts)
    if message.text:
        parts.append(_qt_block(_qt_cut(message.text, max_chars), False, pal))
    for call in message.calls:
        parts.append(f"<div><b>{esc(call.name)}</b></div>")
        if call.arguments:
            parts.append(_qt_block(_qt_cut(call.arguments, max_chars), True, pal))
    if message.result:
        parts.append(_qt_block(_qt_cut(message.result, max_chars), True, pal))
    if message.error and message.stop_reason in ("error", "aborted"):
        parts.append(f'<div style="color:{pal["muted"]}">{esc(message.error)}</div>')
    return "".join(parts)


def _qt_head(message: DiffMessage, pal: dict[str, str]) -> str:
    extra = [x for x in (message.model, message.tool_name) if x]
    if message.stop_reason and message.stop_reason not in ("stop", "toolUse"):
        extra.append(message.stop_reason)
    if message.is_error:
        extra.append("error")
    info = f" · {esc(' · '.join(extra))}" if extra else ""
    return f'<div style="color:{pal["muted"]}"><b>{esc(message.role)}</b>{info}</div>'


def _qt_block(body: str, code: bool, pal: dict[str, str]) -> str:
    if code:
        return f'<pre style="background-color:{pal["code"]}; white-space:pre-wrap">{body}</pre>'
    return f'<p style="white-space:pre-wrap">{body}</p>'


def _qt_cut(text: str, limit: int, max_lines: int = QT_CELL_LINES) -> str:
    # A cell taller than the window cannot be read in a table, so long texts end with a note; "Show in
    # Tree" shows the whole message.
    cut = text[:limit]
    breaks = 0
    position = -1
    while breaks < max_lines:
        position = cut.find("\n", position + 1)
        if position < 0:
            break
        breaks += 1
    if position >= 0:
        cut = cut[:position]
    if len(cut) == len(text):
        return esc(text)
    return esc(cut) + f" <i>… {len(text) - len(cut):,} more characters</i>"


def _qt_op(op: Op, pal: dict[str, str], limit: int) -> str:
    text = _qt_cut(op.text, limit)
    if op.tag == "delete":
        return f'<span style="background-color:{pal["del"]}; text-decoration:line-through">{text}</span>'
    if op.tag == "insert":
        return f'<span style="background-color:{pal["ins"]}">{text}</span>'
    return text
