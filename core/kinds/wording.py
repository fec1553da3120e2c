"""The words for the newer entry types and fields, as plain text, said the same way everywhere.

The message view, the tree's previews and the Markdown and HTML exports all describe a usage record, a
tool run's timing, an assistant reply's thinking level or Prime Agent's git snapshot; these functions
hold that wording once. They return plain text (the caller escapes it) and never raise on odd values:
a field of an unexpected type is left out.
"""

from __future__ import annotations

from typing import NamedTuple

from core.formatting import short_cost, short_duration, short_tokens
from core.session.content import Body, as_dict, as_number, as_text

__all__ = [
    "GENERIC_MARK",
    "MAX_NESTED_CALLS",
    "AgentStatus",
    "agent_status_text",
    "assistant_facts",
    "attribution_text",
    "child_runs_text",
    "child_usage_text",
    "git_text",
    "model_change_name",
    "model_change_role",
    "nested_call_lines",
    "retained_text",
    "session_state_text",
    "stop_note",
    "system_facts",
    "thinking_level_text",
    "tool_run_facts",
    "usage_entry_text",
    "usage_text",
]

GENERIC_MARK = "an entry of a type this app does not know"
"""The words of the generic card, which only an entry of an unknown type (or role) gets."""
MAX_NESTED_CALLS = 50  # nested calls listed under one tool result; the rest are counted
_DEFAULT_ROLE = "default"  # oh-my-pi's model role when a model change names none
_FALLBACK_ROLE = "fallback"  # oh-my-pi's role of a model a retry fell back to
_ATTRIBUTIONS = {"user": "started by the user", "agent": "started by the agent"}
_TASK_STATES = {"needs_input": "needs input", "completed": "completed", "error": "error"}
_STOP_NOTES = {
    "pending": "Pending: the reply had not arrived when this was written.",
    "deferred": "Deferred: the provider returns this reply later (a background or batch request).",
}


# The fields the facts below are made from: a message with none of them has none.
_ASSISTANT_FACTS = frozenset({"responseModel", "thinkingLevel", "providerThinkingLevel", "durationMs"})
_RUN_FACTS = frozenset({"durationMs", "usage", "nestedCalls"})


def usage_text(usage: object) -> str:
    """``400 in · 20 out (8 reasoning) · 3.6k cache read · 4.0k cache write · $0.0176`` (zero parts left out).

    Args:
        usage: a ``usage`` object (an assistant message's, a tool result's, a usage record's); anything
            but an object gives ``""``.
    """
    if not isinstance(usage, dict):
        return ""
    # Every assistant card's heading says this: written out, a dict lookup and a type test per counter
    # (as_number's, without its call; a float that is NaN is no number).
    parts = []
    value = usage.get("input")
    if type(value) is int or (type(value) is float and value == value):
        parts.append(f"{short_tokens(value)} in")
    value = usage.get("output")
    if type(value) is int or (type(value) is float and value == value):
        reasoning = usage.get("reasoning")
        if (type(reasoning) is int or type(reasoning) is float) and reasoning and reasoning == reasoning:
            # a subset of the output, reported by some providers only
            parts.append(f"{short_tokens(value)} out ({short_tokens(reasoning)} reasoning)")
        else:
            parts.append(f"{short_tokens(value)} out")
    value = usage.get("cacheRead")
    if (type(value) is int or type(value) is float) and value and value == value:
        parts.append(f"{short_tokens(value)} cache read")
    value = usage.get("cacheWrite")
    if (type(value) is int or type(value) is float) and value and value == value:
        parts.append(f"{short_tokens(value)} cache write")
    cost = usage.get("cost")
    total = _number(cost.get("total")) if type(cost) is dict else None
    if total is not None:
        parts.append(short_cost(total))
    return " · ".join(parts)


def _number(value: object) -> float | int | None:
    """:func:`~core.session.content.as_number` without the float conversion (a count stays an int)."""
    kind = type(value)
    if kind is int or (kind is float and value == value):
        return value  # type: ignore[return-value]  # an int or a float, as tested
    return None


def model_change_name(body: Body) -> str:
    """The model a model_change entry switches to: ``provider/modelId``, or a variant's ``model`` string.

    Some writers record ``{"model": "provider/id"}`` instead of pi's ``provider`` and ``modelId``.
    """
    provider, model_id = as_text(body.get("provider")), as_text(body.get("modelId"))
    if model_id:
        return f"{provider}/{model_id}" if provider else model_id
    model = body.get("model")
    if isinstance(model, str) and model:
        return model
    if isinstance(model, dict):  # {model: {provider, modelId}} or {model: {provider, id}}
        inner_provider = as_text(model.get("provider"))
        inner_id = as_text(model.get("modelId")) or as_text(model.get("id"))
        if inner_id:
            return f"{inner_provider}/{inner_id}" if inner_provider else inner_id
    return f"{provider}/?" if provider else "?"


