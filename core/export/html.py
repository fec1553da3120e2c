"""Sessions as one self-contained HTML page that works offline.

The page holds a sidebar tree of the session (current path marked, click to switch branches, the
app's filter modes, search), the messages of the selected path (thinking and tool calls collapsible,
code highlighted with Pygments at export time), light and dark colours following the reader's
system, print styles and deep links (``#e-ENTRYID``).

Safety: every string from the session is escaped when the page is made; message Markdown is parsed
with raw HTML off and only ``http``, ``https`` and ``mailto`` links survive (a Markdown image becomes
a link, so nothing remote is ever loaded). Entry fragments and the tree travel in a JSON data island
with ``<``, ``>``, ``&`` and U+2028/2029 escaped, so no string can close the script element. A
Content-Security-Policy allows only the page's own style and script (by SHA-256 hash) and ``data:``
images: no request can leave the page and no injected script could run even if escaping failed.

The content is the Markdown export's (:class:`core.export.markdown.MarkdownRenderer`), rendered
through HTML primitives instead of Markdown ones.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import orjson

from core.body import message_text
from core.export.common import ExportOptions, ImageSink, metadata, paired, select_entries, wanted
from core.export.markdown import MarkdownRenderer
from core.render.preview import entry_preview, tool_call_preview
from core.session import Entry

if TYPE_CHECKING:
    from core.export.redact import Redactor
    from core.session import Session

__all__ = [
    "HtmlExport",
    "HtmlRenderer",
    "json_for_script",
    "markdown_to_html",
    "pygments_css",
    "session_to_html",
]

_HTML_SPECIAL = re.compile("[&<>\"'\x00]")
_PREVIEW_SOURCE = 600  # characters of a text a sidebar preview is made from
_MAX_HIGHLIGHT = 20_000  # characters; larger code blocks are shown escaped, without colours
# Characters Pygments colours per export, in the order they appear. Pygments manages about 0.3 MB/s,
# so the 20,000-message benchmark session (11 MB of code) would take 40 seconds; a session of a few
# hundred messages is coloured throughout. Past the budget, code is shown without colours.
HIGHLIGHT_BUDGET = 60_000
_SAFE_SCHEMES = ("http://", "https://", "mailto:")
# Inside <script type="application/json"> only "<" means anything to the HTML parser ("</script" ends
# the element, "<!--" changes how it ends), so "<" is the escape that matters; U+2028/2029 are escaped
# for JavaScript engines that once treated them as line ends. ">" and "&" are inert there and are left
# as they are: escaping them made the page 4 MB larger and the 20,000-message export 5% slower.
_JSON_ESCAPES = (
    (b"<", b"\\u003c"),
    ("\u2028".encode(), b"\\u2028"),
    ("\u2029".encode(), b"\\u2029"),
)
# Both separators in one pass (UTF-8 E2 80 A8 / E2 80 A9): two substring searches over the 37 MB island
# of the 20,000-message session took 60 ms, this one 14 ms, and it almost never finds anything.
_LINE_SEPARATORS = re.compile(b"\xe2\x80[\xa8\xa9]")
_EMPTY_JSON = b'""'  # the island's fragment of an entry the options leave out
_ROLE_CLASS = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "tool",
    "bashExecution": "bash",
    "custom": "custom",
    "hookMessage": "custom",
    "branchSummary": "summary",
    "compactionSummary": "summary",
}
_KIND_CLASS = {
    "compaction": "summary",
    "branch_summary": "summary",
    "custom": "custom",
    "custom_message": "custom",
}


@dataclass
class HtmlExport:
    """A rendered HTML export.

    Attributes:
        data: the page, UTF-8 (bytes all the way: a 50 MB page is not decoded and encoded again).
        images: files to write beside it (empty unless images go beside the export).
        entries: how many entries the page covers.
    """

    data: bytes
    images: ImageSink = field(default_factory=ImageSink)
    entries: int = 0

    @property
    def text(self) -> str:
        """The page as a string."""
        return self.data.decode("utf-8")


def entry_class(entry: Entry) -> str:
    """The CSS class of an entry: user, assistant, tool, bash, custom, summary or meta."""
    if entry.kind == "message":
        return _ROLE_CLASS.get(entry.role or "", "other")
    return _KIND_CLASS.get(entry.kind, "meta")


class HtmlRenderer(MarkdownRenderer):
    """The Markdown export's content with HTML primitives (everything from the session escaped)."""

    def __init__(
        self,
        options: ExportOptions,
        redactor: Redactor | None,
        images: ImageSink | None,
        labels: dict[str, str] | None = None,
        highlighter: Highlighter | None = None,
    ) -> None:
        super().__init__(options, redactor, images, labels)
        self.highlighter = highlighter or Highlighter()

    def esc(self, text: str) -> str:
        """Escaped text."""
        return _esc(text)

    def code(self, text: str) -> str:
        """``<code>``."""
        return f"<code>{_esc(text)}</code>"

    def block(self, text: str, language: str = "") -> str:
        """A highlighted ``<pre>`` block."""
        return self.highlighter.block(text, language)

    def bold(self, inner: str) -> str:
        """``<b>``."""
        return f"<b>{inner}</b>"

    def italic(self, inner: str) -> str:
        """``<em>``."""
        return f"<em>{inner}</em>"

    def para(self, inner: str) -> str:
        """``<p>``."""
        return f"<p>{inner}</p>"

    def markdown(self, text: str) -> str:
        """Message Markdown as safe HTML (raw HTML off, safe links only)."""
        return f'<div class="md">{_render_markdown(text, self.highlighter)}</div>'

    def image_ref(self, target: str, index: int) -> str:
        """An ``<img>``."""
        return f'<p><img class="shot" src="{_esc(target)}" alt="image {index + 1}" loading="lazy"></p>'

    def heading(self, role: str, entry: Entry, message: dict | None = None, extra: str = "") -> str:
        """``<h3>`` with the role, extra, time and a deep link."""
        parts = self.heading_parts(role, entry, message, extra)
        parts[0] = f"<b>{parts[0]}</b>"
        anchor = f'<a class="anchor" href="#e-{_esc(_url_id(entry.id))}" title="Link to this entry">#</a>'
        return f"<h3>{' · '.join(parts)}{anchor}</h3>"

    def thinking(self, block: dict) -> str:
        """A collapsed thinking block, its text shown as written (as the reference's export shows it).

        Reasoning is draft text; showing it verbatim keeps what the model wrote, and skipping Markdown
        here saves a third of the Markdown rendering of a large export.
        """
        text = block.get("thinking")
        text = text.replace("\r\n", "\n").strip("\n") if isinstance(text, str) else ""
        if not text.strip():
            return (
                self.quote("Thinking (redacted by the provider)", "") if block.get("redacted") is True else ""
            )
        return self.quote("Thinking", f'<div class="thinking-text">{_esc_text(text)}</div>')

    def quote(self, title: str, inner: str) -> str:
        """A collapsed ``<details>`` (thinking)."""
        return f'<details class="thinking"><summary>{_esc(title)}</summary>{inner}</details>'

    def tool_box(self, title: str, parts: list[str], error: bool) -> str:
        """An open ``<details>`` holding a tool call and its result."""
        css = "tool-call error" if error else "tool-call"
        body = "".join(parts)
        return (
            f'<details class="{css}" open><summary>{title}</summary><div class="body">{body}</div></details>'
        )

    def result_box(self, label: str, parts: list[str], error: bool) -> str:
        """A result under its label."""
        css = "result error" if error else "result"
        return f'<div class="{css}"><div class="label">{_esc(label)}</div>{"".join(parts)}</div>'

    def entry_box(self, entry: Entry, inner: str) -> str:
        """The ``<article>`` of one entry, its id the deep-link target."""
        return f'<article class="entry {entry_class(entry)}" id="e-{_esc(entry.id)}">{inner}</article>'


