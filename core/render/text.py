"""Session values as HTML text: escaped strings (for the view and the exports), local times."""

from __future__ import annotations

import html
import re
from datetime import datetime

from core.session.content import as_number

__all__ = ["esc", "esc_text", "js", "time_html", "without_surrogates"]

_HTML_SPECIAL = re.compile("[&<>\"'\x00]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def esc(text: str) -> str:
    """``text`` escaped for HTML element text and attribute values (NUL shown as U+FFFD)."""
    # Most strings escaped here (roles, times, models, ids) hold nothing to escape: one C-level search
    # is cheaper than html.escape's five replace passes, on 100,000 calls per large export.
    if _HTML_SPECIAL.search(text) is None:
        return text
    return html.escape(text, quote=True).replace("\x00", "\ufffd")


def esc_text(text: str) -> str:
    """``text`` escaped for HTML element text (quotes need no escaping outside attributes)."""
    return html.escape(text, quote=False).replace("\x00", "\ufffd")


def without_surrogates(text: str) -> str:
    r"""``text`` with each lone surrogate (a ``"\ud800"`` escape in the file) replaced by U+FFFD.

    A lone surrogate has no UTF-8 form: a URL or a file name cannot hold one, so where text must be
    encoded strictly it is shown as the replacement character instead of stopping the export.
    """
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


def js(value: object) -> str:
    """A JSON number (or other value) as JavaScript would print it: ``3`` for ``3.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def time_html(moment: object) -> str:
    """Local ``HH:MM:SS`` and the date of a ms timestamp, or ``""`` when there is none."""
    ms = as_number(moment)
    if ms is None:
        return ""
    try:
        local = datetime.fromtimestamp(ms / 1000).astimezone()
    except (OverflowError, OSError, ValueError):
        return ""
    return f"{local:%H:%M:%S} {local:%Y-%m-%d}"
