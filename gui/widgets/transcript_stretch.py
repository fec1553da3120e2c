"""Stretches of the transcript's cards as HTML, rendered ahead of the reader in a worker.

Rendering a card (reading its entry, colouring its code, its Markdown) is pure Python and costs a few
milliseconds; a stretch of a dozen cards took 30-60 ms on the GUI thread, enough to stall a Page Up held
down. So the view asks for the stretch beyond each edge of its window before it needs it: the
:class:`Prefetcher` renders it in a worker (through a callable the controller hands the view, so the
window's scheduler runs it) and keeps the result until the view adds those cards, which then only costs
Qt's insertion. What a stretch looks like depends on the :class:`Look` (folds open, theme, find); a new
look drops what was rendered for the old one.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from core.render import RenderOptions, render_card
from core.render.find import folds_matching
from core.render.view import switch_html

if TYPE_CHECKING:
    from core.render.reading import ContextCards, PathCards

__all__ = ["Look", "Prefetcher", "RenderLater", "Rendered", "render_stretch"]

# Runs ``work`` off the GUI thread and hands its result to ``done`` on it; ``channel`` names the request
# (a newer one on the same channel replaces it).
RenderLater = Callable[[str, Callable[[], object], Callable[[object], None]], None]


class Rendered(NamedTuple):
    """One card of a stretch: its slot, its HTML, whether a branch switcher heads it, its entry's id."""

    slot: int
    html: str
    switcher: bool
    card_id: str


@dataclass(frozen=True)
class Look:
    """Everything besides the source that decides a card's HTML."""

    expanded: frozenset[str] = frozenset()
    dark: bool = False
    unfold_all: bool = False
    needle: str = ""  # find's query: the folds of a card holding it are opened
    found: frozenset[int] = frozenset()  # the slots whose cards hold the query


def render_stretch(source: PathCards | ContextCards, start: int, stop: int, look: Look) -> list[Rendered]:
    """The cards of slots ``start`` to ``stop`` as HTML, a switcher above a branch point's card.

    Pure (core only): runs in a worker as well as on the GUI thread.
    """
    try:
        made = source.cards(start, stop)
    except Exception as err:  # a file that changed underneath: say so in place of the cards
        return [Rendered(start, f"<p>Cannot read these entries: {html.escape(str(err))}</p>", False, "")]
    out: list[Rendered] = []
    for slot, card in made:
        expanded = look.expanded
        if look.needle and slot in look.found:
            expanded = expanded | folds_matching(card, look.needle)  # find opens the folds it matched in
        options = RenderOptions(expanded=expanded, dark=look.dark, expand_all=look.unfold_all)
        switch = source.switch(slot)
        head = switch_html(card.entry.id, switch.index, switch.count, look.dark) if switch is not None else ""
        out.append(Rendered(slot, head + render_card(card, options), bool(head), card.entry.id))
    return out


class Prefetcher:
    """The stretches rendered ahead, above and below the view's window, for one source and look.

    ``render_later`` is None until the controller provides one: then everything renders on the spot.
    """

    def __init__(self, on_ready: Callable[[], None] = lambda: None) -> None:
        self.render_later: RenderLater | None = None
        self._on_ready = on_ready  # a stretch rendered ahead arrived
        self._key: tuple[int, Look] | None = None  # id of the source and the look the stretches are for
        self._ready: dict[tuple[int, int], list[Rendered]] = {}
        self._wanted: dict[str, tuple[PathCards | ContextCards, int, int, Look]] = {}  # channel -> its wish
        self._running: set[str] = set()  # channels with a task out (started, not yet reported)

    def reset(self, source: PathCards | ContextCards | None, look: Look) -> None:
        """Another source or look: what was rendered ahead is of no use."""
        key = (id(source), look)
        if key != self._key:
            self._key = key
            self._ready.clear()
            self._wanted.clear()
            self._running.clear()  # a task still out reports to nobody: the next ask starts a new one

    def has(self, source: PathCards | ContextCards, start: int, stop: int, look: Look) -> bool:
        """Whether the stretch ``start``-``stop`` was rendered ahead (for this source and look)."""
        return self._key == (id(source), look) and (start, stop) in self._ready

    def waiting(self) -> bool:
        """Whether a stretch is being rendered ahead now (the view can wait for it rather than render)."""
        return bool(self._wanted) and self.render_later is not None

    def take(self, source: PathCards | ContextCards, start: int, stop: int, look: Look) -> list[Rendered]:
        """The stretch ``start``-``stop``: rendered ahead if it was, else now."""
        self.reset(source, look)
        ready = self._ready.pop((start, stop), None)
        return ready if ready is not None else render_stretch(source, start, stop, look)

    def ask(self, channel: str, source: PathCards | ContextCards, start: int, stop: int, look: Look) -> None:
        """Render the stretch ``start``-``stop`` in a worker, for a later :meth:`take`.

        One task at a time per channel: a stretch asked for while one is out replaces the wish, and the
        task takes the latest wish when it starts. (With a task per ask, Page Up held queued one for every
        key press, each superseded before its turn, and the workers spent the processor on them.)
        """
        if self.render_later is None or start >= stop:
            return
        self.reset(source, look)
        span = (start, stop)
        if span in self._ready or _span(self._wanted.get(channel)) == span:
            return
        self._wanted[channel] = (source, start, stop, look)  # replaces the wish before it on that channel
        if channel not in self._running:
            self._start(channel)

    def _start(self, channel: str) -> None:
        """Start the channel's one task: it renders what is wanted there when a worker takes it."""
        render_later = self.render_later
        if render_later is None:
            return
        self._running.add(channel)
        wanted = self._wanted

        def work() -> object:  # in a worker: reads the latest wish (a dict read is atomic)
            wish = wanted.get(channel)
            if wish is None:
                return None
            source, start, stop, look = wish
            return wish, render_stretch(source, start, stop, look)

        def done(result: object) -> None:
            self._running.discard(channel)
            if isinstance(result, tuple):
                (source, start, stop, look), cards = result
                span = (start, stop)
                if _span(wanted.get(channel)) == span:
                    del wanted[channel]
                if self._key == (id(source), look):
                    self._ready[span] = cards
                    if len(self._ready) > 8:  # the reader turned back: keep the newest only
                        self._ready.pop(next(iter(self._ready)))
                    self._on_ready()
            if channel in self._wanted and channel not in self._running:
                self._start(channel)  # asked for another stretch meanwhile

        render_later(channel, work, done)


def _span(wish: tuple[PathCards | ContextCards, int, int, Look] | None) -> tuple[int, int] | None:
    """The slots a wish asks for, ``(start, stop)``."""
    return (wish[1], wish[2]) if wish is not None else None
