"""A tensor's autograd metadata against PyTorch: sequence numbers, AccumulateGrad and its weak
caching, copies, saved tensors and their version checks, in-place rules, detach, requires_grad,
and ``.grad`` (``variable.h``/``variable.cpp``, ``saved_variable.cpp``, ``python_variable.cpp``)."""

from __future__ import annotations

import gc
import warnings

import pytest

import picotorch
from graph_helpers import LIBS, graph_structure, outcome, same, torch

UINT64_MAX = 2**64 - 1


# --- sequence_nr and topological_nr ------------------------------------------------------------------


def test_sequence_numbers_count_nodes_created_on_this_thread():
    def prog(t):
        a, c = t.ones(2, requires_grad=True), t.ones(2)
        x = a * 2
        base = x.grad_fn._sequence_nr()
        c * 3  # no node: consumes no number
        z = x + 1
        w = t.stack([x, z])
        with t.no_grad():
            a * 2
        s = w.sum()
        t.autograd.backward([s, z.sum()], retain_graph=True)  # two roots: a GraphRoot takes a number
        q = a * 1
        t.autograd.grad([s], [a])  # one root: no GraphRoot
        r = a * 1
        return [n.grad_fn._sequence_nr() - base for n in (z, w, s, q, r)]

    assert same(prog) == [1, 2, 3, 6, 7]


def test_accumulate_grad_has_the_largest_sequence_number():
    def prog(t):
        acc = (t.ones(2, requires_grad=True) * 2).grad_fn.next_functions[0][0]
        return acc._sequence_nr()

    assert same(prog) == UINT64_MAX


def test_set_sequence_nr_and_its_range():
    def prog(t):
        node = (t.ones(2, requires_grad=True) * 2).grad_fn
        node._set_sequence_nr(12345)
        results = [node._sequence_nr()]
        for bad in (-1, 2**64):
            results.append(outcome(lambda _, bad=bad: node._set_sequence_nr(bad), t))
        return results

    assert same(prog) == [12345, ("raised", "OverflowError", "can't convert negative int to unsigned"),
                          ("raised", "OverflowError", "int too big to convert")]


def test_topological_nr_is_the_longest_path_to_a_leaf():
    a = picotorch.ones(2, requires_grad=True)
    b = a * 2
    c = (b * 3) + a
    assert b.grad_fn.next_functions[0][0].topological_nr == 0
    assert b.grad_fn.topological_nr == 1
    assert c.grad_fn.topological_nr == 3  # add -> mul -> mul -> AccumulateGrad
    const = picotorch.ones(2) * 2
    assert const.grad_fn is None


def test_topological_nr_is_frozen_once_read():
    from picotorch.autograd.graph import Edge, Node

    child, parent = Node(), Node()
    parent.add_next_edge(Edge(child, 0))
    assert parent.topological_nr == 1
    with pytest.raises(RuntimeError, match="after it already has a parent"):
        child.add_next_edge(Edge(Node(), 0))


# --- AccumulateGrad ---------------------------------------------------------------------------------


def test_accumulate_grad_node():
    def prog(t):
        p = t.nn.Parameter(t.ones(2))
        acc = p.expand_as(p).grad_fn.next_functions[0][0]
        return acc.name(), type(acc).__name__, acc.variable is p, acc.next_functions, p.expand_as(p).grad_fn.name()

    assert same(prog)[:3] == ("torch::autograd::AccumulateGrad", "AccumulateGrad", True)


def test_expand_as_trick_returns_the_same_node_while_held():
    def prog(t):
        p = t.nn.Parameter(t.ones(2))
        held = p.expand_as(p).grad_fn.next_functions[0][0]
        again = p.expand_as(p).grad_fn.next_functions[0][0]
        return held is again, (p * 2).grad_fn.next_functions[0][0] is held

    assert same(prog) == (True, True)


