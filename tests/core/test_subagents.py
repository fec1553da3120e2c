"""Child (subagent) sessions: found by default, recorded with parent and depth, each cost counted once.

The layouts are written as each agent writes them (:mod:`tests.core.subagent_layouts`); every cost is
checked against a brute-force count over the files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.catalogue import Catalogue
from core.export.markdown import entry_to_markdown
from core.kinds.cards import card
from core.kinds.notes import session_notes
from core.render.links import session_href
from core.render.view import render_card
from core.session import load_session
from core.session.discovery import default_roots, find_session_files, search_roots
from core.session.subagents import ChildLink, ChildSession, Listed, child_links, family_costs, launches
from core.timefmt import js_date_ms
from core.usage.reports import UsageFilter
from tests.core import subagent_layouts as layouts


def _roots(home: Path) -> list[Path]:
    return [home / ".prime" / "agent" / "sessions", home / ".pi" / "agent" / "sessions"]


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, dict[str, layouts.Layout]]:
    home = tmp_path / "home"
    return home, {
        "prime": layouts.prime_agent(home),
        "pi": layouts.pi_subagents(home),
        "header": layouts.header_linked(home),
    }


def _catalogue(tmp_path: Path, home: Path) -> Catalogue:
    catalogue = Catalogue(tmp_path / "cat")
    stats = catalogue.refresh(_roots(home))
    assert not stats.errors
    return catalogue


def test_default_search_takes_in_the_folders_beside_sessions(tmp_path: Path) -> None:
    roots = search_roots(default_roots({"HOME": "/home/u"}))
    assert Path("/home/u/.prime/agent/session-artifacts") in roots
    assert Path("/home/u/.pi/agent/subagent-sessions") in roots
    assert search_roots([tmp_path / "flat"]) == [tmp_path / "flat"]  # a folder not named sessions: alone


def test_discovery_finds_every_child_file_and_nothing_else(tmp_path: Path, history) -> None:
    home, made = history
    artifacts = home / ".prime" / "agent" / "session-artifacts"
    (artifacts / "0194a000-pa00-7000-8000-000000000001" / "events.jsonl").write_text("{}\n")  # not a child
    deep = home / ".pi" / "agent" / "sessions" / "--home-u-app--" / "notes" / "x"
    deep.mkdir(parents=True)
    (deep / "stray.jsonl").write_text("{}\n")  # a folder named after no session: not looked in
    found = {str(p) for root in search_roots(_roots(home)) for p in find_session_files(root)}
    wanted = {str(p) for layout in made.values() for p in layout.files.values()}
    assert found == wanted


def test_catalogue_records_parent_and_depth(tmp_path: Path, history) -> None:
    home, made = history
    summaries = {s.path: s for s in _catalogue(tmp_path, home).summaries()}
    for layout in made.values():
        for role, path in layout.files.items():
            s = summaries[str(path)]
            parent_role = layout.parents.get(role)
            wanted_parent = str(layout.files[parent_role]) if parent_role else None
            assert s.subagentOf == wanted_parent, role
            assert s.subagentDepth == layout.depths.get(role, 0), role
            kids = [r for r, p in layout.parents.items() if p == role]
            assert s.subagents == len(kids), role
    fork = summaries[str(made["header"].files["fork"])]
    assert fork.subagentOf is None and fork.subagentDepth == 0  # a fork copies entries: not a child


def test_each_family_figure_counts_every_child_once(tmp_path: Path, history) -> None:
    home, made = history
    summaries = {s.path: s for s in _catalogue(tmp_path, home).summaries()}
    for name, layout in made.items():
        for role, path in layout.files.items():
            assert summaries[str(path)].family_cost == pytest.approx(layout.family[role]), (name, role)
        # A top session's figure is what its whole family cost, each model call once.
        top = layout.files["parent"]
        family = [p for r, p in layout.files.items() if r == "parent" or layout.parents.get(r)]
        assert summaries[str(top)].family_cost == pytest.approx(layouts.brute_force_cost(family))
    parent = summaries[str(made["prime"].files["parent"])]
    assert parent.own_cost == pytest.approx(0.45) and parent.childCost == pytest.approx(0.80)
    pi_parent = summaries[str(made["pi"].files["parent"])]
    assert pi_parent.own_cost == pytest.approx(0.05) and pi_parent.childCost == pytest.approx(0.35)


def test_usage_reports_never_add_a_child_inside_its_parents_aggregate(tmp_path: Path, history) -> None:
    home, made = history
    catalogue = _catalogue(tmp_path, home)
    every = [p for layout in made.values() for p in layout.files.values()]
    truth = layouts.brute_force_cost(every)
    for kind in ("daily", "monthly", "session", "model", "project", "blocks"):
        report = catalogue.usage_report(kind, UsageFilter())
        assert report.totals.total_cost == pytest.approx(truth), kind
    records = catalogue.usage_records()
    assert sum(r.cost for r in records) == pytest.approx(truth)
    overview = catalogue.usage_overview(UsageFilter())
    assert overview.totals.total_cost == pytest.approx(truth)
    # The Usage window's sessions: each parent's row holds its family, children counted once.
    rows = {row.key: row for row in overview.sessions}
    for layout in made.values():
        top = rows[str(layout.files["parent"])]
        assert top.total_cost == pytest.approx(layout.family["parent"])
        assert top.child_cost == pytest.approx(layout.family["parent"] - _own(layout))
        assert not any(str(layout.files[role]) in rows for role, up in layout.parents.items() if up)


def test_usage_session_report_puts_children_in_their_parents_row(tmp_path: Path, history) -> None:
    home, made = history
    report = _catalogue(tmp_path, home).usage_report("session", UsageFilter())
    rows = {row.key: row for row in report.rows}
    for layout in made.values():
        top = str(layout.files["parent"])
        assert rows[top].total_cost == pytest.approx(layout.family["parent"])
        for role, parent in layout.parents.items():
            if parent is not None:
                assert str(layout.files[role]) not in rows  # folded into its parent's row
    alone = str(made["header"].files["alone"])
    assert rows[alone].total_cost == pytest.approx(0.02)  # a child whose parent is unknown: its own row


def test_a_child_appended_to_later_stays_counted_once(tmp_path: Path, history) -> None:
    home, made = history
    catalogue = _catalogue(tmp_path, home)
    prime = made["prime"]
    # The child goes on; Prime Agent attributes its new message to the parent's launching message.
    with prime.files["c2"].open("a") as handle:
        handle.write(json.dumps(_assistant("c2c20099", "more tests", 0.05)) + "\n")
    with prime.files["parent"].open("a") as handle:
        attribution = {
            "type": "child_usage_attributed",
            "id": "0194attr",
            "parentId": None,
            "timestamp": "2026-03-01T10:09:00.000Z",
            "targetId": prime.launchers["c2"],
            "childUsage": layouts._usage(0.05),
            "aggregateUsage": layouts._usage(1.05),
        }
        handle.write(json.dumps(attribution) + "\n")
    catalogue.refresh(_roots(home))
    summaries = {s.path: s for s in catalogue.summaries()}
    assert summaries[str(prime.files["parent"])].family_cost == pytest.approx(1.30)
    every = [p for layout in made.values() for p in layout.files.values()]
    total = catalogue.usage_report("daily", UsageFilter()).totals.total_cost
    assert total == pytest.approx(layouts.brute_force_cost(every))


def test_a_parent_removed_leaves_its_children_on_their_own(tmp_path: Path, history) -> None:
    home, made = history
    catalogue = _catalogue(tmp_path, home)
    os.unlink(made["header"].files["parent"])
    shutil.rmtree(made["prime"].files["c1"].parent)  # the first child and the grandchild below it
    catalogue.refresh(_roots(home))
    summaries = {s.path: s for s in catalogue.summaries()}
    child = summaries[str(made["header"].files["child"])]
    assert child.subagentOf is None  # only its header named the parent: now it stands alone
    parent = summaries[str(made["prime"].files["parent"])]
    assert parent.subagents == 1
    # Its aggregate still holds what the removed child cost: the figure does not change.
    assert parent.family_cost == pytest.approx(1.25)


def test_child_links_cut_loops_and_keep_recorded_depth() -> None:
    rows = [  # each made while the other ran
        Listed("/s/a.jsonl", "a", "/s/b.jsonl", None, 10.0, 100.0),
        Listed("/s/b.jsonl", "b", "/s/a.jsonl", None, 20.0, 100.0),
        Listed("/s/c.jsonl", "c", "/s/a.jsonl", rlm_depth=3),
    ]
    links = child_links(rows, lambda child, parent: False)
    heads = [p for p, link in links.items() if link.parent is None and p != "/s/c.jsonl"]
    assert len(heads) == 1  # the loop is cut once
    assert links["/s/c.jsonl"].depth == 3


def test_a_blank_session_made_after_its_parent_ended_is_not_a_child() -> None:
    # pi's newSession({parentSession}) after the parent's last message (a hand-over): a session of its own.
    rows = [
        Listed("/s/p.jsonl", "p", None, None, 0.0, 50.0),
        Listed("/s/n.jsonl", "n", "/s/p.jsonl", None, 60.0, 90.0),
    ]
    assert child_links(rows, lambda child, parent: False) == {}
    during = [rows[0], Listed("/s/n.jsonl", "n", "/s/p.jsonl", None, 40.0, 90.0)]
    assert child_links(during, lambda child, parent: False)["/s/n.jsonl"].parent == "/s/p.jsonl"
    assert child_links(during, lambda child, parent: True) == {}  # copies its parent's entries: a fork


def test_family_costs_without_recursion_on_a_deep_chain() -> None:
    depth = 5000
    links = {f"/{i}": ChildLink(f"/{i}", f"/{i - 1}", i, False) for i in range(1, depth)}
    costs = {f"/{i}": (1.0, 0.0) for i in range(depth)}
    figures = family_costs(links, costs, ())
    assert figures["/0"].total == pytest.approx(depth)
    assert figures["/0"].own == 1.0


def _own(layout: layouts.Layout) -> float:
    """What the parent of ``layout`` cost itself: its assistant messages' own usage."""
    return layouts.brute_force_cost([layout.files["parent"]])


