"""The ``usage`` command: token and cost reports in ccusage's grammar, from the catalogue.

``prime-sessions usage daily|weekly|monthly|session|model|project|blocks [ROOT...]`` with ccusage's
options (``--since``, ``--until``, ``--timezone``, ``--breakdown``, ``--json``) and ours (``--project``,
``--model``, ``--branches``, ``--csv``). ``--json`` uses ccusage's field names, so scripts written for
it read these reports too. Registered by :func:`core.cli.build_parser`.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date, tzinfo
from typing import TYPE_CHECKING

from core.cli.output import PROG, UsageError, emit_json, out

if TYPE_CHECKING:
    from core.usage import UsageReport, UsageRow

__all__ = ["add_commands", "report_json"]

_KINDS = ("daily", "weekly", "monthly", "session", "model", "project", "blocks")
# ccusage's names: the list of rows, and the field holding a row's key.
_JSON_NAMES = {
    "daily": ("daily", "date"),
    "weekly": ("weekly", "week"),
    "monthly": ("monthly", "month"),
    "session": ("sessions", "session"),
    "model": ("models", "model"),
    "project": ("projects", "project"),
    "blocks": ("blocks", "startTime"),
}
_HEADINGS = {
    "daily": "Date",
    "weekly": "Week of",
    "monthly": "Month",
    "session": "Session",
    "model": "Model",
    "project": "Project",
    "blocks": "Block start",
}
WIDTH = 100  # tables fit a 100-column terminal


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``usage`` sub-command to the ``prime-sessions`` parser."""
    p = sub.add_parser(
        "usage",
        help="token and cost reports by day, week, month, session, model, project or 5-hour block",
        description=(
            "Where the tokens and the money went, from the catalogue, in ccusage's grammar. Every branch "
            "counts; a fork's or clone's copies of its parent's entries count once; tokens and costs are "
            "as recorded, never re-priced."
        ),
    )
    p.add_argument("report", choices=_KINDS, metavar="REPORT", help=" | ".join(_KINDS))
    p.add_argument("roots", nargs="*", metavar="ROOT", help="session folders (default: the usual ones)")
    p.add_argument("--since", metavar="DATE", type=_date, help="first day counted (YYYY-MM-DD or YYYYMMDD)")
    p.add_argument("--until", metavar="DATE", type=_date, help="last day counted (YYYY-MM-DD or YYYYMMDD)")
    p.add_argument(
        "--timezone", "-z", metavar="TZ", type=_zone, help="time zone of days and hours (e.g. UTC)"
    )
    p.add_argument("--project", metavar="CWD", help="only sessions whose project folder is CWD")
    p.add_argument("--model", metavar="TEXT", help="only models whose name contains TEXT")
    p.add_argument("--breakdown", "-b", action="store_true", help="one line per model under each row")
    p.add_argument(
        "--branches",
        choices=("all", "current", "abandoned"),
        default="all",
        help="count every branch (default), only each session's current path, or only abandoned branches",
    )
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", "-j", action="store_true", help="JSON with ccusage's field names")
    form.add_argument("--csv", action="store_true", help="CSV, one line per row (and per model with -b)")
    p.add_argument("--catalogue", metavar="DIR", help="catalogue folder (default: the user cache)")
    p.add_argument("--no-refresh", action="store_true", help="use the catalogue as it is")
    p.set_defaults(run=_usage)


def _date(text: str) -> date:
    digits = text.replace("-", "")
    if len(digits) == 8 and digits.isdigit():
        try:
            return date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
        except ValueError:
            pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD or YYYYMMDD)")


def _zone(text: str) -> tzinfo:
    from datetime import UTC
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if text.upper() in ("UTC", "Z"):
        return UTC
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise argparse.ArgumentTypeError(f"unknown time zone {text!r}") from err


def _usage(args: argparse.Namespace) -> int:
    from core.catalogue.lookup import short_ids
    from core.cli.reading import _open_catalogue, _roots
    from core.usage import UsageFilter

    if args.since and args.until and args.since > args.until:
        raise UsageError("--since is after --until")
    roots = _roots(args)
    filt = UsageFilter(args.since, args.until, args.timezone, args.project, args.model, args.branches)
    catalogue = _open_catalogue(args)
    try:
        unread = [] if args.no_refresh else catalogue.refresh(roots).errors
        result = catalogue.usage_report(args.report, filt, args.breakdown, roots)
        # A session row's short id names it alone among every catalogued session (show, export take it).
        shorts = short_ids(catalogue.session_keys()) if args.report == "session" else {}
    finally:
        catalogue.close()
    for problem in unread:  # files the refresh could not read: the report goes on without them
        print(f"{PROG}: {problem}", file=sys.stderr)
    if result.undated is not None:
        print(f"{PROG}: {undated_note(result.undated)}", file=sys.stderr)
    if args.json:
        emit_json(report_json(result, args.breakdown))
    elif args.csv:
        _write_csv(result, args.breakdown)
    else:
        _write_table(result, args.breakdown, shorts)
    return 0


