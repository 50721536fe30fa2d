"""DDP's bucketed reducer (``picotorch.distributed.ddp``, PyTorch's ``distributed.py`` and ``reducer.cpp``)."""

import re

import numpy as np
import pytest

import picotorch as pt
import picotorch.distributed as hvd
from picotorch.distributed.ddp import DistributedDataParallel, compute_bucket_assignment_by_size

RNG = np.random.default_rng(7)
X = RNG.standard_normal((8, 5)).astype(np.float32)
Y = RNG.standard_normal((8, 3)).astype(np.float32)


def make_model():
    pt.manual_seed(0)
    return pt.nn.Sequential(pt.nn.Linear(5, 7), pt.nn.Tanh(), pt.nn.Linear(7, 6), pt.nn.Tanh(), pt.nn.Linear(6, 3))


WEIGHTS = {name: value.numpy().copy() for name, value in make_model().state_dict().items()}


def model_with_weights():
    """The same weights on every rank thread (seeding in threads would race: draw once, copy here)."""
    model = make_model()
    model.load_state_dict({name: pt.from_numpy(value.copy()) for name, value in WEIGHTS.items()})
    return model


def full_batch_grads(batches):
    """Single process: the sum over ``batches`` of the gradient of the mean loss over all 8 rows."""
    model = model_with_weights()
    for x, y in batches:
        ((model(pt.from_numpy(x)) - pt.from_numpy(y)) ** 2).mean().backward()
    return [p.grad.numpy().copy() for p in model.parameters()]


def local_rows(array):
    chunk = len(array) // hvd.size()
    return pt.from_numpy(array[hvd.rank() * chunk:(hvd.rank() + 1) * chunk].copy())


def _ddp_step(bucket_cap_mb):
    hvd.init()
    ddp = DistributedDataParallel(model_with_weights(), bucket_cap_mb=bucket_cap_mb)
    ((ddp(local_rows(X)) - local_rows(Y)) ** 2).mean().backward()
    grads = [p.grad.numpy().copy() for p in ddp.parameters()]
    buckets = ddp.reducer.bucket_indices
    hvd.shutdown()
    return grads, buckets


@pytest.mark.parametrize("world_size", [2, 4])
def test_gradients_equal_single_process_full_batch(world_size):
    expected = full_batch_grads([(X, Y)])
    # 60 bytes per bucket: several buckets, launched in order
    for grads, buckets in hvd.launch(_ddp_step, world_size, 60e-6, timeout=20):
        assert len(buckets) > 2
        for got, want in zip(grads, expected):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _bucket_indices(model, bucket_cap_mb):
    hvd.init()
    indices = DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb).reducer.bucket_indices
    hvd.shutdown()
    return indices


def test_buckets_are_in_reverse_parameter_order_with_a_small_bucket_for_the_first_parameters():
    pt.manual_seed(0)
    # parameters: w0 4x600 (9600 B), b0, w1 600x600 (1.44 MB), b1, w2 4x600, b2
    model = pt.nn.Sequential(pt.nn.Linear(4, 600), pt.nn.Linear(600, 600), pt.nn.Linear(600, 4))
    (buckets,) = hvd.launch(_bucket_indices, 1, model, None, timeout=20)
    # default cap 25 MiB, but the bucket of the first parameters closes at 1 MiB; reduced last
    assert buckets == [[3, 4, 5], [0, 1, 2]]
    (buckets,) = hvd.launch(_bucket_indices, 1, model, 1.0, timeout=20)
    assert buckets == [[3, 4, 5], [0, 1, 2]]  # an explicit cap applies to every bucket
    (buckets,) = hvd.launch(_bucket_indices, 1, model, 25.0, timeout=20)
    assert buckets == [[0, 1, 2, 3, 4, 5]]