def _assistant(eid: str, text: str, cost: float) -> dict[str, object]:
    return {
        "type": "message",
        "id": eid,
        "parentId": "c2c20002",
        "timestamp": "2026-03-01T10:08:00.000Z",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": layouts._usage(cost),
            "stopReason": "stop",
            "timestamp": 1,
        },
    }


def _children(summaries: dict, parent: Path) -> list[ChildSession]:
    return [
        ChildSession(s.path, s.title, js_date_ms(s.created))
        for s in summaries.values()
        if s.subagentOf == str(parent)
    ]


def test_the_launching_message_links_to_each_child(tmp_path: Path, history) -> None:
    home, made = history
    summaries = {s.path: s for s in _catalogue(tmp_path, home).summaries()}
    for layout in made.values():
        parent = layout.files["parent"]
        session = load_session(parent)
        session.child_sessions = launches(session, _children(summaries, parent))
        wanted: dict[str, set[str]] = {}
        for role, up in layout.parents.items():
            if up == "parent":
                wanted.setdefault(layout.launchers[role], set()).add(str(layout.files[role]))
        assert {k: {c.path for c in v} for k, v in session.child_sessions.items()} == wanted
        for entry_id, kids in session.child_sessions.items():
            entry = session.get(entry_id)
            view = render_card(card(entry, session.body(entry), notes=session_notes(session).get(entry_id)))
            for kid in kids:
                assert f'href="{session_href(kid.path)}"' in view
            markdown = entry_to_markdown(session, entry_id)
            assert "Started the subagent session" in markdown
            assert all(kid.path not in markdown for kid in kids)  # an export names the file, not the path
            assert all(os.path.basename(kid.path) in markdown for kid in kids)


