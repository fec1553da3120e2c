"""What the model saw: the context the agent that wrote a file builds from it, exactly as it builds it.

Every agent walks from the leaf to the root; takes the thinking level, the model (and Prime Agent's
service tier) from the whole path; with a compaction on the path emits its summary, then the kept
entries from ``firstKeptEntryId`` up to the compaction, then everything after it. ``message`` entries
are passed through verbatim; ``custom_message`` and non-empty ``branch_summary`` entries become
messages; bookkeeping entries contribute nothing.

Where the agents differ, the file's flavour (:mod:`core.session.flavour`, which documents how it is
decided) picks whose rules apply:

* pi 0.73.1 (``Flavour.PI_0``): exactly the above.
* pi 1.6.0 (``Flavour.PI_1``, ``buildSessionProjection``): a compaction's ``systemMessage`` comes
  before its summary; ``system`` messages inside the kept range are skipped; a ``context_edit``
  applies (the latest per target among the entries in the built context, so none from before the
  kept range): ``replacement: null`` drops the target's messages, otherwise only the ``content`` of a
  user, assistant, toolResult or custom message is replaced (a string becomes one text block for
  assistant and toolResult); null or missing content becomes ``[]`` (``""`` for a system message).
* Prime Agent (``Flavour.PRIME_AGENT``): pi 0.73.1's rules, ``child_usage_attributed`` applied to the
  bodies on load (:meth:`core.session.session.Session.usage_overrides`), and the compaction summary
  carries ``retainedMessageCount`` and ``customInstructions`` as the fork's
  ``createCompactionSummaryMessage`` writes them.

A Prime Agent file's context carries ``serviceTier`` (the last ``service_tier_change`` on the path,
``"default"`` without one), as the fork's does; pi's has none, so pi files get none unless asked for
(``service_tier=True``, what ``prime-sessions context`` prints for every file: only Prime Agent files
can change it, so for any other file it is ``"default"``).

Provenance for displays: :func:`iter_context_items` yields, per message, the entry it came from and
the ``context_edit`` entry that replaced its content (None when the content is as written), so a view
can mark edited content. The messages themselves are exactly those :func:`build_context` returns.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from typing import Final, NamedTuple, NotRequired, TypedDict

from core.session.entry import ContextEditInfo, Entry, js_truthy
from core.session.flavour import Flavour
from core.session.jsonl import JsonObject
from core.session.session import Session
from core.session.vocabulary import (
    ASSISTANT,
    BRANCH_SUMMARY,
    BRANCH_SUMMARY_ROLE,
    COMPACTION,
    COMPACTION_SUMMARY_ROLE,
    CONTEXT_EDIT,
    CUSTOM,
    CUSTOM_MESSAGE,
    MESSAGE,
    MODEL_CHANGE,
    SERVICE_TIER_CHANGE,
    SYSTEM,
    TEXT_BLOCK,
    THINKING_LEVEL_CHANGE,
    TOOL_RESULT,
    USER,
)
from core.timefmt import js_date_ms


class DefaultLeaf(Enum):
    """The type of :data:`DEFAULT_LEAF` (an enum, so a type checker can tell it from an entry id)."""

    DEFAULT_LEAF = "DEFAULT_LEAF"

    def __repr__(self) -> str:
        return "DEFAULT_LEAF"


DEFAULT_LEAF: Final = DefaultLeaf.DEFAULT_LEAF
"""Pass as ``leaf`` to use the session's own leaf (the last entry in file order)."""


class ContextSettings(TypedDict):
    """The settings of a context, in Prime Agent's key order.

    ``thinkingLevel`` (and ``serviceTier``) are absent when the deciding entry lacks the field, as
    ``JSON.stringify`` drops an undefined value; ``serviceTier`` is present only where it was asked
    for (see :func:`iter_context_items`).
    """

    thinkingLevel: NotRequired[object]
    serviceTier: NotRequired[object]
    model: object


class SessionContext(ContextSettings):
    """:func:`build_context`'s result: ``{messages, thinkingLevel, model}``, and maybe ``serviceTier``.

    ``serviceTier`` comes before ``model``, for a Prime Agent file or when asked for. A message is
    passed through as the file holds it: an object in any valid file, but whatever JSON value a
    damaged ``message`` field holds, as in the reference.
    """

    messages: list[object]


