"""``torch.testing``: ``assert_close`` and ``make_tensor``, what tests compare tensors with.

Models ``torch/testing/_comparison.py`` and ``torch/testing/_creation.py``. ``assert_close(actual, expected)`` walks
both inputs together (sequences by index, mappings by sorted key) down to pairs of leaves, and checks each pair by
its kind: None with None, bools exactly, Python numbers and tensors up to a tolerance. For tensors the shape, then
(when asked, by default) the layout, stride, device and dtype must match before the values are compared with
``isclose``; the default tolerances come from the dtype (float32: ``rtol=1.3e-6, atol=1e-5``), integers and bools
must be equal. The first pair that fails raises PyTorch's message: how many elements differ, and the greatest
absolute and relative differences with their indices.
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
import math

import numpy as np

from .._C import _factories
from ..c10 import scalar_type as st
from ..c10.layout import strided
from ..native.dispatcher import ops
from ..native.tensor_impl import TensorImpl

__all__ = ["assert_close", "make_tensor"]

_DTYPE_PRECISIONS = {st.float16: (0.001, 1e-5), st.bfloat16: (0.016, 1e-5), st.float32: (1.3e-6, 1e-5),
                     st.float64: (1e-7, 1e-7), st.complex32: (0.001, 1e-5), st.complex64: (1.3e-6, 1e-5),
                     st.complex128: (1e-7, 1e-7)}
_NUMBER_DTYPES = {int: st.int64, float: st.float64, complex: st.complex128}


class _Failure(Exception):
    """What a failed pair carries up: the exception type, its message and the path to the pair."""

    def __init__(self, type_, msg: str, id_=()) -> None:
        super().__init__(msg)
        self.type, self.msg, self.id = type_, msg, id_

    def to_error(self, msg=None) -> Exception:
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    pass


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None) -> None:
    """Raise if ``actual`` and ``expected`` are not close (their structure, attributes and values)."""
    options = {"allow_subclasses": allow_subclasses, "rtol": rtol, "atol": atol, "equal_nan": equal_nan,
               "check_device": check_device, "check_dtype": check_dtype, "check_layout": check_layout,
               "check_stride": check_stride}
    try:
        for compare in _pairs(actual, expected, (), options):
            compare()
    except _Failure as failure:
        raise failure.to_error(msg) from None


def _pairs(actual, expected, id_, options) -> list:
    """One comparison per pair of leaves, in the order PyTorch's ``originate_pairs`` finds them."""
    sequence = collections.abc.Sequence
    if (isinstance(actual, sequence) and not isinstance(actual, str) and isinstance(expected, sequence)
            and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           id_)
        return [c for i in range(len(actual)) for c in _pairs(actual[i], expected[i], (*id_, i), options)]
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\nMissing keys in the actual "
                           f"mapping: {sorted(expected_keys - actual_keys)}\nAdditional keys in the actual mapping: "
                           f"{sorted(actual_keys - expected_keys)}", id_)
        keys = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [c for key in keys for c in _pairs(actual[key], expected[key], (*id_, key), options)]
    for pair in (_none_pair, _boolean_pair, _number_pair, _tensor_pair):
        try:
            return [pair(actual, expected, id_, options)]
        except _Unsupported:
            continue
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                   f"{type(expected)}.", id_)


# ----------------------------------------------------------------------------- the four kinds of pair


def _none_pair(actual, expected, id_, options):
    if not (actual is None or expected is None):
        raise _Unsupported

    def compare():
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", id_)
    return compare


def _boolean_pair(actual, expected, id_, options):
    if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = bool(actual), bool(expected)

    def compare():
        if actual is not expected:
            raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}", id_)
    return compare


def _number_pair(actual, expected, id_, options):
    kinds = (int, float, complex, np.number)
    if not all(isinstance(x, kinds) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(x)] for x in (actual, expected)], options, id_)

    def compare():
        if options["check_dtype"] and type(actual) is not type(expected):
            raise _Failure(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.", id_)
        if actual == expected:
            return
        if options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected):
            return
        difference = abs(actual - expected)
        if cmath.isfinite(difference) and difference <= atol + rtol * abs(expected):
            return
        raise _Failure(AssertionError, _scalar_mismatch_msg(actual, expected, rtol, atol), id_)
    return compare