def model_change_role(body: Body) -> str:
    """What an oh-my-pi model change says besides the model: ``for the smol role``, ``a retry fallback``.

    oh-my-pi keeps one model per role (``default``, ``smol``, ``slow``, ``plan``...; no role is the
    default) and marks a model a retry fell back to (role ``fallback``, or ``resolvedModelIsFallback``).
    ``""`` for pi's model changes, which have neither.
    """
    role = as_text(body.get("role"))
    parts = []
    if role and role not in (_DEFAULT_ROLE, _FALLBACK_ROLE):
        parts.append(f"for the {role} role")
    if role == _FALLBACK_ROLE or body.get("resolvedModelIsFallback") is True:
        parts.append("a retry fallback")
    return ", ".join(parts)


def thinking_level_text(body: Body) -> str:
    """A thinking level change's level: ``high``, ``off`` (null or missing, as pi and oh-my-pi read it).

    oh-my-pi also records what the user chose (``configured``: ``auto`` while auto mode picked the
    level): ``medium (set to auto)``.
    """
    level = as_text(body.get("thinkingLevel")) or "off"
    configured = as_text(body.get("configured"))
    return f"{level} (set to {configured})" if configured and configured != level else level


def attribution_text(value: object) -> str:
    """Who started an extension's message (oh-my-pi's ``attribution``): ``started by the user``, or ``""``."""
    if not isinstance(value, str) or not value:
        return ""
    return _ATTRIBUTIONS.get(value, f"attributed to {value}")


def assistant_facts(message: dict[str, object]) -> list[str]:
    """What an assistant reply says about itself besides its model and usage.

    Returns:
        Parts such as ``answered by claude-opus-4-5-20251101`` (when the provider reports another
        model than the one asked for), ``thinking high`` and ``took 4.2 s``, in that order.
    """
    if not _ASSISTANT_FACTS.intersection(message):  # most replies (pi 0.73 writes none of these)
        return []
    facts = []
    model, answered = as_text(message.get("model")), as_text(message.get("responseModel"))
    if answered and answered != model:
        facts.append(f"answered by {answered}")
    level = as_text(message.get("thinkingLevel")) or as_text(message.get("providerThinkingLevel"))
    if level:
        facts.append(f"thinking {level}")
    took = as_number(message.get("durationMs"))
    if took is not None:
        facts.append(f"took {short_duration(took)}")
    return facts


def stop_note(stop: object) -> str:
    """The sentence for a reply that has not arrived (``stopReason`` pending or deferred), else ``""``."""
    return _STOP_NOTES.get(stop, "") if isinstance(stop, str) else ""


def tool_run_facts(message: dict[str, object]) -> list[str]:
    """How a tool ran: ``took 1.2 s``, ``tool usage 200 in · 10 out · $0.0010``, ``3 nested calls``."""
    if not _RUN_FACTS.intersection(message):  # pi 0.73's results say none of it
        return []
    facts = []
    took = as_number(message.get("durationMs"))
    if took is not None:
        facts.append(f"took {short_duration(took)}")
    usage = usage_text(message.get("usage"))
    if usage:
        facts.append(f"tool usage {usage}")
    nested = message.get("nestedCalls")
    if isinstance(nested, dict):
        calls = nested.get("calls")
        count = len(calls) if isinstance(calls, list) else 0
        fact = f"{count} nested call{'s' if count != 1 else ''}"
        if nested.get("complete") is False:
            fact += " (record incomplete)"
        facts.append(fact)
    return facts


def nested_call_lines(message: dict[str, object]) -> list[str]:
    """One line per call a tool made to other tools: ``read · ok · 12 ms``, ``bash · error · boom``.

    At most :data:`MAX_NESTED_CALLS` lines, then one saying how many more there are.
    """
    nested = as_dict(message.get("nestedCalls"))
    calls = nested.get("calls")
    if not isinstance(calls, list):
        return []
    lines = []
    for call in calls[:MAX_NESTED_CALLS]:
        record = as_dict(call)
        parts = [as_text(record.get("name")) or "tool", as_text(record.get("status")) or "?"]
        took = as_number(record.get("durationMs"))
        if took is not None:
            parts.append(short_duration(took))
        size = as_number(record.get("argumentsBytes"))
        if size is not None and "arguments" not in record:
            parts.append(f"arguments ({size:,.0f} bytes) not kept")
        error = as_text(record.get("error"))
        if error:
            parts.append(" ".join(error.split())[:200])
        lines.append(" · ".join(parts))
    if len(calls) > MAX_NESTED_CALLS:
        lines.append(f"… {len(calls) - MAX_NESTED_CALLS:,} more")
    return lines