class ContextItem(NamedTuple):
    """One message of the context and where it came from (see :func:`iter_context_items`).

    Attributes:
        message: the message exactly as :func:`build_context` lists it.
        entry: the entry it came from: the message, custom_message or branch_summary entry, or the
            compaction for its summary and its system message.
        edit: the ``context_edit`` entry whose replacement this message's content is; None when the
            content is as written.
        system_message: True for a compaction's ``systemMessage`` (pi 1.x), which comes before its summary.
    """

    message: object
    entry: Entry
    edit: Entry | None = None
    system_message: bool = False


_MISSING: Final = object()
_MESSAGE_KINDS = (MESSAGE, CUSTOM_MESSAGE, BRANCH_SUMMARY)
_EDITABLE_ROLES = (USER, ASSISTANT, TOOL_RESULT, CUSTOM)


def _no_settings(service_tier: bool) -> ContextSettings:
    """The settings of an empty context (the null leaf, or a file without entries)."""
    if service_tier:
        return {"thinkingLevel": "off", "serviceTier": "default", "model": None}
    return {"thinkingLevel": "off", "model": None}


def build_context(
    session: Session, leaf: str | DefaultLeaf | None = DEFAULT_LEAF, *, service_tier: bool | None = None
) -> SessionContext:
    """Return ``{"messages", "thinkingLevel", "model"}`` as the file's agent computes it.

    See :func:`iter_context` for the same without holding every message in memory at once.

    Args:
        session: a loaded session.
        leaf: an entry id; ``None`` for the explicit null leaf (no messages, thinking ``off``, model
            null); an unknown id or :data:`DEFAULT_LEAF` falls back to the last entry in file order.
        service_tier: include ``serviceTier``: None (the default) for Prime Agent files only, as the
            agents do; True for every file; False for none.

    Returns:
        A dict equal, after a JSON round trip, to the agent's result. Keys whose value would be
        ``undefined`` in JavaScript are absent.
    """
    settings, messages = iter_context(session, leaf, service_tier=service_tier)
    return {"messages": list(messages), **settings}


def iter_context(
    session: Session, leaf: str | DefaultLeaf | None = DEFAULT_LEAF, *, service_tier: bool | None = None
) -> tuple[ContextSettings, Iterator[object]]:
    """The context as ``(settings, messages)``, the messages produced one at a time.

    Settings are ``thinkingLevel`` (when defined), ``serviceTier`` (when asked for) and ``model``;
    message bodies are read as needed. Args and results are those of :func:`build_context`, which is
    ``{"messages": list(messages), **settings}``. A 20,000-message context can so be written out
    without holding it all.
    """
    settings, items = iter_context_items(session, leaf, service_tier=service_tier)
    return settings, (item.message for item in items)


def iter_context_items(
    session: Session, leaf: str | DefaultLeaf | None = DEFAULT_LEAF, *, service_tier: bool | None = None
) -> tuple[ContextSettings, Iterator[ContextItem]]:
    """The context as ``(settings, items)``: each message with the entry it came from and its edit.

    The API for views that show "what the model saw" and mark what a ``context_edit`` changed: the
    messages are exactly those of :func:`iter_context` for the same leaf, in order. A target that an
    edit dropped yields nothing; :meth:`core.session.session.Session.context_edits_for` lists every
    edit naming an entry, whichever the leaf.

    Args:
        session: a loaded session.
        leaf: as for :func:`build_context`.
        service_tier: as for :func:`build_context`.
    """
    flavour = session.flavour
    tiered = flavour is Flavour.PRIME_AGENT if service_tier is None else service_tier
    layout = _layout(session, leaf)
    if layout is None:
        return _no_settings(tiered), iter(())
    path, bodies, deciding = layout.path, layout.bodies, layout.deciding
    settings = _settings(path, bodies, *deciding, tiered)
    kept, after, edits = layout.kept, layout.after, layout.edits
    if edits:
        dropped = {target_id for target_id, edit in edits.items() if _drops(edit)}
        kept = [e for e in kept if e.id not in dropped]
        after = [e for e in after if e.id not in dropped]
        # Replacements are read up front: an edit usually comes after its target on the path.
        replacing = [e for e in edits.values() if not _drops(e)]
        bodies.update(zip((id(e) for e in replacing), session.bodies(replacing), strict=True))
    plan = _Plan(session, flavour, bodies, edits, layout.compaction, kept, after)
    return settings, plan.items()


