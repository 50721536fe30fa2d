"""The order in which a node's saved tensors are packed (``saved_tensors_hooks``) is PyTorch's.

torchgen saves a node's inputs sorted by name, then its outputs, so ``y * a`` packs ``other`` before
``self`` and ``addmm`` packs ``mat1`` before ``mat2``. A learner's pack hook sees that order.
"""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")

PROGRAMS = {
    "mul": lambda T, y, a: y * a,
    "div": lambda T, y, a: y / a,
    "pow": lambda T, y, a: y ** a,
    "dot": lambda T, y, a: T.dot(y, a),
    "mm": lambda T, y, a: T.mm(y.view(1, 2), a.view(2, 1)),
    "addmm": lambda T, y, a: T.addmm(T.ones(1, 1), y.view(1, 2), a.view(2, 1)),
    "mv": lambda T, y, a: T.mv(y.view(1, 2).expand(2, 2), a),
    "where": lambda T, y, a: T.where(y > 1.5, y, a),
    "chain": lambda T, y, a: (y.sigmoid() * a.tanh()).exp(),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_saved_tensors_are_packed_in_pytorchs_order(name):
    def prog(T):
        packed = []
        with T.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.tolist()) or t, lambda t: t):
            y = T.tensor([1.0, 2.0], requires_grad=True)
            a = T.tensor([3.0, 4.0], requires_grad=True)
            PROGRAMS[name](T, y, a)
        return packed
    assert_same(prog)
