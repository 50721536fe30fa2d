"""The paths taken for speed (bench/bench_training.py) against PyTorch, and against picotorch's general path.

A big float32 ``log_softmax`` and its backward (float32 steps by blocks of rows, NOTE [Matching PyTorch's
float32 softmax]); ``nll_loss``'s cascade sum over a big batch, a level at a time (NOTE [Cascade sum of
nll_loss]), with ignored targets and class weights; a ``DataLoader`` over a ``TensorDataset`` gathering a
batch's rows in one ``index`` per tensor; the optimizers' ``addcmul_``/``addcdiv_``/``lerp_`` on arrays of
one dtype and shape; ``add(x, y, alpha=a)`` and an SGD step through the block-by-block fused multiply-add.
"""

import threading

import numpy as np
import pytest

import picotorch
from picotorch.native import soft_max

torch = pytest.importorskip("torch")

BIG = (700, 400)  # 280 000 elements: above soft_max._EXACT_EXP_LIMIT
F32_LOG_SOFTMAX_AGREEMENT = 0.90  # measured: 91% of the values exactly PyTorch's (92.5% below the limit)


def _logits(shape, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(np.float32)


def test_the_big_shape_takes_the_fast_path():
    assert BIG[0] * BIG[1] > soft_max._EXACT_EXP_LIMIT


@pytest.mark.parametrize("dim", [1, 0, -1])
def test_big_float32_log_softmax_and_its_gradient_are_pytorchs(dim):
    x, g = _logits(BIG), _logits(BIG, 1)
    out = []
    for T in (picotorch, torch):
        leaf = T.tensor(x, requires_grad=True)
        y = T.log_softmax(leaf, dim)
        y.backward(T.tensor(g))
        out.append((y.detach().numpy(), leaf.grad.numpy(), type(y.grad_fn).__name__, str(y.dtype)))
    (y, grad, node, dtype), (ty, tgrad, tnode, tdtype) = out
    assert (node, dtype) == (tnode, tdtype) == ("LogSoftmaxBackward0", "torch.float32")
    assert np.mean(y == ty) >= F32_LOG_SOFTMAX_AGREEMENT
    np.testing.assert_allclose(y, ty, rtol=1e-6, atol=3e-7)
    np.testing.assert_allclose(grad, tgrad, rtol=1e-5, atol=1e-5)  # g - exp(y) * sum(g): sums near 20 cancel


def test_big_log_softmax_of_a_transposed_input_is_pytorchs():
    """A copy made contiguous first, as PyTorch's kernel does (the sums then add in its order); the result
    is contiguous, whatever the input's strides, below the limit too."""
    x = _logits(BIG[::-1])
    out = []
    for T in (picotorch, torch):
        big, small = T.log_softmax(T.tensor(x).t(), 1), T.log_softmax(T.tensor(x[:9, :5]).t(), 1)
        out.append((big.numpy(), big.stride(), small.stride()))
    assert out[0][1:] == out[1][1:]
    assert np.mean(out[0][0] == out[1][0]) >= F32_LOG_SOFTMAX_AGREEMENT


def test_big_cross_entropy_step_is_pytorchs():
    """The benchmark's program, smaller: the loss prints as PyTorch's, the gradient within float32 noise."""
    x = _logits((300, 1000))
    t = np.random.default_rng(2).integers(0, 1000, 300)
    out = []
    for T in (picotorch, torch):
        leaf = T.tensor(x, requires_grad=True)
        loss = T.nn.functional.cross_entropy(leaf, T.tensor(t))
        loss.backward()
        out.append((repr(loss), leaf.grad.numpy()))
    assert out[0][0] == out[1][0]
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("n", [129, 257, 4097, 70001])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("weighted,ignored", [(False, 0.0), (True, 0.0), (False, 0.3), (True, 0.95)])
def test_nll_loss_cascade_over_a_big_batch_is_pytorchs_to_the_last_bit(n, dtype, weighted, ignored):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, 3)) * 10
    t = rng.integers(0, 3, n)
    t[rng.random(n) < ignored] = -100
    w = rng.random(3) + 0.5
    out = []
    for T in (picotorch, torch):
        weight = T.tensor(w, dtype=getattr(T, dtype)) if weighted else None
        for reduction in ("sum", "mean"):
            loss = T.nn.functional.nll_loss(T.tensor(x, dtype=getattr(T, dtype)), T.tensor(t), weight,
                                            reduction=reduction)
            out.append((repr(loss), loss.item()))
    assert out[:2] == out[2:]


def _tensors(T, requires_grad=False, transposed=False):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 7)).astype(np.float32)
    features = T.tensor(x.T) if not transposed else T.tensor(x).t()
    return features.requires_grad_(requires_grad), T.tensor(np.arange(7) % 3)