def context_edits_in_force(
    session: Session, leaf: str | DefaultLeaf | None = DEFAULT_LEAF
) -> dict[str, Entry]:
    """The ``context_edit`` entries that shape the context built at ``leaf``: target id -> the edit.

    Pi 1.x's rule, for a pi 1.x file only (no other agent applies an edit): the latest edit per
    target among the entries of the built context (the path from the newest compaction's kept range
    on; none from before it), for a target among those entries too. An edit whose ``info.drops`` is
    True removed its target's messages; any other replaced their content, as the items of
    :func:`iter_context_items` (their ``edit``) show. The two are computed by the same code.

    Args:
        session: a loaded session.
        leaf: as for :func:`build_context`.
    """
    layout = _layout(session, leaf)
    if layout is None or not layout.edits:
        return {}
    built = {e.id for e in layout.kept} | {e.id for e in layout.after}
    if layout.compaction is not None:
        built.add(layout.compaction.id)
    return {target: edit for target, edit in layout.edits.items() if target in built}


class _Layout(NamedTuple):
    """Where the parts of a context come from on the path to its leaf (see :func:`_layout`)."""

    path: list[Entry]
    bodies: dict[int, JsonObject]  # id(entry) -> body, for the deciding entries
    deciding: tuple[int, int, int]  # the last thinking, tier and model entries' indexes into path (or -1)
    compaction: Entry | None
    kept: list[Entry]  # the compaction's kept range (pi 1.x: without its system messages)
    after: list[Entry]  # everything after the compaction, or the whole path without one
    edits: dict[str, Entry]  # target id -> the context_edit that applies (pi 1.x files only)


def _layout(session: Session, leaf: str | DefaultLeaf | None) -> _Layout | None:
    """The path to ``leaf`` cut into the parts a context is built from; None for an empty context."""
    if leaf is None:
        return None
    target = session.get(leaf) if leaf is not DEFAULT_LEAF and leaf else None
    if target is None:
        target = session.leaf  # no or an unknown id: the last entry in file order, as the reference does
    if target is None:
        return None
    path = session.path_to(target.id)

    # Only the last thinking, tier and model-bearing entry and the last compaction on the path decide
    # the settings, so only their bodies (and those of the emitted entries) are read: a long compacted
    # session reads a few hundred lines, not the whole path.
    last_thinking = last_tier = last_model = last_compaction = -1
    for index, entry in enumerate(path):
        kind = entry.kind
        if kind == THINKING_LEVEL_CHANGE:
            last_thinking = index
        elif kind == MODEL_CHANGE or (kind == MESSAGE and entry.role == ASSISTANT):
            last_model = index
        elif kind == COMPACTION:
            last_compaction = index
        elif kind == SERVICE_TIER_CHANGE:
            last_tier = index

    deciding = [path[i] for i in (last_thinking, last_tier, last_model, last_compaction) if i >= 0]
    bodies = dict(zip((id(e) for e in deciding), session.bodies(deciding), strict=True))
    flavour = session.flavour
    compaction: Entry | None = None
    if last_compaction >= 0:
        compaction = path[last_compaction]
        first_kept = bodies[id(compaction)].get("firstKeptEntryId", _MISSING)
        # firstKeptEntryId may name any entry on the path, not only one that makes a message; when it
        # is not on the path before the compaction (pi 1.x writes the compaction's own id to keep
        # nothing), nothing before the compaction is kept.
        start = next((i for i in range(last_compaction) if path[i].id == first_kept), last_compaction)
        kept = path[start:last_compaction]
        after = path[last_compaction + 1 :]
        if flavour is Flavour.PI_1:
            kept = [e for e in kept if not (e.kind == MESSAGE and e.role == SYSTEM)]
    else:
        kept, after = [], path
    edits = _latest_edits(kept, after) if flavour is Flavour.PI_1 else {}
    return _Layout(path, bodies, (last_thinking, last_tier, last_model), compaction, kept, after, edits)


