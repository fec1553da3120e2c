"""A :class:`~core.diff.compare.BranchDiff` as terminal text, as JSON, and as a self-contained HTML page.

JSON (``format: "prime-sessions-diff"``, ``version: 1``)::

    {"format", "version",
     "left"/"right": {file, entryId, messages, toolCalls, tokens, cost, durationMs, filesTouched,
                      models, ended, lastRole, errorMessage},
     "common": {ancestorId, rightAncestorId, entries, messages, matchedBy, tail: [message]},
     "counts": {same, changed, inserted, deleted},
     "rows": [{kind, left: message|null, right: message|null, similarity,
               sections: [{name, unit: "word"|"line", ops: [[tag, text], ...]}]}]}

    message = {entryId, kind, role, text, toolCalls: [{name, arguments, path}], result, toolName,
               model, stopReason, errorMessage, isError, tokens, cost, timestamp}

``tag`` is ``equal``, ``delete`` (left only) or ``insert`` (right only). Keys are never removed within a
version; new keys may be added.

HTML: one file with inline CSS and a small script, under a Content-Security-Policy that allows exactly
those two (by hash) and nothing else: no network, no other script, no images. Every string from a
session is escaped. Long unchanged runs and the common part are ``<details>`` blocks, so folding works
even with scripts off; the script adds next/previous change (F7, Shift+F7, ``n``/``p``) and "only
changes". Colours follow ``prefers-color-scheme``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import os
from collections.abc import Iterator

from core.diff.compare import (
    CHANGED,
    DELETED,
    INSERTED,
    SAME,
    BranchDiff,
    DiffMessage,
    DiffRow,
    Op,
    Section,
    fold_runs,
)
from core.formatting import duration, total_cost, whole_tokens

__all__ = [
    "MAX_CELL_CHARS",
    "cell_html",
    "render_html",
    "render_json",
    "render_text",
    "summary_lines",
]

MAX_CELL_CHARS = (
    100_000  # one text in the HTML page; more is cut with a note (a 36 MB tool output is no diff)
)
_KIND_MARK = {SAME: " ", CHANGED: "~", INSERTED: "+", DELETED: "-"}


# ---------------------------------------------------------------------------- JSON
def render_json(diff: BranchDiff) -> bytes:
    """The diff as UTF-8 JSON (the shape in this module's docstring), indented, ending with a newline."""
    import orjson

    value = diff.to_json()
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"
    except (TypeError, orjson.JSONEncodeError):
        # Lone surrogates from a damaged file: written back as escapes, as core.cli.program does.
        import json

        return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


# ---------------------------------------------------------------------------- text
def render_text(diff: BranchDiff, width: int = 100) -> str:
    """A terminal-readable diff: one line per row, word changes as ``[-old-]{+new+}``, then the summary.

    Args:
        diff: the diff.
        width: the width of one-line previews.

    Returns:
        Text ending with a newline.
    """
    out: list[str] = []
    left, right = diff.left, diff.right
    out.append(f"--- left   {left.file} @ {left.entry_id}")
    out.append(f"+++ right  {right.file} @ {right.entry_id}")
    common = diff.common
    if common.matched_by == "none":
        out.append("Nothing in common: the two paths differ from their first message.")
    else:
        where = common.ancestor_id
        if common.right_ancestor_id != common.ancestor_id:
            where = f"{common.ancestor_id} (left) / {common.right_ancestor_id} (right)"
        count = f"{common.messages} message{'' if common.messages == 1 else 's'}"
        out.append(f"Common part: {count} up to {where} (matched by {common.matched_by}).")
    counts = diff.counts
    out.append(
        f"{counts[SAME]} same, {counts[CHANGED]} changed, "
        f"{counts[DELETED]} only left, {counts[INSERTED]} only right."
    )
    out.append("")
    folds = {start: end for start, end in fold_runs(diff.rows)}
    index = 0
    rows = diff.rows
    while index < len(rows):
        if index in folds:
            end = folds[index]
            out.append(f"  … {end - index} unchanged messages …")
            index = end
            continue
        out.extend(_text_row(rows[index], width))
        index += 1
    if not rows:
        out.append("  (no messages after the common part on either side)")
    out.append("")
    out.extend(_text_summary(diff))
    return "\n".join(out) + "\n"


def _text_row(row: DiffRow, width: int) -> list[str]:
    mark = _KIND_MARK[row.kind]
    if row.kind == SAME:
        return [f"{mark} {row.left.preview(width)}"]  # type: ignore[union-attr]
    if row.kind == DELETED:
        return [f"{mark} {row.left.preview(width)}"]  # type: ignore[union-attr]
    if row.kind == INSERTED:
        return [f"{mark} {row.right.preview(width)}"]  # type: ignore[union-attr]
    lines = [f"{mark} {row.left.preview(width)}", f"  → {row.right.preview(width)}"]  # type: ignore[union-attr]
    for section in row.sections:
        if all(op.tag == "equal" for op in section.ops):
            continue
        lines.append(f"    {section.name}:")
        if section.unit == "line":
            lines.extend(_text_lines(section.ops))
        else:
            inline = "".join(_inline(op) for op in section.ops)
            lines.extend("      " + line for line in inline.split("\n"))
    return lines


def _inline(op: Op) -> str:
    if op.tag == "delete":
        return f"[-{op.text}-]"
    if op.tag == "insert":
        return f"{{+{op.text}+}}"
    return op.text


def _text_lines(ops: tuple[Op, ...], context: int = 2) -> list[str]:
    out: list[str] = []
    for op in ops:
        lines = op.text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        sign = {"delete": "-", "insert": "+", "equal": " "}[op.tag]
        if op.tag == "equal" and len(lines) > 2 * context + 1:
            lines = [*lines[:context], f"… {len(lines) - 2 * context} lines …", *lines[-context:]]
        out.extend(f"      {sign} {line}" for line in lines)
    return out


def _text_summary(diff: BranchDiff) -> list[str]:
    rows = [("", "left", "right")]
    for label, value in _summary_fields(diff):
        rows.append((label, value(diff.left), value(diff.right)))
    first = max(len(r[0]) for r in rows)
    second = max(len(r[1]) for r in rows)
    return [f"{a:<{first}}  {b:<{second}}  {c}".rstrip() for a, b, c in rows]


def _summary_fields(diff: BranchDiff) -> list[tuple[str, object]]:
    def files(s: object) -> str:
        touched = s.files_touched
        return ", ".join(touched) if touched else "-"

    def ended(s: object) -> str:
        value = s.ended or "-"
        if s.last_role == "user":
            value += " (no answer to the last user message)"
        if s.error:
            value += f": {' '.join(s.error.split())[:80]}"
        return value

    return [
        ("entry", lambda s: str(s.entry_id)),
        ("messages", lambda s: str(s.messages)),
        ("tool calls", lambda s: str(s.tool_calls)),
        ("tokens", lambda s: whole_tokens(s.tokens)),
        ("cost", lambda s: total_cost(s.cost)),
        ("duration", lambda s: duration(s.duration_ms)),
        ("models", lambda s: ", ".join(s.models) or "-"),
        ("files touched", files),
        ("ended", ended),
    ]


# ---------------------------------------------------------------------------- HTML
_CSS = """
:root { color-scheme: light dark; --bg:#ffffff; --fg:#1f2328; --muted:#656d76; --line:#d0d7de;
  --del-bg:#ffebe9; --del-word:#ffb3ad; --ins-bg:#dafbe1; --ins-word:#8ae99c; --chg-bg:#fff8c5;
  --head:#f6f8fa; --focus:#0969da; }
@media (prefers-color-scheme: dark) { :root { --bg:#0d1117; --fg:#e6edf3; --muted:#8d96a0; --line:#30363d;
  --del-bg:#3c1618; --del-word:#8e1519; --ins-bg:#12261e; --ins-word:#1f6f3c; --chg-bg:#2e2a14;
  --head:#161b22; --focus:#4493f8; } }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg); font:14px/1.45 system-ui, sans-serif; }
header { position:sticky; top:0; z-index:2; background:var(--head); border-bottom:1px solid var(--line);
  padding:8px 12px; display:flex; gap:12px; align-items:center; flex-wrap:wrap; }
header h1 { font-size:15px; margin:0; flex:1 1 auto; }
button { font:inherit; padding:2px 10px; }
.counts span { margin-left:8px; }
table.summary { border-collapse:collapse; margin:10px 12px; }
table.summary th, table.summary td { border:1px solid var(--line); padding:3px 8px; text-align:left;
  vertical-align:top; }
table.summary th { background:var(--head); }
details.common, details.fold { margin:0; border-bottom:1px solid var(--line); }
details > summary { cursor:pointer; padding:4px 12px; color:var(--muted); background:var(--head); }
.row { display:grid; grid-template-columns:1fr 1fr; border-bottom:1px solid var(--line); }
.row:target, .row.current { outline:2px solid var(--focus); outline-offset:-2px; }
.cell { padding:6px 12px; min-width:0; overflow-wrap:anywhere; }
.cell + .cell { border-left:1px solid var(--line); }
.cell.empty { background:repeating-linear-gradient(135deg, transparent 0 6px, var(--line) 6px 7px);
  opacity:.5; }
.deleted .cell.left, .deleted .cell.right.empty { background-color:var(--del-bg); }
.inserted .cell.right, .inserted .cell.left.empty { background-color:var(--ins-bg); }
.changed .cell { background:var(--chg-bg); }
.meta { color:var(--muted); font-size:12px; }
.role { font-weight:600; }
pre { margin:4px 0; white-space:pre-wrap; font:12.5px/1.4 ui-monospace, monospace; }
.text { white-space:pre-wrap; }
.call { border-left:3px solid var(--line); padding-left:8px; margin:4px 0; }
.section { color:var(--muted); font-size:12px; margin-top:4px; }
del { background:var(--del-word); text-decoration:line-through; }
ins { background:var(--ins-word); text-decoration:none; }
.cut { color:var(--muted); font-style:italic; }
body.only-changes .row.same, body.only-changes details.fold,
body.only-changes details.common { display:none; }
"""

_SCRIPT = """
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll('.row.start'));
  var at = -1;
  function go(step) {
    if (!rows.length) return;
    at = Math.max(0, Math.min(rows.length - 1, at + step));
    rows.forEach(function (r) { r.classList.remove('current'); });
    rows[at].classList.add('current');
    rows[at].scrollIntoView({block: 'center'});
  }
  document.getElementById('next').addEventListener('click', function () { go(1); });
  document.getElementById('prev').addEventListener('click', function () { go(-1); });
  var only = document.getElementById('only');
  only.addEventListener('change', function () {
    document.body.classList.toggle('only-changes', only.checked);
  });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'F7' || e.key === 'n') { e.preventDefault(); go(e.shiftKey ? -1 : 1); }
    else if (e.key === 'p') { e.preventDefault(); go(-1); }
  });
})();
"""


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; style-src {_csp_hash(_CSS)}; script-src {_csp_hash(_SCRIPT)}; "
    "img-src 'none'; base-uri 'none'; form-action 'none'"
)


