"""What ``backward`` and ``grad`` accept before the engine runs: GradientEdges as outputs and as inputs, a dict of
inputs, the deprecated ``grad_variables`` and ``only_inputs``, inputs that are neither tensors nor edges, and
``is_grads_batched`` (one vjp per row of the grad_outputs).

Models ``torch/autograd/__init__.py`` (``backward``, ``grad``, ``_make_grads``, ``_calculate_shape``),
``python_engine.cpp`` (``run_backward``'s roots and output edges) and the checks of ``torch/_vmap_internals.py``
that ``is_grads_batched`` meets. Each program runs on picotorch and on PyTorch: same result or same error, and the
same warnings.
"""

from __future__ import annotations

import types
import warnings

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")


def _a(T, *shape):
    return T.ones(*(shape or (2,)), requires_grad=True)


def _edge(T, t):
    return T.autograd.graph.get_gradient_edge(t)


def with_warnings(prog):
    """``prog``'s result and the texts of the warnings it gave."""
    def run(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = prog(T)
        return result, [f"{w.category.__name__}: {w.message}" for w in caught]
    return run


def _chain(T):
    x = _a(T)
    y = x * 2
    return x, y, y * 3


GRADIENT_EDGES = {
    "grad to a node's edge": lambda T: (lambda x, y, z: T.autograd.grad(z.sum(), _edge(T, y)))(*_chain(T)),
    "grad to an edge and a leaf": lambda T: (lambda x, y, z: T.autograd.grad(z.sum(), [_edge(T, y), x]))(*_chain(T)),
    "grad from an edge with a gradient": lambda T: (lambda x, y, z: T.autograd.grad(_edge(T, z), x, T.ones(2)))(
        *_chain(T)),
    "grad from a scalar edge": lambda T: (lambda x, y, z: T.autograd.grad(_edge(T, z.sum()), x))(*_chain(T)),
    "grad from a non-scalar edge without a gradient": lambda T: (lambda x, y, z: T.autograd.grad(_edge(T, z), x))(
        *_chain(T)),
    "grad from an edge with a gradient of the wrong shape": lambda T: (
        lambda x, y, z: T.autograd.grad(_edge(T, z), x, T.ones(3)))(*_chain(T)),
    "grad to a leaf's AccumulateGrad edge": lambda T: (lambda x, y, z: T.autograd.grad(z.sum(), _edge(T, x)))(
        *_chain(T)),
    "backward from an edge": lambda T: (lambda x, y, z: (T.autograd.backward(_edge(T, z.sum())), x.grad))(*_chain(T)),
    "backward into an edge accumulates nothing": lambda T: (
        lambda x, y, z: (z.sum().backward(inputs=[_edge(T, y)]), x.grad))(*_chain(T)),
    "materialize_grads for an unreached edge": lambda T: (
        lambda x, y, z: T.autograd.grad(z.sum(), [_edge(T, _a(T) * 1)], materialize_grads=True))(*_chain(T)),
    "an unreached edge without allow_unused": lambda T: (
        lambda x, y, z: T.autograd.grad(z.sum(), [_edge(T, _a(T) * 1)]))(*_chain(T)),
    "an unreached edge with allow_unused": lambda T: (
        lambda x, y, z: T.autograd.grad(z.sum(), [_edge(T, _a(T) * 1), x], allow_unused=True))(*_chain(T)),
}


@pytest.mark.parametrize("name", GRADIENT_EDGES)
def test_gradient_edges_as_outputs_and_inputs(name):
    assert_same(GRADIENT_EDGES[name])


ARGUMENTS = {
    "a dict of inputs to grad": lambda T: (lambda x, y, z: T.autograd.grad(z.sum(), {"x": x, "y": y}))(*_chain(T)),
    "a dict of inputs to backward": lambda T: (lambda x, y, z: (z.sum().backward(inputs={"x": x}), x.grad))(
        *_chain(T)),
    "another Mapping of inputs": lambda T: (
        lambda x, y, z: T.autograd.grad(z.sum(), types.MappingProxyType({"x": x})))(*_chain(T)),
    "grad_variables": lambda T: (lambda x, y, z: (T.autograd.backward(z, grad_variables=T.ones(2)), x.grad))(
        *_chain(T)),
    "grad_variables and grad_tensors": lambda T: (
        lambda x, y, z: T.autograd.backward(z, T.ones(2), grad_variables=T.ones(2)))(*_chain(T)),
    "only_inputs=False": lambda T: (lambda x, y, z: T.autograd.grad(z.sum(), x, only_inputs=False))(*_chain(T)),
    "a str among the inputs": lambda T: (lambda x, y, z: T.autograd.grad(z.sum(), [x, "x"]))(*_chain(T)),
    "an int as the inputs of backward": lambda T: (lambda x, y, z: z.sum().backward(inputs=[3]))(*_chain(T)),
    "a str as the output": lambda T: T.autograd.grad("y", _a(T)),
    "a str as backward's tensor": lambda T: T.autograd.backward(["y"]),
    "an input that does not require grad before a str": lambda T: (
        lambda x, y, z: T.autograd.grad(z.sum(), [T.ones(2), "x"]))(*_chain(T)),
    "the second gradient's shape, found by comparing tensors": lambda T: (
        lambda x, y, z: T.autograd.grad([y, z], [x], [T.ones(2), T.ones(3)]))(*_chain(T)),
    "the same wrong gradient twice": lambda T: (lambda x, y, z: T.autograd.grad([y, z], [x], [T.ones(3)] * 2))(
        *_chain(T)),
    "a complex gradient for a real output": lambda T: (
        lambda x, y, z: T.autograd.grad([y, z], [x], [T.ones(2), T.ones(2, dtype=T.complex64)]))(*_chain(T)),
}


@pytest.mark.parametrize("name", ARGUMENTS)
def test_arguments_of_backward_and_grad(name):
    assert_same(with_warnings(ARGUMENTS[name]))


def _sum_rows(T):
    x = _a(T, 2, 3)
    return x, (x * x).sum(1)


BATCHED = {
    "one output": lambda T: (lambda x, y: T.autograd.grad(y, [x], T.eye(2), is_grads_batched=True))(*_sum_rows(T)),
    "a scalar output with a batch of gradients": lambda T: (
        lambda x, y: T.autograd.grad(y.sum(), [x], T.arange(3.0), is_grads_batched=True))(*_sum_rows(T)),
    "no gradient for a scalar output": lambda T: (
        lambda x, y: T.autograd.grad(y.sum(), [x], is_grads_batched=True))(*_sum_rows(T)),
    "two outputs": lambda T: (lambda x, y: T.autograd.grad([y, y * 2], [x], [T.eye(2), T.ones(2, 2)],
                                                           is_grads_batched=True))(*_sum_rows(T)),
    "batches of different sizes": lambda T: (lambda x, y: T.autograd.grad([y, y * 2], [x], [T.eye(2), T.ones(3, 2)],
                                                                          is_grads_batched=True))(*_sum_rows(T)),
    "rows of the wrong shape": lambda T: (lambda x, y: T.autograd.grad(y, [x], T.eye(3), is_grads_batched=True))(
        *_sum_rows(T)),
    "an unused input": lambda T: (lambda x, y: T.autograd.grad(y, [x, _a(T)], T.eye(2), is_grads_batched=True,
                                                               allow_unused=True))(*_sum_rows(T)),
    "an unused input, materialized": lambda T: (
        lambda x, y: T.autograd.grad(y, [x, _a(T)], T.eye(2), is_grads_batched=True, materialize_grads=True))(
        *_sum_rows(T)),
    "the graph is freed after the last row": lambda T: (
        lambda x, y: (T.autograd.grad(y, [x], T.eye(2), is_grads_batched=True), T.autograd.grad(y.sum(), x)))(
        *_sum_rows(T)),
    "retain_graph keeps it": lambda T: (
        lambda x, y: (T.autograd.grad(y, [x], T.eye(2), is_grads_batched=True, retain_graph=True),
                      T.autograd.grad(y.sum(), x)))(*_sum_rows(T)),
    "create_graph values": lambda T: (lambda x, y: [g.requires_grad for g in T.autograd.grad(
        y, [x], T.eye(2), is_grads_batched=True, create_graph=True)] + [T.autograd.grad(
            y, [x], T.eye(2), is_grads_batched=True, create_graph=True)[0].detach()])(*_sum_rows(T)),
    "an edge as output": lambda T: (lambda x, y: T.autograd.grad(_edge(T, y), [x], T.eye(3),
                                                                 is_grads_batched=True))(*_sum_rows(T)),
}


@pytest.mark.parametrize("name", BATCHED)
def test_is_grads_batched(name):
    assert_same(BATCHED[name])
