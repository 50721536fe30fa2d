"""Differences the program fuzzer (``test_fuzz_programs_vs_torch.py``) found, each as a small program run on
picotorch and on torch: what a learner sees of the result (values, strides, version, graph) must agree."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from graph_helpers import same, torch  # noqa: F401 - torch: skips the module when it is missing

REFERENCE = str(Path(__file__).resolve().parents[2] / "reference")


def _layout(t):
    return tuple(t.shape), t.stride(), t.is_contiguous()


# --- isclose writes its result in place ------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
def test_isclose_result_counts_its_in_place_writes(dtype):
    def prog(t):
        a = t.tensor([1, 0, 1]).to(getattr(t, dtype))
        b = t.tensor([1, 1, 0]).to(getattr(t, dtype))
        return [(r.tolist(), r._version) for r in (t.isclose(a, b), t.isclose(a, b, equal_nan=True),
                                                   t.isclose(a, b, rtol=0, atol=0), a.isclose(b, 0, 0, True))]

    same(prog)


# --- a zero-dim bool or uint8 tensor index is a mask on a new dimension ----------------------------


@pytest.mark.parametrize("index", ["t.tensor(True)", "t.tensor(False)", "t.tensor(1, dtype=t.uint8)",
                                   "t.tensor(0, dtype=t.uint8)", "(t.tensor(True), None)",
                                   "(0, t.tensor(True))", "(t.tensor(True), [1, 0])",
                                   "(t.tensor(False), ..., t.tensor([True, False, True]))"])
@pytest.mark.parametrize("shape", [(), (2, 3)])
def test_zero_dim_mask_index_unsqueezes_first(index, shape):
    def prog(t):
        x = t.ones(shape, requires_grad=True) * 2
        y = x[eval(index)]
        fn = y.grad_fn
        return y.tolist(), _layout(y), fn.name(), [n.name() for n, _ in fn.next_functions]

    same(prog)


def test_zero_dim_mask_of_a_zero_dim_leaf():
    def prog(t):
        a = t.tensor(2.0, requires_grad=True)
        b = a[a > 0]
        return b.tolist(), b.grad_fn.next_functions[0][0].name()

    same(prog)


@pytest.mark.parametrize("index", ["t.tensor(True)", "t.tensor(False)", "t.tensor(1, dtype=t.uint8)",
                                   "t.tensor([True, False])", "t.tensor([[1, 0, 1], [0, 0, 1]], dtype=t.uint8)"])
@pytest.mark.parametrize("value", ["5", "t.tensor(5.)", "t.tensor([5.])", "t.tensor([1., 2., 3.])"])
def test_setitem_with_a_mask(index, value):
    def prog(t):
        x = t.zeros(2, 3, requires_grad=True) * 1
        x[eval(index)] = eval(value)
        return x.tolist(), x._version, x.grad_fn.name(), x.grad_fn.next_functions[0][0].name()

    same(prog)


def test_setitem_zero_dim_mask_too_many_values():
    def prog(t):
        z = t.tensor(1.)
        z[z > 0] = t.tensor([1., 2., 3.])

    same(prog)


# --- mT and T on tensors of other than two dims -----------------------------------------------------


@pytest.mark.parametrize("shape", [(), (2,), (2, 3), (2, 3, 4)])
def test_mT_and_T_by_dimension(shape):
    def prog(t):
        x = t.ones(shape, requires_grad=True) * 2
        out = []
        for f in (lambda: x.mT, lambda: x.T):
            try:
                y = f()
            except RuntimeError as e:
                out.append(str(e))
                continue
            out.append((_layout(y), y is x, y.grad_fn.name(), y._base is x))
        return out

    same(prog)


_WARNINGS = """
import warnings, sys
import {lib} as t
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    for shape in [(), (), (3,), (2, 2), (2, 1, 2), (3,)]:
        x = t.ones(shape)
        x.T
        x.mT if x.dim() != 1 else None
