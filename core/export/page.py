"""The HTML export's page shell: Content-Security-Policy, the stylesheet and script, the header and sidebar.

The page's own style and script are package files (``core/export/assets/page.css`` and ``page.js``).
The policy allows only those (by SHA-256 hash), Pygments' stylesheet and ``data:`` images (``file:``
too when images are written beside the page): no request can leave the page and no injected script
could run even if escaping failed.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from importlib import resources

from core.render.highlight import page_pygments_css
from core.render.text import esc

__all__ = ["assets", "page"]


def page(title: str, rows: list[tuple[str, str]], island: list[bytes], images_beside: bool) -> list[bytes]:
    """The whole document: CSP, style, metadata header, sidebar, the data island and the script.

    Args:
        title: the page title (escaped here).
        rows: the metadata table, ``(label, value)`` pairs (escaped here).
        island: the data island's JSON, in pieces (:func:`core.export.island.island`).
        images_beside: images are files beside the page (the policy then allows ``file:`` and
            ``'self'`` images).

    Returns:
        The page, UTF-8, in pieces (the island's own among them): written one after the other, never
        joined, a page with a 200 MB line is not held twice.
    """
    css, js = assets()
    pygments_css = page_pygments_css()
    img = "data: 'self' file:" if images_beside else "data:"
    csp = (
        f"default-src 'none'; script-src '{_sha256(js)}'; "
        f"style-src '{_sha256(css)}' '{_sha256(pygments_css)}'; img-src {img}; "
        "base-uri 'none'; form-action 'none'"
    )
    table = "".join(f"<tr><th>{esc(label)}</th><td>{esc(value)}</td></tr>" for label, value in rows)
    checks = "".join(
        f'<label><input type="checkbox" value="{value}" checked> {text}</label>'
        for value, text in (
            ("thinking", "thinking"),
            ("tools", "tool calls"),
            ("custom", "extensions"),
            ("meta", "bookkeeping"),
        )
    )
    modes = "".join(
        f'<option value="{m}"{" selected" if m == "default" else ""}>{m}</option>'
        for m in ("default", "no-tools", "user", "labeled", "all")
    )
    head = (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="Prime Sessions">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{esc(title)}</title>\n"
        f"<style>{css}</style>\n"
        f"<style>{pygments_css}</style>\n"
        "</head>\n<body>\n"
        '<div id="app">\n'
        '<nav id="side" aria-label="Session tree">\n<div class="controls">\n'
        '<input id="search" type="search" placeholder="Search this session" aria-label="Search">\n'
        f'<select id="mode" aria-label="Tree filter">{modes}</select>\n'
        f'<div id="checks" class="checks">{checks}</div>\n'
        '</div>\n<div id="count"></div>\n'
        '<div id="tree"><div id="tree-inner"></div></div>\n<div id="results" hidden></div>\n'
        "</nav>\n"
        '<main id="main">\n<header>\n'
        f"<h1>{esc(title)}</h1>\n"
        f'<table class="meta">{table}</table>\n'
        "<noscript><p>This page needs JavaScript to show the conversation.</p></noscript>\n"
        "</header>\n"
        '<div id="messages"><div id="more" hidden>More messages load as you scroll…</div></div>\n'
        "</main>\n</div>\n"
        '<script type="application/json" id="session-data">'
    ).encode("utf-8", "backslashreplace")
    tail = f"</script>\n<script>{js}</script>\n</body>\n</html>\n".encode()
    return [head, *island, tail]


@lru_cache(maxsize=1)
def assets() -> tuple[str, str]:
    """The page's stylesheet and script (package files ``core/export/assets/page.css`` and ``page.js``)."""
    folder = resources.files("core") / "export/assets"
    return (folder / "page.css").read_text("utf-8"), (folder / "page.js").read_text("utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
