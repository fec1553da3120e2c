"""Session values as text for the message view's HTML: escaped strings, JSON shown as text, local times."""

from __future__ import annotations

import html
import json
from datetime import datetime

from core.session.content import as_number

__all__ = ["esc", "js", "json_excerpt", "json_text", "time_html"]


def esc(text: str) -> str:
    """``text`` escaped for HTML element text and attribute values (NUL shown as U+FFFD)."""
    return html.escape(text, quote=True).replace("\x00", "\ufffd")


def js(value: object) -> str:
    """A JSON number (or other value) as JavaScript would print it: ``3`` for ``3.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def json_text(value: object) -> str:
    """``value`` as indented JSON; a string as it is; a note when it cannot be written."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except RecursionError:
        return "(nested too deeply to show)"
    except (ValueError, TypeError):
        return "(cannot be shown)"


def json_excerpt(value: object, limit: int) -> str:
    """:func:`json_text` cut to ``limit`` characters, with a note of how many more there are."""
    text = json_text(value)
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


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
