"""The message view's colours (light and dark) and the stylesheet that matches them.

Qt's rich text applies a default stylesheet per document, but inline ``style`` attributes are what it
honours reliably (and cheaply: each stylesheet rule is matched against every element), so the renderer
writes colours inline from a :class:`Palette` and :func:`stylesheet` covers the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DARK", "LIGHT", "Palette", "palette", "stylesheet"]


@dataclass(frozen=True)
class Palette:
    """The colours of one theme (CSS colour strings) and the Pygments style for its code."""

    text: str
    muted: str
    link: str
    user_bg: str
    tool_bg: str
    error_bg: str
    note_bg: str
    code_bg: str
    badge_bg: str
    error: str
    warn: str
    ok: str
    add: str
    add_bg: str
    delete: str
    delete_bg: str
    thinking: str
    border: str
    pygments_style: str


LIGHT = Palette(
    text="#1f2328",
    muted="#6e7781",
    link="#0969da",
    user_bg="#eef4fc",
    tool_bg="#f6f8fa",
    error_bg="#ffebe9",
    note_bg="#fbf6e6",
    code_bg="#f6f8fa",
    badge_bg="#ddf4ff",
    error="#cf222e",
    warn="#9a6700",
    ok="#1a7f37",
    add="#1a7f37",
    add_bg="#e6ffec",
    delete="#cf222e",
    delete_bg="#ffebe9",
    thinking="#6e7781",
    border="#d0d7de",
    pygments_style="default",
)
DARK = Palette(
    text="#e6edf3",
    muted="#8b949e",
    link="#58a6ff",
    user_bg="#1c2736",
    tool_bg="#161b22",
    error_bg="#3a1d1f",
    note_bg="#2b2618",
    code_bg="#161b22",
    badge_bg="#1f3a5f",
    error="#ff7b72",
    warn="#d29922",
    ok="#3fb950",
    add="#3fb950",
    add_bg="#12261e",
    delete="#ff7b72",
    delete_bg="#2d1517",
    thinking="#8b949e",
    border="#30363d",
    pygments_style="github-dark",
)


def palette(dark: bool) -> Palette:
    """The dark or the light palette."""
    return DARK if dark else LIGHT


def stylesheet(dark: bool) -> str:
    """CSS for ``QTextDocument.setDefaultStyleSheet``, matching the palette of the rendered HTML.

    Args:
        dark: the dark palette instead of the light one.

    Returns:
        A stylesheet in the CSS subset Qt's rich text understands. Short on purpose: Qt matches every
        element of a document against every rule, so code colours are written inline instead.
    """
    p = palette(dark)
    return (
        f"body {{ color: {p.text}; }}\n"
        f"a {{ color: {p.link}; text-decoration: none; }}\n"
        "p { margin-top: 3px; margin-bottom: 3px; }\n"
        "pre { font-family: monospace; white-space: pre-wrap; margin-top: 2px; margin-bottom: 2px; }\n"
        "code { font-family: monospace; }\n"
        f"th {{ background-color: {p.tool_bg}; }}\n"
        f".hdr {{ color: {p.muted}; }}\n"
        f".muted {{ color: {p.muted}; }}\n"
        f".err {{ color: {p.error}; }}\n"
        f".thinking {{ color: {p.thinking}; font-style: italic; }}\n"
        "h1 { font-size: x-large; } h2 { font-size: large; } h3 { font-size: medium; }\n"
        f"blockquote {{ color: {p.muted}; }}\n"
    )
