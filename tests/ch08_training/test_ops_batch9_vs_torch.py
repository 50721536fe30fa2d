"""The ninth ops batch against PyTorch: the bitwise shifts (with ``<<``, ``>>``, ``<<=``, ``>>=`` and the reflected
forms), frexp, nextafter, i0, randint_like, the window functions, pixel_shuffle/pixel_unshuffle, channel_shuffle,
rms_norm (and their modules), and the Tensor conveniences (is_pinned, pin_memory, resize_, apply_...).

Each program runs on both libraries: values, dtypes, shapes, strides, ``grad_fn`` names, ``next_functions``,
gradients, error types and texts. The expected values always come from torch.
"""

from __future__ import annotations

import pytest

from op_helpers import FLOATS, INTS, _graph, _layout, _x
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


# ----------------------------------------------------------------------------- bitwise_left_shift, bitwise_right_shift


@pytest.mark.parametrize("dtype", INTS + ["float32"])
@pytest.mark.parametrize("count", [0, 1, 7, 8, 9, 31, 32, 63, 64, 70, -1, 300, True, 2.5])
def test_shifts_by_a_number_count_past_the_width_and_negative(dtype, count):
    """BinaryOpsKernel.cpp: a count < 0 or >= the bit width shifts left to 0, right to the sign's fill."""
    assert_same(lambda T: (_layout(T.bitwise_left_shift(_x(T, dtype), count)), _layout(_x(T, dtype) >> count),
                           _layout(count << _x(T, dtype)), _layout(count >> _x(T, dtype))))


@pytest.mark.parametrize("dtype", INTS + ["float32"])
@pytest.mark.parametrize("other", INTS + ["float32"])
def test_shifts_of_tensors_promote_as_torch(dtype, other):
    assert_same(lambda T: (_layout(T.bitwise_right_shift(_x(T, dtype), _x(T, other))),
                           _layout(_x(T, dtype) << _x(T, other).t()[0:1].t()),
                           _x(T, dtype).bitwise_left_shift_(_x(T, other))))
    assert_same(lambda T: _x(T, dtype).bitwise_right_shift_(_x(T, other)))


@pytest.mark.parametrize("program", [
    lambda T: T.tensor([5, -5, 1 << 62]) >> T.tensor([70, 63, -1]),
    lambda T: T.tensor([5, -5, 1 << 62]) << T.tensor([70, 63, 1]),
    lambda T: T.tensor([200, 1], dtype=T.uint8) >> T.tensor([8, 7], dtype=T.uint8),
    lambda T: (lambda z: (z.__ilshift__(2) is z, z, z.__irshift__(T.tensor([1, 3])), z))(T.tensor([1, 2])),
    lambda T: (lambda z: [z.__ilshift__(1), z.__irshift__(1)])(T.tensor([1, 2], dtype=T.int8)),
    lambda T: (lambda z: z.__ilshift__(T.tensor([1.0])))(T.tensor([1, 2])),
    lambda T: T.tensor([1]) << "a",
    lambda T: "a" << T.tensor([1]),
    lambda T: T.tensor([1]) >> None,
    lambda T: T.bitwise_left_shift(T.tensor([1, 2]), 1, out=T.empty(2, dtype=T.int32)),
    lambda T: T.bitwise_left_shift(T.tensor([1, 2]), T.tensor(1), out=T.empty(0, dtype=T.int8)),
    lambda T: T.bitwise_right_shift(T.tensor([1, 2]), T.tensor(1), out=T.empty(2)),
    lambda T: T.bitwise_left_shift(T.ones(2, requires_grad=True), 1),
    lambda T: _layout(T.bitwise_left_shift(3, T.tensor([1, 2], dtype=T.int8))),
    lambda T: T.bitwise_right_shift(-9, T.tensor([1, 2], dtype=T.uint8)),
    lambda T: T.bitwise_left_shift(2.5, T.tensor([1, 2])),
    lambda T: _layout(T.bitwise_left_shift(T.tensor(7), T.tensor([1, 2], dtype=T.int8))),
    lambda T: T.bitwise_left_shift(T.tensor([1, 2]), "x"),
    lambda T: (lambda a: a[1:].bitwise_left_shift_(a[:2]))(T.tensor([1, 2, 3])),
    lambda T: T.tensor([True, False]) << T.tensor([True, True]),
])
def test_shift_operators_out_and_errors(program):
    assert_same(program)
