"""HTML fragments of session entries, for Qt's rich-text viewer (``QTextBrowser``).

Everything here is a pure function of the entry and the options: no Qt, no file access beyond the
:class:`~core.session.session.Session` methods a caller hands in. The output is the HTML 4 subset that
``QTextDocument`` understands (tables, ``div``/``span``/``pre``, inline colours); there is no
JavaScript and no ``<details>``, so a collapsed block is a link the caller answers by rendering again
with the block's key added to :attr:`RenderOptions.expanded`.

Safety: every string from the session is escaped. Markdown is parsed with raw HTML disabled; only
``http``, ``https`` and ``mailto`` links stay clickable, and a markdown image never becomes an
``<img>`` (it is shown as a link), so rendering never loads a remote resource. Session images are
referenced as ``image:ENTRYID/INDEX`` and decoded on demand with :func:`image_bytes`.

Links a caller must answer:

* ``action:toggle/KEY``: flip ``KEY`` in :attr:`RenderOptions.expanded` and render again
  (:func:`parse_action` splits it).
* ``image:ENTRYID/INDEX``: the INDEX-th image block of that entry (:func:`parse_image_src`,
  :func:`image_bytes`).
* ``http(s):``/``mailto:`` links: open them outside the app, if at all.

Entries are anchored by id (``<a name="ENTRYID">``) for ``QTextBrowser.scrollToAnchor``; a tool
result shown under its call carries its own id as an anchor inside the call's box.
"""

from __future__ import annotations

import html
import json
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from core.formatting import short_cost, short_tokens
from core.render.images import decode_image, image_size
from core.session import Entry

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from core.session import Session

_MAX_IMAGE_WIDTH = 480  # px; larger images are scaled down in the view
_MAX_MARKDOWN_CHARS = 200_000  # one text block; more is cut with a note
_MAX_CODE_LINES = 400  # one fenced code block
_MAX_CODE_CHARS = 60_000
_COLLAPSED_CHARS = 4_000  # a collapsed output shows at most this much, whatever its line count
_MAX_EXPANDED_CHARS = 400_000  # an expanded output shows at most this much
_MAX_RAW_JSON = 4_000  # the generic view of an unknown entry or block
_MAX_ARGS_LINES = 40  # the JSON arguments of a tool without a dedicated view
_MAX_COMMAND_CHARS = 4_000
_RESULT_SEARCH_LIMIT = 256  # entries looked at after an assistant message for its tool results
_SAFE_SCHEMES = ("http://", "https://", "mailto:")
_WHITESPACE_SPAN = re.compile(r'<span style="[^"<>]*">([ \t]+)</span>')


@dataclass(frozen=True)
class RenderOptions:
    """How entries are rendered.

    Attributes:
        expanded: keys (see :func:`block_key`) of the collapsible blocks shown in full.
        show_thinking: False leaves thinking blocks out entirely.
        show_tools: False shows each tool call as one line, without its arguments or result.
        max_result_lines: tool outputs longer than this are collapsed to their first lines.
        dark: use the dark colour palette.
    """

    expanded: frozenset[str] = frozenset()
    show_thinking: bool = True
    show_tools: bool = True
    max_result_lines: int = 20
    dark: bool = False


@dataclass(frozen=True)
class _Palette:
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


