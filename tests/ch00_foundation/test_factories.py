"""Creating tensors: dtype and shape inference of ``tensor()``, factories, conversions — against PyTorch."""

import warnings

import numpy as np
import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")

DATA = {
    "float": 1.5, "int": 3, "bool": True, "list_mixed": [1, 2.5], "nested": [[1, 2], [3, 4]],
    "bools_ints": [True, 2], "empty": [], "empty_nested": [[], []],
    "np_float16": np.float16(0), "np_float64": np.float64(1), "np_int32": np.int32(3), "np_bool": np.bool_(True),
    "np_in_list": [np.float64(1), 2.0], "np_int_in_list": [np.int32(1), 2], "int_and_np_float32": [1, np.float32(2)],
    "ndarray_int32": np.arange(3, dtype=np.int32), "ndarray_f64": np.ones((2, 2)),
}


@pytest.mark.parametrize("name", sorted(DATA))
def test_tensor_infers_dtype_and_shape(name):
    data = DATA[name]
    assert_same(lambda T: (T.tensor(data).dtype, T.tensor(data).shape, T.tensor(data).tolist()))


@pytest.mark.parametrize("expr", [
    "T.zeros(2, 3)", "T.ones((2, 3), dtype=T.int32)", "T.zeros([])", "T.full((2,), 7)", "T.full((2,), 1.5)",
    "T.full((2,), True)", "T.arange(5)", "T.arange(1, 4, 0.5)", "T.arange(5, dtype=T.float64)",
    "T.empty(0, 3).shape", "T.ones(2, 3).to(T.int64)", "T.ones(2).double().half()",
    "T.ones(2, requires_grad=True).detach().requires_grad", "T.ones(2).size(-1)", "T.ones(2, 3).size()",
    "T.ones(2, 3).stride()", "T.ones(2, 3).t().is_contiguous()", "T.ones(2, 3).numel()",
    "T.ones(2, 3).element_size()", "T.ones(3).tolist()", "T.tensor(2.5).item()", "int(T.tensor(3))",
    "float(T.tensor([2.5]))", "T.ones(2, 3).ndim", "T.zeros_like(T.ones(2, dtype=T.int64))",
    "T.ones_like(T.ones(2), dtype=T.float64)", "T.zeros_like(T.ones(2), requires_grad=True)",
    "T.ones_like(T.ones(2, dtype=T.int64), requires_grad=True)", "T.zeros_like(T.ones(2), device='cpu')",
    "T.Size([2, 3])", "T.Size([2, 3]).numel()", "T.device('cuda', 1)",
    "str(T.device('cuda:1'))", "T.float64.is_floating_point", "T.int8.is_signed", "T.get_default_dtype()",
])
def test_factories_and_attributes(expr):
    assert_same(lambda T: eval(expr))


@pytest.mark.parametrize("dtype, values", [("uint8", [-1.3]), ("uint8", [300]), ("uint8", [-1]), ("int32", [1e10]),
                                           ("int32", [2**40]), ("float16", [1e5]), ("int8", [200]), ("int64", [1e30]),
                                           ("bool", [5]), ("int8", [-1.5]), ("int8", [[1, -2], [3, 4]])])
def test_tensor_checks_integer_overflow(dtype, values):
    assert_same(lambda T: T.tensor(values, dtype=getattr(T, dtype)))


def test_from_numpy_shares_memory():
    def prog(T):
        a = np.zeros(3, dtype=np.float32)
        t = T.from_numpy(a)
        a[0] = 5
        return t.tolist(), t.dtype
    assert_same(prog)


def test_manual_seed_makes_rand_repeatable():
    import picotorch

    picotorch.manual_seed(0)
    first = picotorch.rand(3).tolist()
    picotorch.manual_seed(0)
    assert picotorch.rand(3).tolist() == first
    assert picotorch.randn(2, 3, dtype=picotorch.float64).dtype == picotorch.float64