def session_to_html(
    session: Session,
    options: ExportOptions | None = None,
    *,
    leaf_id: str | None = None,
    whole_tree: bool = False,
    redactor: Redactor | None = None,
    image_folder: str = "images",
) -> HtmlExport:
    """Render a session (one path, or the whole tree with every branch) as a self-contained page.

    Args:
        session: the loaded session.
        options: what to include; the defaults when None.
        leaf_id: the path to show (root to this entry); the current leaf when None. With
            ``whole_tree`` it is the path shown first.
        whole_tree: put every branch into the page (the sidebar switches between them); otherwise
            only the entries of the one path are in the file.
        redactor: replaces secrets in every string taken from the session; None for none.
        image_folder: where images go, relative to the page, when ``options.images == "beside"``.

    Returns:
        The page and the image files to write beside it.
    """
    options = options or ExportOptions()
    entries = select_entries(session, leaf_id, whole_tree)
    if whole_tree:
        start = leaf_id if leaf_id is not None else session.leaf_id
        if start is None or session.get(start) is None:
            from core.errors import InvalidRequestError

            raise InvalidRequestError(f"There is no entry {start} in {session.path}.")
    else:
        start = entries[-1].id
    sink = ImageSink(image_folder) if options.images == "beside" else None
    renderer = HtmlRenderer(options, redactor, sink, session.labels)
    position = {entry.id: i for i, entry in enumerate(entries)}
    nodes: list[list[Any]] = [[]] * len(entries)
    # Each fragment goes into the data island as soon as it is rendered (see _island).
    fragments: list[bytes | str] = [_EMPTY_JSON] * len(entries)
    shown_under: dict[int, int] = {}
    labels = session.labels
    for entry, body, results in paired(entries, session.bodies(entries)):
        i = position[entry.id]
        keep = wanted(entry, options)
        if keep:
            fragments[i] = _json_text(renderer.entry(entry, body, results))
        nodes[i] = _node(entry, body, keep, position, labels, redactor)
        for result in (results or {}).values():
            # Handed over with its call, so not yielded on its own: it needs its own tree node.
            result_id = result.get("id")
            result_entry = session.get(result_id) if isinstance(result_id, str) else None
            if result_entry is not None and result_entry.id in position:
                j = position[result_entry.id]
                nodes[j] = _node(result_entry, result, keep and options.tools, position, labels, redactor)
                if keep:
                    shown_under[j] = i
    for i, node in enumerate(nodes):
        if not node:  # cannot happen (every entry is yielded or handed over); a stub keeps indexes valid
            nodes[i] = _node(entries[i], {}, False, position, labels, redactor)
    scope = "whole tree (every branch)" if whole_tree else f"path to entry {entries[-1].id}"
    meta = metadata(session, entries, redactor, scope, renderer.models)
    under = {str(k): v for k, v in shown_under.items()}
    island = _island(nodes, fragments, under, position[start])
    del nodes, fragments  # the island holds them now; the page need not be built beside them
    page = _page(meta.title, meta.rows, island, options.images == "beside")
    return HtmlExport(page, sink or ImageSink(image_folder), len(entries))


