"""Random numbers against torch 2.13, bit for bit: the same seed gives the same tensors, permutations, dropout
masks, initial weights and batch orders (``native/cpu_generator.py``, ``native/distributions.py``).

Each program runs once on picotorch and once on torch, seeded alike; the arrays it returns are compared by
their bytes, and the exceptions by type and text.
"""

from __future__ import annotations

import numpy as np
import pytest

import picotorch

torch = pytest.importorskip("torch")

LIBS = (picotorch, torch)


def _bits(value):
    """A result as comparable data: numbers as they are, a tensor as (dtype, shape, bytes)."""
    if isinstance(value, (list, tuple)):
        return [_bits(v) for v in value]
    if not hasattr(value, "detach"):
        return value
    tensor = value.detach().contiguous()
    lib = picotorch if isinstance(tensor, picotorch.Tensor) else torch
    dtype = str(tensor.dtype).split(".")[-1]
    if dtype == "bfloat16":  # torch's numpy() refuses bfloat16: compare its bits
        tensor = tensor.view(lib.int16)
    return dtype, tuple(tensor.shape), tensor.numpy().tobytes()


def _same(program, seed=0):
    results = []
    for lib in LIBS:
        lib.manual_seed(seed)
        results.append(_bits(program(lib)))
    ours, theirs = results
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, f"result {i} differs: {str(a)[:200]} != {str(b)[:200]}"


def _same_error(program):
    caught = []
    for lib in LIBS:
        with pytest.raises(Exception) as info:
            program(lib)
        caught.append((type(info.value).__name__, str(info.value)))
    assert caught[0] == caught[1]


DTYPES = ("float32", "float64", "float16", "bfloat16")
SIZES = ((), (1,), (7,), (15,), (16,), (17,), (3, 11), (4, 4), (1000,), (1003,))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_rand_and_randn(dtype, size):
    _same(lambda T: [T.rand(size, dtype=getattr(T, dtype)), T.randn(size, dtype=getattr(T, dtype)),
                     T.rand(size, dtype=getattr(T, dtype))], seed=len(size) * 7 + sum(size))


@pytest.mark.parametrize("dtype", DTYPES)
def test_normal_and_uniform_with_parameters(dtype):
    def program(T):
        d = getattr(T, dtype)
        return [T.empty(40, dtype=d).normal_(2.5, 0.3), T.empty(7, dtype=d).normal_(-1.5, 3.3),
                T.empty(1000, dtype=d).uniform_(-0.7, 0.2), T.empty(5, dtype=d).uniform_(3, 1e4),
                T.empty(2000, dtype=d).uniform_(-3, 2), T.empty(33, dtype=d).normal_(0.1, 7.0)]
    _same(program, seed=11)


def test_non_contiguous_tensors_are_filled_in_memory_order():
    _same(lambda T: [T.empty(3, 4).t().normal_(), T.empty(4, 8).t().uniform_(-2, 3), T.empty(6, 5).t().normal_(),
                     T.zeros(3, 5).t().bernoulli_(0.3), T.rand_like(T.empty(3, 4).t()),
                     T.randn_like(T.empty(5, 4).t()), T.randn_like(T.empty(5, 4))], seed=3)


def test_the_spare_normal_is_kept_between_calls_and_dropped_by_manual_seed():
    def program(T):
        out = [T.randn(1, dtype=T.float64), T.rand(2), T.randn(1), T.randn(3, dtype=T.float16)]
        T.manual_seed(0)
        return out + [T.randn(1, dtype=T.float64)]
    _same(program, seed=4)


@pytest.mark.parametrize("low, high, dtype", [(0, 10, "int64"), (-5, 5, "int8"), (3, 17, "int32"),
                                              (0, 2**40, "int64"), (-2**40, 7, "float64"), (10, 11, "uint8"),
                                              (0, 100, "float32"), (0, 2**24, "float32")])
def test_randint(low, high, dtype):
    _same(lambda T: [T.randint(low, high, (9,), dtype=getattr(T, dtype)), T.randint(high, (2, 3))], seed=5)


@pytest.mark.parametrize("low, high, dtype", [(0, 2**35, "float32"), (-3000, 2050, "float16"), (0, 300, "bfloat16"),
                                              (0, 2**54, "float64")])
