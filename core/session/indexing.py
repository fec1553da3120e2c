"""Reading a session file, stage 3 of 3 (indexing): an entry object -> an :class:`Entry`, and the index.

An entry gets its id and parent (an id synthesised for one without: every entry of a version 1 file,
derived from the session id and the line number, so the same file gives the same ids on every load;
the reference draws random ones), its type normalised to a kind (variant spellings), and a diagnostic
for what is wrong with it. Then what its kind adds to the index is taken by the kind's function in
``_INDEXERS`` (a table, type -> function): message roles and counts, usage in figures wherever it is
recorded (assistant messages, tool results, usage records, summaries), the first message and the last
activity, labels, the session name, models, compactions, context edits, child usage, and the marks
of which agent wrote the file (:mod:`core.session.flavour`).

The object is dropped afterwards (unless an observer or ``keep_bodies`` wants it), so memory follows
the number of entries, not the file size; the strings repeated on nearly every line are held once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from core.session.content import message_text
from core.session.decoding import LineDecoder
from core.session.entry import (
    AssistantInfo,
    CompactionInfo,
    ContextEditInfo,
    Entry,
    LabelInfo,
    UsageInfo,
    js_truthy,
)
from core.session.jsonl import JsonObject
from core.session.usage import MAX_FIGURE, unusable_figure, unusable_note, usage_totals
from core.session.vocabulary import (
    ASSISTANT,
    BASH_EXECUTION,
    BRANCH_SUMMARY,
    BRANCH_SUMMARY_ROLE,
    CHILD_USAGE_ATTRIBUTED,
    COMPACTION,
    COMPACTION_SUMMARY_ROLE,
    CONTEXT_EDIT,
    CUSTOM,
    HOOK_MESSAGE,
    KNOWN_TYPES,
    LABEL,
    MESSAGE,
    MODEL_CHANGE,
    PRIME_AGENT_TYPES,
    SESSION_INFO,
    STOP_ABORTED,
    STOP_ERROR,
    STOP_LENGTH,
    SYSTEM,
    TOOL_RESULT,
    TYPE_ALIASES,
    USAGE,
    USER,
)
from core.timefmt import JS_TIME_LIMIT, is_valid_timestamp

# The strings that repeat on nearly every line (types, roles, stop reasons), held once: each line's own
# copy would cost 50-60 bytes an entry, ~90 MB on a 520,000-entry session.
_ROLES = (
    USER,
    ASSISTANT,
    TOOL_RESULT,
    CUSTOM,
    SYSTEM,
    BASH_EXECUTION,
    BRANCH_SUMMARY_ROLE,
    COMPACTION_SUMMARY_ROLE,
)
_STOP_REASONS = ("stop", "toolUse", STOP_LENGTH, STOP_ERROR, STOP_ABORTED)
_SHARED: dict[str, str] = {name: name for name in (*KNOWN_TYPES, *TYPE_ALIASES, *_ROLES, *_STOP_REASONS)}

_NO_TYPE = "(no type)"  # the kind of an entry without a type (or whose type is not text)


def _shared(value: object) -> object:
    """``value``, or the one shared copy of it when it is a common string."""
    return _SHARED.get(value, value) if type(value) is str else value


KEPT_BYTES = 32 << 20
"""``keep_bodies`` keeps the objects of the first this many bytes of lines; the rest are read again.

A parsed entry costs about 5 times its line (850 bytes for a 180-byte message): keeping a million of
them for an export held 850 MB before the first was rendered. Parsing the rest again costs about 10 us
an entry."""


def duplicate_note(entry_id: str, earlier_line: int) -> str:
    """The ``duplicate-id`` diagnostic's sentence for ``entry_id``, used before on ``earlier_line``."""
    return f"Id {entry_id} was already used on line {earlier_line}; this later entry wins."


