"""The chapter 01 exercises. Each test fails on the stub (NotImplementedError) and passes on the reference.

The expected strings were printed by PyTorch 2.13; the differential tests in the other files check
the same rules against a live torch. These tests need no torch, so a learner can run them anywhere.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from picotorch import _tensor_str as ts


@pytest.fixture(autouse=True)
def _default_printoptions():
    ts.set_printoptions(profile="default")
    yield
    ts.set_printoptions(profile="default")


# --- 1.1: the sci-mode decision ---------------------------------------------------------------------


@pytest.mark.exercise("1.1")
@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1.0, 999.0], False),
        ([1.0, 1001.0], True),  # max / min > 1000
        ([1.0, 1000.0], False),  # not strictly above
        ([2.0e8, 1.5e8], True),  # max > 1e8
        ([1.0e8], False),
        ([0.5, 9e-5], True),  # min < 1e-4
        ([1e-4], False),
        ([-3.0, 2000.0], False),  # magnitudes: 2000 / 3 < 1000
        ([-1.0, 1001.0], True),
    ],
)
def test_sci_mode_rule(values, expected):
    """Scientific notation when max/min > 1000, max > 1e8 or min < 1e-4 (non-zero finite values only)."""
    assert ts._is_sci_mode(np.array(values)) is expected


@pytest.mark.exercise("1.1")
def test_sci_mode_rule_in_float16_does_not_overflow():
    """The ratio max/min is computed without overflowing float16."""
    assert ts._is_sci_mode(np.array([60000.0, 1.0], dtype=np.float16)) is True


@pytest.mark.exercise("1.1")
@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1.0, 1001.0], "[1.0000e+00, 1.0010e+03]"),
        ([1.0, 999.0], "[  1., 999.]"),
        ([1.00001], "[1.0000]"),
        ([0.00001, 1.0], "[1.0000e-05, 1.0000e+00]"),
        ([0.0, 1.0, float("nan"), float("inf")], "[0., 1., nan, inf]"),  # zeros and non-finite never count
    ],
)
def test_sci_mode_in_the_body(values, expected):
    """The sci-mode decision shows in the printed tensor."""
    assert ts._array_str(np.array(values, dtype=np.float32), 7) == expected


def test_forced_sci_mode_skips_the_rule():  # not an exercise test: the rule is never called
    with ts.printoptions(sci_mode=False):
        assert ts._array_str(np.array([1.0, 1001.5]), 7) == "[   1.0000, 1001.5000]"


# --- 1.2: summarisation -------------------------------------------------------------------------------


@pytest.mark.exercise("1.2")
def test_summarized_vector():
    """A summarised 1-D tensor keeps its first and last edgeitems values."""
    np.testing.assert_array_equal(ts.get_summarized_data(np.arange(10_000)), [0, 1, 2, 9997, 9998, 9999])


@pytest.mark.exercise("1.2")
def test_summarized_keeps_short_dimensions_whole():
    """A dimension no longer than 2 * edgeitems is kept whole."""
    data = np.arange(5 * 2000).reshape(5, 2000)
    summary = ts.get_summarized_data(data)
    assert summary.shape == (5, 6)
    np.testing.assert_array_equal(summary[:, 3:], data[:, -3:])


@pytest.mark.exercise("1.2")
def test_summarized_cuts_every_long_dimension():
    """Every dimension longer than 2 * edgeitems is cut, not just the first."""
    data = np.arange(1000 * 1000).reshape(1000, 1000)
    summary = ts.get_summarized_data(data)
    assert summary.shape == (6, 6)
    np.testing.assert_array_equal(summary[0], [0, 1, 2, 997, 998, 999])
    np.testing.assert_array_equal(summary[-1], [999000, 999001, 999002, 999997, 999998, 999999])


@pytest.mark.exercise("1.2")
def test_summarized_follows_edgeitems():
    """The number of kept entries per side follows PRINT_OPTS.edgeitems."""
    with ts.printoptions(edgeitems=1):
        assert ts.get_summarized_data(np.zeros((3, 2, 7))).shape == (2, 2, 2)
        assert ts.get_summarized_data(np.zeros((2, 2))).shape == (2, 2)


@pytest.mark.exercise("1.2")
def test_summarised_body():
    """The summarised print matches PyTorch's, with '...' where entries were left out."""
    with ts.printoptions(threshold=10, edgeitems=1):
        assert ts._array_str(np.arange(60).reshape(3, 4, 5), 7) == (
            "[[[ 0,  ...,  4],\n"
            "         ...,\n"
            "         [15,  ..., 19]],\n"
            "\n"
            "        ...,\n"
            "\n"
            "        [[40,  ..., 44],\n"
            "         ...,\n"
            "         [55,  ..., 59]]]"
        )