def _esc(text: str) -> str:
    return html.escape(text, quote=True).replace("\x00", "\ufffd")


def render_html(diff: BranchDiff, title: str | None = None) -> str:
    """The diff as one self-contained HTML page (side by side, folds, next/previous change).

    Args:
        diff: the diff.
        title: the page title; a default names the two entries.

    Returns:
        The page; every string from the sessions is escaped.
    """
    left, right = diff.left, diff.right
    title = title or f"Diff {left.entry_id} ↔ {right.entry_id}"
    counts = diff.counts
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{_esc(title)}</h1>",
        '<button id="prev" type="button" title="Previous change (Shift+F7)">◀ Previous</button>',
        '<button id="next" type="button" title="Next change (F7)">Next ▶</button>',
        '<label><input id="only" type="checkbox"> Only changes</label>',
        f'<span class="counts"><span>{counts[CHANGED]} changed</span><span>{counts[DELETED]} only left</span>'
        f"<span>{counts[INSERTED]} only right</span><span>{counts[SAME]} same</span></span></header>",
        _html_summary(diff),
        _html_common(diff),
        '<main class="diff">',
    ]
    parts.extend(_html_rows(diff))
    parts.append(f"</main><script>{_SCRIPT}</script></body></html>\n")
    return "".join(parts)


