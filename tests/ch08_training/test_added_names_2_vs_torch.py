"""Names added together against PyTorch, second batch: ``zeros_like``/``ones_like``/``rand_like``/``randn_like``
in ``preserve_format``'s layout, ``eye`` and ``torch.detach``.

Each program runs on both libraries (``assert_same``: values, dtype, shape, ``requires_grad``, ``grad_fn``,
error types and texts); programs also return strides, and float results their bytes (bit for bit, signed
zeros and NaN included). Random values differ by design: only their layout is compared.
"""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int64", "bool", "uint8"]


def _source(T, kind, dtype="float32"):
    """An input of one layout: contiguous, transposed, permuted (dense, not row-major), sliced or expanded (not
    dense), 0-d, empty."""
    x = T.arange(24).reshape(2, 3, 4).to(getattr(T, dtype))
    return {"contiguous": x, "transposed": x[0].t(), "permuted": x.permute(2, 0, 1), "sliced": x[:, :, ::2],
            "column": x[:, 1:2, 1:3], "expanded": x[0, :1].expand(5, 4), "scalar": x[0, 0, 0],
            "empty": x[:, :0], "size1": x[:1, :, :1].transpose(0, 2)}[kind]


def _layout(t):
    """What a learner may look at besides the values: an empty tensor's strides are not compared (picotorch gives
    NumPy's for every op, a gap older than these names)."""
    return str(t.dtype), tuple(t.shape), t.stride() if t.numel() else None, t.is_contiguous(), t.requires_grad, \
        t.is_leaf, t.grad_fn, t._version


def _seen(t):
    return _layout(t), t.detach().numpy().tobytes().hex()


KINDS = ["contiguous", "transposed", "permuted", "sliced", "column", "expanded", "scalar", "empty", "size1"]


# ----------------------------------------------------------------------------- zeros_like, ones_like, rand(n)_like


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_zeros_ones_like_keep_a_dense_layout(kind, dtype):
    def prog(T):
        x = _source(T, kind, dtype)
        return [_seen(T.zeros_like(x)), _seen(T.ones_like(x)), _seen(T.zeros_like(x, dtype=T.float64)),
                _seen(T.ones_like(x, dtype=T.bool)), _seen(T.ones_like(x, device="cpu"))]

    assert_same(prog)


@pytest.mark.parametrize("kind", KINDS)
def test_rand_randn_like_keep_a_dense_layout(kind):
    def prog(T):
        x = _source(T, kind)
        return [_layout(T.rand_like(x)), _layout(T.randn_like(x)), _layout(T.rand_like(x, dtype=T.float64)),
                _layout(T.randn_like(x, requires_grad=True)), _layout(T.zeros_like(x, requires_grad=True))]

    assert_same(prog)


@pytest.mark.parametrize("call", ["T.rand_like(T.ones(2, dtype=T.int64))", "T.randn_like(T.ones(2, dtype=T.bool))",
                                  "T.rand_like(x, dtype=T.int64)", "T.randn_like(x, dtype=T.uint8)",
                                  "T.rand_like(T.ones(2, dtype=T.int64), requires_grad=True)",
                                  "T.zeros_like(T.ones(2, dtype=T.int64), requires_grad=True)",
                                  "T.ones_like(x, dtype=T.int64, requires_grad=True)",
                                  "T.ones_like(T.ones(2, requires_grad=True))"])
def test_like_factories_errors_and_options(call):
    def prog(T):
        return eval(call, {"T": T, "x": T.ones(2, 3).t()})

    assert_same(prog)


# ----------------------------------------------------------------------------- eye

EYE_CALLS = ["T.eye(3)", "T.eye(2, 3)", "T.eye(3, 2)", "T.eye(0)", "T.eye(1, 0)", "T.eye(0, 4)", "T.eye(n=2, m=3)",
             "T.eye(2, m=4)", "T.eye(3, dtype=T.int64)", "T.eye(2, 3, dtype=T.bool)", "T.eye(2, dtype=T.uint8)",
             "T.eye(2, dtype=T.float64, requires_grad=True)", "T.eye(2, 2, requires_grad=True)",
             "T.eye(T.tensor(3))", "T.eye(2, device='cpu')"]


@pytest.mark.parametrize("call", EYE_CALLS)
def test_eye_values_dtype_and_layout(call):
    def prog(T):
        return _seen(eval(call, {"T": T}))

    assert_same(prog)


def test_eye_follows_the_default_dtype():
    def prog(T):
        before = T.get_default_dtype()
        T.set_default_dtype(T.float64)
        try:
            return _seen(T.eye(2)), _seen(T.eye(2, 3))
        finally:
            T.set_default_dtype(before)

    assert_same(prog)


@pytest.mark.parametrize("call", ["T.eye(-1)", "T.eye(2, -3)", "T.eye(-1, -2)", "T.eye(0, -1, dtype=T.int64)",
                                  "T.eye(-2, dtype=T.bool)", "T.eye(2.0)", "T.eye(True)", "T.eye(n=2.5)",
                                  "T.eye(2, dtype=T.int64, requires_grad=True)"])
def test_eye_bad_arguments(call):
    def prog(T):
        return eval(call, {"T": T})

    assert_same(prog)


# ----------------------------------------------------------------------------- torch.detach


def test_detach_function_shares_data_and_version():
    def prog(T):
        x = T.tensor([1.0, -0.0, 3.0], requires_grad=True)
        y = x * 2
        d, e = T.detach(y), T.detach(input=x.t())
        d.add_(1)
        return _seen(d), _seen(e), y._version, d._version, d.is_leaf, T.detach(T.ones(2, 3).t()).stride(), \
            T.detach(T.tensor(2)).dtype

    assert_same(prog)


@pytest.mark.parametrize("call", ["T.detach()", "T.detach(1)", "T.detach(x, x)", "T.detach(x, y=1)",
                                  "T.detach([1.0])"])
def test_detach_function_bad_arguments(call):
    def prog(T):
        return eval(call, {"T": T, "x": T.ones(2)})

    assert_same(prog)
