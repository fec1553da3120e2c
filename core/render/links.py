"""The links and image sources in the message view's HTML, and what they point at.

Qt's rich text has no JavaScript and no ``<details>``, so a collapsible block is a link the caller
answers by rendering again. Links a caller must answer:

* ``action:toggle/KEY``: flip ``KEY`` (:func:`block_key`, a fold key of :mod:`core.kinds`) in
  ``RenderOptions.expanded`` and render again
  (:func:`parse_action` splits it).
* ``action:entry/ENTRYID``: show that entry (a context edit's target, the message a child run's usage
  went to); :func:`entry_href` makes it.
* ``action:session/PATH``: open another session (a child session the entry launched);
  :func:`session_href` makes it.
* ``action:branch/STEP/ENTRYID``: the branch switcher on the card of ENTRYID (``prev``, ``next`` or
  ``menu``); :func:`branch_href` makes it.
* ``image:ENTRYID/INDEX``: the INDEX-th image block of that entry (:func:`parse_image_src`,
  :func:`image_bytes`).
* ``http(s):``/``mailto:`` links: open them outside the app, if at all.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from core.kinds.common import fold_key as block_key
from core.render.images import decode_image
from core.session.content import Body, content_of, numbered_blocks

__all__ = [
    "block_key",
    "branch_href",
    "entry_href",
    "file_name",
    "image_bytes",
    "image_src",
    "parse_action",
    "parse_image_src",
    "session_href",
    "toggle_href",
]


def toggle_href(key: str) -> str:
    """The ``action:toggle/KEY`` link that expands or collapses the block ``key`` (not yet escaped)."""
    return f"action:toggle/{_quote(key, '/')}"


def entry_href(entry_id: str) -> str:
    """The ``action:entry/ENTRYID`` link that shows another entry of the session (not yet escaped)."""
    return f"action:entry/{_quote(entry_id, '')}"


def session_href(path: str) -> str:
    """The ``action:session/PATH`` link that opens another session file (not yet escaped)."""
    return f"action:session/{quote(path, safe='')}"


def file_name(path: str) -> str:
    """The last part of a session path written on any system (what a link to it shows)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1] or path


def branch_href(step: str, entry_id: str) -> str:
    """The ``action:branch/STEP/ENTRYID`` link of a card's branch switcher (not yet escaped).

    Args:
        step: ``prev``, ``next`` (the sibling before or after) or ``menu`` (every sibling to choose from).
        entry_id: the card's entry.
    """
    return f"action:branch/{step}/{quote(entry_id, safe='')}"


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
    return (verb, _unquote(key)) if verb and key else None


def image_src(entry_id: str, index: int) -> str:
    """The ``image:ENTRYID/INDEX`` source of an entry's INDEX-th image block (not yet escaped)."""
    return f"image:{_quote(entry_id, '')}/{index}"


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
    return _unquote(entry_id), int(index)


# An id may hold half a surrogate pair (a "\\ud800" escape, which JSON.parse accepts): percent-encode
# its bytes as they are, and read them back the same way, so such an entry keeps a link of its own.
def _quote(text: str, safe: str) -> str:
    return quote(text, safe=safe, errors="surrogatepass")


def _unquote(text: str) -> str:
    return unquote(text, errors="surrogatepass")


def image_bytes(body: Body, index: int) -> tuple[bytes, str] | None:
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
    images = [b for b, n in numbered_blocks(content_of(body)) if n >= 0]
    if index >= len(images):
        return None
    return decode_image(images[index])