_LIGHT = _Palette(
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
_DARK = _Palette(
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


# ---------------------------------------------------------------------------------------------- public


def stylesheet(dark: bool) -> str:
    """CSS for ``QTextDocument.setDefaultStyleSheet``, matching the palette of the rendered HTML.

    Args:
        dark: the dark palette instead of the light one.

    Returns:
        A stylesheet in the CSS subset Qt's rich text understands.
    """
    p = _DARK if dark else _LIGHT
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
    )


def block_key(entry_id: str, kind: str, index: int | None = None) -> str:
    """The key of a collapsible block, as used in :attr:`RenderOptions.expanded` and toggle links.

    Args:
        entry_id: the entry the block belongs to.
        kind: ``"thinking"`` (a thinking block), ``"tool"`` (a tool call and its result), ``"result"``
            (a tool result rendered alone) or ``"output"`` (a bashExecution's output).
        index: the block's position in the message content (thinking and tool blocks).

    Returns:
        ``ENTRYID/KIND`` or ``ENTRYID/KIND/INDEX``.
    """
    return f"{entry_id}/{kind}" if index is None else f"{entry_id}/{kind}/{index}"


def parse_action(href: str) -> tuple[str, str] | None:
    """Split an ``action:VERB/KEY`` link into ``(verb, key)``; None for any other link.

    Args:
        href: the clicked link, as a string.

    Returns:
        For example ``("toggle", "a1b2c3d4/thinking/0")``.
    """
    if not href.startswith("action:"):
        return None
    verb, _, key = href[len("action:") :].partition("/")
    return (verb, unquote(key)) if verb and key else None


def parse_image_src(src: str) -> tuple[str, int] | None:
    """Split an ``image:ENTRYID/INDEX`` source into ``(entry id, index)``; None for anything else.

    Args:
        src: the image source the document asks for.

    Returns:
        The entry id and the index to pass to :func:`image_bytes` with that entry's body.
    """
    if not src.startswith("image:"):
        return None
    entry_id, _, index = src[len("image:") :].rpartition("/")
    if not entry_id or not index.isdigit():
        return None
    return unquote(entry_id), int(index)


def image_bytes(body: dict, index: int) -> tuple[bytes, str] | None:
    """Decode the INDEX-th image block of an entry body.

    Args:
        body: an entry body (a message entry's image blocks are in ``message.content``, a
            custom_message's in ``content``).
        index: which image block, counting image blocks only, from 0.

    Returns:
        ``(data, mime type)`` with the type taken from the bytes themselves, or None when there is no
        such block, its declared type is not an allowed image type (png, jpeg, gif, webp), its base64
        is invalid or the bytes are not such an image.
    """
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        return None
    images = [b for b in content_blocks(_content_of(body)) if b.get("type") == "image"]
    if index >= len(images):
        return None
    return decode_image(images[index])


def render_entry(
    entry: Entry,
    body: dict,
    results: dict[str, dict] | None = None,
    options: RenderOptions | None = None,
) -> str:
    """Render one entry as an HTML fragment.

    Args:
        entry: the entry's index record.
        body: the full entry (``Session.body(entry)``).
        results: for an assistant message, toolCallId -> the body of the toolResult entry that
            answers it (see :func:`tool_results_for`); each call is shown together with its result.
            None when the caller did not look; ``{}`` when it looked and found none (calls are then
            marked as having no result).
        options: what to show; the defaults when None.

    Returns:
        HTML for ``QTextBrowser``; every string from the session escaped.
    """
    options = options or RenderOptions()
    pal = _DARK if options.dark else _LIGHT
    r = _Renderer(entry, body if isinstance(body, dict) else {}, options, pal)
    try:
        inner = r.render(results)
    except RecursionError:  # a pathologically nested markdown or JSON value
        inner = r.generic(entry.type or "entry")
    return f'<div class="entry" style="color:{pal.text}"><a name="{_esc(entry.id)}"></a>{inner}</div>\n'


def tool_results_for(session: Session, entry: Entry) -> dict[str, dict]:
    """Find the toolResult entries that answer the tool calls of an assistant entry.

    The entries after it are searched breadth-first through its descendants (children in display
    order, so the first branch wins), not beyond the next assistant message and not beyond
    a few hundred entries.

    Args:
        session: the loaded session.
        entry: an assistant message entry (anything else gives ``{}``).

    Returns:
        toolCallId -> the toolResult entry body, for every call a result was found for.
    """
    if entry.kind != "message" or entry.role != "assistant":
        return {}
    call_ids = _call_ids(session.body(entry))
    if not call_ids:
        return {}
    children_of = session.tree.children_of
    candidates: list[Entry] = []
    queue = deque(children_of(entry.id))
    seen = 0
    while queue and seen < _RESULT_SEARCH_LIMIT:
        current = queue.popleft()
        seen += 1
        if current.kind == "message" and current.role == "assistant":
            continue
        if current.kind == "message" and current.role == "toolResult":
            candidates.append(current)
        queue.extend(children_of(current.id))
    found: dict[str, dict] = {}
    if not candidates:
        return found
    for body in session.bodies(candidates):
        call_id = _dict(body.get("message")).get("toolCallId")
        if isinstance(call_id, str) and call_id in call_ids and call_id not in found:
            found[call_id] = body
    return found


def render_entries(session: Session, entries: Iterable[Entry], options: RenderOptions | None = None) -> str:
    """Render several entries (normally a stretch of one path) as one HTML fragment.

    Tool calls are shown with their results; a toolResult entry shown under its call is not rendered
    again on its own. A result that belongs to a call before the first entry given is left out too
    (the stretch before shows it), and the calls of the last assistant message look for results past
    the last entry given, so a path rendered in consecutive windows shows every result exactly once.

    Args:
        session: the session the entries belong to.
        entries: the entries, in order.
        options: what to show; the defaults when None.

    Returns:
        The concatenated fragments of :func:`render_entry`.
    """
    items = list(entries)
    if not items:
        return ""
    bodies = list(session.bodies(items))
    is_assistant = [e.kind == "message" and e.role == "assistant" for e in items]
    is_result = [e.kind == "message" and e.role == "toolResult" for e in items]
    results: dict[int, dict[str, dict]] = {}
    shown_under_call: set[int] = set()
    last_assistant = max((i for i, a in enumerate(is_assistant) if a), default=-1)
    for i, assistant in enumerate(is_assistant):
        if not assistant:
            continue
        call_ids = _call_ids(bodies[i])
        found: dict[str, dict] = {}
        j = i + 1
        while j < len(items) and not is_assistant[j]:
            if is_result[j]:
                call_id = _dict(bodies[j].get("message")).get("toolCallId")
                if isinstance(call_id, str) and call_id in call_ids and call_id not in found:
                    found[call_id] = bodies[j]
                    shown_under_call.add(j)
            j += 1
        if i == last_assistant and len(found) < len(call_ids) and j == len(items):
            for call_id, body in tool_results_for(session, items[i]).items():
                found.setdefault(call_id, body)
        results[i] = found
    first_assistant = is_assistant.index(True) if True in is_assistant else len(items)
    owner_calls: dict[str, set[str]] = {}
    for i in range(first_assistant):
        if is_result[i] and _answered_before(session, items[i], bodies[i], owner_calls):
            shown_under_call.add(i)
    return "".join(
        render_entry(entry, bodies[i], results.get(i), options)
        for i, entry in enumerate(items)
        if i not in shown_under_call
    )


# ---------------------------------------------------------------------------------------------- renderer


class _Renderer:
    """Renders one entry; holds what every helper needs (entry, body, options, palette)."""

    def __init__(self, entry: Entry, body: dict, options: RenderOptions, pal: _Palette) -> None:
        self.entry = entry
        self.body = body
        self.options = options
        self.pal = pal

    # ----------------------------------------------------------------- dispatch
    def render(self, results: dict[str, dict] | None) -> str:
        kind = self.entry.kind
        body = self.body
        if kind == "message":
            message = body.get("message")
            if not isinstance(message, dict):
                return self.generic("message")
            role = message.get("role")
            if role == "user":
                return self.user(message)
            if role == "assistant":
                return self.assistant(message, results)
            if role == "toolResult":
                return self.tool_result(message)
            if role == "bashExecution":
                return self.bash_execution(message)
            if role in ("custom", "hookMessage"):
                return self.custom_message(message, "Extension message")
            if role == "branchSummary":
                return self.branch_summary(message)
            if role == "compactionSummary":
                return self.compaction(message)
            return self.generic(f"message {role}" if isinstance(role, str) else "message")
        if kind == "compaction":
            return self.compaction(body)
        if kind == "branch_summary":
            return self.branch_summary(body)
        if kind == "custom_message":
            return self.custom_message(body, "Extension message")
        if kind == "custom":
            return self.custom(body)
        if kind == "model_change":
            model = f"{_text(body.get('provider'))}/{_text(body.get('modelId'))}"
            return self.line(f"Switched to model <b>{_esc(model)}</b>")
        if kind == "thinking_level_change":
            return self.line(f"Thinking level: <b>{_esc(_text(body.get('thinkingLevel')))}</b>")
        if kind == "service_tier_change":
            return self.line(f"Service tier: <b>{_esc(_text(body.get('serviceTier')))}</b>")
        if kind == "label":
            target = f"<code>{_esc(_text(body.get('targetId')))}</code>"
            label = body.get("label")
            if isinstance(label, str) and label:
                return self.line(f"Label <b>{_esc(label)}</b> set on {target}")
            return self.line(f"Label cleared on {target}")
        if kind == "session_info":
            name = body.get("name")
            if isinstance(name, str) and name.strip():
                return self.line(f"Session named <b>{_esc(name.strip())}</b>")
            return self.line("Session name cleared")
        return self.generic(self.entry.type or "entry")

    # ----------------------------------------------------------------- pieces
    def header(self, role: str, extras: Iterable[str] = (), moment: object = None) -> str:
        """The small line above a message: role, extras (already HTML), local time and date."""
        parts = [f'<b style="color:{self.pal.text}">{_esc(role)}</b>', *extras]
        when = _time_html(moment if _number(moment) is not None else self.entry.ts_ms)
        if when:
            parts.append(when)
        return f'<p class="hdr" style="color:{self.pal.muted}"><small>{" · ".join(parts)}</small></p>'

    def line(self, inner: str) -> str:
        """A one-line bookkeeping entry (model change, label...) with its time."""
        when = _time_html(self.entry.ts_ms)
        tail = f" <small>· {when}</small>" if when else ""
        return f'<p class="muted" style="color:{self.pal.muted}">{inner}{tail}</p>'

    def box(self, inner: str, background: str) -> str:
        return (
            f'<table width="100%" border="0" cellspacing="0" cellpadding="6" '
            f'style="background-color:{background}; margin-top:4px; margin-bottom:4px">'
            f"<tr><td>{inner}</td></tr></table>"
        )

    def badge(self, text: str, color: str | None = None, background: str | None = None) -> str:
        style = f"color:{color or self.pal.text}; background-color:{background or self.pal.badge_bg}"
        return f'<span style="{style}">&nbsp;{_esc(text)}&nbsp;</span>'

    def toggle(self, key: str, label: str) -> str:
        return f'<a href="action:toggle/{_esc(quote(key, safe="/"))}">{_esc(label)}</a>'

    def markdown(self, text: str) -> str:
        note = ""
        if len(text) > _MAX_MARKDOWN_CHARS:
            note = self.note(f"(text cut: {len(text) - _MAX_MARKDOWN_CHARS:,} more characters not shown)")
            text = text[:_MAX_MARKDOWN_CHARS]
        return _markdown(self.options.dark).render(text, {}) + note

    def note(self, text: str, color: str | None = None) -> str:
        return f'<p style="color:{color or self.pal.muted}"><small>{_esc(text)}</small></p>'

    def pre(self, text: str, color: str | None = None) -> str:
        style = f' style="color:{color}"' if color else ""
        return f"<pre{style}>{_esc(text)}</pre>"

    def image(self, entry_id: object, index: int, block: dict) -> str:
        decoded = decode_image(block)
        mime = _text(block.get("mimeType")) or "unknown type"
        if decoded is None or not isinstance(entry_id, str):
            return self.note(f"[image ({mime}): not shown, the data is invalid or not an allowed image type]")
        data, _mime = decoded
        size = image_size(data)
        if size is None:
            dims = f'width="{_MAX_IMAGE_WIDTH}"'
        else:
            width, height = size
            if width > _MAX_IMAGE_WIDTH:
                height = max(1, round(height * _MAX_IMAGE_WIDTH / width))
                width = _MAX_IMAGE_WIDTH
            dims = f'width="{width}" height="{height}"'
        src = f"image:{quote(entry_id, safe='')}/{index}"
        return f'<p><img src="{_esc(src)}" {dims}></p>'

    def content(self, content: object, entry_id: object) -> str:
        """Text blocks as markdown and image blocks as image references, in order."""
        out = []
        image_index = 0
        for block in content_blocks(content):
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str) and text:
                    out.append(self.markdown(text))
            elif kind == "image":
                out.append(self.image(entry_id, image_index, block))
                image_index += 1
            else:
                out.append(self.raw_block(block))
        return "".join(out)

    def raw_block(self, block: dict) -> str:
        label = block.get("type")
        name = label if isinstance(label, str) else "block"
        return f'<p class="muted" style="color:{self.pal.muted}">[{_esc(name)}]</p>' + self.pre(
            _json_excerpt(block, _MAX_RAW_JSON), self.pal.muted
        )

    def clipped(self, text: str, key: str) -> tuple[str, str]:
        """Cut an output to the collapsed size unless ``key`` is expanded; returns (text, footer HTML)."""
        limit = max(1, self.options.max_result_lines)
        if text.endswith("\n"):
            text = text[:-1]
        line_count = text.count("\n") + 1
        collapsible = line_count > limit or len(text) > _COLLAPSED_CHARS
        if not collapsible:
            return text, ""
        if key in self.options.expanded:
            footer = ""
            if len(text) > _MAX_EXPANDED_CHARS:
                footer = self.note(f"({len(text) - _MAX_EXPANDED_CHARS:,} more characters not shown)")
                text = text[:_MAX_EXPANDED_CHARS]
            link = self.toggle(key, "show less")
            return text, footer + f"<p><small>{link}</small></p>"
        shown = text
        if line_count > limit:
            shown = "\n".join(text.split("\n", limit)[:limit])
        if len(shown) > _COLLAPSED_CHARS:
            shown = shown[:_COLLAPSED_CHARS]
        hidden_lines = line_count - (shown.count("\n") + 1)
        if hidden_lines > 0:
            label = f"… {hidden_lines:,} more line{'s' if hidden_lines != 1 else ''} (show all)"
        else:
            label = f"… {len(text) - len(shown):,} more characters (show all)"
        return shown, f"<p><small>{self.toggle(key, label)}</small></p>"

    def output(self, text: str, key: str, color: str | None = None) -> str:
        shown, footer = self.clipped(text, key)
        return self.pre(shown, color) + footer

    def code(self, text: str, key: str, path: str) -> str:
        """An output highlighted by the file's extension (read, write), clipped like any output."""
        shown, footer = self.clipped(text, key)
        if len(shown) > _MAX_CODE_CHARS or shown.count("\n") >= _MAX_CODE_LINES:
            return self.pre(shown) + footer  # expanded and large: all of it, without colours
        return _code_html(shown, None, self.pal, path) + footer

    def diff(self, diff: str, key: str) -> str:
        shown, footer = self.clipped(diff, key)
        pal = self.pal
        lines = []
        for line in shown.split("\n"):
            if line.startswith("@@"):
                lines.append(f'<span style="color:{pal.muted}">{_esc(line)}</span>')
            elif line.startswith(("+++", "---")):
                lines.append(f'<span style="color:{pal.muted}"><b>{_esc(line)}</b></span>')
            elif line.startswith("+"):
                lines.append(
                    f'<span style="color:{pal.add}; background-color:{pal.add_bg}">{_esc(line)}</span>'
                )
            elif line.startswith("-"):
                lines.append(
                    f'<span style="color:{pal.delete}; background-color:{pal.delete_bg}">{_esc(line)}</span>'
                )
            else:
                lines.append(_esc(line))
        return '<pre class="diff">' + "\n".join(lines) + "</pre>" + footer

    def generic(self, type_name: str) -> str:
        when = _time_html(self.entry.ts_ms)
        tail = f" <small>· {when}</small>" if when else ""
        return (
            f'<p class="muted" style="color:{self.pal.muted}"><b>[{_esc(type_name)}]</b>{tail}</p>'
            + self.pre(_json_excerpt(self.body, _MAX_RAW_JSON), self.pal.muted)
        )

    # ----------------------------------------------------------------- roles
    def user(self, message: dict) -> str:
        inner = self.header("User", moment=message.get("timestamp")) + self.content(
            message.get("content"), self.entry.id
        )
        return self.box(inner, self.pal.user_bg)

    def assistant(self, message: dict, results: dict[str, dict] | None) -> str:
        pal = self.pal
        extras = []
        model = _text(message.get("model"))
        provider = _text(message.get("provider"))
        if model:
            extras.append(_esc(f"{provider}/{model}" if provider else model))
        usage = _usage_text(message.get("usage"))
        if usage:
            extras.append(_esc(usage))
        out = [self.header("Assistant", extras, message.get("timestamp"))]
        for index, block in enumerate(content_blocks(message.get("content"))):
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str) and text:
                    out.append(self.markdown(text))
            elif kind == "thinking":
                if self.options.show_thinking:
                    out.append(self.thinking(index, block))
            elif kind == "toolCall":
                call_id = block.get("id")
                result = None
                if results is not None and isinstance(call_id, str):
                    result = results.get(call_id)
                out.append(self.tool_call(index, block, result, results is not None))
            elif kind == "image":
                out.append(self.image(self.entry.id, _image_position(message.get("content"), index), block))
            else:
                out.append(self.raw_block(block))
        stop = message.get("stopReason")
        error = message.get("errorMessage")
        error_text = error if isinstance(error, str) and error else ""
        if stop == "aborted":
            detail = f": {_esc(error_text)}" if error_text else ""
            out.append(f'<p style="color:{pal.warn}"><b>⏹ Aborted</b>{detail}</p>')
        elif stop == "error" or error_text:
            shown = _esc(error_text or "the request failed")
            out.append(
                self.box(f'<span style="color:{pal.error}"><b>Error</b>: {shown}</span>', pal.error_bg)
            )
        elif stop == "length":
            out.append(self.note("Stopped: the reply reached the output length limit.", pal.warn))
        return "".join(out)

    def thinking(self, index: int, block: dict) -> str:
        pal = self.pal
        key = block_key(self.entry.id, "thinking", index)
        text = block.get("thinking")
        text = text if isinstance(text, str) else ""
        redacted = block.get("redacted") is True
        if not text.strip() and not redacted:
            return ""
        if key not in self.options.expanded:
            label = "Thinking (redacted)" if redacted and not text.strip() else "Thinking…"
            return f'<p class="thinking" style="color:{pal.thinking}"><i>{self.toggle(key, label)}</i></p>'
        link = self.toggle(key, "▾ Thinking")
        body = self.markdown(text) if text.strip() else self.note("(redacted by the provider)")
        return (
            f'<p class="thinking" style="color:{pal.thinking}"><i>{link}</i></p>'
            f'<div class="thinking" style="color:{pal.thinking}; font-style:italic">{body}</div>'
        )

    def tool_call(self, index: int, block: dict, result: dict | None, looked: bool) -> str:
        """A tool call together with its result (``result`` is the toolResult entry body)."""
        pal = self.pal
        name = _text(block.get("name")) or "tool"
        raw_args = block.get("arguments")
        args = raw_args if isinstance(raw_args, dict) else {}
        message = _dict(result.get("message")) if isinstance(result, dict) else {}
        is_error = message.get("isError") is True
        key = block_key(self.entry.id, "tool", index)
        head = self.tool_head(name, args)
        error_badge = " " + self.badge("✗ error", pal.error, pal.error_bg) if is_error else ""
        result_id = result.get("id") if isinstance(result, dict) else None
        anchor = f'<a name="{_esc(result_id)}"></a>' if isinstance(result_id, str) else ""
        if not self.options.show_tools:
            return f'<p style="color:{pal.muted}">{anchor}🔧 {head}{error_badge}</p>'
        parts = [f"{anchor}<p>{head}{error_badge}</p>"]
        result_text = joined_text(message.get("content"))
        details = _dict(message.get("details"))
        shown_result = False
        if name == "bash":
            command = _text(args.get("command"))
            if len(command) > _MAX_COMMAND_CHARS:
                command = command[:_MAX_COMMAND_CHARS] + "…"
            parts.append(f"<pre><b>$</b> {_esc(command)}</pre>")
        elif name == "edit":
            diff = details.get("diff")
            if isinstance(diff, str) and diff and not is_error:
                parts.append(self.diff(diff, key))
            elif not message or is_error:
                parts.append(self.diff(edits_as_diff(args), key))
        elif name == "write":
            content = _text(args.get("content"))
            lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
            parts.append(self.note(f"{lines:,} line{'s' if lines != 1 else ''}, {len(content):,} characters"))
            parts.append(self.code(content, key, _text(args.get("path")) or _text(args.get("file_path"))))
        elif name == "read":
            if result_text and not is_error:
                path = _text(args.get("path")) or _text(args.get("file_path"))
                parts.append(self.code(result_text, key, path))
                shown_result = True
        elif name not in ("grep", "find", "ls"):
            shown_args = _json_text(raw_args)
            lines = shown_args.split("\n")
            if len(lines) > _MAX_ARGS_LINES:
                shown_args = (
                    "\n".join(lines[:_MAX_ARGS_LINES]) + f"\n… {len(lines) - _MAX_ARGS_LINES} more lines"
                )
            if len(shown_args) > _COLLAPSED_CHARS:
                shown_args = shown_args[:_COLLAPSED_CHARS] + "…"
            parts.append(self.pre(shown_args, pal.muted))
        if result is not None:
            if not shown_result and result_text:
                quiet = name in ("edit", "write") and not is_error
                color = pal.error if is_error else (pal.muted if quiet else None)
                parts.append(self.output(result_text, key, color))
            parts.append(self.result_images(message, result_id))
        elif looked:
            parts.append(self.note("(no result recorded)"))
        return self.box("".join(parts), pal.error_bg if is_error else pal.tool_bg)

    def tool_head(self, name: str, args: dict) -> str:
        """``read path``, ``edit path``, ``grep pattern in path``...: the first line of a tool call."""

        def arg(*keys: str) -> str:
            for k in keys:
                value = args.get(k)
                if isinstance(value, str | int | float) and not isinstance(value, bool):
                    return str(value)
            return ""

        path = arg("path", "file_path")
        if name == "read":
            offset, limit = _number(args.get("offset")), _number(args.get("limit"))
            where = path
            if offset is not None or limit is not None:
                start = int(offset) if offset is not None else 1
                end = f"{start + int(limit) - 1}" if limit is not None else ""
                where = f"{path}:{start}-{end}"
            return f"<b>read</b> <code>{_esc(where)}</code>"
        if name in ("edit", "write"):
            return f"<b>{_esc(name)}</b> <code>{_esc(path)}</code>"
        if name == "bash":
            return "<b>bash</b>"
        if name in ("grep", "find"):
            pattern = arg("pattern", "query")
            where = f" in <code>{_esc(path)}</code>" if path else ""
            glob = arg("glob")
            glob_html = f" ({_esc(glob)})" if glob else ""
            return f"<b>{_esc(name)}</b> <code>{_esc(pattern)}</code>{where}{glob_html}"
        if name == "ls":
            return f"<b>ls</b> <code>{_esc(path or '.')}</code>"
        return f"<b>{_esc(name)}</b>"

    def result_images(self, message: dict, entry_id: object) -> str:
        out = []
        image_index = 0
        for block in content_blocks(message.get("content")):
            if block.get("type") == "image":
                out.append(self.image(entry_id, image_index, block))
                image_index += 1
        return "".join(out)

    def tool_result(self, message: dict) -> str:
        pal = self.pal
        is_error = message.get("isError") is True
        name = _text(message.get("toolName")) or "tool"
        extras = [f"<code>{_esc(name)}</code>"]
        if is_error:
            extras.append(f'<span style="color:{pal.error}"><b>✗ error</b></span>')
        parts = [self.header("Tool result", extras, message.get("timestamp"))]
        key = block_key(self.entry.id, "result")
        diff = _dict(message.get("details")).get("diff")
        if isinstance(diff, str) and diff:
            parts.append(self.diff(diff, key + "/diff"))
        text = joined_text(message.get("content"))
        if text:
            parts.append(self.output(text, key, pal.error if is_error else None))
        parts.append(self.result_images(message, self.entry.id))
        return self.box("".join(parts), pal.error_bg if is_error else pal.tool_bg)

    def bash_execution(self, message: dict) -> str:
        pal = self.pal
        command = _text(message.get("command"))
        if len(command) > _MAX_COMMAND_CHARS:
            command = command[:_MAX_COMMAND_CHARS] + "…"
        parts = [self.header("Shell (run by the user)", moment=message.get("timestamp"))]
        parts.append(f"<pre><b>$</b> {_esc(command)}</pre>")
        output = _text(message.get("output"))
        if output:
            parts.append(self.output(output, block_key(self.entry.id, "output")))
        status = []
        code = message.get("exitCode")
        if message.get("cancelled") is True:
            status.append(f'<span style="color:{pal.warn}"><b>cancelled</b></span>')
        elif _number(code) is not None:
            color = pal.ok if code == 0 else pal.error
            status.append(f'<span style="color:{color}"><b>exit code {_esc(_js(code))}</b></span>')
        else:
            status.append("no exit code")
        if message.get("truncated") is True:
            full = _text(message.get("fullOutputPath"))
            status.append("output truncated" + (f"; full output in {_esc(full)}" if full else ""))
        if message.get("excludeFromContext") is True:
            status.append("not sent to the model")
        parts.append(f'<p style="color:{pal.muted}"><small>{" · ".join(status)}</small></p>')
        return self.box("".join(parts), pal.tool_bg)

    def custom_message(self, source: dict, role: str) -> str:
        pal = self.pal
        extras = [self.badge(_text(source.get("customType")) or "custom")]
        if source.get("display") is not True:
            extras.append(f'<span style="color:{pal.warn}">hidden from the TUI</span>')
        moment = source.get("timestamp") if "role" in source else None
        inner = self.header(role, extras, moment) + self.content(source.get("content"), self.entry.id)
        return self.box(inner, pal.note_bg)

    def custom(self, body: dict) -> str:
        extras = [
            self.badge(_text(body.get("customType")) or "custom"),
            "extension data, not sent to the model",
        ]
        parts = [self.header("Extension data", extras)]
        if "data" in body:
            parts.append(self.pre(_json_excerpt(body.get("data"), _MAX_RAW_JSON), self.pal.muted))
        return "".join(parts)

    def branch_summary(self, source: dict) -> str:
        summary = source.get("summary")
        moment = source.get("timestamp") if "role" in source else None
        inner = self.header("Branch summary", moment=moment)
        if isinstance(summary, str) and summary.strip():
            inner += self.markdown(summary)
        else:
            inner += self.note("(empty summary)")
        return self.box(inner, self.pal.note_bg)

    def compaction(self, source: dict) -> str:
        tokens = _number(source.get("tokensBefore"))
        extras = [f"compacted from {short_tokens(tokens)} tokens"] if tokens is not None else []
        if source.get("fromHook") is True:
            extras.append("summary by an extension")
        moment = source.get("timestamp") if "role" in source else None
        inner = self.header("Compaction", extras, moment)
        summary = source.get("summary")
        if isinstance(summary, str) and summary.strip():
            inner += self.markdown(summary)
        else:
            inner += self.note("(empty summary)")
        return self.box(inner, self.pal.note_bg)


