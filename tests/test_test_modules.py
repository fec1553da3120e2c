"""The suite's layout: pytest imports test modules by basename, so two of one name break collection."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).parent


def test_no_two_test_modules_share_a_basename() -> None:
    names = Counter(path.name for path in TESTS.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
