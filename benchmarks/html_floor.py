"""What the HTML export of a session cannot do without, step by step, beside where the export's time goes.

Floor (processor seconds, each step once over the whole session in this process, the cyclic garbage
collector off as in the command line): imports, loading with ``keep_bodies``, walking the tree and taking
the bodies, cmark over every message text (the budget closed: no Pygments), escaping the tool output,
thinking and tool arguments, the JSON of those fragments, writing them with fsync. Then the phases of
the real export in this process (wall seconds): load, the setup before rendering, the rendering (with
``--workers 2`` a forked child renders part of it), what follows, and the atomic write.

Usage::

    python benchmarks/html_floor.py [FILE] [--workers 1|2]

FILE defaults to ``benchmarks/out/large-20000.jsonl`` (``run_core.py`` makes it).
"""

from __future__ import annotations

import argparse
import gc
import html
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def floor(path: str) -> None:
    """Print the processor time of each step the page needs done, alone."""
    clock = time.process_time
    t0 = clock()
    import orjson

    from core.render.highlight import Highlighter
    from core.render.markdown import render_markdown
    from core.session import load_session

    t1 = clock()
    session = load_session(path, checksum=False, keep_bodies=True)
    t2 = clock()
    entries = [entry for entry, _depth in session.tree.walk()]
    bodies = list(session.bodies(entries))
    t3 = clock()
    texts: list[str] = []
    code: list[str] = []
    for body in bodies:
        message = body.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
            continue
        for block in content if isinstance(content, list) else ():
            kind = block.get("type")
            if kind == "text":
                (code if message.get("role") == "toolResult" else texts).append(block["text"])
            elif kind == "thinking":
                code.append(block["thinking"])
            elif kind == "toolCall":
                code.append(orjson.dumps(block.get("arguments")).decode())
    highlighter = Highlighter()
    highlighter.closed = True
    t4 = clock()
    rendered = [render_markdown(text, highlighter) for text in texts]
    t5 = clock()
    escaped = [html.escape(text, quote=False) for text in code]
    t6 = clock()
    encoded = b",".join(orjson.dumps(text) for text in rendered + escaped)
    t7 = clock()
    with tempfile.NamedTemporaryFile(dir=REPO / "benchmarks" / "out") as out:
        out.write(encoded)
        out.flush()
        os.fsync(out.fileno())
    t8 = clock()
    steps = [
        ("imports", t1 - t0),
        ("load (keep_bodies)", t2 - t1),
        ("tree walk + bodies", t3 - t2),
        (f"cmark, {len(texts):,} texts ({sum(map(len, texts)) / 1e6:.1f} MB)", t5 - t4),
        (f"escape output/thinking/arguments ({sum(map(len, code)) / 1e6:.1f} MB)", t6 - t5),
        ("JSON of the fragments", t7 - t6),
        (f"write {len(encoded) / 1e6:.1f} MB + fsync", t8 - t7),
    ]
    print("| floor step | CPU s |\n|---|---:|")
    for name, seconds in steps:
        print(f"| {name} | {seconds:.3f} |")
    print(f"| total | {sum(s for _n, s in steps):.3f} |")


def phases(path: str, workers: int) -> None:
    """Print where the real export's wall time goes, in this process."""
    import core.export.parallel as parallel
    from core.export import ExportOptions, render_export, save_export
    from core.session import load_session

    marks: dict[str, float] = {}
    original = parallel.render_in_parts

    def timed(*args: object, **kwargs: object) -> None:
        marks["start"] = time.perf_counter()
        original(*args, **kwargs)  # type: ignore[arg-type]
        marks["end"] = time.perf_counter()

    parallel.render_in_parts = timed  # type: ignore[assignment]
    t0 = time.perf_counter()
    session = load_session(path, checksum=False, keep_bodies=True)
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=REPO / "benchmarks" / "out") as folder:
        target = Path(folder) / "page.html"
        rendered = render_export(
            session, "html", ExportOptions(), whole_tree=True, target=target, workers=workers
        )
        t2 = time.perf_counter()
        save_export(rendered, target)
        t3 = time.perf_counter()
    print(f"\n| phase (workers={workers}) | wall s |\n|---|---:|")
    if "start" not in marks:  # one worker: render_in_parts is not called
        rows = [("load", t1 - t0), ("render_export", t2 - t1), ("write + fsync", t3 - t2)]
    else:
        rows = [
            ("load", t1 - t0),
            ("setup", marks["start"] - t1),
            ("rendering (both processes)", marks["end"] - marks["start"]),
            ("metadata, island, page", t2 - marks["end"]),
            ("write + fsync", t3 - t2),
        ]
    for name, seconds in rows:
        print(f"| {name} | {seconds:.3f} |")


def main() -> int:
    """Parse the options, then measure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("file", nargs="?", default=str(REPO / "benchmarks" / "out" / "large-20000.jsonl"))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    gc.disable()
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    floor(args.file)
    phases(args.file, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
