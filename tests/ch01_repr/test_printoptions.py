"""``set_printoptions`` / ``get_printoptions`` / ``printoptions``: the same state as torch after any calls."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import picotorch
from picotorch import _tensor_str as ts

DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    ts.set_printoptions(profile="default")


def test_public_api_is_the_module_api():
    assert picotorch.set_printoptions is ts.set_printoptions
    assert ts.get_printoptions() == DEFAULTS
    assert list(ts.get_printoptions()) == list(DEFAULTS)  # same key order as torch


def test_profiles():
    ts.set_printoptions(profile="short")
    assert ts.get_printoptions() == {**DEFAULTS, "precision": 2, "edgeitems": 2}
    ts.set_printoptions(profile="full")
    assert ts.get_printoptions() == {**DEFAULTS, "threshold": math.inf}
    ts.set_printoptions(profile="full", precision=7)  # explicit options override the profile
    assert ts.get_printoptions()["precision"] == 7
    ts.set_printoptions(profile="default")
    assert ts.get_printoptions() == DEFAULTS


def test_unknown_profile_is_silently_ignored():
    ts.set_printoptions(precision=6)
    ts.set_printoptions(profile="no such profile")
    assert ts.get_printoptions() == {**DEFAULTS, "precision": 6}


def test_every_call_resets_sci_mode():
    ts.set_printoptions(sci_mode=False)
    assert ts.get_printoptions()["sci_mode"] is False
    ts.set_printoptions(precision=2)  # sci_mode not given: back to automatic
    assert ts.get_printoptions()["sci_mode"] is None


def test_negative_precision_is_accepted_then_fails_on_floats():
    ts.set_printoptions(precision=-1)
    assert ts.get_printoptions()["precision"] == -1
    with pytest.raises(ValueError, match="^Format specifier missing precision$"):
        ts._Formatter(__import__("numpy").array([1.5]))


def test_printoptions_context_manager_restores():
    ts.set_printoptions(precision=3, sci_mode=True)
    with ts.printoptions(threshold=5, edgeitems=1):
        assert ts.get_printoptions() == {**DEFAULTS, "precision": 3, "threshold": 5, "edgeitems": 1}
    assert ts.get_printoptions() == {**DEFAULTS, "precision": 3, "sci_mode": True}
    with pytest.raises(KeyError), ts.printoptions(precision=9):
        raise KeyError
    assert ts.get_printoptions()["precision"] == 3


CALLS = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(-2, 12),
        "threshold": st.one_of(st.integers(0, 5000), st.just(math.inf)),
        "edgeitems": st.integers(0, 6),
        "linewidth": st.integers(1, 200),
        "profile": st.sampled_from(["default", "short", "full", "long", "Default"]),
        "sci_mode": st.sampled_from([True, False, None]),
    },
)


@settings(max_examples=300, deadline=None)
@given(calls=st.lists(CALLS, min_size=1, max_size=5))
def test_state_after_any_calls_matches_torch(calls):
    torch = pytest.importorskip("torch")
    ts.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    try:
        for kwargs in calls:
            ts.set_printoptions(**kwargs)
            torch.set_printoptions(**kwargs)
            assert ts.get_printoptions() == torch._tensor_str.get_printoptions()
    finally:
        torch.set_printoptions(profile="default")
