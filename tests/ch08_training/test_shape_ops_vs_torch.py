"""The shape ops against PyTorch: ``split`` (a size or a list of sizes), ``split_with_sizes``, ``chunk``,
``unbind``, ``narrow``, ``unflatten``, ``contiguous``, ``flip``, ``roll``, ``repeat``, ``tile``.

Compared: values, dtypes, strides, which results are views of the input (storage, version counter,
``_base``), the graph (node names, ``next_functions``, saved values, ``output_nr``), gradients (also when
only some of several views get one), the in-place rules for views returned together, the errors, and
gradients against finite differences; a small hypothesis fuzz over shapes, dims and empty tensors.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from numeric_helpers import backward_and_numeric
from picotorch_course.difftest import assert_same


def _outputs(out):
    return out if isinstance(out, (tuple, list)) else (out,)


def _describe(out, x):
    """What a learner can look at: the container, each output's strides, view-ness, base, node and output number.

    Not the strides of an empty tensor: picotorch reads NumPy's, which are all 0 there (a gap of every op).
    """
    outs = _outputs(out)
    first = outs[0].grad_fn if outs else None
    return {
        "container": type(out).__name__,
        "outputs": [(tuple(o.stride()) if o.numel() else "empty", o._is_view(), o._base is x,
                     o.grad_fn.name() if o.grad_fn else None, o.output_nr, o.is_contiguous()) for o in outs],
        "next_functions": [(n.name() if n else None, i) for n, i in first.next_functions] if first else None,
        "saved": {a: getattr(first, a) for a in dir(first) if a.startswith("_saved_") and a != "_saved_self"}
        if first else None,
    }



def _weighted_backward(T, x, out):
    """Backward of a sum of every output times distinct weights, so a mixed-up gradient shows."""
    total = 0
    for o in _outputs(out):
        if o.numel():
            total = total + (o * T.arange(1.0, o.numel() + 1, dtype=o.dtype).reshape(o.shape)).sum()
    if isinstance(total, T.Tensor):
        total.backward()
    return x.grad


CALLS = {
    "split": lambda T, y: y.split(2),
    "split_dim": lambda T, y: T.split(y, 1, dim=-1),
    "split_big": lambda T, y: y.split(7),
    "split_list": lambda T, y: y.split([1, 0, 3]),
    "split_tuple_fn": lambda T, y: T.split(y, (2, 1), 1),
    "split_with_sizes": lambda T, y: y.split_with_sizes([3, 1]),
    "split_with_sizes_fn": lambda T, y: T.split_with_sizes(y, [2, 1], dim=1),
    "chunk": lambda T, y: y.chunk(3),
    "chunk_more_than_size": lambda T, y: y.chunk(6),
    "chunk_dim": lambda T, y: T.chunk(y, 2, dim=1),
    "unbind": lambda T, y: y.unbind(),
    "unbind_dim": lambda T, y: T.unbind(y, -1),
    "narrow": lambda T, y: y.narrow(0, 1, 2),
    "narrow_neg": lambda T, y: T.narrow(y, -1, -2, 2),
    "narrow_tensor": lambda T, y: y.narrow(0, T.tensor(2), 2),
    "narrow_empty": lambda T, y: y.narrow(0, 4, 0),
    "unflatten": lambda T, y: y.unflatten(0, (2, 2)),
    "unflatten_infer": lambda T, y: T.unflatten(y, -1, (-1, 1)),
    "contiguous": lambda T, y: y.contiguous(),
    "flip": lambda T, y: y.flip(0),
    "flip_dims": lambda T, y: T.flip(y, [0, -1]),
    "flip_none": lambda T, y: y.flip([]),
    "roll": lambda T, y: y.roll(1),
    "roll_dim": lambda T, y: T.roll(y, -1, 1),
    "roll_dims": lambda T, y: y.roll(shifts=(5, -2), dims=(0, 1)),
    "repeat": lambda T, y: y.repeat(2, 1),
    "repeat_more_dims": lambda T, y: y.repeat([2, 1, 3]),
    "repeat_ones": lambda T, y: y.repeat(1, 1),
    "repeat_zero": lambda T, y: y.repeat(0, 2),
    "tile": lambda T, y: y.tile(2),
    "tile_fn": lambda T, y: T.tile(y, (2, 1, 2)),
}


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_values_views_graph_and_gradients(call, layout):
    """Each op on a (4, 3) tensor and on a transposed one: values, strides, views, graph, saved values, grads."""
    def prog(T):
        x = T.arange(12.0).reshape(4, 3).requires_grad_()
        y = x * 1 if layout == "contiguous" else (x.t() * 1).t()
        y.retain_grad()
        out = CALLS[call](T, y)
        return out, _describe(out, y), _weighted_backward(T, x, out), y.grad
    assert_same(prog)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float64"])
def test_other_dtypes(dtype):
    """Integer and bool tensors: same values and dtypes, no graph."""
    def prog(T):
        x = (T.arange(12).reshape(3, 4) % 3).to(getattr(T, dtype))
        return (x.split(3, 1), x.chunk(2), x.unbind(1), x.narrow(1, 1, 2), x.flip(1), x.roll(2), x.repeat(1, 2),
                x.tile((2,)), x.unflatten(1, (2, 2)), x.t().contiguous())
    assert_same(prog)


def test_contiguous_returns_the_tensor_itself_or_a_row_major_copy():
    """A contiguous tensor is returned as is (no new node); a transposed one is cloned (CloneBackward0)."""
    def prog(T):
        x = T.ones(2, 3, requires_grad=True)
        t = x.t()
        c = t.contiguous()
        return x.contiguous() is x, c is t, c.stride(), c._is_view(), c.grad_fn.name(), \
            c.grad_fn.next_functions[0][0].name()
    assert_same(prog)


def test_views_share_storage_and_version_counter():
    """Writing through a split/unbind/narrow/unflatten result writes the input; versions are shared."""
    def prog(T):
        x = T.zeros(4, 2)
        a, b = x.split(2)
        a.fill_(1)
        u = x.unbind(1)
        u[1].add_(2)
        n = x.narrow(0, 3, 1)
        n.mul_(5)
        f = x.unflatten(0, (2, 2))
        f[1, 0].sub_(1)
        return x, x._version, b._version, u[0]._version, n._base is x, f._is_view(), f._base is x
    assert_same(prog)


def _modify(view_of):
    def prog(T):
        x = T.ones(4, 2, requires_grad=True) * 1
        view_of(T, x).mul_(2)
        return x
    return prog


@pytest.mark.parametrize("case", ["split", "split_list", "chunk", "unbind", "view_of_a_split", "narrow", "leaf"])
def test_modifying_one_of_several_views_in_place(case):
    """PyTorch's error for an output of split/chunk/unbind modified in place; a narrow view is fine."""
    views = {
        "split": lambda T, x: x.split(2)[1],
        "split_list": lambda T, x: x.split([3, 1])[0],
        "chunk": lambda T, x: x.chunk(2, 1)[1],
        "unbind": lambda T, x: x.unbind()[2],
        "view_of_a_split": lambda T, x: x.split(2)[1][0],
        "narrow": lambda T, x: x.narrow(0, 1, 2),
        "leaf": lambda T, x: T.ones(4, requires_grad=True).split(3)[1],
    }
    assert_same(_modify(views[case]))