def test_randint_beyond_a_float_types_exact_integers_warns_as_torch(low, high, dtype):
    caught = []
    for lib in LIBS:
        lib.manual_seed(0)
        with pytest.warns(UserWarning) as record:
            drawn = lib.randint(low, high, (3,), dtype=getattr(lib, dtype))
        caught.append(([str(w.message) for w in record], _bits(drawn)))
    assert caught[0] == caught[1]


@pytest.mark.parametrize("low, high, dtype", [(0, 2**33, "int32"), (0, 70000, "float16"), (5, 5, "int64"),
                                              (0, 300, "uint8"), (-2**40, 0, "int32")])
def test_randint_refuses_what_torch_refuses(low, high, dtype):
    _same_error(lambda T: T.randint(low, high, (2,), dtype=getattr(T, dtype)))


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
def test_randperm(n):
    _same(lambda T: [T.randperm(n), T.randperm(n, generator=T.Generator().manual_seed(n)), T.rand(1)], seed=n)


def test_bernoulli_and_dropout():
    def program(T):
        F = T.nn.functional
        p = T.tensor([0.1, 0.9, 0.5, 0.5, 0.2, 0.7])
        return [T.empty(9).bernoulli_(0.4), T.zeros(4, dtype=T.bool).bernoulli_(0.5),
                T.zeros(5, dtype=T.int64).bernoulli_(0.25), T.bernoulli(T.full((9,), 0.4)),
                T.bernoulli(T.full((9,), 0.4, dtype=T.float64)), T.zeros(6).bernoulli_(p),
                T.zeros(6).bernoulli_(p.double()), F.dropout(T.ones(40), 0.3), F.dropout(T.ones(4, 5), 0.5),
                T.nn.Dropout(0.2)(T.ones(3, 7))]
    _same(program, seed=6)


def test_initial_weights_of_modules():
    def program(T):
        nn = T.nn
        model = nn.Sequential(nn.Linear(5, 3), nn.ReLU(), nn.Linear(3, 2))
        emb = nn.Embedding(4, 5)
        weights = [p for p in model.parameters()] + [emb.weight]
        return weights + [nn.init.kaiming_uniform_(T.empty(4, 6)), nn.init.xavier_normal_(T.empty(8, 3)),
                          nn.init.xavier_uniform_(T.empty(3, 9), gain=2.0), nn.init.kaiming_normal_(T.empty(5, 5))]
    _same(program, seed=7)


def test_generators_are_independent_streams():
    def program(T):
        g = T.Generator().manual_seed(42)
        return [T.randn(5, generator=g), T.rand(3), T.randperm(10, generator=g), T.rand(2, generator=g),
                T.randint(0, 9, (4,), generator=g), T.empty(20).normal_(generator=g), g.initial_seed(),
                T.initial_seed(), T.Generator().initial_seed()]
    _same(program, seed=8)


@pytest.mark.parametrize("seed", [0, 1, 2**32 + 5, 2**63, 2**64 - 1, -1, -(2**63), True, 3.7])
def test_manual_seed_takes_what_torch_takes(seed):
    _same(lambda T: [T.manual_seed(seed).initial_seed(), T.rand(3), T.initial_seed()])


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1, "a", None])
def test_manual_seed_refuses_what_torch_refuses(seed):
    _same_error(lambda T: T.manual_seed(seed))


@pytest.mark.parametrize("seed", [1.5, "a", None, True, 2**64])
def test_generator_manual_seed_refuses_what_torch_refuses(seed):
    _same_error(lambda T: T.Generator().manual_seed(seed))


def test_rng_state_bytes_are_torchs():
    def program(T):
        states = [T.get_rng_state()]
        T.rand(700)
        states.append(T.get_rng_state())
        T.randn(1, dtype=T.float64)
        states.append(T.get_rng_state())
        T.rand(623 - 2)
        states.append(T.get_rng_state())
        saved = T.get_rng_state()
        drawn = T.randn(3)
        T.set_rng_state(saved)
        return states + [drawn, T.randn(3), T.Generator().manual_seed(9).get_state()]
    _same(program, seed=9)


def test_a_state_from_torch_restores_in_picotorch():
    torch.manual_seed(12)
    torch.randn(1, dtype=torch.float64)
    state = torch.get_rng_state().numpy()
    expected = torch.randn(5).numpy()
    picotorch.set_rng_state(picotorch.tensor(state))
    np.testing.assert_array_equal(picotorch.randn(5).numpy(), expected)


