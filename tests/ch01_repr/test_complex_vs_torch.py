"""Complex tensors against torch: their repr, dtypes and promotion, parts, conjugation and errors.

Each program runs on picotorch and on torch; the printed results (or the exception's type and text) must be
the same, character for character.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from ch01_strategies import COMPLEX_DTYPES, SMALL_SHAPES, arrays, print_options
from hypothesis import given, settings
from hypothesis import strategies as st
from test_repr_vs_torch import same_settings

import picotorch

torch = pytest.importorskip("torch")


def outcome(module, program: str):
    """What ``program`` evaluates to with ``T`` bound to ``module``: its repr, or the exception's type and text."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(program, {"T": module, "np": np})
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        return f"{type(error).__name__}: {error}"
    return repr(value)


def assert_same(program: str) -> None:
    ours, theirs = outcome(picotorch, program), outcome(torch, program)
    assert ours == theirs, f"\n{program}\n--- picotorch\n{ours}\n--- torch\n{theirs}"


@settings(max_examples=300, deadline=None)
@given(array=arrays(dtypes=COMPLEX_DTYPES, shapes=SMALL_SHAPES), options=print_options(),
       requires_grad=st.booleans(), default_dtype=st.sampled_from(["float32", "float64"]))
def test_complex_repr_matches_torch(array, options, requires_grad, default_dtype):
    with same_settings(options, default_dtype):
        ours = picotorch.tensor(array, requires_grad=requires_grad)
        theirs = torch.tensor(array, requires_grad=requires_grad)
        assert repr(ours) == repr(theirs)


CREATION = [
    "T.tensor([1+2j, 3-4j])", "T.tensor(1j)", "T.tensor([1, 2j])", "T.tensor([[1.5, 2j], [-3.25e-5+1j, 0]])",
    "T.tensor([1e10+1j, 1])", "T.tensor([float('nan')+1j, float('inf')*1j])", "T.tensor([1+1j], requires_grad=True)",
    "T.tensor([1+1j], dtype=T.complex128)", "T.tensor([1.5, 2], dtype=T.cfloat)", "T.tensor([True], dtype=T.cfloat)",
    "T.tensor(1j, dtype=T.bool)", "T.tensor([1j], dtype=T.float32)", "T.tensor([2+0j], dtype=T.int64)",
    "T.tensor([1+2j, 3+4j] * 600)", "T.tensor([0.1+0.2j, 1-0.3333j])", "T.tensor([1e-5+2j, 3.5+1e5j])",
    "T.zeros(2, 2, dtype=T.cdouble)", "T.ones(2, dtype=T.cfloat)", "T.eye(2, dtype=T.cfloat)",
    "T.from_numpy(np.array([1+2j]))", "T.tensor(1+2j).numpy()", "T.tensor([1+2j]).tolist()", "T.tensor([1+2j]).item()",
    "T.tensor([1+2j]).type()", "T.tensor([1+2j], dtype=T.complex128).type()", "T.tensor([1.]).cdouble()",
    "T.tensor([1+2j]).cfloat()", "T.tensor([1+2j]).element_size()", "T.tensor([1+2j]).new_tensor([3j])",
    "T.full((2,), 1j)", "T.full((2,), 1j).dtype", "T.tensor([1, 2]).to(T.complex64)",
]

DTYPES = [
    "T.complex64", "T.cfloat", "T.cdouble", "T.chalf", "T.complex64.is_complex", "T.complex64.itemsize",
    "T.complex64.to_real()", "T.float32.to_complex()", "T.float16.to_complex()", "T.complex128.to_real()",
    "T.int64.to_complex()", "T.complex64.is_floating_point", "T.complex64.is_signed",
    "T.promote_types(T.float64, T.complex64)", "T.promote_types(T.float16, T.complex64)",
    "T.promote_types(T.int64, T.complex64)", "T.promote_types(T.bfloat16, T.complex64)",
    "T.promote_types(T.complex128, T.complex64)", "T.promote_types(T.bool, T.complex128)",
    "(T.ones(2, dtype=T.float64) + 1j).dtype", "(T.ones(2, dtype=T.int32) + 1j).dtype",
    "(T.ones(2) + T.tensor(1j, dtype=T.complex128)).dtype", "(T.ones(2, dtype=T.float64) + T.tensor(1j)).dtype",
    "(T.ones(2, dtype=T.int32) + T.tensor(1j, dtype=T.complex128)).dtype",
    "T.result_type(T.ones(2, dtype=T.float64), 1j)", "T.result_type(T.ones(2, dtype=T.int64), 1j)",
    "T.tensor([True]) + 1j", "T.tensor([1.5], dtype=T.int64) + 0j", "T.linspace(0, 1, 2) + 1j",
    "T.tensor([1., 2.]) + (2+0j)", "T.tensor(1+2j) == 1+2j", "T.tensor([1+1j]).is_floating_point()",
    "T.tensor([1+1j]).is_complex()", "T.is_complex(T.tensor([1.]))",
]

