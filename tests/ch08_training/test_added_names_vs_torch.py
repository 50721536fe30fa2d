"""Names added together against PyTorch: ``equal``, ``all``/``any``, ``full_like``/``empty_like``, ``eye``,
``Tensor.new_zeros``/``new_ones``/``new_full``/``new_empty``/``new_tensor`` and ``torch.detach``.

Each program runs on both libraries (``assert_same``: values, dtype, shape, ``requires_grad``, ``grad_fn``,
error types and texts); programs also return strides, and float results their bytes (bit for bit, signed
zeros and NaN included). ``empty_like``/``new_empty`` values are undefined: only their layout is compared.
"""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int64", "bool", "uint8"]
NAN = float("nan")


def _source(T, kind, dtype="float32"):
    """An input of one kind: a matrix, a 0-d tensor, an empty one, or a transposed (non-contiguous) view."""
    data = [[1, 0, 3], [0, 5, 6]] if dtype in ("bool", "uint8", "int64") else [[1.5, -0.0, NAN], [0.0, 5.0, -2.0]]
    x = T.tensor(data, dtype=getattr(T, dtype))
    return {"matrix": x, "scalar": x[0, 0], "empty": x[:, :0], "transposed": x.t(),
            "ones": T.ones(2, 3, dtype=getattr(T, dtype)),
            "permuted": T.stack([x, x.flip(0)]).permute(2, 0, 1)}[kind]


def _seen(t):
    """What a learner may look at beyond ``assert_same``'s fields: strides, and the exact bytes. An empty
    tensor's strides are not compared: picotorch gives NumPy's for every op (a gap older than these names)."""
    return t, t.stride() if t.numel() else None, t.detach().numpy().tobytes().hex()


KINDS = ["matrix", "scalar", "empty", "transposed", "ones", "permuted"]


# ----------------------------------------------------------------------------- equal


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_equal_with_itself_copies_and_other_dtypes(kind, dtype):
    def prog(T):
        x = _source(T, kind, dtype)
        return (T.equal(x, x), x.equal(x.clone()), T.equal(x, x.contiguous()), T.equal(x, x.to(T.float64)),
                T.equal(x, x.to(T.int64)), type(T.equal(x, x)).__name__)

    assert_same(prog)


def test_equal_shapes_values_and_signed_zero():
    def prog(T):
        a = T.tensor([[1.0, 2.0], [3.0, 4.0]])
        return (T.equal(a, a.t()), T.equal(a, a[0]), T.equal(T.ones(2, 1), T.ones(1, 2)),
                T.equal(T.ones(0), T.ones(0, 1)),
                T.equal(T.tensor(0.0), T.tensor(-0.0)), T.equal(T.ones(0), T.ones(0, dtype=T.bool)),
                T.equal(T.tensor([1, 2]), T.tensor([1.0, 2.5])), T.equal(T.tensor([True]), T.tensor([1])),
                T.equal(T.ones(2, requires_grad=True), T.ones(2)), T.equal(T.tensor(NAN), T.tensor(NAN)))

    assert_same(prog)


@pytest.mark.parametrize("call", ["T.equal(x, 1)", "x.equal(None)", "T.equal(x)", "T.equal(x, x, x)",
                                  "T.equal([1.0], x)"])
def test_equal_bad_arguments(call):
    def prog(T):
        return eval(call, {"T": T, "x": T.ones(2)})

    assert_same(prog)


# ----------------------------------------------------------------------------- all, any

REDUCE_ARGS = ["", "0", "1", "-1", "dim=0", "dim=(0, 1)", "(1,), True", "dim=()", "dim=(), keepdim=True",
               "None, True", "keepdim=True", "dim=[-1, 0]"]


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_all_any_values_dtypes_and_layout(name, kind, dtype):
    def prog(T):
        scope = {"T": T, "x": _source(T, kind, dtype)}
        results = []
        for args in REDUCE_ARGS:
            if kind == "scalar" and ("1" in args or "-1, 0" in args):
                continue
            function, method = eval(f"T.{name}(x, {args})", scope), eval(f"x.{name}({args})", scope)
            results.append((args, *_seen(function), *_seen(method)))
        return results

    assert_same(prog)


