"""Tool calls, their results and the user's shell runs in the message view.

A tool call is shown in one box with its result (the toolResult entry that answers it): a one-line
head (``read path:10-40``, ``grep pattern in path``), what the call did (a command, an edit as a
coloured diff, the content written, the file read, highlighted by its extension) and the output,
collapsed past a few lines.
"""

from __future__ import annotations

from core.kinds.pairing import edits_as_diff
from core.render.blocks import COLLAPSED_CHARS, Blocks
from core.render.links import block_key
from core.render.text import esc, js, json_text
from core.render.wording import nested_call_lines, tool_run_facts
from core.session.content import Body, as_dict, as_number, as_text, joined_text, numbered_blocks

__all__ = ["ToolBlocks"]

MAX_ARGS_LINES = 40  # the JSON arguments of a tool without a dedicated view
MAX_COMMAND_CHARS = 4_000


class ToolBlocks(Blocks):
    """:class:`~core.render.blocks.Blocks` with the views of tool calls, tool results and shell runs."""

    def tool_call(self, index: int, block: Body, result: Body | None, looked: bool) -> str:
        """A tool call together with its result (``result`` is the toolResult entry body).

        Args:
            index: the call's position in the message content (its toggle key).
            block: the ``toolCall`` block.
            result: the body of the toolResult entry that answers it, None when there is none.
            looked: whether a result was looked for (then its absence is noted).
        """
        pal = self.pal
        name = as_text(block.get("name")) or "tool"
        raw_args = block.get("arguments")
        args = as_dict(raw_args)
        message = as_dict(result.get("message")) if isinstance(result, dict) else {}
        is_error = message.get("isError") is True
        key = block_key(self.entry.id, "tool", index)
        head = self.tool_head(name, args)
        error_badge = " " + self.badge("✗ error", pal.error, pal.error_bg) if is_error else ""
        result_id = result.get("id") if isinstance(result, dict) else None
        anchor = f'<a name="{esc(result_id)}"></a>' if isinstance(result_id, str) else ""
        if not self.options.show_tools:
            return f'<p style="color:{pal.muted}">{anchor}🔧 {head}{error_badge}</p>'
        parts = [f"{anchor}<p>{head}{error_badge}</p>"]
        bad_args = as_text(block.get("argumentsError"))
        if bad_args:
            parts.append(self.note(f"The arguments were not valid JSON: {bad_args}", pal.error))
        result_text = joined_text(message.get("content"))
        details = as_dict(message.get("details"))
        shown_result = False
        if name == "bash":
            command = as_text(args.get("command"))
            if len(command) > MAX_COMMAND_CHARS:
                command = command[:MAX_COMMAND_CHARS] + "…"
            parts.append(f"<pre><b>$</b> {esc(command)}</pre>")
        elif name == "edit":
            diff = details.get("diff")
            if isinstance(diff, str) and diff and not is_error:
                parts.append(self.diff(diff, key))
            elif not message or is_error:
                parts.append(self.diff(edits_as_diff(args), key))
        elif name == "write":
            content = as_text(args.get("content"))
            count = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
            parts.append(self.note(f"{count:,} line{'s' if count != 1 else ''}, {len(content):,} characters"))
            path = as_text(args.get("path")) or as_text(args.get("file_path"))
            parts.append(self.code(content, key, path))
        elif name == "read":
            if result_text and not is_error:
                path = as_text(args.get("path")) or as_text(args.get("file_path"))
                parts.append(self.code(result_text, key, path))
                shown_result = True
        elif name not in ("grep", "find", "ls"):
            shown_args = json_text(raw_args)
            lines = shown_args.split("\n")
            if len(lines) > MAX_ARGS_LINES:
                shown_args = (
                    "\n".join(lines[:MAX_ARGS_LINES]) + f"\n… {len(lines) - MAX_ARGS_LINES} more lines"
                )
            if len(shown_args) > COLLAPSED_CHARS:
                shown_args = shown_args[:COLLAPSED_CHARS] + "…"
            parts.append(self.pre(shown_args, pal.muted))
        if result is not None:
            if not shown_result and result_text:
                quiet = name in ("edit", "write") and not is_error
                color = pal.error if is_error else (pal.muted if quiet else None)
                parts.append(self.output(result_text, key, color))
            parts.append(self.result_images(message, result_id))
            parts.append(self.run_facts(message))
            parts.append(self.result_notes(block.get("id")))
        elif looked:
            parts.append(self.note("(no result recorded)"))
        return self.box("".join(parts), pal.error_bg if is_error else pal.tool_bg)

    def tool_head(self, name: str, args: dict[str, object]) -> str:
        """``read path``, ``edit path``, ``grep pattern in path``...: the first line of a tool call."""

        def arg(*keys: str) -> str:
            for k in keys:
                value = args.get(k)
                if isinstance(value, str | int | float) and not isinstance(value, bool):
                    return str(value)
            return ""

        path = arg("path", "file_path")
        if name == "read":
            offset, limit = as_number(args.get("offset")), as_number(args.get("limit"))
            where = path
            if offset is not None or limit is not None:
                start = int(offset) if offset is not None else 1
                end = f"{start + int(limit) - 1}" if limit is not None else ""
                where = f"{path}:{start}-{end}"
            return f"<b>read</b> <code>{esc(where)}</code>"
        if name in ("edit", "write"):
            return f"<b>{esc(name)}</b> <code>{esc(path)}</code>"
        if name == "bash":
            return "<b>bash</b>"
        if name in ("grep", "find"):
            pattern = arg("pattern", "query")
            where = f" in <code>{esc(path)}</code>" if path else ""
            glob = arg("glob")
            glob_html = f" ({esc(glob)})" if glob else ""
            return f"<b>{esc(name)}</b> <code>{esc(pattern)}</code>{where}{glob_html}"
        if name == "ls":
            return f"<b>ls</b> <code>{esc(path or '.')}</code>"
        return f"<b>{esc(name)}</b>"

    def result_images(self, message: dict[str, object], entry_id: object) -> str:
        """The image blocks of a tool result (screenshots...), in order."""
        return "".join(
            self.image(entry_id, image_index, block)
            for block, image_index in numbered_blocks(message.get("content"))
            if image_index >= 0
        )

    def tool_result(self, message: dict[str, object]) -> str:
        """A toolResult shown on its own (its call is not in view): its diff, output and images."""
        pal = self.pal
        is_error = message.get("isError") is True
        name = as_text(message.get("toolName")) or "tool"
        extras = [f"<code>{esc(name)}</code>"]
        if is_error:
            extras.append(f'<span style="color:{pal.error}"><b>✗ error</b></span>')
        parts = [self.header("Tool result", extras, message.get("timestamp"))]
        key = block_key(self.entry.id, "result")
        diff = as_dict(message.get("details")).get("diff")
        if isinstance(diff, str) and diff:
            parts.append(self.diff(diff, key + "/diff"))
        text = joined_text(message.get("content"))
        if text:
            parts.append(self.output(text, key, pal.error if is_error else None))
        parts.append(self.result_images(message, self.entry.id))
        parts.append(self.run_facts(message))
        return self.box("".join(parts), pal.error_bg if is_error else pal.tool_bg)

    def result_notes(self, call_id: object) -> str:
        """What other entries say about the result of ``call_id`` (``""`` here; see ``EntryCards``)."""
        return ""

    def run_facts(self, message: dict[str, object]) -> str:
        """How long a tool ran, what it spent and the calls it made to other tools (``""`` when unknown)."""
        facts = tool_run_facts(message)
        if not facts:
            return ""
        out = self.note(" · ".join(facts))
        lines = nested_call_lines(message)
        if lines:
            items = "".join(f"<li><small>{esc(line)}</small></li>" for line in lines)
            out += f'<ul style="color:{self.pal.muted}; margin-top:0">{items}</ul>'
        return out

    def bash_execution(self, message: dict[str, object]) -> str:
        """A command the user ran in the agent's shell (``!cmd``), its output and exit status."""
        pal = self.pal
        command = as_text(message.get("command"))
        if len(command) > MAX_COMMAND_CHARS:
            command = command[:MAX_COMMAND_CHARS] + "…"
        parts = [self.header("Shell (run by the user)", moment=message.get("timestamp"))]
        parts.append(f"<pre><b>$</b> {esc(command)}</pre>")
        output = as_text(message.get("output"))
        if output:
            parts.append(self.output(output, block_key(self.entry.id, "output")))
        status = []
        code = message.get("exitCode")
        if message.get("cancelled") is True:
            status.append(f'<span style="color:{pal.warn}"><b>cancelled</b></span>')
        elif as_number(code) is not None:
            color = pal.ok if code == 0 else pal.error
            status.append(f'<span style="color:{color}"><b>exit code {esc(js(code))}</b></span>')
        else:
            status.append("no exit code")
        if message.get("truncated") is True:
            full = as_text(message.get("fullOutputPath"))
            status.append("output truncated" + (f"; full output in {esc(full)}" if full else ""))
        if message.get("excludeFromContext") is True:
            status.append("not sent to the model")
        parts.append(f'<p style="color:{pal.muted}"><small>{" · ".join(status)}</small></p>')
        return self.box("".join(parts), pal.tool_bg)