def test_hooks_on_a_dropped_accumulator_never_fire():
    def prog(t):
        log = []
        p = t.nn.Parameter(t.ones(2))
        p.expand_as(p).grad_fn.next_functions[0][0].register_hook(lambda gi, go: log.append("dropped"))
        gc.collect()
        kept = p.expand_as(p).grad_fn.next_functions[0][0]
        kept.register_hook(lambda gi, go: log.append("kept"))
        (p * 3).sum().backward()
        return log, p.grad.tolist()

    assert same(prog) == (["kept"], [3.0, 3.0])


def test_tensor_hooks_on_a_leaf_survive_its_accumulator():
    def prog(t):
        log = []
        p = t.ones(2, requires_grad=True)
        p.register_hook(lambda g: log.append("tensor"))
        p.register_post_accumulate_grad_hook(lambda q: log.append("post-acc"))
        gc.collect()
        (p * 3).sum().backward()
        return log

    assert same(prog) == ["tensor", "post-acc"]


# --- copies and devices -----------------------------------------------------------------------------


def test_to_and_cpu():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        moved = [a.to(t.float64), a.double(), a.to("cpu"), a.cpu(), a.to(t.float32), a.to(t.float32, copy=True)]
        return [(m is a, m.grad_fn.name() if m.grad_fn else None, m.is_leaf) for m in moved]

    assert same(prog)[0] == (False, "ToCopyBackward0", False)


def test_gradient_of_a_copy_lands_on_the_original():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        b = a.double()
        (b * b).sum().backward()
        return a.grad.tolist(), a.grad.dtype == t.float32, b.is_leaf

    same(prog)


@pytest.mark.skipif(not picotorch.cuda.is_available(), reason="no GPU: .cuda() cannot run here")
def test_cuda_copy_is_to_copy_backward():
    a = picotorch.ones(2, requires_grad=True)
    assert a.cuda().grad_fn.name() == "ToCopyBackward0"


# --- saved tensors ----------------------------------------------------------------------------------


def test_backward_twice_without_retain_graph():
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        y = (a * a).sum()
        y.backward()
        return outcome(lambda _: y.backward(), t), a.grad.tolist()

    error, grad = same(prog)
    assert error[2].startswith("Trying to backward through the graph a second time")
    assert grad == [2.0, 4.0]


def test_retain_graph_allows_a_second_backward():
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        y = a.exp().sum()
        y.backward(retain_graph=True)
        y.backward()
        return a.grad.tolist()

    same(prog)


def test_a_graph_that_saves_nothing_can_run_twice():
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        y = (a + 2).sum()  # AddBackward0 and SumBackward0 keep no tensors
        y.backward()
        y.backward()
        return a.grad.tolist()

    assert same(prog) == [2.0, 2.0]


def test_saved_tensor_accessors_after_free():
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        e, m = a.exp(), a * a
        before = (e.grad_fn._saved_result.grad_fn.name(), m.grad_fn._saved_self is a)
        (e.sum() + m.sum()).backward()
        return before, outcome(lambda _: e.grad_fn._saved_result, t), outcome(lambda _: m.grad_fn._saved_self, t)

    assert same(prog)[0] == ("ExpBackward0", True)


INPLACE_PROGRAMS = {
    "output_of_exp": lambda t, a: (lambda y: (y.add_(1), y.sum()))(a.exp())[1],
    "input_of_mul": lambda t, a: (lambda x: (lambda y: (x.mul_(2), y.sum())[1])(x * x))(a * 1),
    "detached_leaf": lambda t, a: (lambda d: (lambda y: (d.zero_(), y.sum())[1])(a * a))(a.detach()),
    "copy_then_add": lambda t, a: (lambda x: (lambda y: (x.add_(1), y.sum())[1])(x.log()))(a.double()),
    "zero_": lambda t, a: (lambda x: (lambda y: (x.zero_(), y.sum())[1])(x * x))(a.clone()),
    "scalar": lambda t, a: (lambda s: (lambda y: (s.add_(1), y)[1])(s * s))(a.sum()),
    "sigmoid_output": lambda t, a: (lambda y: (y.mul_(2), y.sum())[1])(a.sigmoid()),
}