def _settings(
    path: list[Entry],
    bodies: dict[int, JsonObject],
    last_thinking: int,
    last_tier: int,
    last_model: int,
    tiered: bool,
) -> ContextSettings:
    """The settings from the deciding entries' bodies (indexes into ``path``, -1 for none)."""
    thinking: object = "off"
    if last_thinking >= 0:
        thinking = bodies[id(path[last_thinking])].get("thinkingLevel", _MISSING)
    tier: object = "default" if tiered else _MISSING
    if tiered and last_tier >= 0:
        tier = bodies[id(path[last_tier])].get("serviceTier", _MISSING)
    model: object = None
    if last_model >= 0:
        entry = path[last_model]
        body = bodies[id(entry)]
        if entry.kind == MODEL_CHANGE:
            model = _pick(body, provider="provider", modelId="modelId")
        else:
            message = body["message"]
            # An assistant role was read from this very object, so it is one (unless the file changed).
            model = _pick(message if isinstance(message, dict) else {}, provider="provider", modelId="model")
    # Keys in Prime Agent's order; one whose field is missing is absent, as JSON.stringify drops undefined.
    if thinking is _MISSING and tier is _MISSING:
        return {"model": model}
    if thinking is _MISSING:
        return {"serviceTier": tier, "model": model}
    if tier is _MISSING:
        return {"thinkingLevel": thinking, "model": model}
    return {"thinkingLevel": thinking, "serviceTier": tier, "model": model}


def _latest_edits(kept: list[Entry], after: list[Entry]) -> dict[str, Entry]:
    """Target id -> (pi 1.x) the latest context_edit naming it among the entries of the built context."""
    edits: dict[str, Entry] = {}
    for entries in (kept, after):
        for entry in entries:
            info = entry.info
            if entry.kind == CONTEXT_EDIT and isinstance(info, ContextEditInfo) and type(info.target) is str:
                edits[info.target] = entry
    return edits


def _drops(edit: Entry) -> bool:
    info = edit.info
    return isinstance(info, ContextEditInfo) and info.drops