@pytest.mark.parametrize("requires_grad,transposed", [(False, False), (True, False), (False, True)])
def test_tensor_dataset_batches_are_pytorchs(requires_grad, transposed):
    """Values, dtypes, shapes, strides, graph: the gathered batch (first case) is what stack makes."""
    out = []
    for T in (picotorch, torch):
        dataset = T.utils.data.TensorDataset(*_tensors(T, requires_grad, transposed))
        batches = []
        for batch in T.utils.data.DataLoader(dataset, batch_size=3):
            batches.append([(type(batch).__name__, b.detach().numpy().tolist(), str(b.dtype), tuple(b.shape),
                             b.stride(), b.is_contiguous(), type(b.grad_fn).__name__) for b in batch])
        out.append(batches)
    assert out[0] == out[1]


def test_shuffled_tensor_dataset_batches_are_the_samples_in_the_sampler_order():
    """The same generator seed gives torch's order (the loader's base seed is drawn first, then the
    permutation); each batch is the samples at those indices."""
    batches = {}
    for lib in (picotorch, torch):
        dataset = lib.utils.data.TensorDataset(*_tensors(lib))
        loader = lib.utils.data.DataLoader(dataset, batch_size=3, shuffle=True,
                                           generator=lib.Generator().manual_seed(5))
        batches[lib] = [(b[0].numpy(), b[1].numpy()) for b in loader]
    assert [len(b[1]) for b in batches[picotorch]] == [3, 3, 1]
    for ours, theirs in zip(batches[picotorch], batches[torch], strict=True):
        np.testing.assert_array_equal(ours[0], theirs[0])
        np.testing.assert_array_equal(ours[1], theirs[1])


def test_a_subclass_or_own_collate_still_sees_every_sample():
    seen = []

    class Logged(picotorch.utils.data.TensorDataset):
        def __getitem__(self, index):
            seen.append(index)
            return super().__getitem__(index)

    dataset = Logged(*_tensors(picotorch))
    list(picotorch.utils.data.DataLoader(dataset, batch_size=4))
    assert seen == list(range(7))
    plain = picotorch.utils.data.TensorDataset(*_tensors(picotorch))
    batches = list(picotorch.utils.data.DataLoader(plain, batch_size=4, collate_fn=lambda samples: samples))
    assert [len(b) for b in batches] == [4, 3] and all(isinstance(s, tuple) for s in batches[0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op,args", [("addcmul_", (0.3,)), ("addcmul_", (2,)), ("addcdiv_", (-0.01,)),
                                     ("lerp_", (0.1,)), ("lerp_", (0.75,)), ("lerp_", (-2.5,))])
def test_optimizer_pointwise_ops_are_pytorchs(dtype, op, args):
    """One dtype and shape everywhere (the fast path): PyTorch's values and version counter."""
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal((40, 50)) for _ in range(3))
    out = []
    for T in (picotorch, torch):
        self, t1, t2 = (T.tensor(v, dtype=getattr(T, dtype)) for v in (a, b, np.abs(c) + 0.1))
        version = self._version
        with T.no_grad():
            if op == "lerp_":
                result = self.lerp_(t1, *args)
            else:
                result = getattr(self, op)(t1, t2, value=args[0])
        out.append((result is self, self._version - version, self.numpy().copy()))
    assert out[0][:2] == out[1][:2] == (True, 1)
    if dtype == "float32":  # PyTorch's fused multiply-adds, emulated exactly through float64
        np.testing.assert_array_equal(out[0][2], out[1][2])
    else:  # PyTorch fuses them in float64 too, which NumPy cannot: a unit in the last place apart
        np.testing.assert_allclose(out[0][2], out[1][2], rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("op", ["addcmul_", "addcdiv_", "lerp_"])
def test_optimizer_pointwise_ops_fast_and_general_paths_agree(op):
    """Operands broadcast from one row take the general path: the same values as the fast one, row for row."""
    rng = np.random.default_rng(4)
    a, b, c = rng.standard_normal((3, 6, 9)).astype(np.float32)
    c = np.abs(c) + 0.5

    def apply(target, t1, t2):
        with picotorch.no_grad():
            target.lerp_(t1, 0.3) if op == "lerp_" else getattr(target, op)(t1, t2, value=0.7)
        return target.numpy()

    fast = apply(picotorch.tensor(a), picotorch.tensor(b), picotorch.tensor(c))
    for i in range(6):
        general = apply(picotorch.tensor(a[i:i + 1]), picotorch.tensor(b[i]), picotorch.tensor(c[i]))
        np.testing.assert_array_equal(general[0], fast[i])


# ``fused_multiply_add`` block by block (native/helpers.py): a large same-shape ``a * b + c`` with a scalar ``b``.
@pytest.mark.parametrize("size", [4095, 4096, 65536, 100_000, 131_073])
@pytest.mark.parametrize("alpha", [-1e-3, 0.37, 3.0])
def test_add_with_alpha_on_large_float32_tensors_has_pytorchs_fused_bits(size, alpha):
    rng = np.random.default_rng(size)
    x = (rng.standard_normal(size) * 10.0 ** rng.uniform(-4, 4, size)).astype(np.float32)
    y = (rng.standard_normal(size) * 10.0 ** rng.uniform(-4, 4, size)).astype(np.float32)
    x[:3], y[:3] = [-0.0, np.inf, np.nan], [0.0, 1.0, 2.0]
    ours = picotorch.add(picotorch.tensor(x), picotorch.tensor(y), alpha=alpha).numpy()
    theirs = torch.add(torch.tensor(x), torch.tensor(y), alpha=alpha).numpy()
    assert np.array_equal(ours.view(np.int32), theirs.view(np.int32))


# ``add_``/``sub_`` with an alpha on a large float32 tensor write the fused result into ``self``'s own memory
# (binary_ops._fused_in_place): the same bits as torch, with ``other`` apart from ``self`` or ``self`` itself.
@pytest.mark.parametrize("op", ["add_", "sub_"])
@pytest.mark.parametrize("alpha", [-1e-3, 0.37, 2, -7])
@pytest.mark.parametrize("aliased", [False, True])
def test_in_place_add_and_sub_with_alpha_have_pytorchs_fused_bits(op, alpha, aliased):
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((320, 320)) * 10.0 ** rng.uniform(-4, 4, (320, 320))).astype(np.float32)
    y = (rng.standard_normal((320, 320)) * 10.0 ** rng.uniform(-4, 4, (320, 320))).astype(np.float32)
    x[0, :4], y[0, :4] = [-0.0, np.inf, np.nan, 3e38], [0.0, 1.0, 2.0, 3e38]
    results = []
    for T in (picotorch, torch):
        target = T.tensor(x)
        getattr(target, op)(target if aliased else T.tensor(y), alpha=alpha)
        results.append(target.numpy())
    assert np.array_equal(results[0].view(np.int32), results[1].view(np.int32))


