"""The generalised property of issue 29: any hostile value in any field costs that session nothing more.

Generated values (nested up to 1,100 levels, integers up to 2**70, 1.5e308, NaN, 1e400, times of
year 33,658, lone surrogates, every JSON type) in one to three fields of one session beside the demo
sessions go through load, the catalogue, search, usage, context, the renderings of the window (tree,
cards, what the model saw, transcript), the diff and every export: no internal error anywhere, the
other sessions listed and counted as alone, the file unchanged (:func:`check_hostile`). Bounded here
(``PRIME_FUZZ_EXAMPLES``, default 8: a few seconds); ``benchmarks/fuzz_values.py`` runs it longer.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings

from tests.core.hostile_sessions import alone_facts, check_hostile, nested, placements


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> tuple:  # type: ignore[type-arg]
    return alone_facts(tmp_path_factory.mktemp("alone"))


@settings(
    max_examples=int(os.environ.get("PRIME_FUZZ_EXAMPLES", "8")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(chosen=placements())
@example(chosen=[("header.extra", nested(1000)), ("label.label", b"9223372036854775808")])
@example(chosen=[("branch.entry-timestamp", b"1e15"), ("assistant.cost", b"1.5e308")])
@example(chosen=[("assistant.lookup-arguments", b'{"q":' + nested(1010) + b"}"), ("name.name", b'"\\ud800"')])
@example(chosen=[("label.target", b'"\\ud800"')])  # found by benchmarks/fuzz_values.py: a link's quote()
@example(chosen=[("assistant.model", b'"\\ud800"')])  # found by it too: the usage rows' insert
def test_any_hostile_value_in_any_field_costs_only_its_session(
    chosen: list[tuple[str, bytes]],
    alone: tuple,  # type: ignore[type-arg]
) -> None:
    with tempfile.TemporaryDirectory() as base:
        check_hostile(Path(base), chosen, alone)