@pytest.mark.parametrize("state", ["short", "float", "list"])
def test_set_rng_state_refuses_what_torch_refuses(state):
    def program(T):
        value = {"short": T.zeros(3, dtype=T.uint8), "float": T.zeros(5056), "list": [1, 2]}[state]
        return T.Generator().set_state(value)
    _same_error(program)


def test_data_loader_orders_and_the_global_stream():
    def program(T):
        data = T.utils.data
        ds = data.TensorDataset(T.arange(10), T.arange(10) * 2)
        out = []
        for _ in range(2):
            out += [b[0] for b in data.DataLoader(ds, batch_size=4, shuffle=True)]
        out.append(T.rand(2))
        out += [b[0] for b in data.DataLoader(ds, batch_size=3)] + [T.rand(2)]
        g = T.Generator().manual_seed(7)
        out += [b[0] for b in data.DataLoader(ds, batch_size=5, shuffle=True, generator=g)] + [T.rand(1)]
        out.append(list(data.RandomSampler(range(7), replacement=True, num_samples=40)))
        out += [list(s) for s in data.random_split(range(10), [3, 7], generator=T.Generator().manual_seed(42))]
        out += [list(s) for s in data.random_split(range(10), [0.3, 0.7])]
        iterator = iter(data.DataLoader(ds, batch_size=4, shuffle=True))
        return out + [T.rand(1), next(iterator)[0]]
    _same(program, seed=10)


def test_multinomial():
    def program(T):
        p = T.tensor([0.2, 0.3, 0.5])
        rows = T.tensor([[0.2, 0.3, 0.5], [1.0, 1.0, 1.0]])
        g = T.Generator().manual_seed(2147483647)  # makemore's sampling loop
        probs = T.softmax(T.randn(27, generator=g), 0)
        return [T.multinomial(p, 6, replacement=True), T.multinomial(p, 1), T.multinomial(rows, 2),
                T.multinomial(rows.double(), 5, True), T.tensor([1.0, 2.0, 3.0, 4.0]).multinomial(3),
                T.multinomial(rows.half(), 3), T.multinomial(rows.half(), 4, True),
                T.multinomial(probs, num_samples=1, replacement=True, generator=g),
                T.multinomial(probs, num_samples=20, replacement=True, generator=g), T.rand(1)]
    _same(program, seed=13)


def test_exponential_and_random_():
    def program(T):
        out = [T.empty(5).exponential_(), T.empty(5, dtype=T.float64).exponential_(3.5),
               T.empty(4, dtype=T.float16).exponential_(0.5)]
        for dtype in ("int64", "int32", "int8", "uint8", "bool", "float32", "float64", "float16", "bfloat16"):
            out.append(T.empty(6, dtype=getattr(T, dtype)).random_())
        return out + [T.empty(6, dtype=T.int32).random_(10), T.empty(6).random_(-3, 4),
                      T.empty(6, dtype=T.int16).random_(100, None), T.empty(3, dtype=T.int64).random_(-2**63, None),
                      T.empty(3).random_(-2**63, None), T.empty(4).random_(-5, None), T.empty(3, 2).t().random_(9)]
    _same(program, seed=14)


def test_normal_with_tensor_parameters():
    def program(T):
        out = T.empty(4)
        return [T.normal(T.arange(4.0), 0.5), T.normal(2.0, T.arange(1.0, 5.0)),
                T.normal(T.arange(4.0), T.arange(1.0, 5.0)), T.normal(T.zeros(2, 1), T.ones(3)),
                T.normal(2.0, 3.0, size=(3,)), T.normal(2.0, 3.0, (20,), dtype=T.float64),
                T.normal(T.arange(20.0), 2.0), T.normal(1.0, 2.0, (4,), out=out), out]
    _same(program, seed=15)


def test_gradients_of_random_ops_are_zero_as_torchs():
    def program(T):
        m, s = T.ones(3, requires_grad=True), T.ones(3, requires_grad=True)
        names = []
        for draw in (lambda: T.normal(m, 1.0), lambda: T.normal(1.0, s), lambda: T.normal(m, s)):
            r = draw()
            names.append(r.grad_fn.name())
            r.sum().backward()
        for method in ("random_(2, 5)", "random_(5)", "random_()", "exponential_()"):
            names.append(eval("y." + method, {"y": T.ones(3, requires_grad=True) * 1}).grad_fn.name())
        return names + [m.grad, s.grad]
    _same(program, seed=16)