# Block by block, ``fused_multiply_add`` also takes two arrays and a scalar (``1 - y * y``...): the bits of a
# large tensor are those of the same values cut into pieces too small for the blockwise path.
@pytest.mark.parametrize("program", ["gelu_tanh", "addcmul_", "lerp_scalar"])
def test_blockwise_fused_multiply_add_has_the_whole_array_bits(program):
    rng = np.random.default_rng(13)
    x, y, z = ((rng.standard_normal(3 * 4000) * 3).astype(np.float32) for _ in range(3))

    def apply(a, b, c):
        if program == "gelu_tanh":
            a.requires_grad_()
            out = picotorch.nn.functional.gelu(a, approximate="tanh")
            out.backward(b)
            return np.concatenate([out.detach().numpy(), a.grad.numpy()])
        if program == "addcmul_":
            return a.addcmul_(b, c, value=0.3).numpy()
        return a.lerp_(b, 0.7).numpy()

    whole = apply(*(picotorch.tensor(v) for v in (x, y, z)))
    pieces = [apply(*(picotorch.tensor(v[i:i + 4000]) for v in (x, y, z))) for i in range(0, 12000, 4000)]
    if program == "gelu_tanh":
        pieces = [np.concatenate([p[:4000] for p in pieces]), np.concatenate([p[4000:] for p in pieces])]
    assert np.array_equal(whole.view(np.int32), np.concatenate(pieces).view(np.int32))


def test_sgd_steps_on_rank_threads_have_pytorchs_bits():
    # The fused update's float64 scratch is kept per thread: two threads stepping at once must not share it.
    rng = np.random.default_rng(5)
    p = [rng.standard_normal((320, 320)).astype(np.float32) for _ in range(4)]
    g = [rng.standard_normal((320, 320)).astype(np.float32) for _ in range(4)]

    def train(T, i):
        param = T.tensor(p[i], requires_grad=True)
        optimizer = T.optim.SGD([param], lr=0.01, momentum=0.9)
        for _ in range(20):
            param.grad = T.tensor(g[i])
            optimizer.step()
        return param.detach().numpy()

    ours = [None] * 4
    threads = [threading.Thread(target=lambda i=i: ours.__setitem__(i, train(picotorch, i))) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for i in range(4):
        assert np.array_equal(ours[i].view(np.int32), train(torch, i).view(np.int32))


def test_a_large_sgd_step_and_lerp_have_pytorchs_bits():
    rng = np.random.default_rng(7)
    p, g = rng.standard_normal((320, 320)).astype(np.float32), rng.standard_normal((320, 320)).astype(np.float32)
    results = []
    for T in (picotorch, torch):
        param = T.tensor(p, requires_grad=True)
        param.grad = T.tensor(g)
        T.optim.SGD([param], lr=0.01).step()
        lerped = T.tensor(p).lerp_(T.tensor(g), 0.3)
        results.append((param.detach().numpy(), lerped.numpy()))
    for ours, theirs in zip(*results):
        assert np.array_equal(ours.view(np.int32), theirs.view(np.int32))
