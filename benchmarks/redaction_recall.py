"""What redaction misses and what it takes that is no secret: ``python benchmarks/redaction_recall.py``.

Three measures, each printed as a table (see benchmarks/README.md, "Redaction recall"):

* **shapes**: the 48 credential shapes of ``tests/core/credential_shapes.py`` (headers, assignments,
  config lines, flags, URLs, provider tokens), ``--samples`` fakes of each; a fake survives when its
  secret, or any 12 letters and digits of it in a row, is still in the redacted text. A shape survives
  when any of its fakes does.
* **fixtures**: the public test fixtures of three secret scanners, read from their repositories at run
  time (``--gitleaks``, ``--trufflehog``, ``--detect-secrets``: clones, or git directories as the search
  tool's ``fetch`` leaves them), by ``benchmarks/scanner_fixtures.py``. Nothing of them is copied into
  this repository: trufflehog's licence (AGPL-3.0) does not allow shipping its tests here.
* **clean**: ordinary source code, the Python standard library's modules (not its tests) and this
  repository's ``core/`` and ``gui/``: every replacement there is a false positive.

``--core DIR`` measures another checkout's redaction (a folder holding its ``core/``), for before and
after figures: ``git archive main core | tar -x -C /tmp/base`` then ``--core /tmp/base``.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import sysconfig
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pieces(secret: str) -> set[str]:
    return {run[i : i + 12] for run in re.findall(r"[A-Za-z0-9]{12,}", secret) for i in range(len(run) - 11)}


def survives(secret: str, redacted: str) -> bool:
    """Whether ``secret`` (or 12 letters and digits of it in a row) is still in ``redacted``."""
    return secret in redacted or any(piece in redacted for piece in _pieces(secret))


def fixture_survives(fixture: object, redacted: str) -> bool:
    """Whether a scanner's fixture survived: one of its credentials whole, or nothing redacted at all."""
    secrets = fixture.secrets  # type: ignore[attr-defined]
    if not secrets:
        return "[REDACTED:" not in redacted
    return any(all(survives(part, redacted) for part in parts) for parts in secrets)


def shapes(redactor_class: type, samples: int) -> None:
    from tests.core.credential_shapes import SHAPES

    rng = random.Random(29)
    lost = 0
    print(f"{'shape':<28} survivors (of {samples})")
    for shape in SHAPES:
        fakes = [shape.make(rng) for _ in range(samples)]
        survivors = sum(survives(secret, redactor_class().text(text)) for text, secret in fakes)
        lost += survivors > 0
        if survivors:
            print(f"{shape.name:<28} {survivors}")
    print(f"shapes with a survivor: {lost} of {len(SHAPES)}")


def fixtures(redactor_class: type, args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from scanner_fixtures import collect

    found = collect(gitleaks=args.gitleaks, trufflehog=args.trufflehog, detect_secrets=args.detect_secrets)
    by_source: Counter[str] = Counter()
    lost: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    for fixture in found:
        redacted = redactor_class().text(fixture.text)
        by_source[fixture.source] += 1
        if fixture_survives(fixture, redacted):
            lost[fixture.source] += 1
            examples.setdefault(fixture.source, []).append(f"{fixture.origin}: {fixture.text[:100]!r}")
    for source in sorted(by_source):
        share = lost[source] / by_source[source]
        print(f"{source:<16} {by_source[source]:>5} fixtures, {lost[source]:>5} survive ({share:.1%})")
    total, survivors = sum(by_source.values()), sum(lost.values())
    print(f"{'all':<16} {total:>5} fixtures, {survivors:>5} survive ({survivors / max(total, 1):.1%})")
    if args.verbose:
        for source, lines in examples.items():
            print(f"\n{source}:")
            print("\n".join(lines))


def clean(redactor_class: type, verbose: bool) -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [
        p
        for p in sorted(stdlib.rglob("*.py"))
        if not any(
            part in ("test", "tests", "idle_test", "site-packages", "dist-packages") for part in p.parts
        )
    ]
    files += sorted((ROOT / "core").rglob("*.py")) + sorted((ROOT / "gui").rglob("*.py"))
    # Redaction's own modules hold example credentials on purpose (in comments and patterns).
    files = [p for p in files if not (p.parent.name == "export" and p.name.startswith(("redact", "secret")))]
    counts: Counter[str] = Counter()
    size = 0
    started = time.perf_counter()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        size += len(text)
        redactor = redactor_class()
        redacted = redactor.text(text)
        counts.update(redactor.counts)
        if verbose and redactor.counts:
            for line in redacted.splitlines():
                if "[REDACTED:" in line:
                    print(f"{path}: {line.strip()[:140]}")
    elapsed = time.perf_counter() - started
    print(f"{len(files)} files, {size / 1e6:.1f} M characters, {elapsed:.1f} s")
    print(
        f"false positives: {sum(counts.values())} ({', '.join(f'{n} {k}' for k, n in counts.most_common())})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", nargs="*", choices=["shapes", "fixtures", "clean"], default=[])
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--core", type=Path, help="a folder holding another checkout's core/")
    parser.add_argument("--gitleaks", type=Path)
    parser.add_argument("--trufflehog", type=Path)
    parser.add_argument("--detect-secrets", type=Path)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(args.core.resolve() if args.core else ROOT))
    if args.core:
        sys.path.insert(1, str(ROOT))  # the tests' helpers
    from core.export.redact import Redactor

    for what in args.what or ["shapes", "fixtures", "clean"]:
        print(f"\n== {what}")
        if what == "shapes":
            shapes(Redactor, args.samples)
        elif what == "fixtures":
            fixtures(Redactor, args)
        else:
            clean(Redactor, args.verbose)


if __name__ == "__main__":
    main()