def _html_summary(diff: BranchDiff) -> str:
    cells = [
        '<table class="summary"><tr><th></th>'
        f"<th>left: {_esc(os.path.basename(diff.left.file))}</th>"
        f"<th>right: {_esc(os.path.basename(diff.right.file))}</th></tr>"
    ]
    for label, value in _summary_fields(diff):
        cells.append(
            f"<tr><th>{_esc(label)}</th><td>{_esc(value(diff.left))}</td><td>{_esc(value(diff.right))}</td></tr>"
        )
    cells.append("</table>")
    return "".join(cells)


def _html_common(diff: BranchDiff) -> str:
    common = diff.common
    if common.matched_by == "none":
        return (
            '<details class="common"><summary>Nothing in common: the paths differ from the start</summary>'
            "</details>"
        )
    head = (
        f"Common part: {common.messages} messages up to {_esc(str(common.ancestor_id))} "
        f"(matched by {_esc(common.matched_by)}); the last {len(common.tail)} shown"
    )
    rows = "".join(_html_row(DiffRow(SAME, m, m, (), 1.0), f"c{i}", False) for i, m in enumerate(common.tail))
    return f'<details class="common"><summary>{head}</summary>{rows}</details>'


def _html_rows(diff: BranchDiff) -> Iterator[str]:
    rows = diff.rows
    folds = {start: end for start, end in fold_runs(rows)}
    previous_same = True
    index = 0
    if not rows:
        yield '<p class="meta">No messages after the common part on either side.</p>'
    while index < len(rows):
        if index in folds:
            end = folds[index]
            yield f'<details class="fold"><summary>⋯ {end - index} unchanged messages</summary>'
            for inner in range(index, end):
                yield _html_row(rows[inner], f"r{inner}", False)
            yield "</details>"
            index = end
            previous_same = True
            continue
        row = rows[index]
        same = row.kind == SAME
        yield _html_row(row, f"r{index}", not same and previous_same)
        previous_same = same
        index += 1