def test_views_made_under_no_grad_modified_with_grad_on():
    """A split made under no_grad and modified in place with grad mode on raises the no_grad text."""
    def prog(T):
        x = T.ones(4, requires_grad=True) * 1
        with T.no_grad():
            a = x.split(2)
            a[0].mul_(3)  # allowed: both under no_grad
        a[1].mul_(2)
    assert_same(prog)


def test_gradient_when_only_some_views_are_used():
    """Views without a gradient count as zeros in split's and unbind's backward."""
    def prog(T):
        x = T.arange(12.0, requires_grad=True)
        y = x.reshape(3, 4)
        a = x.split(5)
        u = y.unbind(1)
        c = y.chunk(3)
        (a[1] * 3).sum().backward()
        g1 = x.grad.clone()
        x.grad = None
        (u[2] * u[0]).sum().backward()
        g2 = x.grad.clone()
        x.grad = None
        c[2].sum().backward()
        return g1, g2, x.grad
    assert_same(prog)


def test_double_backward_through_split_repeat_roll_flip():
    """create_graph=True: the gradient has a graph of its own (cat, sum, roll, flip), with torch's nodes."""
    def prog(T):
        x = T.arange(6.0, requires_grad=True)
        parts = x.split(4)
        out = (parts[0] ** 2).sum() + (x.repeat(2, 1) ** 2).sum() + (x.roll(1) ** 3).sum() + (x.flip(0) ** 3).sum()
        g, = T.autograd.grad(out, x, create_graph=True)
        g.sum().backward()
        return g, g.grad_fn.name(), x.grad
    assert_same(prog)


