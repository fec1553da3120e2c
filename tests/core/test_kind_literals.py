"""What a kind of entry is lives in one place: no module compares an entry's type or role with a literal.

Each kind is one module of core/kinds; the session layer reads the format's words through the constants
of core/session/vocabulary.py. This scans the AST of every module of core/ and gui/ for a comparison (or
a ``match``) of something that reads like an entry's type, kind or role (``entry.kind``, ``x.role``,
``body.get("type")``, ``obj["role"]``, a name ``kind``/``role``/``typ``) with a string literal that is a
word of the format: an entry type (or a variant spelling), a message role, or a content block's type.
It also checks that outside core/session and core/kinds nobody imports those words: everything there
asks the registry (``kind_of(entry)``) what an entry is.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.session import vocabulary

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*ROOT.joinpath("core").rglob("*.py"), *ROOT.joinpath("gui").rglob("*.py")])
VOCABULARY = ROOT / "core" / "session" / "vocabulary.py"
# The words of the format, as the vocabulary spells them; the header's type is not an entry's.
WORDS = frozenset(
    value
    for name, value in vars(vocabulary).items()
    if name.isupper() and isinstance(value, str) and name not in ("HEADER", "HEADER_VARIANT")
) | frozenset(vocabulary.TYPE_ALIASES)
KEYS = frozenset({"type", "kind", "role"})
NAMES = frozenset({"kind", "role", "typ", "type_", "entry_type", "entry_kind"})
ALLOWED_IMPORTERS = ("core/session/", "core/kinds/")


def _reads_a_kind(node: ast.expr) -> bool:
    """``x.type``, ``x.kind``, ``x.role``, ``x.get("type")``, ``x["role"]`` or a name like ``kind``."""
    if isinstance(node, ast.Attribute):
        return node.attr in KEYS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        first = node.args[0] if node.args else None
        return isinstance(first, ast.Constant) and first.value in KEYS
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in KEYS
    return isinstance(node, ast.Name) and node.id in NAMES


def _words(node: ast.expr) -> set[str]:
    """The format's words among the string literals of ``node`` (a literal, or a tuple/list/set of them)."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)} & WORDS


def _findings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_reads_a_kind(side) for side in sides):
                words = set().union(*(_words(side) for side in sides))
                if words:
                    found.append(f"{node.lineno}: {ast.unparse(node)[:100]}")
        elif isinstance(node, ast.Match) and _reads_a_kind(node.subject):
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    if isinstance(sub, ast.MatchValue) and _words(sub.value):
                        found.append(f"{case.pattern.lineno}: case {ast.unparse(case.pattern)}")
    return found


def _imports_of_words(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{node.lineno}: {alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "core.session.vocabulary"
        for alias in node.names
        if alias.name.isupper()
    ]


@pytest.mark.parametrize(
    "path", [p for p in SOURCES if p != VOCABULARY], ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_module_compares_a_type_or_role_with_a_literal(path: Path) -> None:
    assert _findings(path) == [], f"{path.relative_to(ROOT)} compares a kind with a literal (ask core.kinds)"


def test_only_the_session_layer_and_the_kinds_use_the_format_words() -> None:
    offenders = {
        str(path.relative_to(ROOT)): found
        for path in SOURCES
        if not str(path.relative_to(ROOT)).startswith(ALLOWED_IMPORTERS)
        and (found := _imports_of_words(path))
    }
    assert offenders == {}


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    """The scan itself: each shape it must catch is caught, and what is not a kind is left alone."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "if entry.kind == 'label': pass\n"
        "if body.get('type') in ('compaction', 'branchSummary'): pass\n"
        "if message['role'] != 'toolResult': pass\n"
        "if role == 'assistant': pass\n"
        "match entry.role:\n    case 'user': pass\n"
        "if block.get('type') == 'toolCall': pass\n"
        "if report.kind == 'daily': pass\n"  # not a word of the format
        "if name == 'assistant': pass\n"  # not something that reads a kind
    )
    assert sorted(int(line.split(":")[0]) for line in _findings(sample)) == [1, 2, 3, 4, 6, 7]