def _json_text(text: str) -> bytes | str:
    """``json_for_script(text)``; ``text`` itself when orjson refuses it (a lone surrogate, see _island)."""
    try:
        return _script_safe(orjson.dumps(text))
    except TypeError:
        return text


def _island(
    nodes: list[list[Any]], fragments: list[bytes | str], under: dict[str, int], leaf: int
) -> list[bytes]:
    """``json_for_script({"n": nodes, "h": fragments, "u": under, "leaf": leaf})``, in pieces to join.

    The fragments come already encoded (``_json_text``), which is what orjson would write for them
    inside the list: the page is then made by one join, where encoding the whole island at once made
    three copies of its 37 MB (JSON, escaped JSON, page), and the memory for each came fresh from the
    system. A fragment left as text (a lone surrogate) or nodes orjson refuses send the whole island
    the old way: json_for_script then escapes every non-ASCII character of it, not just of that text.
    """
    if not any(type(fragment) is str for fragment in fragments):
        try:
            head = _script_safe(orjson.dumps(nodes))
        except TypeError:
            pass
        else:
            pieces = [b'{"n":', head, b',"h":[']
            for fragment in fragments:
                pieces.append(fragment)  # type: ignore[arg-type]  # all bytes, checked above
                pieces.append(b",")
            if fragments:
                pieces.pop()
            tail = b'],"u":' + json_for_script(under) + b',"leaf":' + json_for_script(leaf) + b"}"
            pieces.append(tail)
            return pieces
    texts = [f if type(f) is str else orjson.loads(f) for f in fragments]
    return [json_for_script({"n": nodes, "h": texts, "u": under, "leaf": leaf})]


