"""Collectives on a tensor of another device: the ``cuda`` device type backed by ``array_api_strict``.

No GPU here (DESIGN.md): a "cuda" tensor's values live in ``array_api_strict`` arrays on a device of
their own, as CuPy's would. The collective reads them to the host, reduces, and writes the result back
on the tensor's own device (Horovod without NCCL does the same through host memory).
"""

import numpy as np
import pytest

import picotorch as torch
import picotorch.distributed as hvd

xps = pytest.importorskip("array_api_strict")

from picotorch.native.device import use_backend  # noqa: E402


@pytest.fixture
def fake_cuda():
    with use_backend("cuda", xps, [xps.Device("device1"), xps.Device("device2")]):
        yield


def _allreduce_on_device():
    hvd.init()
    g = torch.full((4,), float(hvd.rank() + 1), device="cuda")
    hvd.allreduce_(g, name="g", op=hvd.Sum)
    averaged = hvd.allreduce(g, name="h")
    hvd.broadcast_(g, root_rank=1, name="b")
    out = (str(g.device), g.cpu().tolist(), str(averaged.device), averaged.cpu().tolist())
    hvd.shutdown()
    return out


def test_a_cuda_tensor_is_reduced_through_the_host_and_stays_on_its_device(fake_cuda):
    for device, values, averaged_device, averaged in hvd.launch(_allreduce_on_device, 2, timeout=20):
        assert device == averaged_device == "cuda:0"
        assert values == [3.0] * 4 and averaged == [3.0] * 4


def test_the_distributed_optimizer_averages_cuda_gradients(fake_cuda):
    def train():
        hvd.init()
        w = torch.nn.Parameter(torch.ones(3, device="cuda"))
        optimizer = hvd.DistributedOptimizer(torch.optim.SGD([w], lr=1.0), named_parameters=[("w", w)])
        (w * (hvd.rank() + 1.0)).sum().backward()
        optimizer.step()
        out = str(w.device), w.detach().cpu().numpy().tolist()
        hvd.shutdown()
        return out
    for device, values in hvd.launch(train, 2, timeout=20):
        assert device == "cuda:0"
        np.testing.assert_allclose(values, [1.0 - 1.5] * 3)  # gradient (1 + 2) / 2 on every rank