FACTORY_CALLS = [
    "T.zeros(size=(2, 3), dtype=T.int64)", "T.ones(size=[2])", "T.empty(size=(0,)).shape", "T.rand(size=(2,)).shape",
    "T.randn(size=[3], requires_grad=True).shape", "T.full(size=(2,), fill_value=3.0)", "T.full((2,), fill_value=1)",
    "T.ones()", "T.zeros(dtype=T.float64)", "T.empty(requires_grad=True, dtype=T.float32)", "T.zeros(2, size=(2,))",
    "T.ones((2,), (3,))", "T.ones(2, (3,))", "T.rand()", "T.randn()", "T.rand(dtype=T.float64)",
    "T.randn(requires_grad=True, dtype=T.float32)", "T.rand(dtype=T.float32, device='cpu')", "T.rand(2, size=(2,))",
    "T.full()", "T.full((2,))", "T.full(fill_value=1)", "T.full((2,), 1.0, 2.0)", "T.full(2, 3.0)",
    "T.rand_like(T.tensor(1.0)).shape", "T.randn_like(T.ones(2, 3)).shape",
    # full is empty + fill_: the number must fit the dtype, except one float16/bfloat16 element (scalar_fill)
    "T.full((2,), 2**40, dtype=T.int32)", "T.full((2,), -1, dtype=T.uint8)", "T.full((2,), -300, dtype=T.uint8)",
    "T.full((2,), float('nan'), dtype=T.int64)", "T.full((2,), 1e6, dtype=T.float16)",
    "T.full((1,), 1e6, dtype=T.float16)", "T.full((2,), 300, dtype=T.int8)", "T.full((2,), 2.5, dtype=T.int64)",
    "T.full((2,), float('inf'), dtype=T.bfloat16)",
    # randint: its two forms, the range it draws from and what each dtype can hold (values are NumPy's stream)
    "T.randint(10, (3,)).dtype", "T.randint(3, 10, (2, 2)).shape", "T.randint(10, size=(2,)).shape",
    "T.randint(low=2, high=4, size=(2,)).shape", "T.randint(3, 10, size=(2,)).shape", "T.randint(10, ()).shape",
    "T.randint(high=10, size=(2,)).shape", "T.randint(10, (2,), dtype=T.float32, requires_grad=True).requires_grad",
    "T.randint(3, 7, (1000,)).max() < 7", "T.randint(3, 7, (1000,)).min() >= 3", "T.randint(1, 2, (3,))",
    "T.randint(0, 1, (2,), dtype=T.bool)", "T.randint(10, (2,), dtype=T.bfloat16).dtype",
    "T.randint(5, 5, (2,))", "T.randint(5, 3, (2,))", "T.randint(10, 3)", "T.randint(10)", "T.randint(2.5, (2,))",
    "T.randint(10, (2,), requires_grad=True)", "T.randint(-1, 2, (3,), dtype=T.uint8)", "T.randint(10, (-1,))",
    "T.randint(300, (2,), dtype=T.uint8)", "T.randint(2**40, (2,), dtype=T.int32)",
    "T.randint(-2**40, 0, (2,), dtype=T.int32)", "T.randint(200, (2,), dtype=T.int8)",
    "T.randint(2**20, (2,), dtype=T.int16)", "T.randint(0, 3, (2,), dtype=T.bool)", "T.randint(2**70, (2,))",
    "T.randint(2**30, (2,), dtype=T.float16)", "T.randint(10, (2,), 3)", "T.randint(2.5, 10, (2,))",
    "T.randint(1, 10, 3)", "T.randint(10, size=3)", "T.randint(low=1, high=10, size=3)", "T.randint(1, 10, size=3)",
]


@pytest.mark.parametrize("expr", FACTORY_CALLS)
def test_factory_size_arguments_and_their_errors_are_pytorchs(expr):
    """``size=`` as a keyword; a missing size or fill value, a size given twice, too many positional sizes:
    PyTorch's texts (``rand``/``randn`` have two visible signatures: the invalid-combination text unless
    exactly one keyword was given)."""
    torch = pytest.importorskip("torch")
    import picotorch

    def run(T):
        try:
            return repr(eval(expr, {"T": T}))
        except (TypeError, RuntimeError, ValueError) as e:
            return f"{type(e).__name__}: {e}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch warns about none of these; NumPy's cast warnings must not leak
        assert run(picotorch) == run(torch)