print([(w.category.__name__, str(w.message), w.lineno) for w in caught])
"""


def test_T_and_mT_warn_once_per_process():
    """TORCH_WARN_ONCE: a fresh interpreter for each library, so that no earlier test has warned already."""
    env = dict(os.environ, PYTHONPATH=REFERENCE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    outs = [subprocess.run([sys.executable, "-c", _WARNINGS.format(lib=lib)], capture_output=True, text=True,
                           env=env, check=True).stdout for lib in ("picotorch", "torch")]
    assert outs[0] == outs[1]
    assert outs[0].count("UserWarning") == 3


# --- strides of results ----------------------------------------------------------------------------


@pytest.mark.parametrize("expr", [
    "b * 0.5", "b * t.tensor(0.5)", "b * t.ones(1, 2)", "b * t.ones(2)", "t.ones(2) * b", "b.floor_divide(1)",
    "b.exp()", "b + b", "b.bool()", "b.float()", "b.double()", "b.clone()", "b.to(t.int8)", "t.where(b > 0, b, b)",
    "c / t.tensor([2])", "c / 2", "c + c", "c.float()", "c.clone()", "c.contiguous()", "c * 3",
    "d.floor_divide(3)", "d * 3", "d.exp()"])
def test_elementwise_and_copies_lay_size_one_dims_out_as_torch(expr):
    def prog(t):
        b = t.zeros(2, 1).permute(1, 0)  # (1, 2), strides (1, 1)
        c = t.tensor([[[1], [5], [4]]]).permute(2, 1, 0)  # (1, 3, 1), strides (1, 1, 3)
        d = t.eye(3).view(-1, 1).t()  # (1, 9), strides (1, 1)
        return _layout(eval(expr, None, {"t": t, "b": b, "c": c, "d": d}))

    same(prog)


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "amin", "logsumexp", "std", "var", "norm",
                                "argmax", "argmin", "nansum", "all", "any", "median"])
@pytest.mark.parametrize("keepdim", [True, False])
def test_reductions_give_row_major_results(op, keepdim):
    def prog(t):
        out = []
        for x in (t.ones(3, 4).t(), t.ones(2, 3, 4).permute(2, 0, 1), t.ones(2, 1, 3).permute(2, 1, 0),
                  t.ones(3, 4, dtype=t.float16).t()):
            for d in range(x.dim()):
                r = x.norm(dim=d, keepdim=keepdim) if op == "norm" else getattr(x, op)(dim=d, keepdim=keepdim)
                out.append(_layout(r[0] if isinstance(r, tuple) else r))
        return out

    same(prog)


@pytest.mark.parametrize("index", ["[0:0:2]", "[3:1:2]", "[:, 2:2:3]", "[5:9:3]", "[2:3:2]", "[1:1]"])
def test_empty_slices_keep_the_step_in_their_stride(index):
    def prog(t):
        y = eval("t.zeros(3, 4)" + index)
        return _layout(y), _layout(y.clone()), _layout(y * 2), _layout(y.t())

    same(prog)


@pytest.mark.parametrize("index", [
    "i", "[:, i]", "j", "[:, j]", "j.t()", "[:, j.t()]", "[i, i[:1]]", "[..., i]", "y > 3", "[None, i]", "[j, 0]",
    "[j.t(), 1:]", "[i, None]", "[:, None, i]", "[i, ..., i[:, None]]"])
def test_advanced_index_result_layout(index):
    def prog(t):
        x = t.arange(24.).view(2, 3, 4)
        i, j = t.tensor([0, 1]), t.tensor([[0, 1], [1, 0]])
        out = []
        for y in (x, x.transpose(0, 2), x[:, :, ::2], x.permute(1, 2, 0), x[:, :1]):
            names = {"t": t, "i": i, "j": j, "y": y}
            key = eval(index, None, names) if not index.startswith("[") else eval(f"({index[1:-1]},)", None, names)
            out.append(_layout(y[key]))
        return out

    same(prog)


def test_advanced_index_with_size_one_dims():
    def prog(t):
        return [_layout(t.eye(2, 1)[:, t.tensor([-1])]), _layout(t.full((1, 1), 0.5)[:, t.tensor([-1, 0, 0])]),
                _layout(t.eye(3)[..., t.tensor([1, -2])])]

    same(prog)
