"""``repr(t)`` of picotorch tensors against ``repr`` of the same torch tensors, character for character.

The same NumPy array becomes a tensor in both libraries, optionally a leaf that requires grad or the
output of a recorded op (``MulBackward0``, ``ToCopyBackward0``), and both are printed under the same
print options and default dtype.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from ch01_strategies import FLOAT_DTYPES, REAL_DTYPES, arrays, print_options
from hypothesis import given, settings
from hypothesis import strategies as st

import picotorch

torch = pytest.importorskip("torch")

AUTOGRAD_MODES = ("plain", "leaf", "mul", "to_float64", "parameter", "frozen_parameter", "permuted")


@contextlib.contextmanager
def same_settings(options: dict | None = None, default_dtype: str = "float32"):
    """Print options and default dtype set alike in both libraries, restored afterwards."""
    options = options or {}
    try:
        picotorch.set_default_dtype(getattr(picotorch, default_dtype))
        torch.set_default_dtype(getattr(torch, default_dtype))
        with picotorch._tensor_str.printoptions(**options), torch._tensor_str.printoptions(**options):
            yield
    finally:
        picotorch.set_default_dtype(picotorch.float32)
        torch.set_default_dtype(torch.float32)


def make(module, array: np.ndarray, mode: str):
    """One tensor in ``module`` (picotorch or torch) from ``array``, with its autograd history."""
    if mode == "plain":
        return module.tensor(array)
    if mode == "plain_permuted":
        return module.tensor(array).permute(*reversed(range(array.ndim))) if array.ndim else module.tensor(array)
    leaf = module.tensor(array, requires_grad=True)
    if mode == "leaf":
        return leaf
    if mode == "mul":
        return leaf * 1
    if mode == "to_float64":
        return leaf.to(module.float64)
    if mode == "permuted":  # a non-contiguous view with a grad_fn (0-d: nothing to permute)
        return leaf.permute(*reversed(range(leaf.dim()))) if array.ndim else leaf * 1
    return module.nn.Parameter(leaf.detach(), requires_grad=(mode == "parameter"))


def assert_same_repr(array: np.ndarray, mode: str = "plain") -> None:
    ours, theirs = make(picotorch, array, mode), make(torch, array, mode)
    assert repr(ours) == repr(theirs), f"\n--- picotorch\n{ours!r}\n--- torch\n{theirs!r}"
    assert str(ours) == str(theirs)


def test_the_seed_question():
    x = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    for mode in ("leaf", "to_float64", "mul", "parameter"):
        assert_same_repr(x, mode)
    expected = "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert repr(picotorch.nn.Parameter(picotorch.ones(2))) == expected


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (2, 0, 1), (3,), (2, 3), (1, 2, 3), (2, 1, 2, 2)])
def test_dtypes_and_shapes(dtype, shape):
    array = (np.arange(np.prod(shape, dtype=int)) % 5 - 1).astype(dtype).reshape(shape)
    assert_same_repr(array)
    if dtype in FLOAT_DTYPES:
        for mode in AUTOGRAD_MODES[1:]:
            assert_same_repr(array, mode)


@pytest.mark.parametrize("default_dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("shape", [(2,), (0,), (0, 2)])
def test_dtype_suffix_follows_the_default_dtype(default_dtype, dtype, shape):
    with same_settings(default_dtype=default_dtype):
        assert_same_repr(np.ones(shape, dtype=dtype))


@pytest.mark.parametrize("options", [{"edgeitems": 0}, {"edgeitems": 0, "threshold": 3}, {"threshold": 0},
                                     {"linewidth": 20}, {"profile": "short"}, {"sci_mode": True}])
def test_options_and_suffixes(options):
    with same_settings(options):
        for array in (np.arange(12.0).reshape(3, 4), np.array(2.5), np.arange(8, dtype=np.int8), np.zeros((0, 2))):
            for mode in ("plain", "leaf", "to_float64") if array.dtype.kind == "f" else ("plain",):
                assert_same_repr(array, mode)


@pytest.mark.parametrize("width", range(40, 100))
def test_suffix_wrapping_boundaries(width):
    array = np.linspace(-1, 1, 7, dtype=np.float32)
    with same_settings({"linewidth": width}):
        for mode in ("leaf", "mul", "to_float64"):
            assert_same_repr(array, mode)
            assert_same_repr(array.astype(np.float16), mode)


@settings(max_examples=1500, deadline=None)
@given(array=arrays(), options=print_options(), mode=st.sampled_from(AUTOGRAD_MODES),
       default_dtype=st.sampled_from(["float32", "float32", "float64"]))
def test_repr_matches_torch(array, options, mode, default_dtype):
    if array.dtype.kind != "f":
        mode = "plain" if mode != "permuted" else "plain_permuted"
    with same_settings(options, default_dtype):
        assert_same_repr(array, mode)


def test_summarised_big_tensors():
    rng = np.random.default_rng(0)
    for array in (rng.standard_normal(10**6).astype(np.float32), rng.standard_normal((1000, 1000)),
                  rng.integers(-9, 10**6, (200, 300, 20))):
        assert_same_repr(array)


def test_size_repr():
    assert repr(picotorch.ones(2, 3).shape) == repr(torch.ones(2, 3).shape) == "torch.Size([2, 3])"
    assert str(picotorch.ones(()).shape) == str(torch.ones(()).shape) == "torch.Size([])"


def test_negative_precision_raises_like_torch():
    with same_settings({"precision": -1}):
        for module in (picotorch, torch):
            with pytest.raises(ValueError, match="^Format specifier missing precision$"):
                repr(module.tensor([1.5]))
            assert repr(module.tensor([1, 2])) == "tensor([1, 2])"


def test_printing_records_no_graph():
    x = picotorch.ones(3, requires_grad=True)
    y = x * 2
    repr(y)
    assert y.grad_fn.name() == "MulBackward0" and x.is_leaf
