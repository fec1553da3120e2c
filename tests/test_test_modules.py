"""The suite's layout: pytest imports test modules by basename, so two of one name break collection."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).parent


def test_no_two_test_modules_share_a_basename() -> None:
    names = Counter(path.name for path in TESTS.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []


def test_the_shared_folder_is_found_one_way() -> None:
    # The shared data is beside the checkout unless PRIME_SHARED_DIR says otherwise (a clean clone
    # elsewhere); a test module that builds the path by hand finds nothing there, and its tests fail.
    by_hand = [
        path.name
        for path in TESTS.rglob("*.py")
        if path.name not in ("conftest.py", "test_test_modules.py")
        and '/ "shared"' in path.read_text(encoding="utf-8")
    ]
    assert by_hand == []
