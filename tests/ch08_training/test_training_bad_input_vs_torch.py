"""The bad input issue 10 names, each against PyTorch: its exception type and text, never NumPy's.

(Most ops test their own bad input beside their values; this file gathers the cases the issue lists that
span modules: empty data sets, class targets, split sizes, state-dict keys, dims.)"""

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")

PROGRAMS = {
    "a DataLoader over an empty data set": lambda T: list(T.utils.data.DataLoader(
        T.utils.data.TensorDataset(T.zeros(0, 3)), batch_size=2)),
    "its length": lambda T: len(T.utils.data.DataLoader(T.utils.data.TensorDataset(T.zeros(0, 3)), batch_size=2)),
    "shuffling an empty data set": lambda T: T.utils.data.DataLoader(
        T.utils.data.TensorDataset(T.zeros(0, 3)), batch_size=2, shuffle=True),
    "tensors of different lengths in a TensorDataset": lambda T: T.utils.data.TensorDataset(T.zeros(3), T.zeros(4)),
    "random_split lengths that do not add up": lambda T: T.utils.data.random_split(
        T.utils.data.TensorDataset(T.zeros(5)), [2, 2]),
    "a class target out of range": lambda T: T.nn.functional.cross_entropy(T.zeros(2, 3), T.tensor([0, 3])),
    "a negative class target": lambda T: T.nn.functional.cross_entropy(T.zeros(2, 3), T.tensor([0, -2])),
    "nll_loss target out of range": lambda T: T.nn.functional.nll_loss(T.zeros(2, 3), T.tensor([0, 5])),
    "an int32 target": lambda T: T.nn.functional.cross_entropy(T.zeros(2, 3), T.tensor([0, 1], dtype=T.int32)),
    "a float target of the wrong shape": lambda T: T.nn.functional.cross_entropy(T.zeros(2, 3),
                                                                                T.tensor([0.0, 1.0])),
    "split sizes that do not add up": lambda T: T.arange(5.0).split([2, 2]),
    "a dim out of range": lambda T: T.zeros(2, 3).max(2),
    "softmax over a dim out of range": lambda T: T.zeros(2, 3).softmax(-3),
    "missing and unexpected state_dict keys": lambda T: T.nn.Linear(2, 2).load_state_dict(
        {"weight": T.zeros(2, 2), "bias2": T.zeros(2)}),
    "a state_dict value of the wrong shape": lambda T: T.nn.Linear(2, 2).load_state_dict(
        {"weight": T.zeros(3, 2), "bias": T.zeros(2)}),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_bad_input_as_pytorch_says_it(name):
    assert_same(PROGRAMS[name])