PARTS = [
    "T.tensor([1., 2.]).real", "T.tensor([1., 2.]).imag", "T.tensor([1+2j]).real", "T.tensor([1+2j]).imag",
    "T.tensor([1+2j]).real.stride()", "T.tensor([1+2j]).imag.storage_offset()",
    "T.tensor([[1+2j, 3j]]).t().imag.stride()", "T.view_as_real(T.tensor([1+2j])).stride()",
    "T.view_as_real(T.tensor([[1+2j, 3j], [4, 5]]).t())", "T.view_as_real(T.tensor(1+2j))",
    "T.view_as_real(T.tensor([1.]))", "T.view_as_complex(T.tensor([[1., 2.]]))",
    "T.view_as_complex(T.tensor([1., 2., 3.]))", "T.view_as_complex(T.tensor([[1., 2.]]).t())",
    "T.view_as_complex(T.tensor([[1, 2]]))", "T.view_as_complex(T.tensor(1.))",
    "T.view_as_complex(T.zeros(2, 2).t())", "T.view_as_complex(T.zeros(3, 2)[1:])",
    "T.view_as_complex(T.zeros(3, 4)[:, 1:3])", "T.view_as_complex(T.zeros(2, 3, 2).transpose(0, 1))",
    "T.view_as_complex(T.zeros(4, 2)[::2])", "T.view_as_complex(T.zeros(2, 2, dtype=T.float64))",
    "T.complex(T.tensor([1.]), T.tensor([1., 2.]))", "T.complex(T.tensor([1]), T.tensor([2]))",
    "T.complex(T.tensor([1.]), T.tensor([2.], dtype=T.float64))", "T.complex(T.tensor([1.]), T.tensor([2]))",
    "T.complex(T.tensor(1.), T.tensor(2.))", "T.complex(T.ones(2, dtype=T.float64), T.zeros(2, dtype=T.float64))",
    "T.polar(T.tensor([2.]), T.tensor([0.5]))", "T.polar(T.tensor([1]), T.tensor([1]))",
    "T.polar(T.tensor([2.], dtype=T.float64), T.tensor([-1., 3.], dtype=T.float64))",
    "T.tensor([1+2j]).angle()", "T.tensor([-1., 2., float('nan'), -0.]).angle()", "T.tensor([1, -1]).angle()",
    "T.tensor([True]).angle()", "T.tensor([3+4j]).abs()", "T.tensor([3+4j], dtype=T.complex128).abs()",
    "T.tensor([0j, 1j, 3-4j]).sgn()", "T.tensor([1+2j]).sign()", "T.tensor([1+2j]).exp()",
    "T.tensor([1+2j]).sqrt()", "T.tensor([1+2j, 3j]).sum()", "T.tensor([1+2j, 3j]).mean()",
    "T.tensor([1+2j]) * T.tensor([2.])", "T.tensor([1j]) @ T.tensor([1j])", "T.tensor([1j, 2]).dot(T.tensor([1j, 1]))",
    "T.tensor([1+2j]).to(T.float32)", "T.tensor([1+2j, 0.5j, 0j]).bool()", "T.tensor([1+2j]).to(T.int64)",
    "T.tensor([[1+2j]]).mT", "T.tensor([[1+2j]]).mH", "T.tensor([[1+2j]]).H", "T.tensor([[1+2j]]).adjoint()",
]

