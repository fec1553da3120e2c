"""Tools: a tool call with its result (in an assistant's card), a tool result alone, the user's shell runs.

A tool call is one block with its result (the toolResult entry that answers it): a one-line head
(``read path:10-40``, ``grep pattern in path``), what the call did (a command, an edit as a diff, the
content written, JSON arguments), and the result: the file read (coloured by its extension), the output,
images, how long it ran and the calls it made.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import orjson

from core.kinds.common import content_part, diff_text, fold_key, json_text, message_ms, one_line
from core.kinds.derived import DiffMessage, SearchWords
from core.kinds.derived import ToolCall as DiffToolCall
from core.kinds.document import (
    ERROR,
    NOTE,
    OK,
    WARN,
    Block,
    Bullets,
    Card,
    Code,
    Diff,
    Inline,
    Output,
    Para,
    Result,
    Span,
    ToolCall,
    bold,
    code,
)
from core.kinds.kind import NO_TOOLS_MODE, TOOLS, Kind
from core.kinds.pairing import edits_as_diff
from core.kinds.shell_paths import command_touches
from core.kinds.touches import Touch, call_touches
from core.kinds.wording import nested_call_lines, tool_run_facts
from core.session.content import (
    as_dict,
    as_number,
    as_text,
    is_image_block,
    joined_text,
    message_of,
    message_text,
    numbered_blocks,
)
from core.session.usage import MODEL_LESS, TOOL_RESULT_USAGE, UsageSource
from core.session.vocabulary import BASH_EXECUTION, TOOL_RESULT

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.kinds.notes import EntryNotes
    from core.kinds.pairing import Results
    from core.session import Entry
    from core.session.content import Body

__all__ = [
    "BashExecutionKind",
    "ToolResultKind",
    "call_blocks",
    "call_words",
    "diff_call",
    "result_blocks",
    "tool_call",
    "tool_head",
]

# The fields a tool result's run facts are made from (pi 1.6's; pi 0.73's results have none of them).
_RUN_FACT_FIELDS = frozenset({"durationMs", "usage", "nestedCalls"})
# Tools whose head says everything about the call (no arguments shown).
_SEARCH_TOOLS = ("grep", "find")
_EDIT, _WRITE, _READ, _BASH, _LS = "edit", "write", "read", "bash", "ls"


def tool_call(
    entry: Entry, index: int, block: dict[str, object], result: Body | None, looked: bool, notes: list[Block]
) -> ToolCall:
    """A ``toolCall`` block of an assistant message with its result.

    Args:
        entry: the assistant message.
        index: the call's position in the message content (its fold key).
        block: the ``toolCall`` block.
        result: the body of the toolResult entry that answers it, None when there is none.
        looked: a result was looked for (then its absence is said).
        notes: what other entries say about the result (a later context edit), as blocks.
    """
    # Every call of every assistant message comes here: the lenient readers (as_text, as_dict...) are
    # written out as type tests, a tenth of the export's time went to calling them.
    name = block.get("name")
    if type(name) is not str or not name:
        name = "tool"
    args = block.get("arguments")
    if type(args) is not dict:
        args = {}
    key = f"{entry.id}/tool/{index}"  # fold_key(entry.id, "tool", index)
    message = result.get("message") if type(result) is dict else None
    if type(message) is not dict:
        message = {}
    error = message.get("isError") is True
    path = args.get("path")
    if type(path) is not str or not path:
        path = as_text(args.get("file_path"))
    # The tool's own diff (with context lines) once the edit succeeded; what was asked for otherwise.
    details = message.get("details")
    done_diff = details.get("diff") if type(details) is dict and result is not None and not error else ""
    if type(done_diff) is not str:
        done_diff = ""
    blocks = call_blocks(name, block, key, path, done_diff)
    shown: Result | None = None
    if result is not None:
        result_id = result.get("id")
        owner = result_id if isinstance(result_id, str) else entry.id
        skip_diff = name == _EDIT  # shown above, as the call's diff
        read_path = path if name == _READ and not error else None
        quiet = name in (_EDIT, _WRITE) and not error
        parts = result_blocks(message, owner, key, read_path, quiet, skip_diff)
        shown = Result(tuple(parts), error, owner if isinstance(result_id, str) else "", tuple(notes))
    elif looked:
        blocks.append(Para(("(no result recorded)",), NOTE))
    return ToolCall(name, tool_head(name, args), tuple(blocks), shown, key)


def call_blocks(name: str, block: dict[str, object], key: str, path: str, done_diff: str) -> list[Block]:
    """What a call does, by its tool: the command run, the edit's diff, the content written, its JSON.

    Args:
        name: the tool's name.
        block: the ``toolCall`` block.
        key: its fold key.
        path: the file it names, or ``""``.
        done_diff: the diff the tool reported for a successful edit, or ``""``.
    """
    raw_args = block.get("arguments")
    args = as_dict(raw_args)
    blocks: list[Block] = []
    bad_args = as_text(block.get("argumentsError"))
    if bad_args:
        blocks.append(Para((bold("The arguments were not valid JSON:"), " " + bad_args), ERROR))
    if name == _BASH:
        blocks.append(Code("$ " + as_text(args.get("command")), "sh", "", key))
    elif name == _EDIT:
        diff = done_diff or edits_as_diff(args)
        if diff:
            blocks.append(Diff(diff, key))
    elif name == _WRITE:
        content = as_text(args.get("content"))
        count = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        words = f"{count:,} line{'s' if count != 1 else ''}, {len(content):,} characters"
        blocks += [Para((words,), NOTE), Code(content, "", path, key)]
    elif name not in (_READ, _LS, *_SEARCH_TOOLS):
        blocks.append(Code(json_text(raw_args), "json", "", key))
    return blocks


def tool_head(name: str, args: dict[str, object]) -> Inline:
    """``read path:10-40``, ``edit path``, ``grep pattern in path``...: the first line of a tool call."""
    path = _arg(args, "path", "file_path")
    if name == _READ:
        offset, limit = as_number(args.get("offset")), as_number(args.get("limit"))
        where = path
        if offset is not None or limit is not None:
            start = int(offset) if offset is not None else 1
            end = f"{start + int(limit) - 1}" if limit is not None else ""
            where = f"{path}:{start}-{end}"
        return (bold(_READ), " ", code(where))
    if name in (_EDIT, _WRITE):
        return (bold(name), " ", code(path))
    if name in _SEARCH_TOOLS:
        head: list[str | Span] = [bold(name), " ", code(_arg(args, "pattern", "query"))]
        if path:
            head += [" in ", code(path)]
        glob = _arg(args, "glob")
        if glob:
            head.append(f" ({glob})")
        return tuple(head)
    if name == _LS:
        return (bold(_LS), " ", code(path or "."))
    return (bold(name),)


def _arg(args: dict[str, object], *keys: str) -> str:
    """The first of ``keys`` whose value is a string or a number, as text; ``""`` when none is."""
    for k in keys:
        value = args.get(k)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return str(value)
    return ""


def result_blocks(
    message: dict[str, object],
    owner: str,
    key: str,
    read_path: str | None = None,
    quiet: bool = False,
    skip_diff: bool = False,
) -> list[Block]:
    """A tool result's blocks: its diff, its output (the file read, coloured), its images, how it ran.

    Args:
        message: the toolResult message.
        owner: the entry whose content holds the result's images.
        key: the fold key of the output.
        read_path: the file a successful read returned (its output is shown as that file's code).
        quiet: the output only confirms what the call shows (a successful edit or write).
        skip_diff: the diff is shown with the call already.
    """
    error = message.get("isError") is True
    parts: list[Block] = []
    details = message.get("details")
    if not skip_diff and type(details) is dict:
        diff = details.get("diff")
        if type(diff) is str and diff:
            parts.append(Diff(diff, key + "/diff"))
    content = message.get("content")
    text = joined_text(content)
    if text and read_path is not None:
        parts.append(Code(text, "", read_path, key))
    elif text:
        parts.append(Output(text, key, ERROR if error else NOTE if quiet else ""))
    if isinstance(content, list) and any(is_image_block(block) for block in content):
        for block, image_index in numbered_blocks(content):  # screenshots a tool returned
            if image_index >= 0:
                parts.extend(content_part(block, image_index, owner))
    if not _RUN_FACT_FIELDS.isdisjoint(message):
        parts.extend(run_facts(message))
    if not parts:
        parts.append(Para(("(no output)",), NOTE))
    return parts


def run_facts(message: dict[str, object]) -> list[Block]:
    """How long a tool ran, what it spent and the calls it made to other tools (nothing when unknown)."""
    facts = tool_run_facts(message)
    if not facts:
        return []
    out: list[Block] = [Para((" · ".join(facts),), NOTE)]
    lines = nested_call_lines(message)
    if lines:
        out.append(Bullets(tuple((line,) for line in lines), NOTE))
    return out


class ToolResultKind(Kind):
    """A tool's result (``toolResult`` message), shown under its call; alone when its call is not in view."""

    name = TOOL_RESULT
    roles = (TOOL_RESULT,)
    title = "Tool result"
    family = "tool"
    hidden_in = frozenset({NO_TOOLS_MODE})
    export_part = TOOLS
    in_diff = True
    shown_under_call = True
    has_usage = True
    usage_in_body = True
    touches_files = True

    def touches(self, entry: Entry, body: Body) -> list[Touch]:
        """The files of the calls the tool made to other tools (pi 1.6's ``nestedCalls``, when recorded)."""
        calls = as_dict(message_of(body).get("nestedCalls")).get("calls")
        touches: list[Touch] = []
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict):
                touches += call_touches(call.get("name"), call.get("arguments"))
        return touches

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[read] the first words of the output`` (``[bash error] ...`` for a failure)."""
        message = message_of(body)
        mark = " error" if message.get("isError") else ""
        return one_line(
            f"[{message.get('toolName', 'tool')}{mark}] {message_text(message.get('content'))}", width
        )

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """The output's text; the tool's name."""
        message = message_of(body)
        return SearchWords(
            [joined_text(message.get("content"))],
            TOOL_RESULT,
            as_text(message.get("toolName")),
            "",
            message_ms(message),
        )

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """The output, whether it failed, and the tool's name."""
        message = message_of(body)
        tool = message.get("toolName")
        return DiffMessage(
            entry.id,
            entry.kind,
            TOOL_RESULT,
            result=diff_text(message.get("content"), "\n"),
            is_error=message.get("isError") is True,
            tool_name=tool if isinstance(tool, str) else None,
            ts_ms=entry.ts_ms,
        )

    def usage_source(self, body: Mapping[str, object]) -> UsageSource | None:
        """A nested model call's usage, when the tool recorded one (pi 1.6)."""
        usage = message_of(body).get("usage")
        return UsageSource(TOOL_RESULT_USAGE, usage, MODEL_LESS) if isinstance(usage, dict) else None

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """Alone: the tool's name, its diff, output, images and how it ran."""
        message = message_of(body)
        error = message.get("isError") is True
        facts = [as_text(message.get("toolName")) or "tool"] + (["✗ error"] if error else [])
        blocks = result_blocks(message, entry.id, fold_key(entry.id, "result"))
        return self.heading_card(entry, blocks, facts, message.get("timestamp"))


