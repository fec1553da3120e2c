"""Sessions as one self-contained HTML page that works offline.

The page holds a sidebar tree of the session (current path marked, click to switch branches, the
app's filter modes, search), the messages of the selected path (thinking and tool calls collapsible,
code highlighted with Pygments at export time), light and dark colours following the reader's
system, print styles and deep links (``#e-ENTRYID``).

Safety: every string from the session is escaped when the page is made; message Markdown is parsed
with raw HTML off and only ``http``, ``https`` and ``mailto`` links survive (a Markdown image becomes
a link, so nothing remote is ever loaded). Entry fragments and the tree travel in a JSON data island
with ``<`` and U+2028/2029 escaped, so no string can close the script element. A
Content-Security-Policy allows only the page's own style and script (by SHA-256 hash) and ``data:``
images: no request can leave the page and no injected script could run even if escaping failed.

The content is the Markdown export's (:class:`core.export.markdown.MarkdownRenderer`), rendered
through HTML primitives instead of Markdown ones.

The page is made of :mod:`core.export.page` (the shell, policy and assets), :mod:`core.export.island`
(the sidebar rows and fragments as JSON), :mod:`core.render.markdown` (message Markdown) and
:mod:`core.render.highlight` (code); this module renders the entries and puts the page together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from core.export.common import ExportOptions, ImageSink, metadata, select_entries, wanted
from core.export.island import EMPTY_JSON, Fragment, Node, island, json_fragment, tree_node
from core.export.markdown import MarkdownRenderer
from core.export.page import page
from core.export.usage_summary import collector_for, usage_rows, wants_usage
from core.kinds.document import Thinking
from core.kinds.notes import session_notes
from core.kinds.pairing import paired
from core.kinds.registry import kind_of
from core.render.highlight import Highlighter
from core.render.markdown import render_markdown
from core.render.text import esc, esc_text, without_surrogates
from core.usage.totals import entries_usage

if TYPE_CHECKING:
    from core.export.redact import Redactor
    from core.session import Entry, Session
    from core.usage.records import UsageCollector

__all__ = ["HtmlExport", "HtmlRenderer", "PageEntries", "session_to_html"]


@dataclass
class HtmlExport:
    """A rendered HTML export.

    Attributes:
        parts: the page, UTF-8, in pieces (bytes all the way: a 50 MB page is not decoded and encoded
            again, nor joined to be written).
        images: files to write beside it (empty unless images go beside the export).
        entries: how many entries the page covers.
    """

    parts: list[bytes]
    images: ImageSink = field(default_factory=ImageSink)
    entries: int = 0

    @property
    def data(self) -> bytes:
        """The page as one ``bytes`` (a copy: to write it, write :attr:`parts`)."""
        return b"".join(self.parts)

    @property
    def text(self) -> str:
        """The page as a string."""
        return self.data.decode("utf-8")


class HtmlRenderer(MarkdownRenderer):
    """The Markdown export's content with HTML primitives (everything from the session escaped)."""

    @cached_property
    def highlighter(self) -> Highlighter:
        """Colours the page's code, one budget for the whole export."""
        return Highlighter()

    def esc(self, text: str) -> str:
        """Escaped text."""
        return esc(text)

    def text(self, text: str) -> str:
        """A piece of inline text, escaped."""
        return esc(text)

    def code(self, text: str) -> str:
        """``<code>``."""
        return f"<code>{esc(text)}</code>"

    def code_block(self, text: str, language: str = "", path: str = "") -> str:
        """A ``<pre>`` block, coloured by its language or its file's."""
        return self.highlighter.block(text, language, path)

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
        return f'<div class="md">{render_markdown(text, self.highlighter)}</div>'

    def image_ref(self, target: str, index: int) -> str:
        """An ``<img>``."""
        return f'<p><img class="shot" src="{esc(target)}" alt="image {index + 1}" loading="lazy"></p>'

    def heading(self, title: str, entry: Entry, moment: object, facts: Sequence[str]) -> str:
        """``<h3>`` with the title, facts, time and a deep link."""
        parts = self.heading_parts(title, moment, facts)
        parts[0] = f"<b>{parts[0]}</b>"
        anchor = f'<a class="anchor" href="#e-{esc(_url_id(entry.id))}" title="Link to this entry">#</a>'
        return f"<h3>{' · '.join(parts)}{anchor}</h3>"

    def thinking(self, block: Thinking) -> str:
        """A collapsed thinking block, its text shown as written (as the reference's export shows it).

        Reasoning is draft text; showing it verbatim keeps what the model wrote, and skipping Markdown
        here saves a third of the Markdown rendering of a large export.
        """
        text = block.text.strip("\n")
        if not text.strip():
            return self.quote("Thinking (redacted by the provider)", "") if block.redacted else ""
        return self.quote("Thinking", f'<div class="thinking-text">{esc_text(text)}</div>')

    def quote(self, title: str, inner: str) -> str:
        """A collapsed ``<details>`` (thinking)."""
        return f'<details class="thinking"><summary>{esc(title)}</summary>{inner}</details>'

    def fold(self, title: str, inner: str, role: str) -> str:
        """A collapsed ``<details>`` (a system prompt, an unknown entry's JSON), whatever the filters say."""
        css = "raw" if role == "raw" else "system"
        return f'<details class="{css}"><summary>{esc(title)}</summary>{inner}</details>'

    def bullets(self, items: list[str]) -> str:
        """``<ul>``."""
        return "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>" if items else ""

    def entry_link(self, entry_id: str) -> str:
        """A deep link to another entry of the page (``#e-ID``)."""
        return f'<a href="#e-{esc(_url_id(entry_id))}"><code>{esc(entry_id)}</code></a>'

    def table(self, rows: list[tuple[str, str]]) -> str:
        """A two-column ``<table>`` of facts."""
        cells = "".join(f"<tr><th>{esc(name)}</th><td>{value}</td></tr>" for name, value in rows)
        return f'<table class="facts">{cells}</table>'

    def tool_box(self, head: str, parts: list[str], error: bool) -> str:
        """An open ``<details>`` holding a tool call and its result."""
        css = "tool-call error" if error else "tool-call"
        body = "".join(parts)
        return (
            f'<details class="{css}" open><summary>{head}</summary><div class="body">{body}</div></details>'
        )

    def result_box(self, label: str, parts: list[str], error: bool) -> str:
        """A result under its label."""
        css = "result error" if error else "result"
        return f'<div class="{css}"><div class="label">{esc(label)}</div>{"".join(parts)}</div>'

    def entry_box(self, entry: Entry, family: str, inner: str) -> str:
        """The ``<article>`` of one entry, its id the deep-link target, its family the CSS class."""
        return f'<article class="entry {family}" id="e-{esc(entry.id)}">{inner}</article>'