@pytest.mark.exercise("1.2")
def test_hidden_elements_do_not_change_the_format():
    """Only the elements that are printed decide the format."""
    data = np.ones(2001)
    data[1000] = 1e20  # hidden in the middle: must not switch the print to scientific notation
    assert ts._array_str(data, 7) == "[1., 1., 1.,  ..., 1., 1., 1.]"


# --- 1.3: suffix placement ------------------------------------------------------------------------------


@pytest.mark.exercise("1.3")
def test_suffixes_on_the_same_line():
    """Suffixes follow the values as ', suffix' when the line stays within linewidth."""
    assert ts._add_suffixes("tensor([1, 2]", [], 7, False) == "tensor([1, 2])"
    assert ts._add_suffixes("tensor([1, 2]", ["dtype=torch.int8"], 7, False) == "tensor([1, 2], dtype=torch.int8)"
    assert (
        ts._add_suffixes("tensor([1.]", ["device='cuda:0'", "requires_grad=True"], 7, False)
        == "tensor([1.], device='cuda:0', requires_grad=True)"
    )


@pytest.mark.exercise("1.3")
def test_suffix_wraps_at_linewidth():
    """A suffix that would pass linewidth starts a new line, indented under the first value."""
    body = "tensor([" + ", ".join(["1.0000"] * 7) + "]"  # 63 characters, counted as 65
    suffix = "grad_fn=<MulBackward0>"  # 65 + 22 + len(", ") = 89 > 80
    assert ts._add_suffixes(body, [suffix], 7, False) == body + ",\n       " + suffix + ")"
    with ts.printoptions(linewidth=89):
        assert ts._add_suffixes(body, [suffix], 7, False) == body + ", " + suffix + ")"
    with ts.printoptions(linewidth=88):
        assert ts._add_suffixes(body, [suffix], 7, False) == body + ",\n       " + suffix + ")"


@pytest.mark.exercise("1.3")
def test_suffix_measures_the_last_line_only():
    """Only the last line of the body counts towards linewidth."""
    body = "tensor([[1., 2.],\n        [3., 4.]]"
    assert ts._add_suffixes(body, ["dtype=torch.float64"], 7, False) == body + ", dtype=torch.float64)"


@pytest.mark.exercise("1.3")
def test_suffix_after_a_wrapped_suffix_counts_from_the_indent():
    """After a wrapped suffix, the next one is measured from the indent."""
    body = "tensor([" + ", ".join(["1.0000"] * 9) + "]"
    with ts.printoptions(linewidth=40):
        out = ts._add_suffixes(body, ["dtype=torch.float16", "requires_grad=True"], 7, False)
    assert out == body + ",\n       dtype=torch.float16,\n       requires_grad=True)"


@pytest.mark.exercise("1.3")
def test_force_newline_applies_to_the_first_suffix():
    """force_newline puts the first suffix on its own line."""
    assert ts._add_suffixes("tensor([1]", ["a=1", "b=2"], 7, True) == "tensor([1],\n       a=1, b=2)"


# --- 1.4: grad_fn=<...> or requires_grad=True ----------------------------------------------------------


def _fake(grad_fn_name=None, requires_grad=False):
    grad_fn = None if grad_fn_name is None else SimpleNamespace(name=lambda: grad_fn_name)
    return SimpleNamespace(grad_fn=grad_fn, requires_grad=requires_grad)


@pytest.mark.exercise("1.4")
def test_leaf_without_grad_has_no_suffix():
    """A tensor that needs no gradient prints neither grad_fn= nor requires_grad=True."""
    assert ts._autograd_suffix(_fake()) is None


@pytest.mark.exercise("1.4")
def test_leaf_requiring_grad():
    """A leaf that requires grad prints requires_grad=True."""
    assert ts._autograd_suffix(_fake(requires_grad=True)) == "requires_grad=True"


@pytest.mark.exercise("1.4")
def test_computed_tensor_shows_grad_fn_only():
    """A computed tensor prints grad_fn=<Name> and never requires_grad=True."""
    assert ts._autograd_suffix(_fake("MulBackward0", requires_grad=True)) == "grad_fn=<MulBackward0>"
    assert ts._autograd_suffix(_fake("ToCopyBackward0", requires_grad=True)) == "grad_fn=<ToCopyBackward0>"


@pytest.mark.exercise("1.4")
def test_cpp_style_names_are_shortened():
    """A C++-style node name (torch::autograd::X) prints as its last part."""
    assert ts._autograd_suffix(_fake("torch::autograd::CopySlices", True)) == "grad_fn=<CopySlices>"
