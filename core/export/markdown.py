"""Sessions as Markdown (CommonMark with GFM tables) for bug reports, reviews and write-ups.

The document is a title, a metadata table, then a heading per message. Message text is Markdown
already and is kept as written; everything else from the session (tool names, arguments, outputs,
file paths) goes into code fences longer than any backtick run inside, or is backslash-escaped, so
it cannot change the document's structure. Images become data URIs or links to files written
beside the export (:class:`core.export.common.ImageSink`).

:func:`entry_to_markdown` gives one entry exactly as it appears in the full export (the app's
"Copy message as Markdown" uses it).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import quote

from core.export.common import (
    ExportOptions,
    ImageSink,
    code_span,
    entry_time,
    fence,
    md_inline,
    metadata,
    paired,
    select_entries,
    wanted,
)
from core.formatting import whole_tokens
from core.render.images import decode_image
from core.render.message import content_blocks, edits_as_diff, joined_text, tool_results_for
from core.session import Entry

if TYPE_CHECKING:
    from core.export.redact import Redactor
    from core.session import Session

__all__ = ["MarkdownExport", "entry_to_markdown", "session_to_markdown"]

_MAX_RAW_JSON = 20_000  # unknown entries and blocks are shown as JSON up to this size


@dataclass
class MarkdownExport:
    """A rendered Markdown export.

    Attributes:
        text: the document.
        images: files to write beside it (empty unless images go beside the export).
        entries: how many entries were covered.
    """

    text: str
    images: ImageSink = field(default_factory=ImageSink)
    entries: int = 0


def entry_to_markdown(session: Session, entry_id: str) -> str:
    """One entry as Markdown, exactly as it appears in a full export; images as data URIs.

    An assistant message comes with its tool calls and their results; a tool result shown alone
    gets its own heading. Nothing is redacted and nothing is left out.

    Args:
        session: the loaded session.
        entry_id: the entry to render.

    Returns:
        The Markdown text, ending with a newline. Raises :class:`core.errors.InvalidRequestError`
        for an unknown id.
    """
    from core.errors import InvalidRequestError

    entry = session.get(entry_id)
    if entry is None:
        raise InvalidRequestError(f"There is no entry {entry_id} in {session.path}.")
    body = session.body(entry)
    results = tool_results_for(session, entry) if entry.role == "assistant" else None
    renderer = MarkdownRenderer(ExportOptions(), None, None, session.labels)
    return renderer.entry(entry, body, results)


def session_to_markdown(
    session: Session,
    options: ExportOptions | None = None,
    *,
    leaf_id: str | None = None,
    whole_tree: bool = False,
    redactor: Redactor | None = None,
    image_folder: str = "images",
) -> MarkdownExport:
    """Render a session (one path, or the whole tree) as a Markdown document.

    Args:
        session: the loaded session.
        options: what to include; the defaults when None.
        leaf_id: export the path from the root to this entry; the current leaf when None.
        whole_tree: export every branch instead (each branch is introduced by a note saying where it
            starts).
        redactor: replaces secrets in every string taken from the session; None for none.
        image_folder: where images go, relative to the export, when ``options.images == "beside"``.

    Returns:
        The document and the image files to write beside it.
    """
    options = options or ExportOptions()
    entries = select_entries(session, leaf_id, whole_tree)
    sink = ImageSink(image_folder) if options.images == "beside" else None
    renderer = MarkdownRenderer(options, redactor, sink, session.labels)
    parts = renderer.document(session, entries, whole_tree)
    scope = "whole tree (every branch)" if whole_tree else f"path to entry {entries[-1].id}"
    meta = metadata(session, entries, redactor, scope, renderer.models)
    head = [f"# {md_inline(meta.title)}\n", "\n| | |\n|---|---|\n"]
    head.extend(f"| {label} | {_cell(value)} |\n" for label, value in meta.rows)
    head.append("\n")
    head.extend(parts)  # one join: joining each and adding the two copied the whole document again
    return MarkdownExport("".join(head), sink or ImageSink(image_folder), len(entries))


def _cell(value: str) -> str:
    # md_inline escapes the pipe too, which is all a GFM table cell needs beyond one line.
    return md_inline(value)


class MarkdownRenderer:
    """Renders entries as Markdown with one set of options.

    The logic (what an entry shows, in which order) is written once against a few formatting
    primitives (:meth:`esc`, :meth:`code`, :meth:`block`, :meth:`para`...); the HTML export
    subclasses this and swaps the primitives, so both formats always show the same content.

    Attributes:
        models: ``provider/model`` names seen in rendered assistant messages, in order.
    """

    def __init__(
        self,
        options: ExportOptions,
        redactor: Redactor | None,
        images: ImageSink | None,
        labels: dict[str, str] | None = None,
    ) -> None:
        self.options = options
        self.redactor = redactor
        self.images = images
        self.labels = labels or {}
        self.models: list[str] = []

    # ----------------------------------------------------------------- primitives
    def esc(self, text: str) -> str:
        """Plain text on one line."""
        return md_inline(text)

    def code(self, text: str) -> str:
        """Inline code."""
        return code_span(text)

    def block(self, text: str, language: str = "") -> str:
        """A code block."""
        return fence(text, language)

    def bold(self, inner: str) -> str:
        """Strong emphasis around already formatted text."""
        return f"**{inner}**"

    def italic(self, inner: str) -> str:
        """Emphasis around already formatted text."""
        return f"*{inner}*"

    def para(self, inner: str) -> str:
        """A paragraph of already formatted text."""
        return inner + "\n\n"

    def markdown(self, text: str) -> str:
        """Message text, which is Markdown as the author wrote it."""
        text = text.replace("\r\n", "\n").replace("\x00", "\ufffd")
        return text.rstrip("\n") + "\n\n"

    def image_ref(self, target: str, index: int) -> str:
        """An image, by data URI or relative path."""
        return f"![image {index + 1}]({target})\n\n"

    def heading(self, role: str, entry: Entry, message: dict | None = None, extra: str = "") -> str:
        """``### Role · extra · time`` followed by a blank line."""
        return "### " + " · ".join(self.heading_parts(role, entry, message, extra)) + "\n\n"

    def heading_parts(self, role: str, entry: Entry, message: dict | None, extra: str) -> list[str]:
        """The role, the extra (a model, a tool name) and the time, each formatted."""
        parts = [self.esc(role)]
        if extra:
            parts.append(self.esc(extra))
        when = entry_time(entry, message)
        if when:
            parts.append(when)  # digits, "-", ":" and "UTC": nothing to escape in Markdown or HTML
        return parts

    def line(self, inner: str, entry: Entry) -> str:
        """A one-line bookkeeping entry (``inner`` already formatted) with its time."""
        when = entry_time(entry)
        return self.para(self.italic(inner) + (" · " + when if when else ""))

    def quote(self, title: str, inner: str) -> str:
        """A thinking block: a titled block quote around already formatted Markdown."""
        lines = inner.strip("\n").split("\n") if inner.strip() else []
        quoted = "\n".join(("> " + line).rstrip() for line in lines)
        return f"> {self.italic(self.esc(title))}\n" + (f">\n{quoted}\n" if quoted else "") + "\n"

    def tool_box(self, title: str, parts: list[str], error: bool) -> str:
        """A tool call with its arguments and result (each part already formatted)."""
        return self.para(title) + "".join(parts) + "\n"

    def result_box(self, label: str, parts: list[str], error: bool) -> str:
        """A tool result's output under a label (``Result:`` or ``Error:``)."""
        return "\n" + self.para(self.bold(self.esc(label))) + "\n".join(parts)

    def entry_box(self, entry: Entry, inner: str) -> str:
        """What wraps one entry (nothing in Markdown)."""
        return inner

    # ----------------------------------------------------------------- document
    def document(self, session: Session, entries: list[Entry], whole_tree: bool) -> list[str]:
        """Every entry kept by the options, in order (a list of parts to join)."""
        parts: list[str] = []
        previous: Entry | None = None
        bodies = session.bodies(entries)
        for entry, body, results in paired(entries, bodies):
            if whole_tree and previous is not None and entry.parent_id != previous.id:
                parts.append(self.branch_note(entry))
            previous = entry
            if not wanted(entry, self.options):
                continue
            parts.append(self.entry(entry, body, results))
        return parts

    def branch_note(self, entry: Entry) -> str:
        """The line that starts another branch in a whole-tree export."""
        if entry.parent_id is None:
            return "\n---\n\n**Another root** (an entry without a parent)\n\n"
        return f"\n---\n\n**Another branch**, continuing from entry {code_span(entry.parent_id)}\n\n"

    # ----------------------------------------------------------------- one entry
    def entry(self, entry: Entry, body: dict, results: dict[str, dict] | None) -> str:
        """One entry (an assistant message with its tool results), ending in a blank line."""
        if self.redactor is not None:
            body = self.redactor.value(body)
            if results:
                results = {k: self.redactor.value(v) for k, v in results.items()}
        try:
            text = self._entry(entry, body, results)
        except RecursionError:  # a pathologically nested value
            text = self.heading(entry.type or "entry", entry) + self.para("(nested too deeply to show)")
        label = self.labels.get(entry.id)
        if label:
            shown = self.redactor.text(label) if self.redactor is not None else label
            text += self.para(self.italic("Label:") + " " + self.esc(shown))
        return self.entry_box(entry, text) + "\n"

    def _entry(self, entry: Entry, body: dict, results: dict[str, dict] | None) -> str:
        kind = entry.kind
        if kind == "message":
            message = body.get("message")
            if not isinstance(message, dict):
                return self.generic(entry, body)
            role = message.get("role")
            if role == "user":
                return self.heading("User", entry, message) + self.content(message.get("content"), entry.id)
            if role == "assistant":
                return self.assistant(entry, message, results)
            if role == "toolResult":
                return self.tool_result(entry, message)
            if role == "bashExecution":
                return self.bash_execution(entry, message)
            if role in ("custom", "hookMessage"):
                return self.custom_message(entry, message)
            if role == "branchSummary":
                return self.summary("Branch summary", entry, message)
            if role == "compactionSummary":
                return self.summary("Compaction summary", entry, message)
            return self.generic(entry, body)
        if kind == "compaction":
            return self.summary("Compaction", entry, body)
        if kind == "branch_summary":
            return self.summary("Branch summary", entry, body)
        if kind == "custom_message":
            return self.custom_message(entry, body)
        if kind == "custom":
            head = self.heading("Extension data", entry, extra=_text(body.get("customType")) or "custom")
            return head + self.block(_json_excerpt(body.get("data")), "json")
        if kind == "model_change":
            model = f"{_text(body.get('provider'))}/{_text(body.get('modelId'))}"
            return self.line(self.esc("Switched to model ") + self.code(model), entry)
        if kind == "thinking_level_change":
            return self.line(
                self.esc("Thinking level: ") + self.code(_text(body.get("thinkingLevel"))), entry
            )
        if kind == "service_tier_change":
            return self.line(self.esc("Service tier: ") + self.code(_text(body.get("serviceTier"))), entry)
        if kind == "label":
            target = self.code(_text(body.get("targetId")))
            label = body.get("label")
            if isinstance(label, str) and label:
                return self.line(f"Label {self.bold(self.esc(label))} set on {target}", entry)
            return self.line(f"Label cleared on {target}", entry)
        if kind == "session_info":
            name = body.get("name")
            if isinstance(name, str) and name.strip():
                return self.line(f"Session named {self.bold(self.esc(name.strip()))}", entry)
            return self.line("Session name cleared", entry)
        return self.generic(entry, body)

    # ----------------------------------------------------------------- pieces
    def generic(self, entry: Entry, body: dict) -> str:
        """An entry this renderer does not know, as its JSON."""
        return self.heading(f"[{entry.type or 'entry'}]", entry) + self.block(_json_excerpt(body), "json")

    def raw_block(self, block: dict) -> str:
        """A content block of an unknown type, as its JSON."""
        name = _text(block.get("type")) or "block"
        return self.para(self.italic(self.esc(f"[{name}]"))) + self.block(_json_excerpt(block), "json")

    def content(self, content: object, entry_id: str) -> str:
        """Text blocks as Markdown and images, in order."""
        out = []
        image_index = 0
        for block in content_blocks(content):
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str) and text.strip():
                    out.append(self.markdown(text))
            elif kind == "image":
                out.append(self.image(entry_id, image_index, block))
                image_index += 1
            else:
                out.append(self.raw_block(block))
        return "".join(out)

    def image(self, entry_id: str, index: int, block: dict) -> str:
        """An image block: a data URI, a file beside the export, or a note."""
        mode = self.options.images
        if mode == "omit":
            return self.para(self.italic(self.esc("[image omitted]")))
        decoded = decode_image(block)
        if decoded is None:
            mime = _text(block.get("mimeType")) or "unknown type"
            note = f"[image ({mime}): not included, the data is invalid or not an allowed image type]"
            return self.para(self.italic(self.esc(note)))
        data, mime = decoded
        if mode == "beside" and self.images is not None:
            # Percent-encoded, so a folder name with spaces or brackets stays one link destination.
            target = quote(self.images.add(entry_id, index, data, mime), safe="/")
        else:
            target = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return self.image_ref(target, index)

    def assistant(self, entry: Entry, message: dict, results: dict[str, dict] | None) -> str:
        """An assistant message: thinking, text, tool calls with results, and how it stopped."""
        model = _text(message.get("model"))
        provider = _text(message.get("provider"))
        name = f"{provider}/{model}" if provider and model else model
        if name and name not in self.models:
            self.models.append(name)
        out = [self.heading("Assistant", entry, message, name)]
        content = message.get("content")
        image_index = 0
        for block in content_blocks(content):
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str) and text.strip():
                    out.append(self.markdown(text))
            elif kind == "thinking":
                if self.options.thinking:
                    out.append(self.thinking(block))
            elif kind == "toolCall":
                if self.options.tools:
                    call_id = block.get("id")
                    found = results is not None and isinstance(call_id, str)
                    result = results.get(call_id) if found else None  # type: ignore[union-attr]
                    out.append(self.tool_call(block, result, results is not None))
            elif kind == "image":
                out.append(self.image(entry.id, image_index, block))
                image_index += 1
            else:
                out.append(self.raw_block(block))
        stop = message.get("stopReason")
        error = _text(message.get("errorMessage"))
        if stop == "aborted":
            out.append(self.para(self.bold("Aborted") + (": " + self.esc(error) if error else "")))
        elif stop == "error" or error:
            out.append(self.para(self.bold("Error:") + " " + self.esc(error or "the request failed")))
        elif stop == "length":
            out.append(self.para(self.italic("Stopped: the reply reached the output length limit.")))
        return "".join(out)

    def thinking(self, block: dict) -> str:
        """A thinking block."""
        text = _text(block.get("thinking")).replace("\r\n", "\n")
        if not text.strip():
            return (
                self.quote("Thinking (redacted by the provider)", "") if block.get("redacted") is True else ""
            )
        return self.quote("Thinking", self.markdown(text))

    def tool_call(self, block: dict, result: dict | None, looked: bool) -> str:
        """A tool call: a bold title, its arguments (a command, a diff, JSON), then its result."""
        name = _text(block.get("name")) or "tool"
        raw_args = block.get("arguments")
        args = raw_args if isinstance(raw_args, dict) else {}
        path = _text(args.get("path")) or _text(args.get("file_path"))
        title = self.bold(self.esc(f"Tool call: {name}"))
        if path:
            title += " " + self.code(path)
        parts = []
        if name == "bash" and isinstance(args.get("command"), str):
            parts.append(self.block(args["command"], "sh"))
        elif name == "edit" and (args.get("edits") or args.get("oldText") is not None):
            parts.append(self.block(edits_as_diff(args), "diff"))
        elif name == "write" and isinstance(args.get("content"), str):
            parts.append(self.block(args["content"], _language_of(path)))
        elif name != "read":  # a read's path says it all; its result is the file
            parts.append(self.block(_json(raw_args), "json"))
        error = False
        if result is not None:
            message = result.get("message") if isinstance(result.get("message"), dict) else {}
            error = message.get("isError") is True
            parts.append(self.result_body(message, result.get("id"), name, path))
        elif looked:
            parts.append("\n" + self.para(self.italic("(no result recorded)")))
        return self.tool_box(title, parts, error)

    def result_body(self, message: dict, entry_id: object, name: str, path: str = "") -> str:
        """A tool result's text, diff and images under ``Result:`` or ``Error:``."""
        error = message.get("isError") is True
        parts = []
        details = message.get("details")
        diff = details.get("diff") if isinstance(details, dict) else None
        if isinstance(diff, str) and diff:
            parts.append(self.block(diff, "diff"))
        text = joined_text(message.get("content"))
        if text:
            parts.append(self.block(text, _language_of(path) if name == "read" and not error else "text"))
        elif not parts:
            parts.append(self.para(self.italic("(empty)")))
        image_index = 0
        owner = entry_id if isinstance(entry_id, str) else "result"
        for block in content_blocks(message.get("content")):
            if block.get("type") == "image":
                parts.append(self.image(owner, image_index, block))
                image_index += 1
        return self.result_box("Error:" if error else "Result:", parts, error)

    def tool_result(self, entry: Entry, message: dict) -> str:
        """A tool result shown on its own (its call is not in the export)."""
        name = _text(message.get("toolName")) or "tool"
        return self.heading("Tool result", entry, message, name) + self.result_body(message, entry.id, name)

    def bash_execution(self, entry: Entry, message: dict) -> str:
        """A command the user ran in the agent's shell, with its output and exit status."""
        out = [self.heading("Shell (run by the user)", entry, message)]
        out.append(self.block("$ " + _text(message.get("command")), "sh"))
        output = _text(message.get("output"))
        if output:
            out.append("\n" + self.block(output, "text"))
        status = []
        code = message.get("exitCode")
        if message.get("cancelled") is True:
            status.append("cancelled")
        elif isinstance(code, int | float) and not isinstance(code, bool):
            status.append(f"exit code {code:g}")
        if message.get("truncated") is True:
            status.append("output truncated")
        if message.get("excludeFromContext") is True:
            status.append("not sent to the model")
        if status:
            out.append("\n" + self.para(self.italic(self.esc(", ".join(status)))))
        return "".join(out)

    def custom_message(self, entry: Entry, source: dict) -> str:
        """A message an extension added (custom_message entry or custom role)."""
        kind = _text(source.get("customType")) or "custom"
        message = source if "role" in source else None
        head = self.heading("Extension message", entry, message, kind)
        if source.get("display") is not True:
            head += self.para(self.italic("(hidden from the agent's screen)"))
        return head + self.content(source.get("content"), entry.id)

    def summary(self, title: str, entry: Entry, source: dict) -> str:
        """A compaction or branch summary."""
        extra = ""
        tokens = source.get("tokensBefore")
        if isinstance(tokens, int | float) and not isinstance(tokens, bool):
            extra = f"from {whole_tokens(tokens)} tokens"
        message = source if "role" in source else None
        summary = _text(source.get("summary"))
        text = self.markdown(summary) if summary.strip() else self.para(self.italic("(empty summary)"))
        return self.heading(title, entry, message, extra) + text