def _node(
    entry: Entry | None,
    body: dict,
    keep: bool,
    position: dict[str, int],
    labels: dict[str, str],
    redactor: Redactor | None,
) -> list[Any]:
    """``[parent index, class, preview, label, id, kind]``: one sidebar row (shown with textContent)."""
    if entry is None:
        return [-1, "meta", "", None, "", ""]
    parent = position.get(entry.parent_id, -1) if entry.parent_id is not None else -1
    if keep:
        preview = _quick_preview(entry, body) or entry_preview(entry, _clipped(body), 120)
        if redactor is not None:
            preview = redactor.text(preview)
    else:
        preview = f"[{entry.type or 'entry'}: left out]"
    label = labels.get(entry.id)
    if label and redactor is not None:
        label = redactor.text(label)
    return [parent, entry_class(entry), preview, label or None, entry.id, entry.kind]


def _quick_preview(entry: Entry, body: dict) -> str:
    """``entry_preview``'s line for user, assistant and tool-result messages, from their first characters.

    ``""`` for anything else (the caller then asks ``entry_preview``). ``entry_preview`` flattens whole
    texts before cutting them to one line; for the sidebar of a 20,000-entry page that was a sixth of
    the export's time.
    """
    role = entry.role
    if role not in ("user", "assistant", "toolResult"):
        return ""
    message = body.get("message")
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    if role == "user":
        return _one_line("user: " + _text_start(content)) if isinstance(content, str | list) else ""
    if role == "toolResult":
        name = message.get("toolName", "tool")
        mark = " error" if message.get("isError") else ""
        return _one_line(f"[{name}{mark}] {_text_start(content)}")
    if not isinstance(content, list):
        return ""
    text = _text_start(content)
    calls = [
        tool_call_preview(b.get("name"), b.get("arguments"))
        for b in content
        if isinstance(b, dict) and b.get("type") == "toolCall"
    ]
    if not text and not calls:
        return ""  # aborted, failed, thinking only or empty: entry_preview words these
    shown = text or "; ".join(calls)
    if text and calls:
        shown += " → " + "; ".join(calls)
    return _one_line(f"assistant: {shown}")


def _text_start(content: object) -> str:
    """The start of ``message_text(content)``: enough for a one-line preview."""
    if isinstance(content, str):
        return content[:_PREVIEW_SOURCE]
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    size = 0
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if not isinstance(text, str):
                return message_text(content)[:_PREVIEW_SOURCE]  # odd values: let message_text word them
            parts.append(text[:_PREVIEW_SOURCE])
            size += len(parts[-1])
            if size >= _PREVIEW_SOURCE:
                break
    return " ".join(parts)