@pytest.mark.parametrize("program", [
    "T.multinomial(T.tensor([1, 2]), 1)", "T.multinomial(T.ones(2, 2, 2), 1)", "T.multinomial(T.ones(2), 0)",
    "T.multinomial(T.ones(2), 3)", "T.multinomial(T.tensor([0., 0.]), 1)", "T.multinomial(T.tensor([-1., 2.]), 1)",
    "T.multinomial(T.tensor([-1., 2.]), 2, True)", "T.multinomial(T.tensor([0., 0.]), 2, True)",
    "T.multinomial(T.tensor([float('nan'), 1.]), 1)", "T.multinomial(T.tensor([float('inf'), 1.]), 2, True)",
    "T.normal(T.ones(2), -1.)", "T.normal(T.ones(2), T.tensor([1., -1.]))", "T.normal(1., T.tensor([1., -1.]))",
    "T.normal(T.ones(2), T.ones(3))", "T.normal(1, 2)", "T.ones(2).exponential_(-1.)", "T.ones(2).exponential_(0.)",
    "T.ones(2, dtype=T.int64).exponential_()", "T.ones(2).random_(5, 2)", "T.ones(2, dtype=T.int8).random_(0, 300)",
    "T.ones(2, dtype=T.int8).random_(200, None)", "T.ones(2, dtype=T.int32).random_(-2**63, None)",
    "T.ones(2, dtype=T.float16).random_(70000, None)"])
def test_bad_random_calls_raise_torchs_errors(program):
    _same_error(lambda T: eval(program, {"T": T}))


@pytest.mark.parametrize("args", [(), (0.0, 1.0, -2.0, 2.0), (0.0, 1.0, 1.5, 3.0), (0.5, 0.1, -1, 0.2), (0.0, 0.02)],
                         ids=str)
@pytest.mark.filterwarnings("ignore:mean is more than 2 std")
def test_trunc_normal_rejects_as_torch(args):
    """Both branches: redrawing the normals outside [a, b], and uniform draws accepted by the density."""
    _same(lambda T: [T.nn.init.trunc_normal_(T.empty(50), *args),
                     T.nn.init.trunc_normal_(T.empty(4, 7, dtype=T.float64), *args)], seed=17)


def test_eye_dirac_sparse_and_the_deprecated_names():
    def program(T):
        init = T.nn.init
        with pytest.warns(FutureWarning) as record:
            old = [init.normal(T.empty(3)), init.xavier_uniform(T.empty(2, 3)), init.constant(T.empty(2), 0.5)]
        return old + [str(w.message) for w in record] + [
            init.eye_(T.empty(3, 5)), init.dirac_(T.empty(4, 2, 3, 3), 2), init.dirac_(T.empty(2, 2, 3)),
            init.dirac_(T.empty(2, 3, 3, 3, 3)), init.sparse_(T.empty(6, 4), 0.5), init.normal.__name__]
    _same(program, seed=18)


@pytest.mark.parametrize("program", ["init.eye_(T.empty(3))", "init.dirac_(T.empty(3, 3))",
                                     "init.dirac_(T.empty(3, 2, 3), 2)", "init.sparse_(T.empty(3), 0.1)"])
def test_init_refuses_what_torch_refuses(program):
    _same_error(lambda T: eval(program, {"T": T, "init": T.nn.init}))


def test_torch_random_module_and_fork_rng():
    def program(T):
        before = T.rand(2)
        with T.random.fork_rng():
            inside = T.randn(3)
        with T.random.fork_rng(enabled=False):
            T.rand(1)
        return [before, inside, T.rand(2), T.random.initial_seed(), T.manual_seed.__module__.split(".")[-1],
                sorted(set(T.random.__all__) - {"thread_safe_generator"}),  # (picotorch has no thread_safe_generator)
                type(T.Generator()).__qualname__, type(T.Generator()).__module__.split(".")[-1]]
    _same(program, seed=19)


def test_out_kernels_that_resize_without_a_warning():
    def program(T):
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results = [T.eye(2, out=T.empty(5)), T.eye(2, 3, out=T.empty(1)),
                       T.multinomial(T.ones(3), 2, out=T.empty(5, dtype=T.int64)),
                       T.normal(1.0, 2.0, (4,), out=T.empty(3)), T.add(T.ones(2), 1, out=T.empty(3))]
        return results + [len(caught)]
    _same(program, seed=20)