@pytest.mark.parametrize("call", ["T.all(x, 2)", "T.any(x, -3)", "T.all(x, (0, -2))", "T.any(x, (0, 2))",
                                  "T.all(x, 'a')", "T.any(x, (0, 1.0))", "x.all(dim='a')", "x.any(0, 1, 2)",
                                  "T.all(T.tensor(1.0), 1)", "T.any(T.tensor(1.0), (0, 0))",
                                  "T.all(x, 0, out=T.empty(0))", "T.any(x, out=T.empty(0, dtype=T.int64))",
                                  "T.all(x, (0,), out=T.empty(0, dtype=T.float64))"])
def test_all_any_bad_arguments(call):
    def prog(T):
        return eval(call, {"T": T, "x": T.ones(2, 3)})

    assert_same(prog)


@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any_out_and_requires_grad(name):
    def prog(T):
        x = _source(T, "matrix")
        u = _source(T, "matrix", "uint8")
        bool_out, byte_out = T.empty(0, dtype=T.bool), T.empty(0, dtype=T.uint8)
        r1 = getattr(T, name)(x, 1, out=bool_out)
        r2 = getattr(T, name)(u, (0,), out=T.empty(0, dtype=T.bool))
        r3 = getattr(T, name)(x, out=T.empty(0, dtype=T.uint8))
        r4 = getattr(T, name)(x[:, :2], 0, out=byte_out)  # not NaN: a uint8 out= reads it as false (not modelled)
        grad = getattr(T, name)(T.ones(2, requires_grad=True))
        return r1 is bool_out, r4 is byte_out, _seen(r1), _seen(r2), _seen(r3), _seen(r4), grad

    assert_same(prog)



# ----------------------------------------------------------------------------- full_like, empty_like

FILLS = [2.5, -0.0, 7, True, -1, 1e300, float("nan"), float("inf")]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fill", FILLS)
def test_full_like_values_dtype_and_layout(kind, dtype, fill):
    def prog(T):
        x = _source(T, kind, dtype)
        results = [_seen(T.full_like(x, fill)), _seen(T.full_like(x, fill, dtype=T.float64)),
                   _seen(T.full_like(x, T.tensor(fill)))]
        return results

    assert_same(prog)


@pytest.mark.parametrize("call", ["T.full_like(x)", "T.full_like(x, 'a')", "T.full_like(x, T.tensor([1.0]))",
                                  "T.full_like(T.ones(2, dtype=T.uint8), 300)", "T.full_like(x, 1e300)",
                                  "T.full_like(T.ones(2, dtype=T.int64), 1, requires_grad=True)",
                                  "T.full_like(x, 1, requires_grad=True)", "T.full_like(x, 1, dtype=T.int64)",
                                  "T.full_like(T.ones(2, requires_grad=True), 3)", "T.empty_like()",
                                  "T.empty_like(x, T.float64)",
                                  "T.empty_like(T.ones(2, dtype=T.int64), requires_grad=True)"])
def test_full_like_empty_like_options_and_errors(call):
    def prog(T):
        return eval(call, {"T": T, "x": T.ones(2, 3).t()})

    assert_same(prog)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_like_layout(kind, dtype):
    def prog(T):
        x = _source(T, kind, dtype)
        results = []
        for made in (T.empty_like(x), T.empty_like(x, dtype=T.float64), T.empty_like(x, requires_grad=True)
                     if x.dtype.is_floating_point else T.empty_like(x, device="cpu")):
            results.append((str(made.dtype), tuple(made.shape), made.stride() if made.numel() else None,
                            made.requires_grad, made.is_leaf, made.grad_fn))
        return results

    assert_same(prog)