def _one_line(text: str, width: int = 120) -> str:
    # Flattening the start of a text gives the start of the flattened text, so when twice the width
    # already flattens to more than the width, the rest is never split (two thirds of the sidebar's
    # time went to splitting the 600 characters _text_start keeps).
    if len(text) > 2 * width:
        start = " ".join(text[: 2 * width].split())
        if len(start) > width:
            return start[: width - 1] + "…"
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _clipped(body: dict) -> dict:
    """A body whose long texts are cut to what a one-line preview can show.

    ``entry_preview`` flattens the whole text before cutting it to 120 characters; on tool outputs of
    hundreds of kilobytes that is most of the cost of the sidebar.
    """
    message = body.get("message")
    source = message if isinstance(message, dict) else body
    clipped = dict(source)
    for key in ("output", "summary", "command"):
        value = clipped.get(key)
        if isinstance(value, str) and len(value) > _PREVIEW_SOURCE:
            clipped[key] = value[:_PREVIEW_SOURCE]
    content = clipped.get("content")
    if isinstance(content, str) and len(content) > _PREVIEW_SOURCE:
        clipped["content"] = content[:_PREVIEW_SOURCE]
    elif isinstance(content, list):
        clipped["content"] = [
            {**b, "text": b["text"][:_PREVIEW_SOURCE]}
            if isinstance(b, dict) and isinstance(b.get("text"), str) and len(b["text"]) > _PREVIEW_SOURCE
            else b
            for b in content
        ]
    return {**body, "message": clipped} if isinstance(message, dict) else clipped


def _page(title: str, rows: list[tuple[str, str]], island: list[bytes], images_beside: bool) -> bytes:
    """The whole document: CSP, style, metadata header, sidebar, the data island and the script."""
    css, js = _assets()
    pygments_css = _pygments_css()
    img = "data: 'self' file:" if images_beside else "data:"
    csp = (
        f"default-src 'none'; script-src '{_sha256(js)}'; "
        f"style-src '{_sha256(css)}' '{_sha256(pygments_css)}'; img-src {img}; "
        "base-uri 'none'; form-action 'none'"
    )
    table = "".join(f"<tr><th>{_esc(label)}</th><td>{_esc(value)}</td></tr>" for label, value in rows)
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
        f"<title>{_esc(title)}</title>\n"
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
        f"<h1>{_esc(title)}</h1>\n"
        f'<table class="meta">{table}</table>\n'
        "<noscript><p>This page needs JavaScript to show the conversation.</p></noscript>\n"
        "</header>\n"
        '<div id="messages"><div id="more" hidden>More messages load as you scroll…</div></div>\n'
        "</main>\n</div>\n"
        '<script type="application/json" id="session-data">'
    ).encode("utf-8", "backslashreplace")
    tail = f"</script>\n<script>{js}</script>\n</body>\n</html>\n".encode()
    return b"".join([head, *island, tail])  # one copy of the 40 MB page; "a + island + b" made two


@lru_cache(maxsize=1)
def _assets() -> tuple[str, str]:
    """The page's stylesheet and script (package files ``core/export/assets/page.css`` and ``page.js``)."""
    folder = resources.files("core") / "export/assets"
    return (folder / "page.css").read_text("utf-8"), (folder / "page.js").read_text("utf-8")


def json_for_script(value: object) -> bytes:
    r"""UTF-8 JSON that is safe inside ``<script type="application/json">``.

    Every ``<`` becomes ``\\u003c`` (so no string can close the element or open a comment), and
    U+2028/2029 are escaped too (see ``_JSON_ESCAPES``). On bytes: a ``str`` holding one emoji takes four
    bytes per character, and replacing in it is slower.
    """
    try:
        data = orjson.dumps(value)
    except TypeError:  # a lone surrogate (from a "\ud800" escape in the file) is no UTF-8: escape it
        data = json.dumps(value, ensure_ascii=True).encode("ascii")
    return _script_safe(data)


def _script_safe(data: bytes) -> bytes:
    """JSON with ``<`` and U+2028/2029 escaped (see ``_JSON_ESCAPES``)."""
    data = data.replace(b"<", b"\\u003c")
    if _LINE_SEPARATORS.search(data) is not None:
        for char, escape in _JSON_ESCAPES[1:]:
            data = data.replace(char, escape)
    return data


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


