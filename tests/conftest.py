"""Shared fixtures: where the reference samples and the real corpus live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PRIME_SHARED_DIR", REPO.parent / "shared"))
SAMPLES = SHARED / "reference" / "samples"
EXPECTED = SAMPLES / "expected"
CORPUS = SHARED / "corpus" / "real"
DEMO = REPO / "resources" / "demo"


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    if not SAMPLES.is_dir():
        pytest.fail(f"reference samples not found at {SAMPLES}; set PRIME_SHARED_DIR")
    return SAMPLES