def _html_row(row: DiffRow, anchor: str, start: bool) -> str:
    classes = f"row {row.kind}{' start' if start else ''}"
    if row.kind == CHANGED:
        left = _html_changed(row.left, row.sections, "delete")  # type: ignore[arg-type]
        right = _html_changed(row.right, row.sections, "insert")  # type: ignore[arg-type]
    else:
        left = _html_message(row.left) if row.left else ""
        right = _html_message(row.right) if row.right else ""
    left_class = "cell left" + ("" if row.left else " empty")
    right_class = "cell right" + ("" if row.right else " empty")
    return (
        f'<div class="{classes}" id="{anchor}"><div class="{left_class}">{left}</div>'
        f'<div class="{right_class}">{right}</div></div>'
    )


def _head(message: DiffMessage) -> str:
    extra = []
    if message.model:
        extra.append(message.model)
    if message.tool_name:
        extra.append(message.tool_name)
    if message.stop_reason and message.stop_reason not in ("stop", "toolUse"):
        extra.append(message.stop_reason)
    if message.is_error:
        extra.append("error")
    info = f" · {_esc(' · '.join(extra))}" if extra else ""
    return (
        f'<div class="meta"><span class="role">{_esc(message.role)}</span>{info}'
        f" · <code>{_esc(message.entry_id)}</code></div>"
    )


