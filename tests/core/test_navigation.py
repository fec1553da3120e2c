"""The Go menu's moves through a session (core.visible.navigation): next user message, another branch."""

from __future__ import annotations

from core.session import load_session
from core.visible import conversation, next_user_message, sibling_branch
from tests.conftest import DEMO

BRANCHED = DEMO / "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"  # three branches from the first answer
FIRST_ANSWER = "21229440"
BRANCHES = ("a19b80ea", "2dce2d8f", "1899b33f")  # oldest first; the last (a branch summary) holds the leaf


def test_the_conversation_through_an_entry_follows_the_leaf_else_the_newest_child() -> None:
    session = load_session(BRANCHED)
    leaf_path = [e.id for e in session.path_to(session.leaf_id)]
    assert [e.id for e in conversation(session, FIRST_ANSWER)] == leaf_path  # the leaf lies below
    off = [e.id for e in conversation(session, BRANCHES[0])]
    assert off[: len(session.path_to(BRANCHES[0]))] == [e.id for e in session.path_to(BRANCHES[0])]
    assert session.leaf_id not in off and off[-1] != BRANCHES[0]  # continued below the abandoned branch
    assert conversation(session, "nosuchid") == []


def test_next_and_previous_user_message_stay_in_the_conversation() -> None:
    session = load_session(BRANCHED)
    thread = conversation(session, BRANCHES[1])
    users = [e.id for e in thread if e.kind == "message" and e.role == "user"]
    assert users[:2] == ["25662d80", BRANCHES[1]]
    assert next_user_message(session, BRANCHES[1], -1) == "25662d80"
    # From the first message the conversation is the one toward the leaf, not the branch we came from.
    leaf_users = [e.id for e in session.path_to(session.leaf_id) if e.kind == "message" and e.role == "user"]
    assert next_user_message(session, "25662d80") == leaf_users[1] != BRANCHES[1]
    assert next_user_message(session, "25662d80", -1) is None  # the first user message
    last = users[-1]
    assert next_user_message(session, last) is None


def test_sibling_branches_are_the_branch_points_other_children_in_order() -> None:
    session = load_session(BRANCHED)
    assert sibling_branch(session, BRANCHES[0]) == BRANCHES[1]
    assert sibling_branch(session, BRANCHES[1]) == BRANCHES[2]
    assert sibling_branch(session, BRANCHES[2]) is None
    assert sibling_branch(session, BRANCHES[1], -1) == BRANCHES[0]
    deep = conversation(session, BRANCHES[1])[-1].id  # deep inside the second branch
    assert sibling_branch(session, deep) == BRANCHES[2]
    assert sibling_branch(session, "25662d80") is None  # above every branch point: no branch beside it
