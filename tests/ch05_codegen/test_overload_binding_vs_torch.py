"""``ops.<name>(...)`` picks the overload ``torch.ops.aten.<name>(...)`` picks.

The dispatcher binds plain positional calls without building a dict (NOTE [Binding without the dict]),
trying the overloads in binding's order and skipping those binding refuses on the argument count, a
required keyword or a non-tensor given for a ``Tensor``. These calls reach each of those cases; the
result (values, dtype, shape) or the refusal must be torch's.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import picotorch  # noqa: E402
from picotorch.native.dispatcher import ops  # noqa: E402

VALUES = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)

CALLS = [
    ("div", lambda t: (t, 4)),  # div.Tensor refuses a number: div.Scalar
    ("div", lambda t: (t, 2.5)),
    ("div", lambda t: (t, True)),  # a bool for a Scalar: the full binding path
    ("div", lambda t: (t, np.float64(0.5))),  # a NumPy number: the full binding path
    ("div", lambda t: (t, t)),
    ("sum", lambda t: (t,)),
    ("sum", lambda t: (t, [0], True)),  # sum(self, *, dtype) takes one positional: sum.dim_IntList
    ("sum", lambda t: (t, (1,), False)),
    ("sum", lambda t: (t, [0, 1])),
    ("sum", lambda t: (t, 1, True)),  # one int for an int list
    ("sum", lambda t: (t, [np.int64(0)], True)),  # a NumPy int in the list: the full path
    ("mean", lambda t: (t, [1], True)),
    ("mean", lambda t: (t, [0])),
    ("add", lambda t: (t, t)),
    ("add", lambda t: (t, 2)),
    ("mul", lambda t: (t, 3)),
    ("sub", lambda t: (t, 0.5)),
    ("expand", lambda t: (t[0:1], [4, 3])),
    ("view", lambda t: (t, [3, 2])),
    ("view", lambda t: (t, (-1,))),
    ("clamp", lambda t: (t, 2.0)),  # Scalar? parameters: not simple, the full path
    ("clamp", lambda t: (t, None, 4.0)),
    ("clamp", lambda t: (t, t[0, 1])),  # a zero-dim tensor for min
    ("clamp", lambda t: (t, t[0, 1], t[1, 1])),
    ("t", lambda t: (t,)),
    ("transpose", lambda t: (t, 0, 1)),
    ("transpose", lambda t: (t, -1, 0)),
]

REFUSED = [
    ("sum", lambda t: (t, [0.5], True)),  # a float in an int list
    ("transpose", lambda t: (t, 0.0, 1)),  # a float for an int
    ("div", lambda t: (t, "2")),
]


def _both(make_args):
    ours = make_args(picotorch.tensor(VALUES))
    theirs = make_args(torch.tensor(VALUES))
    return ours, theirs


@pytest.mark.parametrize("name, make_args", CALLS, ids=lambda v: v if isinstance(v, str) else "")
def test_plain_calls_pick_torchs_overload(name, make_args):
    ours, theirs = _both(make_args)
    got = getattr(ops, name)(*ours)
    want = getattr(torch.ops.aten, name)(*theirs)
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(np.asarray(got.detach().tolist()), np.asarray(want.detach().tolist()))


@pytest.mark.parametrize("name, make_args", REFUSED, ids=lambda v: v if isinstance(v, str) else "")
def test_calls_torch_refuses_are_refused(name, make_args):
    ours, theirs = _both(make_args)
    with pytest.raises((TypeError, RuntimeError)):
        getattr(torch.ops.aten, name)(*theirs)
    with pytest.raises((TypeError, RuntimeError)):
        getattr(ops, name)(*ours)


def test_a_name_read_again_is_the_same_registered_operator():
    first = ops.mul
    assert ops.mul is first
    assert "mul" in dir(ops)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_op'"):
        ops.no_such_op  # noqa: B018


def test_a_second_round_of_calls_picks_the_same_overloads():
    """NOTE [Binding by the arguments' types]: arguments of types seen before go straight to the overload that
    took them; all the calls and refusals again, interleaved, in one process, still give torch's answers."""
    for _ in range(2):
        for (name, make_args), refused in zip(CALLS, REFUSED * len(CALLS)):
            test_plain_calls_pick_torchs_overload(name, make_args)
            test_calls_torch_refuses_are_refused(*refused)