# ---------------------------------------------------------------------------------------------- pieces


def _esc(text: str) -> str:
    # Most strings escaped here (roles, times, models, ids) hold nothing to escape: one C-level search
    # is cheaper than html.escape's five replace passes, on 100,000 calls per large export.
    if _HTML_SPECIAL.search(text) is None:
        return text
    return html.escape(text, quote=True).replace("\x00", "\ufffd")


def _esc_text(text: str) -> str:
    """Escape element text (quotes need no escaping outside attributes)."""
    return html.escape(text, quote=False).replace("\x00", "\ufffd")


def _url_id(entry_id: str) -> str:
    if entry_id.isalnum() and entry_id.isascii():
        return entry_id  # the usual 8-hex id needs no quoting
    from urllib.parse import quote

    return quote(entry_id, safe="")


class Highlighter:
    """Turns code into ``<pre>`` blocks, coloured by Pygments until a budget of characters is spent.

    Attributes:
        budget: characters that may still be coloured.
    """

    def __init__(self, budget: int = HIGHLIGHT_BUDGET) -> None:
        self.budget = budget

    def block(self, text: str, language: str = "") -> str:
        """A ``<pre>`` block, highlighted (CSS classes under ``.hl``) when the language is known."""
        if text.endswith("\n"):
            text = text[:-1]
        lexer = None
        if language and len(text) <= min(_MAX_HIGHLIGHT, self.budget):
            lexer = _lexer(language.lower())
        if lexer is None:
            # Element text, not an attribute: quotes need no escaping (two fewer passes over the code).
            return f"<pre><code>{_esc_text(text)}</code></pre>"
        from pygments import highlight

        self.budget -= len(text)
        inner = highlight(text, lexer, _formatter())
        if inner.endswith("\n"):
            inner = inner[:-1]
        return f'<pre class="hl"><code>{inner}</code></pre>'

    def escaped_block(self, escaped: str, language: str = "") -> str:
        """:meth:`block` for code cmark has escaped (``&amp; &lt; &gt; &quot;``, ``<`` as ``_LT``).

        Code that will not be coloured keeps cmark's escaping (quotes put back: element text leaves
        them as they are) instead of being unescaped and escaped again; ``_LT`` becomes ``&lt;`` with
        the rest of the fragment.
        """
        # Each entity stands for one character and is at most six long: a lower bound of the length
        # of the unescaped text (without a final newline), enough to rule out most blocks.
        least = len(escaped) - 1 - 5 * escaped.count("&")
        if language and least <= min(_MAX_HIGHLIGHT, self.budget):
            return self.block(html.unescape(escaped.replace(_LT, "<")), language)
        if escaped.endswith("\n"):
            escaped = escaped[:-1]
        return "<pre><code>" + escaped.replace("&quot;", '"') + "</code></pre>"


@lru_cache(maxsize=1)
def _formatter() -> Any:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