class BashExecutionKind(Kind):
    """A command the user ran in the agent's shell (``!cmd``): its output and exit status."""

    name = BASH_EXECUTION
    roles = (BASH_EXECUTION,)
    title = "Shell (run by the user)"
    family = "bash"
    export_part = TOOLS
    in_diff = True
    touches_files = True

    def touches(self, entry: Entry, body: Body) -> list[Touch]:
        """The files its command names as plain arguments (:func:`core.kinds.shell_paths.command_touches`)."""
        command = message_of(body).get("command")
        if not isinstance(command, str):
            return []
        return [Touch(path, how) for path, how in command_touches(command)]

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``bash make test (exit 2)``."""
        message = message_of(body)
        status = "cancelled" if message.get("cancelled") else f"exit {message.get('exitCode')}"
        return one_line(f"bash {message.get('command', '')} ({status})", width)

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """The command and its output."""
        message = message_of(body)
        parts = [str(message.get("command") or ""), str(message.get("output") or "")]
        return SearchWords(parts, BASH_EXECUTION, "bash", "", message_ms(message))

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """``$ command`` and its output; a non-zero exit or a cancel counts as an error."""
        message = message_of(body)
        code_ = message.get("exitCode")
        failed = message.get("cancelled") is True or (
            isinstance(code_, int) and not isinstance(code_, bool) and code_ != 0
        )
        return DiffMessage(
            entry.id,
            entry.kind,
            BASH_EXECUTION,
            text=f"$ {as_text(message.get('command'))}",
            result=as_text(message.get("output")),
            is_error=failed,
            ts_ms=entry.ts_ms,
        )

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """The command, its output and a status line (exit code, truncation, left out of the context)."""
        message = message_of(body)
        blocks: list[Block] = [
            Code("$ " + as_text(message.get("command")), "sh", "", fold_key(entry.id, "command"))
        ]
        output = as_text(message.get("output"))
        if output:
            blocks.append(Output(output, fold_key(entry.id, "output")))
        status: list[str | Span] = []
        code_ = message.get("exitCode")
        if message.get("cancelled") is True:
            status.append(Span("cancelled", WARN))
        elif as_number(code_) is not None:
            shown = str(int(code_)) if isinstance(code_, float) and code_.is_integer() else str(code_)
            status.append(Span(f"exit code {shown}", OK if code_ == 0 else ERROR))
        else:
            status.append("no exit code")
        if message.get("truncated") is True:
            full = as_text(message.get("fullOutputPath"))
            status.append(" · output truncated" + (f"; full output in {full}" if full else ""))
        if message.get("excludeFromContext") is True:
            status.append(" · not sent to the model")
        blocks.append(Para(tuple(status), NOTE))
        return self.heading_card(entry, blocks, (), message.get("timestamp"))


_PATH_KEYS = ("path", "file_path", "filePath")


def _dumps(value: object) -> str:
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):  # lone surrogates, or integers beyond 64 bits
        try:
            return json.dumps(value, ensure_ascii=False)
        except (ValueError, TypeError, RecursionError):
            return ""


def call_words(arguments: object) -> str:
    """A tool call's arguments as words for the search index: ``path src/app.ts`` rather than JSON syntax."""
    if isinstance(arguments, dict):
        pieces = []
        for key, value in arguments.items():
            pieces.append(str(key))
            pieces.append(value if isinstance(value, str) else _dumps(value))
        return " ".join(pieces)
    if arguments is None:
        return ""
    if isinstance(arguments, str):  # arguments kept as the raw JSON text the model streamed
        return arguments
    return _dumps(arguments)