def _cut(text: str) -> str:
    if len(text) <= MAX_CELL_CHARS:
        return _esc(text)
    return (
        _esc(text[:MAX_CELL_CHARS])
        + f'<span class="cut"> … {len(text) - MAX_CELL_CHARS:,} more characters</span>'
    )


def _html_message(message: DiffMessage) -> str:
    parts = [_head(message)]
    if message.text:
        parts.append(f'<div class="text">{_cut(message.text)}</div>')
    for call in message.calls:
        parts.append(f'<div class="call"><b>{_esc(call.name)}</b><pre>{_cut(call.arguments)}</pre></div>')
    if message.result:
        parts.append(f"<pre>{_cut(message.result)}</pre>")
    if message.error and message.stop_reason in ("error", "aborted"):
        parts.append(f'<div class="meta">{_esc(message.error)}</div>')
    return "".join(parts)


def _html_changed(message: DiffMessage, sections: tuple[Section, ...], side_tag: str) -> str:
    parts = [_head(message)]
    for section in sections:
        pieces = [op for op in section.ops if op.tag in ("equal", side_tag)]
        if section.name == "meta" or not any(p.text for p in pieces):
            continue
        body = "".join(_html_op(op) for op in pieces)
        wrap = "div" if section.name == "text" else "pre"
        css = ' class="text"' if wrap == "div" else ""
        if section.name.startswith("call "):
            parts.append(f'<div class="section">{_esc(section.name)}</div>')
        parts.append(f"<{wrap}{css}>{body}</{wrap}>")
    return "".join(parts)


def _html_op(op: Op) -> str:
    text = _cut(op.text)
    if op.tag == "delete":
        return f"<del>{text}</del>"
    if op.tag == "insert":
        return f"<ins>{text}</ins>"
    return text


# ---------------------------------------------------------------------------- Qt rich text (the app's cells)
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
                parts.append(f'<div style="color:{pal["muted"]}">{_esc(section.name)}</div>')
            body = "".join(_qt_op(op, pal, max_chars) for op in pieces)
            parts.append(_qt_block(body, section.name != "text", pal))
        return "".join(parts)
    if message.text:
        parts.append(_qt_block(_qt_cut(message.text, max_chars), False, pal))
    for call in message.calls:
        parts.append(f"<div><b>{_esc(call.name)}</b></div>")
        if call.arguments:
            parts.append(_qt_block(_qt_cut(call.arguments, max_chars), True, pal))
    if message.result:
        parts.append(_qt_block(_qt_cut(message.result, max_chars), True, pal))
    if message.error and message.stop_reason in ("error", "aborted"):
        parts.append(f'<div style="color:{pal["muted"]}">{_esc(message.error)}</div>')
    return "".join(parts)


def _qt_head(message: DiffMessage, pal: dict[str, str]) -> str:
    extra = [x for x in (message.model, message.tool_name) if x]
    if message.stop_reason and message.stop_reason not in ("stop", "toolUse"):
        extra.append(message.stop_reason)
    if message.is_error:
        extra.append("error")
    info = f" · {_esc(' · '.join(extra))}" if extra else ""
    return f'<div style="color:{pal["muted"]}"><b>{_esc(message.role)}</b>{info}</div>'


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
        return _esc(text)
    return _esc(cut) + f" <i>… {len(text) - len(cut):,} more characters</i>"


def _qt_op(op: Op, pal: dict[str, str], limit: int) -> str:
    text = _qt_cut(op.text, limit)
    if op.tag == "delete":
        return f'<span style="background-color:{pal["del"]}; text-decoration:line-through">{text}</span>'
    if op.tag == "insert":
        return f'<span style="background-color:{pal["ins"]}">{text}</span>'
    return text


def summary_lines(diff: BranchDiff) -> list[tuple[str, str, str]]:
    """The per-side summary as ``(label, left, right)`` rows (messages, tool calls, tokens, cost, ...)."""
    return [(label, value(diff.left), value(diff.right)) for label, value in _summary_fields(diff)]