def undated_note(row: UsageRow) -> str:
    """The sentence saying what usage without a calendar date a report by time left out."""
    from core.formatting import total_cost, whole_tokens

    sessions = f"{row.sessions} session{'s' if row.sessions != 1 else ''}"
    return (
        f"Usage dated outside the years 1 to 9999 ({total_cost(row.total_cost)},"
        f" {whole_tokens(row.total_tokens)} tokens, in {sessions}) is left out of the dates;"
        " the session, model and project reports count it."
    )


def _counts(row: UsageRow) -> dict[str, object]:
    return {
        "inputTokens": row.input_tokens,
        "outputTokens": row.output_tokens,
        "cacheCreationTokens": row.cache_creation_tokens,
        "cacheReadTokens": row.cache_read_tokens,
        "totalTokens": row.total_tokens,
        "totalCost": round(row.total_cost, 10),
    }


def _iso(ts: float) -> str:
    from core.timefmt import iso_from_ms

    return iso_from_ms(ts * 1000) or ""


def report_json(result: UsageReport, breakdown: bool) -> dict[str, object]:
    """A report as ccusage's ``--json`` shapes it: rows under ``daily``/``weekly``/..., and ``totals``."""
    rows_name, key_name = _JSON_NAMES[result.kind]
    rows: list[dict[str, object]] = []
    for row in result.rows:
        item: dict[str, object] = {key_name: row.key, **_counts(row), "modelsUsed": row.models_used}
        if breakdown:
            item["modelBreakdowns"] = [
                {"modelName": m.key, **_counts(m), "cost": round(m.total_cost, 10)}
                for m in row.model_breakdowns
            ]
        item["sessions"] = row.sessions
        item["abandonedCost"] = round(row.abandoned_cost, 10)
        if result.kind == "session":
            item.update(
                sessionId=row.session_id,
                path=row.key,
                title=row.title,
                projectPath=row.project,
                lastActivity=_iso(row.last),
            )
        if result.kind == "blocks":
            start = _block_start(row)
            item.update(
                endTime=_iso(start + 5 * 3600), actualEndTime=_iso(row.last), firstEntry=_iso(row.first)
            )
        rows.append(item)
    return {rows_name: rows, "totals": _counts(result.totals)}


def _block_start(row: UsageRow) -> float:
    return row.first - row.first % 3600


def _write_csv(result: UsageReport, breakdown: bool) -> None:
    # One line per row (model empty) and, with --breakdown, one per model under it (model named).
    import csv

    writer = csv.writer(sys.stdout, lineterminator="\n")
    _rows_name, key_name = _JSON_NAMES[result.kind]
    fields = list(_counts(result.totals))
    writer.writerow([key_name, "model", *fields, "sessions", "abandonedCost", "modelsUsed"])

    def line(key: str, model: str, row: UsageRow) -> None:
        counts = _counts(row)
        abandoned = round(row.abandoned_cost, 10)
        used = ";".join(row.models_used)
        writer.writerow([key, model, *(counts[f] for f in fields), row.sessions, abandoned, used])

    for row in result.rows:
        line(row.key, "", row)
        if breakdown:
            for m in row.model_breakdowns:
                line(row.key, m.key, m)
    line("total", "", result.totals)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def _write_table(result: UsageReport, breakdown: bool, shorts: dict[str, str] | None = None) -> None:
    """The report as a table; a session row starts with its short id (``shorts``: path -> short id)."""
    if not result.rows:
        out("No usage recorded in the sessions and dates asked for.")
        return
    heads = ["Input", "Output", "Cache write", "Cache read", "Total tokens", "Cost"]

    def numbers(row: UsageRow) -> list[str]:
        return [
            f"{row.input_tokens:,}",
            f"{row.output_tokens:,}",
            f"{row.cache_creation_tokens:,}",
            f"{row.cache_read_tokens:,}",
            f"{row.total_tokens:,}",
            f"${row.total_cost:,.2f}",
        ]

    lines: list[tuple[str, list[str]]] = []
    for row in result.rows:
        label = " ".join(((row.title or row.key) if result.kind == "session" else row.key).split())
        if result.kind == "session":
            short = (shorts or {}).get(row.key) or row.session_id[:8] or "-"
            label = f"{short}  {label}"
        lines.append((label, numbers(row)))
        if breakdown:
            lines += [(f"  └ {m.key}", numbers(m)) for m in row.model_breakdowns]
    total = ("Total", numbers(result.totals))
    widths = [max(len(h), *(len(n[i]) for _, n in [*lines, total])) for i, h in enumerate(heads)]
    first = max(len(_HEADINGS[result.kind]), *(len(label) for label, _ in lines))
    first = max(12, min(first, WIDTH - sum(widths) - 2 * len(widths)))

    def show(label: str, cells: list[str]) -> None:
        padded = "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))
        out(f"{_cut(label, first).ljust(first)}  {padded}")

    show(_HEADINGS[result.kind], heads)
    rule = "─" * (first + sum(widths) + 2 * len(widths))
    out(rule)
    for label, cells in lines:
        show(label, cells)
    out(rule)
    show(*total)
    share = result.totals.abandoned_cost / result.totals.total_cost if result.totals.total_cost else 0.0
    out(f"{result.totals.sessions} sessions; {share:.0%} of the cost on abandoned branches.")