Observer: TypeAlias = Callable[[Entry, JsonObject], None]
"""Called with every new entry and the object parsed from its line (see :class:`core.session.Session`)."""


class EntryIndexer(LineDecoder):
    """The indexing stage, and the index it fills (built on the decoding stage's state).

    Attributes:
        entries: every entry in file order, duplicates included.
        by_id: entry id -> entry; for duplicate ids the later entry wins, as in the reference.
        name_seen: a session_info entry was read (it may have cleared the name).
        message_count, first_message, last_activity_ms, models: the reference's session-list fields.
    """

    # Set by the constructors (Session.__init__, Session.resume) before _reset().
    path: str
    _keep_bodies: bool
    _fold_all: bool
    _observer: Observer | None

    def _reset(self) -> None:
        super()._reset()
        self._kept: dict[int, JsonObject] | None = {} if self._keep_bodies else None  # line -> parsed object
        self._kept_room = KEPT_BYTES  # bytes of lines whose objects may still be kept
        # Fold every line's deep values as it is read where objects are used whole (an observer, kept
        # bodies) or every note is wanted; otherwise the index folds only the values it reads.
        self._fold_lines = self._observer is not None or self._keep_bodies or self._fold_all
        self.entries: list[Entry] = []
        self.by_id: dict[str, Entry] = {}
        self._links_suspect = False  # a parent named before it appears, or a repeated id
        self._chain_start: str | None = None  # what an id-less first entry hangs off (Session.resume)
        self._labels: dict[str, tuple[str, object]] = {}  # target -> (label, label entry timestamp)
        self._name: str | None = None
        self.name_seen = False
        # child_usage_attributed, in file order: targetId as written -> aggregateUsage (the last one wins)
        self._usage_overrides: dict[str, JsonObject] = {}
        # v1 only: an assistant message's id as written -> the id synthesised for it. Prime Agent applies
        # child usage before migrating, by the ids as written, so those must be remembered.
        self._written_ids: dict[str, str] = {}
        self._context_edits: dict[str, list[Entry]] = {}  # targetId -> the context_edit entries naming it
        # summary accumulators (the reference's session-list fields, over the whole file)
        self.message_count = 0
        self.first_message = ""
        self.last_activity_ms: int | float | None = None
        self.models: dict[str, None] = {}  # "provider/model" in order of first use
        self._last_model: tuple[object, object] | None = None

    # ------------------------------------------------------------------ the entry
    def _index_entry(self, obj: JsonObject, typ: object, line_no: int, offset: int, length: int) -> None:
        """Index one entry object whose ``type`` value is ``typ``.

        This is the hot path (once per entry of every file read): keep it to lookups; what is rare
        (a missing or odd id, a repeated id, a kind's own fields) is a call of its own.
        """
        # One lookup gives the shared string, the kind and its indexing function. A list or an object
        # cannot even be looked up in a dict: such a type, like any unknown one, costs only its line.
        known = _BY_TYPE.get(typ) if type(typ) is str else None
        typ, kind, index_kind = _unknown_type(typ) if known is None else known
        legacy = self.version < 2
        entry_id = None if legacy else obj.get("id")
        by_id = self.by_id
        synthetic = False
        if type(entry_id) is str and entry_id:
            parent_id = obj.get("parentId")
            if type(parent_id) is str:
                parent = by_id.get(parent_id)
                if parent is None:
                    self._unseen_parent()  # an orphan, a self-parent, or a loop: the tree will tell
                else:
                    parent_id = parent.id  # one string for both ids: 57 bytes less an entry
            elif parent_id is not None:
                self._invalid_parent(line_no, entry_id)
                parent_id = None
        else:
            entries = self.entries  # an entry without an id hangs off the entry before it
            parent_id = entries[-1].id if entries else self._chain_start
            entry_id = self._synthesise(line_no, legacy)
            synthetic = True
        timestamp = obj.get("timestamp")
        if not is_valid_timestamp(timestamp):
            self._diag(line_no, "invalid-timestamp", "The entry timestamp is missing or invalid.", entry_id)
        entry = Entry(entry_id, parent_id, typ, kind, timestamp, line_no, offset, length, None, synthetic)
        index_kind(self, entry, obj)
        if typ in TYPE_ALIASES:
            self._diag(line_no, "variant", f"Entry type {typ!r} was read as {kind!r}.", entry_id)
        self.entries.append(entry)
        if entry_id in by_id:
            self._duplicate_id(entry, by_id[entry_id])
        by_id[entry_id] = entry
        if legacy:
            self._by_ordinal.append(entry)
        if self._observer is not None:
            self._observer(entry, obj)
        if self._kept is not None and self._kept_room > 0:
            self._kept[line_no] = obj
            self._kept_room -= length

    def _skeleton_allowed(self) -> bool:
        return self._observer is None  # an observer is handed every line's whole object

    def _first_text_wanted(self) -> bool:
        return not self.first_message

    def _forget_body(self, line_no: int) -> None:
        if self._kept is not None:
            self._kept.pop(line_no, None)

    def _unseen_parent(self) -> None:
        """The entry being indexed names a parent no earlier entry has.

        A worker of :mod:`core.session.parallel` notes which: the parent may be in an earlier part.
        """
        self._links_suspect = True

    def _invalid_parent(self, line_no: int, entry_id: str) -> None:
        self._diag(line_no, "invalid-field", "parentId is not a string; read as a root.", entry_id)

    def _synthesise(self, line_no: int, legacy: bool) -> str:
        """An id for an entry without one (every entry of a version 1 file), the same on every load."""
        import hashlib  # only legacy files need it; keep it off the start-up path

        # A header id may hold half a surrogate pair (a "\ud800" escape): encode it as it is.
        seed = f"{self.session_id or self.path}\0{line_no}".encode("utf-8", "surrogatepass")
        salt = 0
        while True:
            entry_id = hashlib.blake2b(seed + salt.to_bytes(2, "little"), digest_size=4).hexdigest()
            if entry_id not in self.by_id:
                break
            salt += 1
        if not legacy:
            message = (
                "The entry has no id; it was given one and chained to the entry before it. pi gives"
                " every entry without an id the same empty id, so it shows only the last of them."
            )
            self._diag(line_no, "missing-id", message, entry_id)
        return entry_id

    def _duplicate_id(self, entry: Entry, earlier: Entry) -> None:
        self._links_suspect = True
        self._diag(entry.line, "duplicate-id", duplicate_note(entry.id, earlier.line), entry.id)

    # ------------------------------------------------------------------ what each kind adds
    def _index_message(self, entry: Entry, obj: JsonObject) -> None:
        self.message_count += 1
        message = obj.get("message")
        if type(message) is not dict:
            self._diag(entry.line, "invalid-field", "The message entry has no message object.", entry.id)
            return
        role = message.get("role")
        if type(role) is not str:
            return
        if role == HOOK_MESSAGE and self.version < 3:
            role = CUSTOM
        role = _SHARED.get(role, role)
        entry.role = role
        if role == ASSISTANT:
            self._index_assistant(entry, obj, message)
        elif role == USER and "content" in message:
            self._note_activity(entry, message)
            if not self.first_message:
                self.first_message = message_text(message.get("content"))
        elif role == TOOL_RESULT:
            usage = message.get("usage")  # a nested model call's (pi 1.6): counted without reading it again
            if type(usage) is dict:
                entry.info = UsageInfo(*usage_totals(usage))
        elif role == SYSTEM:
            self._pi1_marked = True

    def _index_assistant(self, entry: Entry, obj: JsonObject, message: JsonObject) -> None:
        if self.version < 2:
            written = obj.get("id")
            if type(written) is str:  # the last assistant with this id wins, as in Prime Agent
                self._written_ids[written] = entry.id
        if "content" in message:
            self._note_activity(entry, message)
        usage = message.get("usage")
        tokens = total = None
        if type(usage) is dict:
            cost = usage.get("cost")
            if type(cost) is dict:
                tokens, total = usage.get("totalTokens"), cost.get("total")
        pair = (message.get("provider"), message.get("model"))
        if pair != self._last_model:  # most replies repeat the previous model: skip the format
            self._last_model = pair
            provider, model = pair
            if type(model) is str:
                self._note_model(provider, model)
        if type(tokens) is int and type(total) is float and -MAX_FIGURE <= tokens <= MAX_FIGURE:
            # as the reference writes usage: hardly any checks (a float cost that is huge or NaN is not)
            if -MAX_FIGURE <= total <= MAX_FIGURE:
                entry.info = AssistantInfo(tokens, total, _shared(message.get("stopReason")))
                return
        entry.info = AssistantInfo(*usage_totals(usage), _shared(message.get("stopReason")))
        unusable = unusable_figure(usage)
        if unusable is not None:
            self._unusable_figure(entry, unusable)

    def _unusable_figure(self, entry: Entry, figure: str) -> None:
        self._diag(entry.line, "invalid-field", unusable_note(figure), entry.id)

    def _note_activity(self, entry: Entry, message: JsonObject) -> None:
        # The reference's "modified": the newest user/assistant message time, else the entry time.
        moment = message.get("timestamp")
        if (type(moment) is not int and type(moment) is not float) or not (
            -JS_TIME_LIMIT <= moment <= JS_TIME_LIMIT  # beyond it (or NaN) no Date: as if none
        ):
            moment = entry.ts_ms
            if moment is None:
                return
        last = self.last_activity_ms
        if last is None or moment > last:
            self.last_activity_ms = moment

    def _note_model(self, provider: object, model: str) -> None:
        self.models[f"{provider}/{model}" if type(provider) is str else model] = None

    def _index_model_change(self, _entry: Entry, obj: JsonObject) -> None:
        model = obj.get("modelId")
        if type(model) is str:
            self._note_model(obj.get("provider"), model)
            return
        written = obj.get("model")  # some writers: {"model": "provider/id"}
        if type(written) is str and written:
            self.models[written] = None

    def _index_label(self, entry: Entry, obj: JsonObject) -> None:
        target, label = obj.get("targetId"), obj.get("label")
        entry.info = LabelInfo(target, label)
        if not isinstance(target, str):
            self._diag(entry.line, "invalid-field", "The label entry has no target id.", entry.id)
            return
        if js_truthy(label):
            if not isinstance(label, str):
                self.fold_deep(label, entry.line, entry.id)
            text = label if isinstance(label, str) else str(label)
            # dict assignment keeps an existing key's position, like JavaScript's Map.set
            self._labels[target] = (text, entry.timestamp)
        else:
            self._labels.pop(target, None)

    def _index_name(self, entry: Entry, obj: JsonObject) -> None:
        name = obj.get("name")
        if name is None or type(name) is str:
            self._name = (name.strip() or None) if name else None
            self.name_seen = True
            entry.info = self._name
        else:
            self._diag(entry.line, "invalid-field", "The session name is not text; it was ignored.", entry.id)

    def _index_compaction(self, entry: Entry, obj: JsonObject) -> None:
        entry.info = CompactionInfo(obj.get("tokensBefore"), _body_usage(obj))
        if "systemMessage" in obj:
            self._pi1_marked = True

    def _index_context_edit(self, entry: Entry, obj: JsonObject) -> None:
        self._pi1_marked = True
        target = obj.get("targetId")
        entry.info = ContextEditInfo(target, "replacement" in obj and obj["replacement"] is None)
        if "replacement" not in obj:
            message = "The context edit has no replacement: pi 1.6 fails on it; here it changes nothing."
            self._diag(entry.line, "invalid-field", message, entry.id)
        if type(target) is str:
            edits = self._context_edits.get(target)
            if edits is None:
                self._context_edits[target] = [entry]
            else:
                edits.append(entry)
        else:
            message = "The context edit has no target id; it changes nothing."
            self._diag(entry.line, "invalid-field", message, entry.id)

    def _index_usage(self, entry: Entry, obj: JsonObject) -> None:
        self._pi1_marked = True  # only pi 1.x writes usage entries
        entry.info = _body_usage(obj)

    def _index_branch_summary(self, entry: Entry, obj: JsonObject) -> None:
        entry.info = _body_usage(obj)

    def _index_prime_agent(self, _entry: Entry, _obj: JsonObject) -> None:
        self._prime_marked = True  # only Prime Agent writes these types

    def _index_child_usage(self, _entry: Entry, obj: JsonObject) -> None:
        self._prime_marked = True
        target, usage = obj.get("targetId"), obj.get("aggregateUsage")
        if type(target) is str and type(usage) is dict:
            self._usage_overrides[target] = usage  # in file order: the last one wins

    def _index_nothing(self, _entry: Entry, _obj: JsonObject) -> None:
        pass  # a known type the index keeps nothing of beyond the entry itself

    def _index_unknown(self, entry: Entry, obj: JsonObject) -> None:
        written = obj.get("type")
        if type(written) is list or type(written) is dict:
            what = "a list" if type(written) is list else "an object"
            message = f"The entry's type is {what}, not text; it is kept as an unknown entry."
            self._diag(entry.line, "invalid-field", message, entry.id)
        else:
            shown = repr(entry.type) if entry.type else "(none)"
            self._diag(entry.line, "unknown-type", f"Unknown entry type {shown}; kept as it is.", entry.id)


