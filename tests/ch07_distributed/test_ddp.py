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


def _ddp_steps(bucket_cap_mb):
    """Two iterations: the first with a single bucket, the second with the buckets rebuilt from the first."""
    hvd.init()
    ddp = DistributedDataParallel(model_with_weights(), bucket_cap_mb=bucket_cap_mb)
    results = []
    for _ in range(2):
        ddp.zero_grad()
        ((ddp(local_rows(X)) - local_rows(Y)) ** 2).mean().backward()
        results.append(([p.grad.numpy().copy() for p in ddp.parameters()], ddp.reducer.bucket_indices))
    hvd.shutdown()
    return results


@pytest.mark.parametrize("world_size", [2, 4])
def test_gradients_equal_single_process_full_batch(world_size):
    expected = full_batch_grads([(X, Y)])
    # 60 bytes per bucket: after the rebuild, several buckets, launched in order
    for (grads1, buckets1), (grads2, buckets2) in hvd.launch(_ddp_steps, world_size, 60e-6, timeout=20):
        assert len(buckets1) == 1 and len(buckets2) > 2
        for grads in (grads1, grads2):
            for got, want in zip(grads, expected):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def three_layers(lib):
    # parameters: w0 600x4 (9600 B), b0, w1 600x600 (1.44 MB), b1, w2 4x600, b2
    return lib.nn.Sequential(lib.nn.Linear(4, 600), lib.nn.Linear(600, 600), lib.nn.Linear(600, 4))


def _buckets_before_and_after_rebuild(bucket_cap_mb, find_unused_parameters):
    hvd.init()
    pt.manual_seed(0)
    ddp = DistributedDataParallel(three_layers(pt), bucket_cap_mb=bucket_cap_mb,
                                  find_unused_parameters=find_unused_parameters)
    before = ddp.reducer.bucket_indices
    ddp(pt.randn(3, 4)).sum().backward()
    ddp(pt.randn(3, 4))  # the next forward rebuilds the buckets
    after = ddp.reducer.bucket_indices
    hvd.shutdown()
    return before, after


def test_buckets_are_rebuilt_in_gradient_order_with_a_small_first_bucket():
    (before, after), _ = hvd.launch(_buckets_before_and_after_rebuild, 2, None, False, timeout=20)
    # What torch 2.13 reports for this model (gloo, 1 rank): bucket_sizes '1464016', then
    # rebuilt_per_bucket_param_indices '5 4 3 2, 1 0': the first bucket closes at 1 MiB, the next at 25 MiB
    assert before == [[0, 1, 2, 3, 4, 5]]
    assert after == [[5, 4, 3, 2], [1, 0]]
    (before, after), _ = hvd.launch(_buckets_before_and_after_rebuild, 2, None, True, timeout=20)
    # find_unused_parameters: no rebuild; parameters order, the first parameters' bucket small, reversed
    assert before == after == [[3, 4, 5], [0, 1, 2]]


def test_buckets_match_torchs_ddp(tmp_path):
    torch = pytest.importorskip("torch")
    dist = pytest.importorskip("torch.distributed")
    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch.distributed with gloo is needed")
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    try:
        for cap, find_unused in ((None, False), (0.5, False), (None, True), (0.5, True)):
            torch.manual_seed(0)
            ddp = torch.nn.parallel.DistributedDataParallel(three_layers(torch), bucket_cap_mb=cap,
                                                            find_unused_parameters=find_unused)
            sizes_before = ddp._get_ddp_logging_data()["bucket_sizes"]
            for _ in range(2):  # DDP rebuilds at the second forward and logs it at the third
                ddp(torch.randn(3, 4)).sum().backward()
            ddp(torch.randn(3, 4))
            data = ddp._get_ddp_logging_data()
            before, after = hvd.launch(_buckets_before_and_after_rebuild, 1, cap, find_unused, timeout=20)[0]
            assert sizes_before == ", ".join(str(bucket_bytes(b)) for b in before)
            assert data["has_rebuilt_buckets"] == (not find_unused)
            if find_unused:
                assert before == after
            else:
                assert data["rebuilt_per_bucket_param_indices"] == ", ".join(" ".join(map(str, b)) for b in after)
    finally:
        dist.destroy_process_group()


SIZES = [600 * 4, 600, 600 * 600, 600, 4 * 600, 4]


def bucket_bytes(bucket):
    return sum(4 * SIZES[i] for i in bucket)


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
