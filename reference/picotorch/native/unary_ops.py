"""The unary elementwise kernels: negation and the float functions.

Models ``aten/src/ATen/native/UnaryOps.cpp`` (``neg``, ``exp``, ``log``, ``reciprocal``, ``sigmoid``,
``tanh``). All but ``neg`` compute in floating point: an integer input gives a tensor of the default
dtype, as PyTorch's ``promote_integer_inputs_to_float`` does.
"""

from __future__ import annotations

from ..c10 import scalar_type as st
from .helpers import cast, const, float_dtype, wrap, xp_of
from .layout import follow_inputs
from .tensor_impl import new_tensor


def neg(self):
    if self._dtype is st.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    xp = xp_of(self)
    return wrap(self, follow_inputs(xp, xp.negative(self._data), [self._data]))


def exp(self):
    return _unary_float(self, lambda xp, a: xp.exp(a))


def log(self):
    return _unary_float(self, lambda xp, a: xp.log(a))


def reciprocal(self):
    return _unary_float(self, lambda xp, a: xp.divide(const(xp, 1, a), a))


def sigmoid(self):
    return _unary_float(self, lambda xp, a: xp.divide(const(xp, 1, a),
                                                      xp.add(const(xp, 1, a), xp.exp(xp.negative(a)))))


def tanh(self):
    return _unary_float(self, lambda xp, a: xp.tanh(a))


def _unary_float(self, fn):
    dtype = float_dtype(self._dtype)
    xp = xp_of(self)
    return new_tensor(follow_inputs(xp, xp.asarray(fn(xp, cast(self, dtype, xp))), [self._data]), dtype,
                      self._device)


# --- issue 10, helper E: sqrt (the optimizers' denominator) ---
def sqrt(self):
    return _unary_float(self, lambda xp, a: xp.sqrt(a))