def _body_usage(obj: JsonObject) -> UsageInfo | None:
    """The figures of the usage object an entry records at its top level (the summarising call's, ...)."""
    usage = obj.get("usage")
    return UsageInfo(*usage_totals(usage)) if type(usage) is dict else None


_Indexer: TypeAlias = Callable[[EntryIndexer, Entry, JsonObject], None]

# kind -> what an entry of it adds to the index; every known type is here.
_INDEXERS: dict[str, _Indexer] = {
    **dict.fromkeys(KNOWN_TYPES, EntryIndexer._index_nothing),
    **dict.fromkeys(PRIME_AGENT_TYPES, EntryIndexer._index_prime_agent),
    MESSAGE: EntryIndexer._index_message,
    LABEL: EntryIndexer._index_label,
    SESSION_INFO: EntryIndexer._index_name,
    MODEL_CHANGE: EntryIndexer._index_model_change,
    COMPACTION: EntryIndexer._index_compaction,
    BRANCH_SUMMARY: EntryIndexer._index_branch_summary,
    CONTEXT_EDIT: EntryIndexer._index_context_edit,
    USAGE: EntryIndexer._index_usage,
    CHILD_USAGE_ATTRIBUTED: EntryIndexer._index_child_usage,
}

# type as written (a known type or a variant spelling) -> (the shared string, its kind, what indexes it)
_BY_TYPE: dict[str, tuple[str, str, _Indexer]] = {
    **{name: (_SHARED[name], _SHARED[name], _INDEXERS[name]) for name in KNOWN_TYPES},
    **{name: (_SHARED[name], kind, _INDEXERS[kind]) for name, kind in TYPE_ALIASES.items()},
}


def _unknown_type(typ: object) -> tuple[str, str, _Indexer]:
    """``_BY_TYPE``'s answer for a type it does not hold: no text, or text this library does not know."""
    if type(typ) is not str:
        return "", _NO_TYPE, EntryIndexer._index_unknown
    typ = _SHARED.get(typ, typ)  # a role as the type, say
    return typ, typ or _NO_TYPE, EntryIndexer._index_unknown