def session_to_html(
    session: Session,
    options: ExportOptions | None = None,
    *,
    leaf_id: str | None = None,
    whole_tree: bool = False,
    redactor: Redactor | None = None,
    image_folder: str = "images",
    workers: int = 1,
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
        workers: processes that render the entries; above 1, part of the page is rendered in a forked
            child (:mod:`core.export.parallel`; the same bytes). Only for a single-threaded caller
            (the command line): forking a process that runs other threads, like the app, is unsafe.

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
    position = {entry.id: i for i, entry in enumerate(entries)}
    labels = session.labels
    if redactor is not None:
        # Redacted once, for the entry and its sidebar row alike, so each secret is counted once.
        labels = {key: redactor.text(label) for key, label in labels.items() if key in position}
    renderer = HtmlRenderer(options, redactor, sink, labels)
    renderer.notes = session_notes(session)
    work = PageEntries(session, entries, renderer, position, labels, collector_for(session))
    # What the exported scope cost, for the header: summed while a child renders, when there is one.
    usage: list[tuple[str, str]] = []
    totals: list[tuple[int | float, float]] = []
    read_back = work.usage is None  # the bodies rendered cannot be counted as read (see collector_for)

    def sum_usage() -> None:
        totals.append(entries_usage(session, entries))
        if read_back:
            usage.extend(usage_rows(session, entries, redactor, whole_tree))

    if workers > 1:
        from core.export.parallel import render_in_parts

        render_in_parts(work, workers, sum_usage)
    else:
        work.render(0, len(entries))
        sum_usage()
    if work.usage is not None:
        usage.extend(usage_rows(session, entries, redactor, whole_tree, work.usage.finish()))
    nodes, fragments, shown_under = work.nodes, work.fragments, work.shown_under
    for i, row in enumerate(nodes):
        if not row:  # cannot happen (every entry is yielded or handed over); a stub keeps indexes valid
            nodes[i] = tree_node(entries[i], {}, False, position, labels, None)
    scope = "whole tree (every branch)" if whole_tree else f"path to entry {entries[-1].id}"
    meta = metadata(session, entries, redactor, scope, renderer.models, totals[0])
    meta.rows += usage
    under = {str(k): v for k, v in shown_under.items()}
    data = island(nodes, fragments, under, position[start])
    del nodes, fragments, work  # the island holds them now; the page need not be built beside them
    document = page(meta.title, meta.rows, data, options.images == "beside")
    return HtmlExport(document, sink or ImageSink(image_folder), len(entries))


class PageEntries:
    """The entries of one page being rendered: each entry's fragment and sidebar row, by its index.

    :meth:`render` fills a stretch of the entries; :mod:`core.export.parallel` has a forked child fill
    another stretch and hands its results back, so both halves of a page meet in one place.

    Attributes:
        nodes: the sidebar rows, by index (``[]`` until rendered).
        fragments: the entries' HTML as JSON for the data island, by index.
        shown_under: index of a tool result -> index of the call it is shown under.
        usage: counts the usage of every body rendered, as read (None: the usage summary reads the
            file again instead, see :func:`~core.export.usage_summary.collector_for`).
    """

    def __init__(
        self,
        session: Session,
        entries: list[Entry],
        renderer: HtmlRenderer,
        position: dict[str, int],
        labels: dict[str, str],
        usage: UsageCollector | None = None,
    ) -> None:
        self.session = session
        self.usage = usage
        self.entries = entries
        self.renderer = renderer
        self.position = position
        self.labels = labels
        self.nodes: list[Node] = [[]] * len(entries)
        # Each fragment goes into the data island as soon as it is rendered (see island()).
        self.fragments: list[Fragment] = [EMPTY_JSON] * len(entries)
        self.shown_under: dict[int, int] = {}

    def render(self, start: int, stop: int) -> None:
        """Render the entries ``start`` to ``stop`` (a stretch that no call's results cross, see cut_at)."""
        session, renderer, position, labels = self.session, self.renderer, self.position, self.labels
        options, redactor = renderer.options, renderer.redactor
        part = self.entries[start:stop]
        usage = self.usage
        for entry, body, results in paired(part, session.bodies(part)):
            i = position[entry.id]
            if usage is not None:  # as read: before the redaction
                if wants_usage(entry):
                    usage.add(entry, body)
                for result in (results or {}).values():
                    result_id = result.get("id")
                    result_entry = session.get(result_id) if isinstance(result_id, str) else None
                    if result_entry is not None and wants_usage(result_entry):
                        usage.add(result_entry, result)
            keep = wanted(entry, options)
            if keep and redactor is not None:
                body = redactor.value(body)
                if results:
                    results = {key: redactor.value(result) for key, result in results.items()}
            if keep:
                self.fragments[i] = json_fragment(renderer.entry(entry, body, results, redacted=True))
            self.nodes[i] = tree_node(entry, body, keep, position, labels, None)
            for result in (results or {}).values():
                # Handed over with its call, so not yielded on its own: it needs its own tree node.
                result_id = result.get("id")
                result_entry = session.get(result_id) if isinstance(result_id, str) else None
                if result_entry is not None and result_entry.id in position:
                    j = position[result_entry.id]
                    self.nodes[j] = tree_node(
                        result_entry, result, keep and options.tools, position, labels, None
                    )
                    if keep:
                        self.shown_under[j] = i

    def cut_at(self, index: int) -> int:
        """The first index from ``index`` on where a stretch may start: not a tool result.

        :func:`~core.kinds.pairing.paired` hands a call the results that directly follow it, so a
        stretch that starts at a tool result could take it from its call: stretches are cut before
        an entry that is not one.
        """
        entries = self.entries
        while index < len(entries) and kind_of(entries[index]).shown_under_call:
            index += 1
        return index


def _url_id(entry_id: str) -> str:
    r"""``entry_id`` percent-encoded for a ``#e-ID`` link.

    A lone surrogate (from a ``"\ud800"`` escape in the file) has no UTF-8 form, so no URL can carry it:
    it becomes U+FFFD, and such a link leads nowhere instead of stopping the export.
    """
    if entry_id.isalnum() and entry_id.isascii():
        return entry_id  # the usual 8-hex id needs no quoting
    from urllib.parse import quote

    return quote(without_surrogates(entry_id), safe="")