@pytest.mark.parametrize("name", sorted(INPLACE_PROGRAMS))
def test_modified_saved_tensor_error(name):
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        loss = INPLACE_PROGRAMS[name](t, a)
        return outcome(lambda _: loss.backward(), t)

    assert same(prog)[0] == "raised"


def test_graph_is_usable_after_a_version_error():
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        x = a * 1
        y = x * x
        x.add_(1)
        outcome(lambda _: y.sum().backward(), t)
        (x * 3).sum().backward()
        return a.grad.tolist(), x._version

    same(prog)


# --- in-place rules, detach, .data ------------------------------------------------------------------


def test_in_place_on_leaves_and_views_of_leaves():
    def prog(t):
        a = t.ones(2, 2, requires_grad=True)
        results = [outcome(lambda _: a.add_(1), t), outcome(lambda _: a[0].mul_(2), t),
                   outcome(lambda _: a.t().zero_(), t)]
        with t.no_grad():
            a.add_(1)
        x = t.ones(2)
        x.mul_(a[0])  # a constant leaf may be modified with a tensor that requires grad
        return results, a._version, x.grad_fn.name(), x.is_leaf

    same(prog)


def test_in_place_gives_a_new_grad_fn():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        b = a * 2
        old = b.grad_fn
        b.add_(1)
        b.mul_(b)
        (b.sum()).backward()
        return graph_structure(b), b.grad_fn is old, b._version, a.grad.tolist()

    same(prog)


def test_detach_shares_data_and_version_counter():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        d = a.detach()
        with t.no_grad():
            a.mul_(3)
        d.add_(1)
        return d.requires_grad, d.is_leaf, d.grad_fn, a._version, d._version, a.tolist()

    assert same(prog)[3:5] == (2, 2)


def test_data_shares_storage_but_not_the_version_counter():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        y = a.exp()
        a.data.mul_(2)  # invisible to autograd: no error, silently "wrong" gradient
        y.sum().backward()
        return a._version, a.data._version, a.data.requires_grad, a.grad.tolist(), a.tolist()

    same(prog)


def test_data_setter_swaps_storage():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        a.data = t.zeros(3)
        return a.tolist(), a.requires_grad, a.is_leaf, outcome(lambda _: setattr(a, "data", 1), t)

    same(prog)


# --- requires_grad ----------------------------------------------------------------------------------

REQUIRES_GRAD_CASES = {
    "set_true_on_int": lambda t: setattr(t.ones(2, dtype=t.int64), "requires_grad", True),
    "set_false_on_int": lambda t: setattr(t.ones(2, dtype=t.int64), "requires_grad", False),
    "method_on_int": lambda t: t.ones(2, dtype=t.int64).requires_grad_(),
    "set_false_on_nonleaf": lambda t: setattr(t.ones(2, requires_grad=True) * 2, "requires_grad", False),
    "set_true_on_nonleaf": lambda t: setattr(t.ones(2, requires_grad=True) * 2, "requires_grad", True),
    "method_false_on_nonleaf": lambda t: (t.ones(2, requires_grad=True) * 2).requires_grad_(False),
    "method_true_on_nonleaf": lambda t: (t.ones(2, requires_grad=True) * 2).requires_grad_(True).grad_fn.name(),
    "set_non_bool": lambda t: setattr(t.ones(2), "requires_grad", 1),
    "method_non_bool": lambda t: t.ones(2).requires_grad_("yes"),
    "method_returns_self": lambda t: (lambda x: x.requires_grad_() is x and x.requires_grad and x.is_leaf)(t.ones(2)),
    "flip_leaf": lambda t: (lambda x: (x.requires_grad_(), x.requires_grad_(False), x.requires_grad)[-1])(t.ones(2)),
}