# ---------------------------------------------------------------------------------------------- markdown


@lru_cache(maxsize=2)
def _markdown(dark: bool) -> MarkdownIt:
    """A CommonMark parser (tables, strikethrough, hard line breaks) whose output is safe for Qt."""
    from markdown_it import MarkdownIt

    pal = _DARK if dark else _LIGHT
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "xhtmlOut": False}).enable(
        ["table", "strikethrough"]
    )

    def link_open(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
        href = tokens[idx].attrGet("href") or ""
        safe = _safe_href(str(href))
        env.setdefault("links", []).append(safe)
        return f'<a href="{_esc(str(href))}">' if safe else ""

    def link_close(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
        stack = env.get("links") or [False]
        return "</a>" if stack.pop() else ""

    def image(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
        token = tokens[idx]
        alt = self.renderInlineAsText(token.children or [], options, env)
        label = f"[image: {alt}]" if alt else "[image]"
        src = str(token.attrGet("src") or "")
        inside_link = any(env.get("links") or [])
        if _safe_href(src) and not src.lower().startswith("mailto:") and not inside_link:
            return f'<a href="{_esc(src)}">{_esc(label)}</a>'
        return _esc(label)

    def fence(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
        token = tokens[idx]
        info = token.info.strip().split(maxsplit=1)
        return _code_html(token.content, info[0] if info else "", pal)

    def code_block(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
        return _code_html(tokens[idx].content, "", pal)

    def code_inline(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
        return f'<code style="background-color:{pal.code_bg}">{_esc(tokens[idx].content)}</code>'

    def raw_html(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
        return _esc(tokens[idx].content)  # never produced with html disabled; escaped if it ever is

    def table_open(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
        return (
            f'<table border="1" cellspacing="0" cellpadding="4" '
            f'style="border-collapse:collapse; border-color:{pal.border}">\n'
        )

    for name, rule in (
        ("link_open", link_open),
        ("link_close", link_close),
        ("image", image),
        ("fence", fence),
        ("code_block", code_block),
        ("code_inline", code_inline),
        ("html_block", raw_html),
        ("html_inline", raw_html),
        ("table_open", table_open),
    ):
        md.add_render_rule(name, rule)
    return md


def _safe_href(href: str) -> bool:
    return href.strip().lower().startswith(_SAFE_SCHEMES)


# ---------------------------------------------------------------------------------------------- code


def _code_html(code: str, language: str | None, pal: _Palette, path: str = "") -> str:
    """A code block highlighted with Pygments (lexer by fence language or file name), capped in size."""
    from pygments import highlight

    note = ""
    if code.endswith("\n"):
        code = code[:-1]
    lines = code.split("\n", _MAX_CODE_LINES)
    if len(lines) > _MAX_CODE_LINES:
        hidden = code.count("\n") + 1 - _MAX_CODE_LINES
        code = "\n".join(lines[:_MAX_CODE_LINES])
        note = f"… {hidden:,} more lines not shown"
    if len(code) > _MAX_CODE_CHARS:
        note = note or f"… {len(code) - _MAX_CODE_CHARS:,} more characters not shown"
        code = code[:_MAX_CODE_CHARS]
    lexer = _lexer_by_name(language.lower()) if language else _lexer_for_file(path) if path else None
    if lexer is None:
        inner = _esc(code)
    else:
        # Pygments colours whitespace runs too; dropping those spans halves the HTML Qt has to lay out.
        inner = _WHITESPACE_SPAN.sub(r"\1", highlight(code, lexer, _formatter(pal.pygments_style)))
        if inner.endswith("\n"):
            inner = inner[:-1]
    tail = f'<p style="color:{pal.muted}"><small>{_esc(note)}</small></p>' if note else ""
    return f'<pre class="code" style="background-color:{pal.code_bg}">{inner}</pre>{tail}'


@lru_cache(maxsize=4)
def _formatter(style: str) -> Any:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(noclasses=True, nowrap=True, style=style)


@lru_cache(maxsize=256)
def _lexer_by_name(name: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    if not name or len(name) > 40:
        return None
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def _lexer_for_file(path: str) -> Any:
    base = re.split(r"[\\/]", path)[-1]
    dot = base.rfind(".")
    return _lexer_for_name_key(base[dot:].lower() if dot > 0 else base)


@lru_cache(maxsize=256)
def _lexer_for_name_key(key: str) -> Any:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    if not key or len(key) > 60:
        return None
    try:
        return get_lexer_for_filename(
            "file" + key if key.startswith(".") else key, stripnl=False, ensurenl=False
        )
    except ClassNotFound:
        return None


def _image_position(content: object, block_index: int) -> int:
    """The index among image blocks of the content block at ``block_index``."""
    blocks = content if isinstance(content, list) else []
    return sum(1 for b in blocks[:block_index] if isinstance(b, dict) and b.get("type") == "image")


# ---------------------------------------------------------------------------------------------- values


def _esc(text: str) -> str:
    return html.escape(text, quote=True).replace("\x00", "\ufffd")


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value == value else None


def _js(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def content_blocks(content: object) -> list[dict]:
    """Content as a list of block dicts: a string is one text block; anything else that is no list is none."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict)]


def _content_of(body: object) -> object:
    if not isinstance(body, dict):
        return None
    message = body.get("message")
    if isinstance(message, dict):
        return message.get("content")
    return body.get("content")


def joined_text(content: object) -> str:
    """The text blocks of some message content, one after another on their own lines."""
    return "\n".join(
        b["text"]
        for b in content_blocks(content)
        if b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def _call_ids(body: dict) -> set[str]:
    message = _dict(body.get("message"))
    return {
        b["id"]
        for b in content_blocks(message.get("content"))
        if b.get("type") == "toolCall" and isinstance(b.get("id"), str)
    }


def _answered_before(session: Session, entry: Entry, body: dict, cache: dict[str, set[str]]) -> bool:
    """True when a toolResult answers a call of the assistant message it follows (searched upwards)."""
    call_id = _dict(body.get("message")).get("toolCallId")
    if not isinstance(call_id, str):
        return False
    current = entry
    for _ in range(_RESULT_SEARCH_LIMIT):
        parent = session.get(current.parent_id)
        if parent is None or parent is entry:
            return False
        if parent.kind == "message" and parent.role == "assistant":
            if parent.id not in cache:
                cache[parent.id] = _call_ids(session.body(parent))
            return call_id in cache[parent.id]
        current = parent
    return False


def edits_as_diff(args: dict) -> str:
    """The ``edits`` of an edit tool call (or the older single oldText/newText) as -/+ lines.

    Edits are separated by ``@@`` lines. Shared by the message view and the exports.
    """
    edits = args.get("edits")
    pairs = [e for e in edits if isinstance(e, dict)] if isinstance(edits, list) else [args]
    lines: list[str] = []
    for pair in pairs:
        if lines:
            lines.append("@@")
        old, new = _text(pair.get("oldText")), _text(pair.get("newText"))
        if old:
            lines.extend("-" + line for line in old.split("\n"))
        if new:
            lines.extend("+" + line for line in new.split("\n"))
    return "\n".join(lines)


def _json_text(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except RecursionError:
        return "(nested too deeply to show)"
    except (ValueError, TypeError):
        return "(cannot be shown)"


def _json_excerpt(value: object, limit: int) -> str:
    text = _json_text(value)
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


def _usage_text(usage: object) -> str:
    """``400 in · 20 out · 3.6k cache read · 4.0k cache write · $0.0176`` (zero parts left out)."""
    if not isinstance(usage, dict):
        return ""
    parts = []
    for key, label in (
        ("input", "in"),
        ("output", "out"),
        ("cacheRead", "cache read"),
        ("cacheWrite", "cache write"),
    ):
        value = _number(usage.get(key))
        if value is not None and (value or key in ("input", "output")):
            parts.append(f"{short_tokens(value)} {label}")
    total = _number(_dict(usage.get("cost")).get("total"))
    if total is not None:
        parts.append(short_cost(total))
    return " · ".join(parts)


def _time_html(moment: object) -> str:
    """Local ``HH:MM:SS`` and the date of a ms timestamp, or ``""`` when there is none."""
    ms = _number(moment)
    if ms is None:
        return ""
    try:
        local = datetime.fromtimestamp(ms / 1000).astimezone()
    except (OverflowError, OSError, ValueError):
        return ""
    return f"{local:%H:%M:%S} {local:%Y-%m-%d}"