def test_a_child_made_between_two_launches_goes_to_the_earlier(tmp_path: Path) -> None:
    parent = layouts.Writer("launcher-0000", "/p", 30)
    parent.user("two waves")
    first = parent.assistant("wave one", 0.1, {"id": "w1", "name": "subagent", "arguments": {}})
    second = parent.assistant("wave two", 0.1, {"id": "w2", "name": "subagent", "arguments": {}})
    path = parent.write(tmp_path / "p.jsonl")
    session = load_session(path)
    at = {e.id: e.ts_ms for e in session.entries}
    kids = [
        ChildSession("/k/a.jsonl", "a", at[first] + 500),
        ChildSession("/k/b.jsonl", "b", at[second] + 500),
        ChildSession("/k/early.jsonl", "early", at[first] - 60_000),  # before any launch: the first
    ]
    found = launches(session, kids)
    assert {k: [c.path for c in v] for k, v in found.items()} == {
        first: ["/k/early.jsonl", "/k/a.jsonl"],
        second: ["/k/b.jsonl"],
    }


def test_cli_list_marks_children_and_gives_family_costs(tmp_path: Path, history) -> None:
    home, made = history
    roots = [str(r) for r in _roots(home)]
    args = ["list", *roots, "--catalogue", str(tmp_path / "cat")]
    text = subprocess.run(
        [sys.executable, "-m", "core.cli", *args], capture_output=True, text=True, check=True
    )
    lines = text.stdout.splitlines()
    parent = next(line for line in lines if "Refactor the parser" in line)
    assert "$   1.25" in parent and "(+2 subagents)" in parent
    assert any("↳ survey the repository (+1 subagent)" in line for line in lines)
    scanned = subprocess.run(
        [sys.executable, "-m", "core.cli", *args, "--json", "--no-catalogue"],
        capture_output=True,
        text=True,
        check=True,
    )
    catalogued = subprocess.run(
        [sys.executable, "-m", "core.cli", *args, "--json"], capture_output=True, text=True, check=True
    )
    assert json.loads(scanned.stdout) == json.loads(catalogued.stdout)  # both lists know the families
    rows = {row["path"]: row for row in json.loads(catalogued.stdout)}
    assert rows[str(made["prime"].files["gc"])]["subagentOf"] == str(made["prime"].files["c1"])
    assert rows[str(made["prime"].files["gc"])]["subagentDepth"] == 2
    cat = str(tmp_path / "cat")
    usage = subprocess.run(
        [sys.executable, "-m", "core.cli", "usage", "session", "--catalogue", cat, "--json", *roots],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(usage.stdout)
    sessions = next(value for value in report.values() if isinstance(value, list))
    costs = {row.get("sessionId"): row["totalCost"] for row in sessions}
    assert costs["0194a000-pa00-7000-8000-000000000001"] == pytest.approx(1.25)  # the family, once
    assert costs["5f316403-aaaa-4bbb-8ccc-000000000001"] == pytest.approx(0.40)
    every = [p for layout in made.values() for p in layout.files.values()]
    assert report["totals"]["totalCost"] == pytest.approx(layouts.brute_force_cost(every))