@pytest.mark.parametrize("name", sorted(REQUIRES_GRAD_CASES))
def test_requires_grad_rules(name):
    same(lambda t: REQUIRES_GRAD_CASES[name](t))


# --- .grad ------------------------------------------------------------------------------------------


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message), w.filename == __file__) for w in caught]


def test_non_leaf_grad_warning_text_and_category():
    def prog(t):
        b = t.ones(2, requires_grad=True) * 2
        first = _warnings_of(lambda: b.grad)
        b.retain_grad()
        return first, _warnings_of(lambda: b.grad)

    first, after = same(prog)
    assert first[0][0] == "UserWarning" and first[0][2], "the warning must point at the learner's line"
    assert after == []


def test_no_warning_for_leaves_and_constants():
    same(lambda t: (_warnings_of(lambda: t.ones(2, requires_grad=True).grad), _warnings_of(lambda: t.ones(2).grad)))


GRAD_ASSIGNMENTS = {
    "ok": lambda t, a: t.ones(2),
    "none": lambda t, a: None,
    "self": lambda t, a: a,
    "wrong_size": lambda t, a: t.ones(3),
    "wrong_dtype": lambda t, a: t.ones(2, dtype=t.float64),
    "wrong_dtype_and_size": lambda t, a: t.ones(3, dtype=t.int64),
    "half": lambda t, a: t.ones(2, dtype=t.float16),
    "not_a_tensor": lambda t, a: 3,
    "list": lambda t, a: [1.0, 2.0],
}


@pytest.mark.parametrize("name", sorted(GRAD_ASSIGNMENTS))
def test_assigning_grad(name):
    def prog(t):
        a = t.ones(2, requires_grad=True)
        value = GRAD_ASSIGNMENTS[name](t, a)
        result = outcome(lambda _: setattr(a, "grad", value), t)
        return result, None if a.grad is None else a.grad.tolist()

    same(prog)


def test_retain_grad_and_is_leaf():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        b = a * 2
        b.retain_grad()
        b.retain_grad()  # twice is fine
        a.retain_grad()  # a no-op on a leaf
        (b * b).sum().backward()
        return b.grad.tolist(), b.retains_grad, a.retains_grad, b.is_leaf, a.is_leaf, t.ones(2).is_leaf

    same(prog)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_create_graph_keeps_gradients_connected(lib):
    a = lib.ones(2, requires_grad=True)
    b = a * 2
    b.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (b * b).sum().backward(create_graph=True)
        names = [a.grad.grad_fn.name(), b.grad.grad_fn.name()]
        (b * b).sum().backward(create_graph=True)
    assert names == ["torch::autograd::CopyBackwards", "CloneBackward0"]
    assert [a.grad.grad_fn.name(), b.grad.grad_fn.name()] == ["AddBackward0", "AddBackward0"]


def test_torch_is_the_reference_here():
    assert torch.__version__.startswith("2.")


@pytest.mark.parametrize("leaf", ["row-major", "transposed", "expanded"])
def test_create_graph_copy_into_the_leaf_layout(leaf):
    """``clone_obey_contract`` under grad mode: a dense leaf gets ``new_empty_strided(...).copy_(grad)``
    (CopyBackwards, with no edge for the empty tensor), another leaf ``clone`` (CloneBackward0)."""
    def prog(t):
        w = {"row-major": t.ones(2, 3), "transposed": t.ones(3, 2).t(),
             "expanded": t.ones(3).expand(2, 3)}[leaf].detach().requires_grad_()
        s = t.arange(6.0).reshape(3, 2).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (w * s.t()).sum().backward(create_graph=True)
        node = w.grad.grad_fn
        second, = t.autograd.grad((w.grad * w.grad).sum(), s)
        return (node.name(), [(n.name() if n else None, i) for n, i in node.next_functions], list(w.grad.stride()),
                second.tolist())
    same(prog)
