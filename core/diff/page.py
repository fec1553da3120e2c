"""A :class:`~core.diff.types.BranchDiff` as a self-contained HTML page, side by side.

HTML: one file with inline CSS and a small script, under a Content-Security-Policy that allows exactly
those two (by hash) and nothing else: no network, no other script, no images. Every string from a
session is escaped. Long unchanged runs and the common part are ``<details>`` blocks, so folding works
even with scripts off; the script adds next/previous change (F7, Shift+F7, ``n``/``p``) and "only
changes". Colours follow ``prefers-color-scheme``.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Iterator

from core.diff.rows import fold_runs
from core.diff.summary import summary_fields
from core.diff.types import CHANGED, DELETED, INSERTED, SAME, BranchDiff, DiffMessage, DiffRow, Op, Section
from core.render.text import esc

__all__ = ["CONTENT_SECURITY_POLICY", "MAX_CELL_CHARS", "render_html"]

MAX_CELL_CHARS = 100_000  # one text in the page; more is cut with a note (a 36 MB tool output is no diff)

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
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{esc(title)}</h1>",
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
        f"<th>left: {esc(os.path.basename(diff.left.file))}</th>"
        f"<th>right: {esc(os.path.basename(diff.right.file))}</th></tr>"
    ]
    for label, value in summary_fields():
        cells.append(
            f"<tr><th>{esc(label)}</th><td>{esc(value(diff.left))}</td><td>{esc(value(diff.right))}</td></tr>"
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
        f"Common part: {common.messages} messages up to {esc(str(common.ancestor_id))} "
        f"(matched by {esc(common.matched_by)}); the last {len(common.tail)} shown"
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
    if row.kind == CHANGED and row.left is not None and row.right is not None:
        left = _html_changed(row.left, row.sections, "delete")
        right = _html_changed(row.right, row.sections, "insert")
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
    info = f" · {esc(' · '.join(extra))}" if extra else ""
    return (
        f'<div class="meta"><span class="role">{esc(message.role)}</span>{info}'
        f" · <code>{esc(message.entry_id)}</code></div>"
    )


def _cut(text: str) -> str:
    if len(text) <= MAX_CELL_CHARS:
        return esc(text)
    return (
        esc(text[:MAX_CELL_CHARS])
        + f'<span class="cut"> … {len(text) - MAX_CELL_CHARS:,} more characters</span>'
    )


def _html_message(message: DiffMessage) -> str:
    parts = [_head(message)]
    if message.text:
        parts.append(f'<div class="text">{_cut(message.text)}</div>')
    for call in message.calls:
        parts.append(f'<div class="call"><b>{esc(call.name)}</b><pre>{_cut(call.arguments)}</pre></div>')
    if message.result:
        parts.append(f"<pre>{_cut(message.result)}</pre>")
    if message.error and message.stop_reason in ("error", "aborted"):
        parts.append(f'<div class="meta">{esc(message.error)}</div>')
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
            parts.append(f'<div class="section">{esc(section.name)}</div>')
        parts.append(f"<{wrap}{css}>{body}</{wrap}>")
    return "".join(parts)


def _html_op(op: Op) -> str:
    text = _cut(op.text)
    if op.tag == "delete":
        return f"<del>{text}</del>"
    if op.tag == "insert":
        return f"<ins>{text}</ins>"
    return text