@lru_cache(maxsize=256)
def _lexer(name: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    if not name or len(name) > 40 or name == "text":
        return None
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def markdown_to_html(text: str, highlighter: Highlighter | None = None) -> str:
    """Markdown as safe HTML: raw HTML off, only http(s)/mailto links, code highlighted (``.hl`` classes).

    Args:
        text: CommonMark with GFM tables and strikethrough.
        highlighter: colours code blocks (and counts down its budget); a fresh one when None.

    Returns:
        An HTML fragment in which every character of ``text`` is escaped or Markdown markup.
    """
    return _render_markdown(text, highlighter or Highlighter())


def pygments_css(dark: bool | None = None) -> str:
    """The stylesheet for highlighted code: light, dark, or (None) both with a prefers-color-scheme switch."""
    if dark is None:
        return _pygments_css()
    return _pygments_style("github-dark" if dark else "default")


@lru_cache(maxsize=2)
def _pygments_style(style: str) -> str:
    from pygments.formatters import HtmlFormatter

    # The style's own background would fight the page's code background.
    return re.sub(r"^\.hl\s*\{[^}]*\}\n?", "", HtmlFormatter(style=style).get_style_defs(".hl"), flags=re.M)


@lru_cache(maxsize=1)
def _pygments_css() -> str:
    """Pygments colours for ``.hl``: the default style, and github-dark for readers in dark mode."""
    light, dark = _pygments_style("default"), _pygments_style("github-dark")
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"


# Markdown is rendered by GitHub's cmark-gfm (C): markdown-it-py, pure Python, spent 15 of 20 seconds on
# the 20,000-message benchmark session. cmark's safe mode drops raw HTML instead of showing it, so every
# "<" is swapped for a private-use character before parsing (no raw HTML can exist then) and turned
# back into "&lt;" afterwards: tags in a message show as the text they are, as the app shows them.
_LT = "\ue000"
# GitHub's extensions but autolink (a third of the parse time; <https://...> autolinks still work),
# tagfilter (no raw HTML reaches cmark) and tasklist (no form inputs).
_EXTENSIONS = ("table", "strikethrough")
_PRE_OPEN = re.compile(r'<pre(?: lang="([^"]*)")?><code>')
_PRE_CLOSE = "</code></pre>"
_IMG = re.compile(r'<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? />')
# Where "<" is Markdown, not HTML, it is put back: a link destination in angle brackets, an autolink.
_KEEP_LT = re.compile(r"(?<=\]\()\ue000(?=[^\ue000>\n]*>)|\ue000(?=(?:https?://|mailto:)[^\ue000>\s]*>)")
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$")
_LINK = re.compile(r'<a href="([^"]*)"((?: title="[^"]*")?)>')


def _render_markdown(text: str, highlighter: Highlighter) -> str:
    """GFM to HTML: no raw HTML, links only to http(s)/mailto, images as links, code highlighted."""
    from cmarkgfm.cmark import Options

    source = text.replace(_LT, "\ufffd").replace("\x00", "\ufffd")
    if "<" in source:
        source = source.replace("<", _LT)  # one pass in C; the rare Markdown uses are put back below
        if "](" + _LT in source or _LT + "http" in source or _LT + "mailto:" in source:
            source = _KEEP_LT.sub("<", source)
    options = Options.CMARK_OPT_HARDBREAKS | Options.CMARK_OPT_GITHUB_PRE_LANG
    try:
        out = _cmark(source, options)
    except UnicodeEncodeError:  # a lone surrogate: cmark takes UTF-8 only
        out = _cmark(source.encode("utf-8", "replace").decode("utf-8"), options)
    # Links and images need a "]" in the source ([text](url), [ref], ![alt]...) or an autolink's "<"
    # (the only "<" left in it): without either, the two searches of the output are skipped.
    if "]" in source or "<" in source:
        if "<img" in out:
            out = _IMG.sub(_image_as_link, out)
        if "<a " in out:
            out = _LINK.sub(_safe_link, out)
    return _code_blocks(out, highlighter).replace(_LT, "&lt;")


def _code_blocks(out: str, highlighter: Highlighter) -> str:
    """The ``<pre><code>`` blocks of cmark's ``out`` replaced by the highlighter's.

    Found with ``str.find`` rather than one regular expression: a lazy ``(.*?)</code></pre>`` stepped
    through every block a character at a time (55 ms of the 20,000-message export). Code inside a
    block is escaped, so its first ``</code></pre>`` ends it, as the expression's shortest match did.
    """
    start = out.find("<pre")
    if start < 0:
        return out
    pieces = []
    done = 0
    while start >= 0:
        opening = _PRE_OPEN.match(out, start)
        if opening is None:
            start = out.find("<pre", start + 1)
            continue
        end = out.find(_PRE_CLOSE, opening.end())
        if end < 0:
            break
        pieces.append(out[done:start])
        language = html.unescape(opening.group(1) or "")
        pieces.append(highlighter.escaped_block(out[opening.end() : end], language))
        done = end + len(_PRE_CLOSE)
        start = out.find("<pre", done)
    pieces.append(out[done:])
    return "".join(pieces)


@lru_cache(maxsize=1)
def _cmark_extensions() -> list[Any]:
    from cmarkgfm import cmark

    cmark.core_extensions_ensure_registered()
    return [cmark.find_syntax_extension(name) for name in _EXTENSIONS]


def _cmark(text: str, options: int) -> str:
    """cmark-gfm with our extensions, looked up once (not on every call, as the library does).

    The bindings never free the parsed tree nor the rendered string (about 40 MB for every MB of
    Markdown with tables): the app exports again and again in one process, so both are freed here
    through the library's own ``cmark_node_free`` and allocator.
    """
    from cmarkgfm import cmark

    ffi, lib = cmark._cmark.ffi, cmark._cmark.lib
    parser = cmark.parser_new(options)
    try:
        for extension in _cmark_extensions():
            cmark.parser_attach_syntax_extension(parser, extension)
        cmark.parser_feed(parser, text)
        root = cmark.parser_finish(parser)
        try:
            raw = lib.cmark_render_html(root, options, cmark.parser_get_syntax_extensions(parser))
            try:
                return ffi.string(raw).decode("utf-8")
            finally:
                _cmark_free("string", int(ffi.cast("uintptr_t", raw)))
        finally:
            _cmark_free("node", int(ffi.cast("uintptr_t", root)))
    finally:
        cmark.parser_free(parser)


def _cmark_free(what: str, address: int) -> None:
    """Free a tree (``node``) or a rendered string (``string``) that cmark-gfm handed over."""
    freeing = _cmark_freeing()
    if freeing is not None and address:
        freeing[0 if what == "node" else 1](address)


@lru_cache(maxsize=1)
def _cmark_freeing() -> tuple[Any, Any] | None:
    """``cmark_node_free`` and the default allocator's ``free``, from the loaded library (ctypes).

    cffi's ``lib`` of cmarkgfm does not expose them, but the shared library exports both; dlopen of
    the same file returns the library already loaded. None (a leak, as before) when that fails.
    """
    import ctypes

    from cmarkgfm import _cmark as compiled

    class Allocator(ctypes.Structure):
        _fields_ = (
            ("calloc", ctypes.c_void_p),
            ("realloc", ctypes.c_void_p),
            ("free", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
        )

    try:
        library = ctypes.CDLL(compiled.__file__)
        node_free = library.cmark_node_free
        allocator = library.cmark_get_default_mem_allocator
    except (OSError, AttributeError):
        return None
    node_free.argtypes = (ctypes.c_void_p,)
    node_free.restype = None
    allocator.argtypes = ()
    allocator.restype = ctypes.POINTER(Allocator)
    return node_free, allocator().contents.free


def _image_as_link(match: re.Match[str]) -> str:
    # A Markdown image never loads from anywhere (the policy would refuse it anyway): it becomes a link,
    # or its text. Only inline data of an image type stays an image (the PDF's images come this way).
    src, alt = match.group(1), match.group(2)
    if _DATA_IMAGE.match(src):
        return match.group(0)
    label = f"[image: {alt}]" if alt else "[image]"
    if src.lower().startswith(("http://", "https://")):
        return f'<a href="{src}" rel="noopener noreferrer nofollow">{label}</a>'
    return label


def _safe_link(match: re.Match[str]) -> str:
    href = html.unescape(match.group(1)).replace(_LT, "<").strip().lower()
    if href.startswith(_SAFE_SCHEMES):
        return f'<a href="{match.group(1)}"{match.group(2)} rel="noopener noreferrer nofollow">'
    return '<a class="unsafe-link">'  # the text stays, the target goes