# ---------------------------------------------------------------------------------------------- values


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _json(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (ValueError, TypeError):
        return "(cannot be shown)"


def _json_excerpt(value: object) -> str:
    text = _json(value)
    if len(text) <= _MAX_RAW_JSON:
        return text
    return text[:_MAX_RAW_JSON] + f"\n… ({len(text) - _MAX_RAW_JSON:,} more characters)"


_LANGUAGES = {
    "py": "python",
    "js": "javascript",
    "mjs": "javascript",
    "ts": "typescript",
    "tsx": "tsx",
    "jsx": "jsx",
    "rs": "rust",
    "go": "go",
    "rb": "ruby",
    "java": "java",
    "c": "c",
    "h": "c",
    "cpp": "cpp",
    "cs": "csharp",
    "sh": "sh",
    "bash": "bash",
    "json": "json",
    "yml": "yaml",
    "yaml": "yaml",
    "toml": "toml",
    "md": "markdown",
    "html": "html",
    "css": "css",
    "sql": "sql",
    "kt": "kotlin",
    "swift": "swift",
    "php": "php",
}


def _language_of(path: str) -> str:
    """A fence language for a file path (by extension), ``""`` when unknown."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    if "." not in base:
        return ""
    return _LANGUAGES.get(base.rsplit(".", 1)[-1].lower(), "")