def test_bucket_assignment_follows_torchs_rule():
    torch = pytest.importorskip("torch")
    dist = pytest.importorskip("torch.distributed")
    assert dist._DEFAULT_FIRST_BUCKET_BYTES == 1024 * 1024
    sizes = [(1000, "float32"), (10, "float64"), (5000, "float32"), (3, "float64"), (300000, "float32"), (7, "float32"),
             (250, "float64"), (2, "float32")]
    ours = [pt.zeros(n, dtype=getattr(pt, dtype)) for n, dtype in sizes]
    theirs = [torch.zeros(n, dtype=getattr(torch, dtype)) for n, dtype in sizes]
    for limits in ([4000, 40000], [1024 * 1024, 25 * 1024 * 1024], [100], [4004, 4000], [50, 1200, 30000]):
        assert compute_bucket_assignment_by_size(ours, limits) == tuple(
            list(x) for x in dist._compute_bucket_assignment_by_size(theirs, limits))
        order = [5, 3, 7, 0, 1, 2, 6, 4]
        assert compute_bucket_assignment_by_size([ours[i] for i in order], limits, order) == tuple(
            list(x) for x in dist._compute_bucket_assignment_by_size([theirs[i] for i in order], limits, [], order))


class TwoHeads(pt.nn.Module):
    """A module whose second head takes no part in the loss."""

    def __init__(self):
        super().__init__()
        self.body = pt.nn.Linear(5, 4)
        self.unused = pt.nn.Linear(4, 2)

    def forward(self, x):
        return self.body(x)


def _unused_parameter_steps(find_unused_parameters):
    hvd.init()
    pt.manual_seed(0)
    ddp = DistributedDataParallel(TwoHeads(), find_unused_parameters=find_unused_parameters)
    x = pt.from_numpy(X[:, :5].copy())
    try:
        for _ in range(2):
            ddp(x).sum().backward()
        return [p.grad is None for p in ddp.parameters()]
    finally:
        hvd.shutdown()


def test_a_parameter_whose_hook_never_fired_fails_the_next_forward():
    with pytest.raises(RuntimeError) as error:
        hvd.launch(_unused_parameter_steps, 2, False, timeout=20)
    message = str(error.value)
    assert message.startswith("Expected to have finished reduction in the prior iteration before starting a new "
                              "one. This error indicates that your module has parameters that were not used in "
                              "producing loss. You can enable unused parameter detection by passing the keyword "
                              "argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`")
    assert re.search(r"\nParameter indices which did not receive grad for rank [01]: 2 3$", message)  # either rank


def test_find_unused_parameters_reduces_the_used_ones_and_leaves_the_rest():
    for no_grad in hvd.launch(_unused_parameter_steps, 2, True, timeout=20):
        assert no_grad == [False, False, True, True]


def _accumulate_then_sync():
    hvd.init()
    ddp = DistributedDataParallel(model_with_weights(), bucket_cap_mb=60e-6)
    batches = [(X, Y), (X[::-1].copy(), Y), (X, Y[::-1].copy())]
    with ddp.no_sync():
        for x, y in batches[:2]:
            ((ddp(local_rows(x)) - local_rows(y)) ** 2).mean().backward()
    local_after_no_sync = [p.grad.numpy().copy() for p in ddp.parameters()]
    x, y = batches[2]
    ((ddp(local_rows(x)) - local_rows(y)) ** 2).mean().backward()
    grads = [p.grad.numpy().copy() for p in ddp.parameters()]
    hvd.shutdown()
    return local_after_no_sync, grads


def test_no_sync_accumulates_locally_and_the_next_backward_averages_the_sum():
    expected = full_batch_grads([(X, Y), (X[::-1].copy(), Y), (X, Y[::-1].copy())])
    results = hvd.launch(_accumulate_then_sync, 2, timeout=20)
    assert not np.allclose(results[0][0][0], results[1][0][0])  # no communication inside no_sync
    for _, grads in results:
        for got, want in zip(grads, expected):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