CONJ = [
    "T.tensor([1+2j]).conj()", "T.tensor([1+2j]).conj().is_conj()", "T.tensor([1.]).conj().is_conj()",
    "T.tensor([1+2j]).is_conj()", "T.tensor([1+2j]).conj_physical()", "T.tensor([1+2j]).conj_physical().is_conj()",
    "T.tensor([1+2j]).resolve_conj()", "T.tensor([1+2j]).conj().resolve_conj()",
    "T.tensor([1+2j]).conj().resolve_conj().is_conj()", "T.tensor([1+2j]).conj().conj().is_conj()",
    "T.tensor([1+2j]).conj().imag", "T.tensor([1+2j]).conj().real", "T.view_as_real(T.tensor([1+2j]).conj())",
    "T.tensor([1+2j]).conj() * 2",
]


@pytest.mark.parametrize("program", CREATION + DTYPES + PARTS + CONJ)
def test_complex_program_matches_torch(program):
    assert_same(program)


def test_identities_of_real_tensors():
    for module in (picotorch, torch):
        x = module.tensor([1., 2.])
        assert x.real is x and x.conj() is x and x.resolve_conj() is x and x.conj_physical() is x


def test_casting_complex_to_real_warns_once_like_torch():
    code = ("import warnings, {m} as T\nwarnings.simplefilter('always')\nz = T.tensor([1+2j])\n"
            "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
            "    z.float(); z.double(); z.bool()\nprint([str(x.message) for x in w])")
    import subprocess
    import sys

    printed = [subprocess.run([sys.executable, "-c", code.format(m=m)], capture_output=True, text=True, check=True)
               .stdout for m in ("picotorch", "torch")]
    assert printed[0] == printed[1]


def test_writing_a_part_writes_the_complex_tensor():
    for module in (picotorch, torch):
        z = module.tensor([1+2j, 3-1j])
        z.real = module.tensor([5., 6.])
        z.imag = 0.5
        z.real[0] = -1
        assert z.tolist() == [(-1+0.5j), (6+0.5j)]


GRAPHS = [
    "z.real", "z.imag", "T.view_as_real(z)", "z.conj()", "z.conj_physical()", "z.abs()", "z.angle()", "z.sgn()",
    "T.view_as_complex(T.view_as_real(z))", "T.complex(z.real, z.imag)", "T.polar(z.abs(), z.angle())",
    "z.conj().resolve_conj()",
]


def _names(node, depth=3):
    if node is None or depth == 0:
        return None
    return (node.name(), [_names(n, depth - 1) for n, _ in node.next_functions])


@pytest.mark.parametrize("program", GRAPHS)
def test_graph_of_complex_ops_matches_torch(program):
    def run(module):
        z = module.tensor([1+2j, 3-1j, 0.5j], requires_grad=True)
        y = eval(program, {"T": module, "z": z})
        return _names(y.grad_fn), y._base is not None and y._base is z

    (ours, ours_view), (theirs, theirs_view) = run(picotorch), run(torch)
    assert ours == theirs
    if program not in ("z.conj()",):  # NOTE [Conjugation is lazy in PyTorch]: picotorch's conj is no view
        assert ours_view == theirs_view


GRADIENTS = [
    ("z.abs().sum()", "complex"), ("z.real.sum() + 2 * z.imag.sum()", "complex"),
    ("T.view_as_real(z).pow(2).sum()", "complex"), ("z.angle().sum()", "complex"), ("z.sgn().real.sum()", "complex"),
    ("T.view_as_real(z.conj_physical()).sum()", "complex"), ("z.conj().resolve_conj().imag.sum()", "complex"),
    ("T.complex(x, 2 * x).abs().sum()", "real"), ("T.polar(x.abs() + 1, x).imag.sum()", "real"),
    ("T.view_as_complex(T.stack([x, x * x], -1)).angle().sum()", "real"),
    ("T.polar(x.abs() + 1, x).angle().sum() + T.polar(x.abs() + 1, x).abs().sum()", "real"),
]


@pytest.mark.parametrize("program,leaf", GRADIENTS)
def test_gradients_of_complex_ops_match_torch(program, leaf):
    def run(module):
        if leaf == "complex":
            z = x = module.tensor([1+2j, 3-1j, -0.5j], dtype=module.complex128, requires_grad=True)
        else:
            z = x = module.tensor([0.3, -1.2, 2.0], dtype=module.float64, requires_grad=True)
        eval(program, {"T": module, "z": z, "x": x}).backward()
        return z.grad.detach().resolve_conj().numpy()

    np.testing.assert_allclose(run(picotorch), run(torch), rtol=1e-12, atol=1e-14)
