"""The message view's back-end: cards (:mod:`core.kinds.document`) as HTML for Qt's rich-text viewer.

Everything here is a pure function of the card and the options: no Qt, no file access. The output is the
HTML 4 subset ``QTextDocument`` understands (tables, ``div``/``span``/``pre``, inline colours, and the
class selectors of :func:`core.render.palette.stylesheet` for coloured code); there is no JavaScript and
no ``<details>``, so a fold is a link the caller answers by rendering again with the block's key added
to :attr:`RenderOptions.expanded` (the links are in :mod:`core.render.links`).

Safety: every string from the session is escaped; Markdown goes through cmark with raw HTML off
(:mod:`core.render.markdown`) and no image of a message's Markdown is loaded. Session images are
referenced as ``image:ENTRYID/INDEX`` and decoded on demand with :func:`core.render.links.image_bytes`.

Entries are anchored by id (``<a name="ENTRYID">``) for ``QTextBrowser.scrollToAnchor``; a tool result
shown under its call carries its own id as an anchor inside the call's box.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.kinds.cards import card, window_cards
from core.kinds.document import ERROR, Card, Para
from core.render.links import branch_href
from core.render.palette import palette
from core.render.text import esc, time_html
from core.render.view_blocks import BlockHtml

if TYPE_CHECKING:
    from core.kinds.notes import EntryNotes
    from core.kinds.pairing import Results
    from core.session import Entry, Session
    from core.session.content import Body

__all__ = ["RenderOptions", "render_card", "render_entries", "render_entry", "switch_html"]


@dataclass(frozen=True)
class RenderOptions:
    """How entries are rendered.

    Attributes:
        expanded: keys (see :func:`core.kinds.common.fold_key`) of the folds shown open.
        show_thinking: False leaves thinking blocks out entirely.
        show_tools: False shows each tool call as one line, without its arguments or result.
        max_result_lines: outputs and code longer than this are shown in part until opened.
        dark: use the dark colour palette.
        expand_all: every fold open and nothing cut (copying a card whole; the words test).
        colours: colour code with Pygments; False writes it plain (the text find counts in, at a
            tenth of the cost).
    """

    expanded: frozenset[str] = frozenset()
    show_thinking: bool = True
    show_tools: bool = True
    max_result_lines: int = 20
    dark: bool = False
    expand_all: bool = False
    colours: bool = True


def render_entry(
    entry: Entry,
    body: Body,
    results: Results | None = None,
    options: RenderOptions | None = None,
    notes: EntryNotes | None = None,
    label: str | None = None,
) -> str:
    """Render one entry as an HTML fragment (its card, see :func:`core.kinds.cards.card`).

    Args:
        entry: the entry's index record.
        body: the full entry (``Session.body(entry)``).
        results: for an assistant message, toolCallId -> the body of the toolResult entry answering it
            (see :func:`core.kinds.pairing.tool_results_for`); each call is shown with its result. None
            when the caller did not look; ``{}`` when it looked and found none.
        options: what to show; the defaults when None.
        notes: what other entries say about this one (later context edits, child runs; see
            :func:`core.kinds.notes.session_notes`), or in a rendering of what the model saw the edit
            whose content the card shows; None for nothing.
        label: the entry's label, if any.

    Returns:
        HTML for ``QTextBrowser``; every string from the session escaped.
    """
    return render_card(card(entry, body, results, notes, label), options)


def render_entries(session: Session, entries: Iterable[Entry], options: RenderOptions | None = None) -> str:
    """Render a stretch of one path as one HTML fragment, each tool call with its result once.

    Args:
        session: the session the entries belong to.
        entries: the entries, in order.
        options: what to show; the defaults when None.
    """
    return "".join(render_card(made, options) for made in window_cards(session, entries))


def render_card(made: Card, options: RenderOptions | None = None) -> str:
    """One card as an HTML fragment for Qt: its heading (or line), its blocks, in its family's box."""
    options = options or RenderOptions()
    pal = palette(options.dark)
    out = BlockHtml(pal, options)
    try:
        inner = _card_inner(made, out)
    except RecursionError:  # a pathologically nested value
        inner = out.block(Para(("(nested too deeply to show)",)))
    return f'<div class="entry" style="color:{pal.text}"><a name="{esc(made.entry.id)}"></a>{inner}</div>\n'


def switch_html(entry_id: str, index: int, count: int, dark: bool = False) -> str:
    """The branch switcher above a card whose entry is one of ``count`` siblings (``index`` is 0-based).

    ``◀ branch 2 of 3 ▶ · all branches…``: links the view answers (:func:`core.render.links.branch_href`).
    """
    pal = palette(dark)
    prev, nxt, menu = (esc(branch_href(step, entry_id)) for step in ("prev", "next", "menu"))
    return (
        f'<p class="switch" style="color:{pal.muted}"><small>'
        f'<a href="{prev}">◀</a> branch {index + 1} of {count} <a href="{nxt}">▶</a>'
        f' · <a href="{menu}">all branches…</a></small></p>'
    )


def _card_inner(made: Card, out: BlockHtml) -> str:
    pal = out.pal
    if made.line is not None:
        when = time_html(made.moment)
        tail = f" <small>· {when}</small>" if when else ""
        head = f'<p class="muted" style="color:{pal.muted}">{out.inline(made.line)}{tail}</p>'
        return head + "".join(out.block(b) for b in made.blocks[1:])
    parts = [f'<b style="color:{pal.text}">{esc(made.title)}</b>', *(esc(fact) for fact in made.facts)]
    when = time_html(made.moment)
    if when:
        parts.append(when)
    header = f'<p class="hdr" style="color:{pal.muted}"><small>{" · ".join(parts)}</small></p>'
    inner = header + "".join(out.block(b) for b in made.blocks)
    background = _BOX.get(made.family)
    if made.family == "tool" and _failed(made):
        background = "error_bg"
    return out.box(inner, getattr(pal, background)) if background else inner


# The families whose cards sit in a coloured box, and the palette colour of the box.
_BOX = {"user": "user_bg", "tool": "tool_bg", "bash": "tool_bg", "summary": "note_bg", "custom": "note_bg"}


def _failed(made: Card) -> bool:
    """A tool result card whose tool reported an error (its output is an error)."""
    return any(getattr(b, "tone", "") == ERROR for b in made.blocks)