def _tensor_pair(actual, expected, id_, options):
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not options["allow_subclasses"] and type(actual) is not type(expected):
        raise _Unsupported
    actual, expected = (_as_tensor(x) for x in (actual, expected))
    rtol, atol = _tolerances([actual.dtype, expected.dtype], options, id_)

    def compare():
        _compare_attributes(actual, expected, options, id_)
        a, e = _equalize(actual, expected)
        matches = ops.isclose(a, e, rtol, atol, options["equal_nan"])
        if bool(ops.all(matches)):
            return
        if tuple(a.shape) == ():
            msg = _scalar_mismatch_msg(a.item(), e.item(), rtol, atol)
        else:
            msg = _tensor_mismatch_msg(a, e, matches, rtol, atol)
        raise _Failure(AssertionError, msg, id_)
    return compare


def _as_tensor(value):
    if isinstance(value, TensorImpl):
        return value
    try:
        return _factories.as_tensor(value)
    except Exception:  # noqa: BLE001 - anything as_tensor refuses is no tensor-like
        raise _Unsupported from None


def _tolerances(dtypes, options, id_):
    rtol, atol = options["rtol"], options["atol"]
    if (rtol is None) ^ (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                       f"{'rtol' if rtol is None else 'atol'}.", id_)
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _compare_attributes(actual, expected, options, id_) -> None:
    def mismatch(name, a, e):
        raise _Failure(AssertionError, f"The values for attribute '{name}' do not match: {a} != {e}.", id_)

    if actual.shape != expected.shape:
        mismatch("shape", actual.shape, expected.shape)
    if actual.layout != expected.layout:
        if options["check_layout"]:
            mismatch("layout", actual.layout, expected.layout)
    elif actual.layout == strided and options["check_stride"] and actual.stride() != expected.stride():
        mismatch("stride()", actual.stride(), expected.stride())
    if options["check_device"] and actual.device != expected.device:
        mismatch("device", actual.device, expected.device)
    if options["check_dtype"] and actual.dtype != expected.dtype:
        mismatch("dtype", actual.dtype, expected.dtype)


def _equalize(actual, expected):
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        dtype = st.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(dtype), expected.to(dtype)
    return actual.detach(), expected.detach()


# ----------------------------------------------------------------------------- the messages


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol) -> str:
    equality = rtol == 0 and atol == 0

    def diff_line(kind, diff, idx, tol):
        if idx is None:
            line = f"{kind.title()} difference: {diff}"
        else:
            line = f"Greatest {kind} difference: {diff} at index {idx}"
        return line + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_line("absolute", abs_diff, abs_idx, atol) + diff_line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol, rel_diff, None,
                         rtol)


def _tensor_mismatch_msg(actual, expected, matches, rtol, atol) -> str:
    shape = tuple(matches.shape)

    def unravel(flat):
        return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()

    total = matches.numel()
    mismatches = total - int(ops.sum(matches))
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point and not actual.dtype.is_complex:
        a, e = a.to(st.int64), e.to(st.int64)
    abs_diff = ops.abs(ops.sub(a, e))
    abs_diff[m] = 0
    max_abs, abs_idx = ops.max(abs_diff, 0)
    rel_diff = ops.div(abs_diff, ops.abs(e))
    rel_diff[m] = 0
    max_rel, rel_idx = ops.max(rel_diff, 0)
    return _mismatch_msg("Tensor-likes", extra, max_abs.item(), unravel(int(abs_idx)), atol, max_rel.item(),
                         unravel(int(rel_idx)), rtol)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of random values in [low, high), drawn as PyTorch draws them: ``randint`` for bools ([0, 2)) and
    integers ([-9, 10) by default, cut to the dtype's range), ``uniform_`` for floats ([-9, 9))."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous or memory_format is not None:
        raise NotImplementedError("picotorch's make_tensor makes contiguous tensors only")
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    if dtype is st.bool_:
        result = _factories.randint(0, 2, shape, device=device, dtype=dtype)
    elif not (dtype.is_floating_point or dtype.is_complex):
        info = np.iinfo(st.to_numpy_dtype(dtype))
        lo = max(-9 if low is None else low, int(info.min))
        hi = min(10 if high is None else high, int(info.max) + (1 if dtype is not st.int64 else 0))
        result = _factories.randint(math.ceil(lo), math.ceil(hi), shape, device=device, dtype=dtype)
    else:
        result = _factories.empty(shape, device=device, dtype=dtype)
        target = ops.view_as_real(result) if dtype.is_complex else result
        target.uniform_(-9 if low is None else low, 9 if high is None else high)
    if exclude_zero:
        tiny = 1 if not (dtype.is_floating_point or dtype.is_complex) else float(np.finfo(st.to_numpy_dtype(
            dtype.to_real())).tiny)
        result[result == 0] = tiny
    if requires_grad:
        result.requires_grad_(True)
    return result