class _Plan:
    """The entries a context is made of, and the rules to turn them into messages."""

    def __init__(
        self,
        session: Session,
        flavour: Flavour,
        bodies: dict[int, JsonObject],
        edits: dict[str, Entry],
        compaction: Entry | None,
        kept: list[Entry],
        after: list[Entry],
    ) -> None:
        self.session = session
        self.flavour = flavour
        self.bodies = bodies
        self.edits = edits
        self.compaction = compaction
        self.kept = [e for e in kept if e.kind in _MESSAGE_KINDS]
        self.after = [e for e in after if e.kind in _MESSAGE_KINDS]

    def items(self) -> Iterator[ContextItem]:
        """The messages in order; bodies are read in path order as they are produced."""
        bodies = self.bodies
        compaction = self.compaction
        if compaction is None:
            yield from self._from(self.after)
            return
        if self.flavour is Flavour.PRIME_AGENT:
            # The summary counts the messages kept before it, so those are made first.
            retained = list(self._from(self.kept))
            yield ContextItem(self._summary(bodies[id(compaction)], len(retained)), compaction)
            yield from retained
        else:
            if self.flavour is Flavour.PI_1:
                yield from self._compaction_pi1(compaction)
            else:
                yield ContextItem(self._summary(bodies[id(compaction)]), compaction)
            yield from self._from(self.kept)
        yield from self._from(self.after)

    def _from(self, entries: list[Entry]) -> Iterator[ContextItem]:
        preloaded = self.bodies
        loading = self.session.bodies(e for e in entries if id(e) not in preloaded)
        for entry in entries:
            body = preloaded[id(entry)] if id(entry) in preloaded else next(loading)
            message = self._message(entry, body)
            if message is _MISSING:
                continue
            edit = self.edits.get(entry.id)
            if edit is not None:
                message, applied = _apply_edit(message, self.bodies[id(edit)])
                yield ContextItem(message, entry, edit if applied else None)
            else:
                yield ContextItem(message, entry)

    def _message(self, entry: Entry, body: JsonObject) -> object:
        """The message one entry makes, or ``_MISSING`` when it makes none."""
        pi1 = self.flavour is Flavour.PI_1
        if entry.kind == MESSAGE:
            if "message" not in body:
                return _MISSING
            message = body["message"]
            if pi1 and isinstance(message, dict) and message.get("content") is None:
                # Session files are not validated: 1.x fills in what a hand edit or a fork left out.
                role = message.get("role")
                if role == SYSTEM:
                    return {**message, "content": ""}
                if role in (USER, ASSISTANT, TOOL_RESULT):
                    return {**message, "content": []}
            return message
        if entry.kind == CUSTOM_MESSAGE:
            content: object = body.get("content", _MISSING)
            if pi1 and (content is None or content is _MISSING):
                content = []
            return _pick(
                body,
                role=(CUSTOM,),
                customType="customType",
                content=(content,) if content is not _MISSING else "content",
                display="display",
                details="details",
                timestamp=(js_date_ms(body.get("timestamp")),),
            )
        if js_truthy(body.get("summary")):
            return _pick(
                body,
                role=(BRANCH_SUMMARY_ROLE,),
                summary="summary",
                fromId="fromId",
                timestamp=(js_date_ms(body.get("timestamp")),),
            )
        return _MISSING

    def _summary(self, body: JsonObject, retained: int | None = None) -> JsonObject:
        timestamp = (js_date_ms(body.get("timestamp")),)
        if retained is None:
            return _pick(
                body,
                role=(COMPACTION_SUMMARY_ROLE,),
                summary="summary",
                tokensBefore="tokensBefore",
                timestamp=timestamp,
            )
        return _pick(
            body,
            role=(COMPACTION_SUMMARY_ROLE,),
            summary="summary",
            tokensBefore="tokensBefore",
            retainedMessageCount=(retained,),
            customInstructions="customInstructions",
            timestamp=timestamp,
        )

    def _compaction_pi1(self, compaction: Entry) -> Iterator[ContextItem]:
        body = self.bodies[id(compaction)]
        made: list[tuple[object, bool]] = []
        system = body.get("systemMessage")
        if js_truthy(system):
            made.append((system, True))
        made.append((self._summary(body), False))
        edit = self.edits.get(compaction.id)
        for message, is_system in made:
            if edit is None:
                yield ContextItem(message, compaction, None, is_system)
            elif not _drops(edit):
                message, applied = _apply_edit(message, self.bodies[id(edit)])
                yield ContextItem(message, compaction, edit if applied else None, is_system)


def _apply_edit(message: object, edit: JsonObject) -> tuple[object, bool]:
    """Pi 1.x's ``projectContextEntry`` for a replacement (not a drop): ``(message, replaced?)``.

    An edit without a ``replacement`` (pi 1.6 fails on one) changes nothing; a replacement that is not
    an object, or has no ``content``, leaves the message without content, as ``JSON.stringify`` drops
    pi's undefined.
    """
    if "replacement" not in edit or not isinstance(message, dict):
        return message, False
    role = message.get("role")
    if role not in _EDITABLE_ROLES:
        return message, False
    replacement = edit["replacement"]
    content = replacement.get("content", _MISSING) if isinstance(replacement, dict) else _MISSING
    if isinstance(content, str) and role in (ASSISTANT, TOOL_RESULT):
        content = [{"type": TEXT_BLOCK, "text": content}]
    edited = dict(message)
    if content is _MISSING:
        edited.pop("content", None)
    else:
        edited["content"] = content
    return edited, True


def _pick(source: JsonObject, **fields: object) -> JsonObject:
    """Build a dict from ``source`` keys (a str) or constants (a 1-tuple); absent keys stay absent."""
    out: dict[str, object] = {}
    for name, spec in fields.items():
        if isinstance(spec, tuple):
            out[name] = spec[0]
        elif spec in source:
            out[name] = source[spec]
    return out
