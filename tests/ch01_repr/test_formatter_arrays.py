"""The formatting core on plain NumPy arrays, character for character against torch's own functions.

``picotorch._tensor_str._array_str(array, indent)`` is compared with
``torch._tensor_str._tensor_str(torch.from_numpy(array), indent)``, and ``_add_suffixes`` with
torch's ``_add_suffixes``, under the same print options. No picotorch tensor is needed here.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest
from ch01_strategies import COMPLEX_DTYPES, REAL_DTYPES, SMALL_SHAPES, arrays, print_options
from hypothesis import given, settings
from hypothesis import strategies as st

from picotorch import _tensor_str as ts

torch = pytest.importorskip("torch")
torch_str = torch._tensor_str


@contextlib.contextmanager
def both_printoptions(**options):
    """The same print options in picotorch and in torch, restored afterwards."""
    with ts.printoptions(**options), torch_str.printoptions(**options):
        yield


def body_pair(array: np.ndarray, indent: int = 7) -> tuple[str, str]:
    """(picotorch, torch) body strings of one array, or the exceptions' type and text."""
    return _outcome(lambda: ts._array_str(array, indent)), _outcome(
        lambda: torch_str._tensor_str(torch.from_numpy(array), indent)
    )


def _outcome(fn):
    try:
        return fn()
    except Exception as err:  # the error is part of the behaviour
        return f"{type(err).__name__}: {err}"


def assert_same_body(array: np.ndarray, indent: int = 7) -> None:
    ours, theirs = body_pair(array, indent)
    assert ours == theirs, f"\narray={array!r}\n--- picotorch\n{ours}\n--- torch\n{theirs}"


# --- hand-picked cases, each one rule -------------------------------------------------------------

CASES = {
    "display rounding": [1.00001, 2.0],
    "ratio above 1000 -> sci": [1.0, 1001.0],
    "ratio below 1000 -> fixed": [1.0, 999.0],
    "max above 1e8 -> sci": [1.5e8, 2.0e8],
    "min below 1e-4 -> sci": [0.5, 9e-5],
    "whole floats -> int mode": [1.0, -2.0, 300.0],
    "int mode with nan/inf": [1.0, math.nan, math.inf, -math.inf],
    "negative zero": [-0.0, 0.0, 1.0],
    "negative zero fixed": [-0.0, 0.5],
    "only zeros": [0.0, -0.0],
    "only non-finite": [math.nan, math.inf],
    "huge whole numbers": [1e10, 1.0],
    "rounding widens": [9.99995, 0.5],
    "tiny and zero": [0.0, 1e-5],
}


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_picked_float_rules(name, dtype):
    with np.errstate(over="ignore"):
        array = np.array(CASES[name], dtype=dtype)
    assert_same_body(array)
    assert_same_body(array.reshape(1, -1, 1))
    assert_same_body(array[:1].reshape(()))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "bool"])
def test_integer_and_bool_widths(dtype):
    info = np.iinfo(dtype) if dtype != "bool" else None
    values = [0, 1] if info is None else [info.min, 0, 1, info.max]
    assert_same_body(np.array(values, dtype=dtype))
    assert_same_body(np.array(values * 50, dtype=dtype).reshape(-1, 2))


def test_summarised_matrix_and_line_wrap():
    assert_same_body(np.arange(1_000_000, dtype=np.float32).reshape(1000, 1000) / 7)
    assert_same_body(np.arange(40.0).reshape(2, 20) * 1.5)


@pytest.mark.parametrize("options", [{"sci_mode": True}, {"sci_mode": False}, {"precision": 0}, {"precision": 9},
                                     {"edgeitems": 0, "threshold": 5}, {"edgeitems": 1, "threshold": 0},
                                     {"profile": "short"}, {"profile": "full"}, {"linewidth": 1}])
def test_options_change_the_body(options):
    array = np.array([[1.0, 2.5, -3.25e-3], [1e5, 0.0, math.nan]] * 5)
    with both_printoptions(**options):
        assert_same_body(array)
        assert_same_body(np.nan_to_num(array).astype(np.int64))


def test_negative_precision_fails_when_floats_are_formatted():
    with both_printoptions(precision=-1):
        ours, theirs = body_pair(np.array([1.5, 2.0]))
        assert ours == theirs == "ValueError: Format specifier missing precision"
        assert_same_body(np.array([1, 2]))  # integers never use the precision
        assert_same_body(np.array([0.0, math.nan]))  # nor does a float tensor with nothing to measure


def test_formatter_sees_only_the_shown_elements():
    # the hidden middle would make the print scientific if it were looked at
    array = np.ones(2001)
    array[1000] = 1e20
    assert ts._array_str(array, 7) == "[1., 1., 1.,  ..., 1., 1., 1.]"
    assert_same_body(array)


# --- property-based differential tests -----------------------------------------------------------


@settings(max_examples=1500, deadline=None)
@given(array=arrays(), options=print_options(), indent=st.sampled_from([7, 7, 0, 10, 16]))
def test_body_matches_torch(array, options, indent):
    with both_printoptions(**options):
        assert_same_body(array, indent)


@settings(max_examples=200, deadline=None)
@given(array=arrays(dtypes=COMPLEX_DTYPES, shapes=SMALL_SHAPES), options=print_options())
def test_complex_body_matches_torch(array, options):
    with both_printoptions(**options):
        assert_same_body(array)


SUFFIXES = st.sampled_from(
    ["dtype=torch.float16", "device='cuda:0'", "size=(0, 3)", "requires_grad=True", "grad_fn=<MulBackward0>",
     "grad_fn=<ToCopyBackward0>", "dtype=torch.int8"]
)
BODIES = st.lists(st.text("0123456789., []", max_size=90), min_size=1, max_size=3).map("\n".join)


@settings(max_examples=800, deadline=None)
@given(body=BODIES, suffixes=st.lists(SUFFIXES, max_size=3), indent=st.integers(0, 20),
       linewidth=st.integers(1, 120), force_newline=st.booleans())
def test_add_suffixes_matches_torch(body, suffixes, indent, linewidth, force_newline):
    with both_printoptions(linewidth=linewidth):
        ours = ts._add_suffixes("tensor(" + body, suffixes, indent, force_newline)
        theirs = torch_str._add_suffixes("tensor(" + body, suffixes, indent, force_newline)
    assert ours == theirs


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_empty_body(dtype):
    assert_same_body(np.zeros((0, 3), dtype=dtype))