BAD = {
    "split sizes do not add up": lambda T, x: x.split([2, 2]),
    "split_with_sizes sizes do not add up": lambda T, x: T.split_with_sizes(x, [4, 2], 0),
    "split negative size": lambda T, x: x.split(-1),
    "split size 0": lambda T, x: x.split(0),
    "split negative entry": lambda T, x: x.split([6, -1]),
    "split dim out of range": lambda T, x: x.split(2, 2),
    "split zero-dim": lambda T, x: T.tensor(1.0).split(1),
    "split_with_sizes zero-dim": lambda T, x: T.tensor(1.0).split([1]),
    "chunk 0": lambda T, x: x.chunk(0),
    "chunk negative": lambda T, x: x.chunk(-1),
    "chunk zero-dim": lambda T, x: T.tensor(1.0).chunk(1),
    "chunk dim out of range": lambda T, x: x.chunk(2, -3),
    "narrow past the end": lambda T, x: x.narrow(0, 3, 3),
    "narrow negative length": lambda T, x: x.narrow(0, 1, -1),
    "narrow start out of range": lambda T, x: x.narrow(0, 6, 0),
    "narrow negative start out of range": lambda T, x: x.narrow(1, -3, 1),
    "narrow zero-dim": lambda T, x: T.tensor(1.0).narrow(0, 0, 1),
    "narrow dim out of range": lambda T, x: x.narrow(2, 0, 1),
    "narrow float start": lambda T, x: x.narrow(0, T.tensor(1.0), 1),
    "unflatten sizes mismatch": lambda T, x: x.unflatten(0, (2, 2)),
    "unflatten empty sizes": lambda T, x: x.unflatten(0, ()),
    "unflatten dim out of range": lambda T, x: x.unflatten(2, (1, 2)),
    "repeat fewer dims": lambda T, x: x.repeat(2),
    "repeat negative": lambda T, x: x.repeat(2, -1),
    "tile negative": lambda T, x: x.tile((2, -1)),
    "flip repeated dim": lambda T, x: x.flip(0, -2),
    "flip dim out of range": lambda T, x: x.flip(2),
    "roll shifts and dims differ": lambda T, x: x.roll((1, 2), (0,)),
    "roll two shifts no dims": lambda T, x: x.roll((1, 2)),
    "roll no shifts": lambda T, x: x.roll((), ()),
    "roll dim out of range": lambda T, x: x.roll(1, 2),
    "roll zero-dim with a dim": lambda T, x: T.tensor(1.0).roll(1, 0),
    "unbind dim out of range": lambda T, x: x.unbind(2),
    "unbind zero-dim": lambda T, x: T.tensor(1.0).unbind(),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input(case):
    """PyTorch's exception type and text, never NumPy's."""
    assert_same(lambda T: BAD[case](T, T.arange(10.0).reshape(5, 2)))


@pytest.mark.parametrize("case", ["roll empty any dim", "zero-dim flip roll repeat tile", "empty chunks"])
def test_edges(case):
    """Edges PyTorch allows: rolling an empty tensor (its dim is never checked), zero-dim inputs, empty chunks."""
    def prog(T):
        if case == "roll empty any dim":
            return T.zeros(0, 2).roll(1, 7), T.zeros(2, 0).roll(3)
        if case == "zero-dim flip roll repeat tile":
            z = T.tensor(3.0, requires_grad=True)
            outs = (z.flip(0), z.roll(1), z.repeat(()), z.repeat(2, 1), z.tile(()), z.tile(3))
            sum(o.sum() for o in outs).backward()
            return outs, z.grad
        e = T.zeros(0, 3, requires_grad=True)
        return e.chunk(3), e.split(0), e.chunk(2, 1), e.unbind(), T.zeros(3, 0).unbind(1)
    assert_same(prog)


# ----------------------------------------------------------------------------- finite differences

FD_CALLS = {
    "split": lambda x: x.split(2, 1)[1] * x.split(2, 1)[0][..., :1],
    "split_with_sizes": lambda x: x.split([1, 2], 0)[1],
    "chunk": lambda x: x.chunk(2)[0] ** 2,
    "unbind": lambda x: x.unbind(1)[0] * x.unbind(1)[2],
    "narrow": lambda x: x.narrow(1, 1, 2) ** 2,
    "unflatten": lambda x: x.unflatten(1, (2, 2)) ** 2,
    "flip": lambda x: x.flip(0, 1) * x,
    "roll": lambda x: x.roll((1, 3), (0, 1)) * x,
    "roll_flat": lambda x: x.roll(5) * x,
    "repeat": lambda x: x.repeat(2, 1, 3) ** 2,
    "tile": lambda x: x.tile(3) ** 2,
}


@pytest.mark.parametrize("name", sorted(FD_CALLS))
def test_gradients_match_finite_differences(name):
    """picotorch's backward against central differences of picotorch's own forward (float64)."""
    rng = np.random.default_rng(7)
    analytic, numerical = backward_and_numeric(FD_CALLS[name], rng.standard_normal((3, 4)), rng)
    np.testing.assert_allclose(analytic, numerical, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- fuzz

_shapes = hs.lists(hs.integers(0, 3), min_size=1, max_size=3)


@settings(max_examples=25, deadline=None)
@given(shape=_shapes, data=hs.data())
def test_fuzz_shapes_and_dims(shape, data):
    """Random shapes (empty dims included), dims (negative too) and arguments: every op as PyTorch."""
    ndim = len(shape)
    dim = data.draw(hs.integers(-ndim, ndim - 1), label="dim")
    size = shape[dim]
    split_size = data.draw(hs.integers(1 if size else 0, 4), label="split_size")
    chunks = data.draw(hs.integers(1, 4), label="chunks")
    sizes = data.draw(hs.lists(hs.integers(0, 3), max_size=3), label="sizes")
    sizes = sizes + [max(size - sum(sizes), 0)] if sum(sizes) <= size else [size]
    start = data.draw(hs.integers(-size, size), label="start")
    length = data.draw(hs.integers(0, size - (start + size if start < 0 else start)), label="length")
    dims = data.draw(hs.lists(hs.integers(-ndim, ndim - 1), max_size=ndim, unique_by=lambda d: d % ndim),
                     label="flip dims")
    shifts = data.draw(hs.lists(hs.integers(-5, 5), min_size=1, max_size=2), label="shifts")
    roll_dims = data.draw(hs.lists(hs.integers(-ndim, ndim - 1), min_size=len(shifts), max_size=len(shifts))
                          | hs.just([]), label="roll dims") if len(shifts) == 1 else \
        data.draw(hs.lists(hs.integers(-ndim, ndim - 1), min_size=2, max_size=2), label="roll dims")
    repeats = data.draw(hs.lists(hs.integers(0, 2), min_size=ndim, max_size=ndim + 1), label="repeats")

    def prog(T):
        x = T.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
        outs = {
            "split": x.split(split_size, dim), "split_sizes": x.split(sizes, dim), "chunk": x.chunk(chunks, dim),
            "unbind": x.unbind(dim), "narrow": x.narrow(dim, start, length), "flip": x.flip(dims),
            "roll": x.roll(shifts, roll_dims), "repeat": x.repeat(repeats), "tile": x.tile(repeats[:ndim - 1]),
            "unflatten": x.unflatten(dim, (1, -1) if size else (size, 1)),
        }
        described = {k: _describe(v, x) for k, v in outs.items()}
        return outs, described, _weighted_backward(T, x, [o for v in outs.values() for o in _outputs(v)])
    assert_same(prog)


# ----------------------------------------------------------------------------- Python-level entry points

SPLIT_CALLS = {
    "keyword split_size_or_sections": lambda T, x: T.split(x, split_size_or_sections=2),
    "keyword split_size": lambda T, x: x.split(split_size=[1, 4], dim=0),
    "a one-element tensor size": lambda T, x: T.split(x, T.tensor(2)),
    "a float size": lambda T, x: x.split(2.5),
    "a string": lambda T, x: x.split("a"),
    "a Size": lambda T, x: x.split(T.Size([2, 3])),
    "split_with_sizes keyword": lambda T, x: x.split_with_sizes(split_sizes=(4, 1)),
}


@pytest.mark.parametrize("case", sorted(SPLIT_CALLS))
def test_split_arguments(case):
    """torch.split / Tensor.split pick split or split_with_sizes by the argument's type, with torch's errors."""
    assert_same(lambda T: SPLIT_CALLS[case](T, T.arange(10.0).reshape(5, 2)))


def test_iterating_a_tensor_unbinds_it():
    """``for row in x`` is ``x.unbind(0)``: UnbindBackward0 views, which must not be modified in place."""
    def prog(T):
        x = T.arange(6.0, requires_grad=True).reshape(3, 2)
        rows = list(x)
        return _describe(tuple(rows), x)

    def modify(T):
        list(T.arange(6.0, requires_grad=True).reshape(3, 2))[1].add_(1)
    assert_same(prog)
    assert_same(modify)


# ----------------------------------------------------------------------------- a view after its base changed


def _base_modified(case):
    def prog(T):
        x = T.ones(4, requires_grad=True)
        y = x * 1
        if case == "one of several views":  # PyTorch's error, on reading grad_fn or using the view
            a = y.split(2)
            y.mul_(2)
            return a[0].grad_fn
        if case == "one of several views, used":
            a = y.chunk(2)
            y.mul_(2)
            (a[1] * 1).sum().backward()
        if case == "an unbind view after another one changed":
            a = y.unbind()
            y[0].mul_(2)
            return a[3] * 1
        if case == "a view made under no_grad":
            with T.no_grad():
                v = y[:2]
            y.mul_(2)
            return v * 1
        if case == "a plain view":  # re-derived from the base: AsStridedBackward0, the new values' gradient
            v = y[:2]
            y.mul_(3)
            name = v.grad_fn.name()
            (v * T.tensor([1.0, 2.0])).sum().backward()
            return name, v.grad_fn.next_functions[0][0].name(), x.grad
        if case == "sibling views":
            a, b = y[:2], y[2:]
            a.mul_(2)
            (a.sum() + (b * 5).sum()).backward()
            return a.grad_fn.name(), b.grad_fn.name(), x.grad
        if case == "retain_grad follows":
            v = y[:2]
            v.retain_grad()
            y.mul_(3)
            (v * 2).sum().backward()
            return v.grad
        if case == "a saved view":  # the version error names the re-derived node
            v = y[:2]
            z = v * v
            y.mul_(2)
            z.sum().backward()
        t = (T.arange(6.0, requires_grad=True).reshape(2, 3) * 1)
        u = t.t()
        t.add_(1)
        (u * u).sum().backward()
        return u.grad_fn.name()
    return prog


@pytest.mark.parametrize("case", ["one of several views", "one of several views, used",
                                  "an unbind view after another one changed", "a view made under no_grad",
                                  "a plain view", "sibling views", "retain_grad follows", "a saved view",
                                  "a transposed view"])
def test_a_view_after_its_base_was_modified_in_place(case):
    """A view whose base (or another view of it) changed in place: PyTorch's error for split/chunk/unbind
    outputs and no_grad views ("its base or another view of its base has been modified inplace"), else
    a grad_fn re-derived from the base (AsStridedBackward0) and the gradient of the new values."""
    assert_same(_base_modified(case))


def test_view_as_is_a_view_with_the_other_tensors_shape():
    def prog(T):
        x = T.arange(6.0, requires_grad=True)
        y = x.view_as(T.zeros(2, 3))
        y.sum().backward()
        errors = []
        for other in (T.zeros(4), T.zeros(3, 2).t()):
            try:
                errors.append(T.arange(6.0).reshape(2, 3).t().view_as(other))
            except RuntimeError as err:
                errors.append(f"RuntimeError: {err}")
        return y, y.grad_fn.name(), y._base is x, x.grad, errors
    assert_same(prog)
