"""``x.type()``: the legacy type name a learner sees (``torch.FloatTensor``), and ``x.type(dtype or name)``:
the tensor converted (itself when nothing changes); bad arguments get PyTorch's exceptions."""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")

PROGRAMS = {
    "names of every dtype": lambda T: [T.ones(2, dtype=d).type() for d in (
        T.float32, T.float64, T.float16, T.bfloat16, T.int64, T.int32, T.int16, T.int8, T.uint8, T.bool)],
    "a zero-dim int tensor": lambda T: T.tensor(1).type(),
    "to a dtype": lambda T: T.ones(2).type(T.float64),
    "to a dtype by keyword": lambda T: T.ones(2).type(dtype=T.int32),
    "to a legacy name": lambda T: T.ones(2).type("torch.LongTensor"),
    "to torch.Tensor (the default dtype)": lambda T: T.tensor([1, 2]).type("torch.Tensor"),
    "the same dtype is itself": lambda T: (lambda x: (x.type(T.float32) is x, x.type("torch.FloatTensor") is x))(
        T.ones(2)),
    "non_blocking positional": lambda T: T.ones(2).type(T.int8, True),
    "a Python type": lambda T: T.ones(2).type(float),
    "a number": lambda T: T.ones(2).type(3),
    "a NumPy dtype name": lambda T: T.ones(2).type("float32"),
    "a name without torch.": lambda T: T.ones(2).type("FloatTensor"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_type_matches_torch(name):
    assert_same(PROGRAMS[name])