def system_facts(message: dict[str, object]) -> list[str]:
    """What a system message changes besides its text: ``2 sections``, ``3 tools added``, ``1 tool removed``.

    Args:
        message: the system message.
    """
    facts = []
    for key, one, many in (
        ("sections", "section", "sections"),
        ("toolsAdded", "tool added", "tools added"),
        ("toolsRemoved", "tool removed", "tools removed"),
    ):
        value = message.get(key)
        count = len(value) if isinstance(value, dict | list) else 0
        if count:
            facts.append(f"{count} {one if count == 1 else many}")
    return facts


def retained_text(source: dict[str, object]) -> str:
    """``Keeps the last 12 messages after the summary.`` for Prime Agent's compaction summary, else ``""``.

    Args:
        source: a compaction entry or a ``compactionSummary`` message (Prime Agent's carries
            ``retainedMessageCount``).
    """
    count = as_number(source.get("retainedMessageCount"))
    if count is None:
        return ""
    return f"Keeps the last {count:,.0f} message{'s' if count != 1 else ''} after the summary."


def usage_entry_text(body: Body) -> str:
    """A usage record (a ``usage`` entry): ``cache_warm · anthropic/claude-opus-4-5 · 3.8k in · $0.0361``.

    Args:
        body: the entry.
    """
    parts = [as_text(body.get("kind")) or "usage"]
    provider, model = as_text(body.get("provider")), as_text(body.get("model"))
    if model:
        parts.append(f"{provider}/{model}" if provider else model)
    usage = usage_text(body.get("usage"))
    if usage:
        parts.append(usage)
    return " · ".join(parts)


def child_usage_text(body: Body) -> str:
    """A child_usage_attributed entry: ``spawn task · child 11k in · $0.0019 · message now $0.0090``.

    Args:
        body: the entry.
    """
    parts = []
    origin = as_text(body.get("origin"))
    if origin:
        parts.append(origin.replace("_", " "))
    child = usage_text(body.get("childUsage"))
    if child:
        parts.append(f"child {child}")
    total = as_number(as_dict(as_dict(body.get("aggregateUsage")).get("cost")).get("total"))
    if total is not None:
        parts.append(f"message now {short_cost(total)}")
    return " · ".join(parts)


def child_runs_text(count: int, origins: tuple[str, ...], children: dict[str, object]) -> str:
    """The child runs of one assistant message: ``6 child runs (spawn task): 51k in · 2.9k out · $0.0090``."""
    kinds = ", ".join(origin.replace("_", " ") for origin in origins)
    head = f"{count} child run{'s' if count != 1 else ''}" + (f" ({kinds})" if kinds else "")
    usage = usage_text(children)
    return f"{head}: {usage}" if usage else head


def session_state_text(body: Body) -> str:
    """A session_state entry's status as written (``active``, ``archived``, ``crash``; ``?`` when absent)."""
    state = body.get("state")
    status = as_text(as_dict(state).get("status")) or as_text(state)
    return status or "?"


class AgentStatus(NamedTuple):
    """An agent_status entry in words.

    Attributes:
        summary: the status summary (``""`` when absent).
        task: the task state in words (``needs input``, ``completed``, ``error``; ``""`` when absent).
        based_on: ``after 12 messages`` (``""`` when absent).
    """

    summary: str
    task: str
    based_on: str

    @property
    def facts(self) -> list[str]:
        """The task state and the message count, those that are known."""
        return [fact for fact in (self.task, self.based_on) if fact]


def agent_status_text(body: Body) -> AgentStatus:
    """An agent_status entry's summary, task state and the message count it was made from."""
    status = as_dict(body.get("status"))
    summary = " ".join(as_text(status.get("summary")).split())
    task = as_text(status.get("taskState"))
    count = as_number(status.get("basedOnMessageCount"))
    based_on = f"after {count:,.0f} message{'s' if count != 1 else ''}" if count is not None else ""
    return AgentStatus(summary, _TASK_STATES.get(task, task), based_on)


def git_text(git: object) -> str:
    """A git context (git_state entries, Prime Agent headers): ``branch main · commit 141986b61970 · URL``."""
    context = as_dict(git)
    parts = []
    branch = as_text(context.get("branch"))
    if branch:
        parts.append(f"branch {branch}")
    commit = as_text(context.get("commit"))
    if commit:
        parts.append(f"commit {commit[:12]}")
    url = as_text(context.get("repoUrl"))
    if url:
        parts.append(url)
    return " · ".join(parts) or "no repository"