def diff_call(block: dict[str, object]) -> DiffToolCall:
    """A tool call as a branch diff compares it: its name, arguments as ``key: value`` lines, its files.

    The files are :func:`core.kinds.touches.call_touches`'s, the same the catalogue and the Files view
    list.
    """
    name = as_text(block.get("name")) or "tool"
    args = block.get("arguments")
    path = None
    if isinstance(args, dict):
        text = "\n".join(f"{key}: {value}" for key, value in _flatten(args))
        for key in _PATH_KEYS:
            if isinstance(args.get(key), str):
                path = args[key]
                break
    else:
        text = "" if args is None else _json(args)
    return DiffToolCall(name, text, path, tuple(call_touches(block.get("name"), args)))


def _flatten(args: dict[str, object]) -> list[tuple[str, str]]:
    """Arguments as ``(dotted key, value)`` pairs, iteratively.

    Strings stay raw, so an edit's ``edits[0].oldText`` shows its lines rather than JSON escapes; nesting
    deeper than a few levels stays JSON.
    """
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, object, int]] = [(str(k), v, 0) for k, v in reversed(list(args.items()))]
    while stack:
        key, value, depth = stack.pop()
        if isinstance(value, str):
            out.append((key, value))
        elif isinstance(value, dict) and value and depth < 4:
            stack.extend((f"{key}.{k}", v, depth + 1) for k, v in reversed(list(value.items())))
        elif isinstance(value, list) and value and depth < 4:
            stack.extend((f"{key}[{i}]", v, depth + 1) for i, v in reversed(list(enumerate(value))))
        else:
            out.append((key, _json(value)))
    return out


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        return "(cannot be shown)"
