"""Prime Agent's eight message types of its own: a card each, whatever shape their details arrive in.

``tests/core/kind_samples/prime-agent-messages.jsonl`` holds each type as Prime Agent writes it
(``appendCustomMessageEntry``: customType, content, display, details, then id, parentId, timestamp;
details as ``messages.ts`` makes them); its goldens show every card in the three back-ends, and
test_backends_agree.py checks they say the same words.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.export.html import session_to_html
from core.export.markdown import session_to_markdown
from core.kinds import entry_preview, kind_of
from core.kinds.cards import context_cards
from core.kinds.prime_messages import PRIME_MESSAGES
from core.render import RenderOptions, render_entries
from core.session import load_session

SAMPLE = Path(__file__).parent / "kind_samples" / "prime-agent-messages.jsonl"

# The customType constants of Prime Agent's messages.ts (PrimeIntellect-ai/prime-agent, v0.8.0).
MESSAGES_TS = {
    "heartbeat_prompt",
    "ipython_state_restored",
    "session_slash_command",
    "session_slash_command_result",
    "compaction_outcome",
    "refinement_outcome",
    "rlm_child_failure",
    "rlm_child_terminal_notice",
}

# entry id -> (title, facts) of its card
CARDS = {
    "c0000004": ("Slash command", ("/compact", "not sent to the model")),
    "c0000005": ("Compaction failed", ("asked for", "not sent to the model")),
    "c0000006": ("Command failed", ("/compact", "not sent to the model")),
    "c0000007": ("Compaction skipped", ("the context passed its threshold", "not sent to the model")),
    "c0000008": ("Refinement", ("local harness", "1 of 2 edits applied", "not sent to the model")),
    "c0000009": ("Refinement rolled back", ("global harness", "1 edit", "not sent to the model")),
    "c0000011": ("Command done", ("/refine", "not sent to the model")),
    "c0000012": ("Heartbeat prompt", ("schedule */30 * * * *", "run 4")),
    "c0000013": ("IPython state restored", ()),
    "c0000014": ("IPython state not restored", ()),
    "c0000015": ("Child agent failed", ("worker-2",)),
    "c0000016": ("Child agent cancelled", ("searcher",)),
    "c0000017": ("Child agent ended without a reply", ("summariser",)),
    # written without details: an extension message as any other
    "c0000018": ("Extension message", ("compaction_outcome",)),
}


def test_every_type_of_messages_ts_has_a_card_of_its_own() -> None:
    assert set(PRIME_MESSAGES) == MESSAGES_TS
    session = load_session(SAMPLE)
    seen = set()
    for entry, body in zip(session.entries, session.bodies(session.entries), strict=True):
        if entry.id not in CARDS:
            continue
        made = kind_of(entry).card(entry, body)
        assert (made.title, made.facts) == CARDS[entry.id], entry.id
        seen.add(body["customType"])
    assert seen == MESSAGES_TS


def test_the_facts_a_reader_wants_are_in_every_back_end() -> None:
    session = load_session(SAMPLE)
    markdown = session_to_markdown(session, whole_tree=True).text
    page = session_to_html(session, whole_tree=True).text
    view = render_entries(session, session.entries, RenderOptions())
    for words in (
        "skill edits must include a reference with a Python import",  # an edit that failed, and why
        "Build with uv",  # what an edit made
        "ref-20261104-0901",  # the refinement rolled back
        "the child process exited with code 137",
        "Deleted by parent orchestrator",
        "Found three call sites",
        "job-3f2a9c",
        "2026-11-04 09:40 UTC",  # the heartbeat's next run
        "These names are available again: df, tokens.",
    ):
        for shown in (markdown, page, view):
            assert words in shown
    for shown in (markdown, view):  # the tags wrapping the text for the model are not shown
        assert "<ipython_state_restored>" not in shown and "&lt;ipython_state_restored&gt;" not in shown


def test_previews_say_what_happened() -> None:
    session = load_session(SAMPLE)
    bodies = session.bodies(session.entries)
    previews = {e.id: entry_preview(e, b, 60) for e, b in zip(session.entries, bodies, strict=True)}
    assert previews["c0000005"].startswith("[Compaction failed] ")
    assert previews["c0000008"] == "[Refinement] Remember to build with uv; the test-runner ski…"
    assert previews["c0000013"].startswith("[IPython state restored] Your IPython kernel")
    assert previews["c0000018"].startswith("[compaction_outcome] ")  # no details: as any other


def test_what_the_model_saw_shows_them_with_the_same_cards() -> None:
    """In the context, a custom_message is a message of the ``custom`` role: the same card."""
    session = load_session(SAMPLE)
    bodies = {e.id: b for e, b in zip(session.entries, session.bodies(session.entries), strict=True)}
    refinement = bodies["c0000008"]
    message = {
        "role": "custom",
        "timestamp": 1,
        **{k: refinement[k] for k in ("customType", "content", "display", "details")},
    }
    [(_index, made)] = context_cards([message], [None])
    direct = kind_of(session.by_id["c0000008"]).card(session.by_id["c0000008"], refinement)
    assert (made.title, made.facts, made.blocks) == (direct.title, direct.facts, direct.blocks)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)  # JSON has neither
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
_FIELDS = st.sampled_from(
    [
        "command", "success", "severity", "error", "commandEntryId", "reason", "outcome", "refinementId",
        "summary", "scope", "rollbackOf", "edits", "childId", "sessionName", "kind",
        "lastAssistantTextPreview", "jobId", "schedule", "status", "runCount", "nextRunAt", "lastRunAt",
        "restored",
    ]
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    custom_type=st.sampled_from(sorted(MESSAGES_TS)),
    details=_JSON | st.dictionaries(_FIELDS, _JSON, max_size=6),
    edits=st.lists(
        st.dictionaries(
            st.sampled_from(["action", "kind", "id", "title", "applied", "error", "after", "before"]), _JSON
        ),
        max_size=3,
    ),
    content=_JSON,
)
def test_any_details_give_a_card_in_every_back_end(
    tmp_path_factory, custom_type: str, details: object, edits: list[object], content: object
) -> None:
    """Details of the wrong shape (from an older or newer agent, or damage) never break a card."""
    if isinstance(details, dict) and custom_type == "refinement_outcome":
        details = {**details, "edits": edits}
    entry = {"type": "custom_message", "customType": custom_type, "content": content, "display": True}
    entry |= {"details": details, "id": "x1", "parentId": None, "timestamp": "2026-11-04T09:00:00.000Z"}
    path = tmp_path_factory.mktemp("shapes") / "s.jsonl"
    header = {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2026-11-04T09:00:00.000Z",
        "cwd": "/p",
    }
    path.write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    session = load_session(path)
    [only] = session.entries
    body = next(iter(session.bodies([only])))
    made = kind_of(only).card(only, body)
    assert made.title
    entry_preview(only, body)
    session_to_markdown(session)
    session_to_html(session)
    render_entries(session, session.entries, RenderOptions())
