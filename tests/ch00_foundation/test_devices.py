"""Device handling without a GPU: the ``cuda`` device type backed by ``array_api_strict``'s devices.

``array_api_strict`` allows only what the Array API standard allows and keeps arrays of different
devices apart, so every op of the op table that runs here is portable to CuPy, and device mismatches
surface exactly where PyTorch reports them.
"""

import numpy as np
import pytest

import picotorch

xps = pytest.importorskip("array_api_strict")

from op_cases import CASES, _graph  # noqa: E402

from picotorch.native.device import use_backend  # noqa: E402

STRICT_SKIP = {"index", "index_mask"}  # integer-array indexing is outside the Array API standard
# strides are outside the standard too, and these graphs follow them: a transposed array is row-major there
STRICT_SKIP |= {"reshape_alias", "matmul_2d_3d", "as_strided", "as_strided_", "fill_diagonal"}
# writes through a view of a copy (a diagonal there is a copy; circular padding copies into slices), or NumPy's
# cross and row moves
STRICT_SKIP |= {"diagonal_scatter", "index_copy", "linalg_cross", "circular_pad"}
# copy_ into slices of a new tensor (pad_packed_sequence): in-place writes through views need strides
STRICT_SKIP |= {"pack_padded_sequence"}


@pytest.fixture
def fake_cuda():
    with use_backend("cuda", xps, [xps.Device("device1"), xps.Device("device2")]):
        yield


def _run_on(device, name):
    arrays, fn = CASES[name]
    leaves = [picotorch.tensor(a, dtype=picotorch.float64, device=device, requires_grad=True) for a in arrays]
    out = fn(picotorch, *leaves)
    out.backward(picotorch.ones_like(out))
    return leaves, out


@pytest.mark.parametrize("name", sorted(set(CASES) - STRICT_SKIP))
def test_op_runs_on_another_device_like_on_cpu(fake_cuda, name):
    cpu_leaves, cpu_out = _run_on("cpu", name)
    dev_leaves, dev_out = _run_on("cuda", name)
    assert str(dev_out.device) == "cuda:0"
    assert _graph(dev_out) == _graph(cpu_out)
    np.testing.assert_allclose(dev_out.detach().cpu().numpy(), cpu_out.detach().numpy(), rtol=1e-12)
    for d, c in zip(dev_leaves, cpu_leaves):
        if c.grad is None:  # e.g. where's condition: no gradient flows to it
            assert d.grad is None
            continue
        assert str(d.grad.device) == "cuda:0"
        np.testing.assert_allclose(d.grad.cpu().numpy(), c.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_cuda_copy_is_not_a_leaf_and_grad_flows_back_to_cpu(fake_cuda):
    x = picotorch.ones(2, 3, requires_grad=True)
    y = x.cuda()
    assert y.grad_fn.name() == "ToCopyBackward0" and not y.is_leaf
    assert repr(y).endswith("device='cuda:0', grad_fn=<ToCopyBackward0>)")
    (y * 3).sum().backward()
    assert x.grad.device.type == "cpu" and x.grad.tolist() == [[3.0] * 3] * 2


def test_module_cuda_keeps_parameters_leaves(fake_cuda):
    lin = picotorch.nn.Linear(3, 2).cuda()
    assert lin.weight.is_leaf and str(lin.weight.device) == "cuda:0"
    lin(picotorch.ones(4, 3, device="cuda")).sum().backward()
    assert str(lin.weight.grad.device) == "cuda:0"


def test_mixed_devices_raise_like_pytorch(fake_cuda):
    a = picotorch.ones(2, device="cuda:0")
    b = picotorch.ones(2, device="cuda:1")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at least "
                                           "two devices, cuda:0 and cuda:1!"):
        a + b
    with pytest.raises(RuntimeError, match="cuda:0 and cpu!"):
        a * picotorch.ones(2)


def test_cpu_scalars_mix_with_any_device(fake_cuda):
    a = picotorch.ones(2, device="cuda")
    assert str((a + picotorch.tensor(2.0)).device) == "cuda:0"
    assert str((a * 2).device) == "cuda:0"


def test_like_factories_follow_the_input_or_the_device_argument(fake_cuda):
    x = picotorch.ones(2, 3, device="cuda:1")
    assert str(picotorch.zeros_like(x).device) == "cuda:1"
    assert str(picotorch.ones_like(x, device="cpu").device) == "cpu"


def test_numpy_of_a_cuda_tensor_is_refused(fake_cuda):
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        picotorch.ones(2, device="cuda").numpy()


def test_without_a_gpu_cuda_tensors_raise_and_is_available_is_false():
    assert picotorch.cuda.is_available() is False
    with pytest.raises((AssertionError, RuntimeError)):
        picotorch.ones(2, device="cuda")


def test_a_cpu_tensor_has_no_device_index_and_device_objects_are_read_only_as_in_pytorch():
    """Every CPU tensor shares one device object (no index, even when made on ``cpu:0``); so a device's
    fields cannot be written, with PyTorch's texts."""
    torch = pytest.importorskip("torch")

    def prog(T):
        made = [repr(T.ones(1, device="cpu:0").device), repr(T.tensor([1.0], device="cpu:0").device),
                repr(T.zeros(1).to("cpu:0").device), repr(T.device("cpu:0"))]
        errors = []
        for attr in ("type", "index", "nothing"):
            try:
                setattr(T.device("cpu"), attr, "cuda")
            except AttributeError as e:
                errors.append(str(e))
        try:
            del T.device("cpu").type
        except AttributeError as e:
            errors.append(str(e))
        return made, errors
    assert prog(picotorch) == prog(torch)


def test_read_only_devices_still_copy_deepcopy_and_pickle():
    """Read-only fields must not break the copy protocols: a model deep-copied keeps working."""
    import copy
    import pickle
    torch = pytest.importorskip("torch")

    def prog(T):
        devices = [T.device("cpu"), T.device("cuda", 1), T.device("cpu:0")]
        round_trips = (copy.copy, copy.deepcopy, lambda d: pickle.loads(pickle.dumps(d)))
        copies = [repr(f(d)) for d in devices for f in round_trips]
        model = copy.deepcopy(T.nn.Linear(2, 3))
        return copies, repr(model.weight.device), [d == copy.deepcopy(d) for d in devices]
    assert prog(picotorch) == prog(torch)
