"""A :class:`~core.diff.types.BranchDiff` as terminal text: one line per row, word changes inline."""

from __future__ import annotations

from core.diff.rows import fold_runs
from core.diff.summary import summary_fields
from core.diff.types import CHANGED, DELETED, INSERTED, SAME, BranchDiff, DiffMessage, DiffRow, Op

__all__ = ["render_text"]

_KIND_MARK = {SAME: " ", CHANGED: "~", INSERTED: "+", DELETED: "-"}


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
    if row.kind in (SAME, DELETED):
        return [f"{mark} {_preview(row.left, width)}"]
    if row.kind == INSERTED:
        return [f"{mark} {_preview(row.right, width)}"]
    lines = [f"{mark} {_preview(row.left, width)}", f"  → {_preview(row.right, width)}"]
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


def _preview(message: DiffMessage | None, width: int) -> str:
    # Every row has the sides its kind says; an empty side (which no row has) shows as nothing.
    return message.preview(width) if message is not None else ""


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
    for label, value in summary_fields():
        rows.append((label, value(diff.left), value(diff.right)))
    first = max(len(r[0]) for r in rows)
    second = max(len(r[1]) for r in rows)
    return [f"{a:<{first}}  {b:<{second}}  {c}".rstrip() for a, b, c in rows]
