"""Remote images in message text become links in the Markdown export, unless asked for (issue 29).

Previewing an exported .md (an editor, a forge) fetched every ``![](https://…)`` of the session. The
check is what a previewer does: markdown-it parses the export, and no image may point off the machine.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from core.export import ExportOptions, render_export
from core.export.remote_images import remote_images_as_links
from core.session import load_session
from tests.conftest import REPO

TEXT = """Here is the plot: ![loss curve](https://example.com/loss.png "Loss") and ![](http://x.test/a.gif).

[![build](https://img.shields.io/badge/build-passing-green)](https://ci.example.com)

By reference: ![diagram][arch] and a shortcut ![arch]

[arch]: https://example.com/arch.svg

Protocol-relative ![px](//tracker.example.com/p.gif), local ![local](images/a.png) and
![inline](data:image/png;base64,iVBORw0KGgo=) stay.

`![in a span](https://example.com/span.png)`

```
![in a fence](https://example.com/fence.png)
```
"""


def _remote_images(markdown: str) -> list[str]:
    """The image targets a previewer would fetch from the web."""
    found = []
    for token in MarkdownIt("commonmark").parse(markdown):
        for child in token.children or ():
            src = child.attrGet("src") if child.type == "image" else None
            if isinstance(src, str) and src.lower().startswith(("http:", "https:", "//")):
                found.append(src)
    return found


def _session(tmp_path: Path, text: str) -> Path:
    ts = "2026-01-01T00:00:00.000Z"
    lines = [
        {"type": "session", "version": 3, "id": "img", "timestamp": ts, "cwd": "/w"},
        {
            "type": "message",
            "id": "00000001",
            "parentId": None,
            "timestamp": ts,
            "message": {"role": "user", "content": text, "timestamp": 1767225600000},
        },
        {
            "type": "message",
            "id": "00000002",
            "parentId": "00000001",
            "timestamp": ts,
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "timestamp": 1},
        },
    ]
    path = tmp_path / "img.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def test_remote_images_become_links_by_default(tmp_path: Path) -> None:
    session = load_session(_session(tmp_path, TEXT))
    assert len(_remote_images(TEXT)) == 6  # what the session's text would load
    for safe in (True, False):
        out = render_export(session, "md", ExportOptions(safe_markdown=safe)).data.decode()
        assert _remote_images(out) == []
        assert r"[\[image: loss curve\]](https://example.com/loss.png " in out
        assert r"[\[image\]](http://x.test/a.gif)" in out
        assert r"[\[image: build\]](https://ci.example.com)" in out  # inside a link: the label only
        assert r"[\[image: diagram\]][arch]" in out
        assert "![local](images/a.png)" in out
        assert "![in a span](https://example.com/span.png)" in out  # code stays as written
        assert "![in a fence](https://example.com/fence.png)" in out


def test_remote_images_stay_when_asked_for(tmp_path: Path) -> None:
    session = load_session(_session(tmp_path, TEXT))
    out = render_export(session, "md", ExportOptions(remote_images=True)).data.decode()
    assert "https://example.com/loss.png" in _remote_images(out)


def test_the_command_line_flag(tmp_path: Path) -> None:
    path = _session(tmp_path, TEXT)
    for flag, remote in (([], 0), (["--remote-images"], 6)):
        out = tmp_path / f"out{len(flag)}.md"
        subprocess.run(
            [sys.executable, "-m", "core.cli", "export", str(path), "-o", str(out), *flag],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
        images = _remote_images(out.read_text("utf-8"))
        assert len(images) == 2 * remote  # the user's message and the assistant's


@given(st.text(alphabet="![]()<>`\n ahttps:/.x\"'", max_size=80))
def test_no_text_keeps_a_remote_image(text: str) -> None:
    assert _remote_images(remote_images_as_links(text)) == []
