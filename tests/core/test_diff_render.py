"""The diff page: hostile session content is escaped, and the page allows only its own style and script."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest

from core.diff import diff_paths, render_html, render_text
from core.errors import SessionWriteError
from core.export import write_export
from core.session import load_session
from tests.core.test_diff import Builder, assistant, result, user

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> & "quotes" </div>'


@pytest.fixture
def page(tmp_path: Path) -> str:
    b = Builder()
    root = b.add(user("Show me " + HOSTILE))
    b.add(
        assistant(HOSTILE + " left", [("bash", {"command": HOSTILE, "path": "<b>x</b>"})], model="m<i>1</i>")
    )
    b.add(result("bash", "line 1\n" + HOSTILE + "\n"))
    for index in range(10):
        b.add(user(f"same question {index}"))
    left = b.add(assistant("ok left"))
    b.at(root)
    b.add(assistant(HOSTILE + " right", [("bash", {"command": HOSTILE + "2"})], model="m<i>2</i>"))
    b.add(result("bash", "line 1\n" + HOSTILE + "!\n"))
    for index in range(10):
        b.add(user(f"same question {index}"))
    right = b.add(assistant("ok right"))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right)
    return render_html(diff, title="Diff of " + HOSTILE)


def test_session_text_is_escaped_everywhere(page: str) -> None:
    assert "<script>alert" not in page and "<img" not in page and "onerror=alert(1)>" not in page
    assert "m<i>" not in page and "<b>x</b>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # the page's own script only


def test_the_page_allows_only_its_own_style_and_script(page: str) -> None:
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page)
    assert policy is not None
    rules = dict(rule.strip().split(" ", 1) for rule in policy.group(1).split(";"))
    assert rules["default-src"] == "'none'" and rules["img-src"] == "'none'"
    assert "unsafe" not in policy.group(1) and "http" not in policy.group(1)
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    assert rules["style-src"] == digest(style) and rules["script-src"] == digest(script)
    assert not re.search(r"<[a-zA-Z][^>]*\s(src|href|style|on\w+)=", page)  # nothing to load, no inline code


def test_the_page_is_side_by_side_with_folds_and_highlights(page: str) -> None:
    assert '<details class="common">' in page
    assert page.count('<details class="fold">') == 1 and "⋯ 6 unchanged messages" in page
    assert '<div class="row changed start"' in page
    assert "<del>left</del>" in page and "<ins>right</ins>" in page
    assert "prefers-color-scheme: dark" in page


def test_text_marks_word_changes(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("q"))
    left = b.add(assistant("red fox"))
    right = b.at(root).add(assistant("red cat"))
    text = render_text(diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right))
    assert "red [-fox-]{+cat+}" in text


def test_a_diff_page_never_replaces_a_file_without_consent(tmp_path: Path) -> None:
    target = tmp_path / "diff.html"
    target.write_bytes(b"mine")
    with pytest.raises(SessionWriteError, match="already exists"):
        write_export(target, b"new")
    assert target.read_bytes() == b"mine"
    write_export(target, b"new", overwrite=True)
    assert target.read_bytes() == b"new"
    write_export(tmp_path / "fresh.html", b"fresh")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diff.html", "fresh.html"]
