"""``device='cuda:0'`` without a GPU: the ``cuda`` device type backed by ``array_api_strict`` devices.

torch's CPU build cannot make a CUDA tensor, so the expected strings are built from torch's own
pieces: the body of the same tensor on the CPU, the suffixes in the order ``_str_intern`` appends
them (device first), placed by torch's ``_add_suffixes``.
"""

from __future__ import annotations

import numpy as np
import pytest

import picotorch
from picotorch.native.device import use_backend

xps = pytest.importorskip("array_api_strict")


@pytest.fixture
def fake_cuda():
    with use_backend("cuda", xps, [xps.Device("device1"), xps.Device("device2")]):
        yield


def test_cuda_copy_prints_device_and_to_copy(fake_cuda):
    x = picotorch.ones(2, 3, requires_grad=True)
    assert repr(x) == "tensor([[1., 1., 1.],\n        [1., 1., 1.]], requires_grad=True)"
    assert repr(x.cuda()) == "tensor([[1., 1., 1.],\n        [1., 1., 1.]], device='cuda:0', grad_fn=<ToCopyBackward0>)"
    assert repr(x.to("cuda:1")) == (
        "tensor([[1., 1., 1.],\n        [1., 1., 1.]], device='cuda:1', grad_fn=<ToCopyBackward0>)"
    )


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: picotorch.zeros(0, 3, device="cuda"), "tensor([], device='cuda:0', size=(0, 3))"),
        (
            lambda: picotorch.zeros(0, device="cuda", dtype=picotorch.int64),
            "tensor([], device='cuda:0', dtype=torch.int64)",
        ),
        (
            lambda: picotorch.tensor([1, 2], dtype=picotorch.int8, device="cuda"),
            "tensor([1, 2], device='cuda:0', dtype=torch.int8)",
        ),
        (lambda: picotorch.tensor(3.5, device="cuda:1"), "tensor(3.5000, device='cuda:1')"),
        (lambda: picotorch.tensor([True, False], device="cuda"), "tensor([ True, False], device='cuda:0')"),
        (
            lambda: picotorch.tensor(np.arange(10_000), device="cuda"),
            "tensor([   0,    1,    2,  ..., 9997, 9998, 9999], device='cuda:0')",
        ),
        (
            lambda: picotorch.tensor([1.0, 2.0], dtype=picotorch.float64, device="cuda", requires_grad=True),
            "tensor([1., 2.], device='cuda:0', dtype=torch.float64, requires_grad=True)",
        ),
    ],
)
def test_device_suffix_comes_first(fake_cuda, make, expected):
    assert repr(make()) == expected


@pytest.mark.parametrize("linewidth", range(30, 90, 3))
def test_device_suffix_wraps_like_torch(fake_cuda, linewidth):
    torch = pytest.importorskip("torch")
    values = np.linspace(-1, 1, 6, dtype=np.float32)
    with picotorch._tensor_str.printoptions(linewidth=linewidth), torch._tensor_str.printoptions(linewidth=linewidth):
        ours = repr(picotorch.tensor(values, requires_grad=True).to("cuda"))
        body = torch._tensor_str._tensor_str(torch.tensor(values), 7)
        expected = torch._tensor_str._add_suffixes(
            "tensor(" + body, ["device='cuda:0'", "grad_fn=<ToCopyBackward0>"], 7, False
        )
    assert ours == expected


def test_real_gpu_if_there_is_one():
    if not picotorch.cuda.is_available():
        pytest.skip("no CUDA GPU: the fake_cuda tests above cover the printing rules")
    assert repr(picotorch.ones(2, device="cuda")) == "tensor([1., 1.], device='cuda:0')"
