"""picotorch.save / picotorch.load: a state_dict, an optimizer state and nested containers round-trip exactly."""

import io
from collections import OrderedDict

import numpy as np
import pytest

import picotorch

# the dtypes picotorch has (bfloat16 arrives with the dtype work of the same issue)
DTYPES = [d for d in ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]
          if hasattr(picotorch, d)]


def _round_trip(obj, tmp_path=None):
    if tmp_path is None:
        buffer = io.BytesIO()
        picotorch.save(obj, buffer)
        buffer.seek(0)
        return picotorch.load(buffer)
    path = tmp_path / "checkpoint.pt"
    picotorch.save(obj, path)
    return picotorch.load(path)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 3), (2, 3, 4)])
def test_tensors_keep_dtype_shape_and_values(dtype, shape):
    rng = np.random.default_rng(0)
    values = rng.standard_normal(shape) * 50
    t = picotorch.tensor(values).to(getattr(picotorch, dtype))
    back = _round_trip({"t": t})["t"]
    assert back.dtype == t.dtype and tuple(back.shape) == tuple(t.shape)
    assert _bytes(back) == _bytes(t)


def _bytes(t) -> bytes:
    """numpy() refuses bfloat16, as PyTorch's does: float32 holds those values exactly."""
    return (t.float() if t.dtype == picotorch.bfloat16 else t).numpy().tobytes()


def test_non_contiguous_views_save_their_values():
    base = picotorch.arange(12.0).reshape(3, 4)
    back = _round_trip([base.t(), base[:, 1]])
    np.testing.assert_array_equal(back[0].numpy(), base.t().numpy())
    np.testing.assert_array_equal(back[1].numpy(), base[:, 1].numpy())


def test_nested_containers_and_python_values(tmp_path):
    obj = OrderedDict(a={"x": [1, 2.5, float("inf"), None, True, "s"], 3: (picotorch.ones(2), -0.0)},
                      b=[{"k": 0.1 + 0.2}])
    back = _round_trip(obj, tmp_path)
    assert isinstance(back, OrderedDict) and list(back) == ["a", "b"]
    assert back["a"]["x"] == [1, 2.5, float("inf"), None, True, "s"]
    assert isinstance(back["a"][3], tuple) and str(back["a"][3][1]) == "-0.0"
    assert back["b"][0]["k"] == 0.1 + 0.2
    np.testing.assert_array_equal(back["a"][3][0].numpy(), np.ones(2, dtype=np.float32))


def test_a_shared_tensor_loads_as_one_tensor_and_parameters_stay_parameters():
    p = picotorch.nn.Parameter(picotorch.ones(3))
    back = _round_trip({"p": p, "again": p, "leaf": picotorch.zeros(2, requires_grad=True)})
    assert back["p"] is back["again"]
    assert isinstance(back["p"], picotorch.nn.Parameter) and back["p"].requires_grad
    assert back["leaf"].requires_grad and back["leaf"].is_leaf


@pytest.mark.parametrize("make", [
    lambda ps: picotorch.optim.SGD(ps, lr=0.1, momentum=0.9),
    lambda ps: picotorch.optim.Adam(ps, lr=0.01, amsgrad=True),
    lambda ps: picotorch.optim.AdamW([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.3}]),
])
def test_optimizer_state_dict_round_trips_and_training_continues_identically(make):
    rng = np.random.default_rng(1)
    init = [rng.standard_normal(s).astype(np.float32) for s in [(3, 2), (2,)]]
    grads = [[rng.standard_normal(g.shape).astype(np.float32) for g in init] for _ in range(4)]

    def train(params, opt, steps):
        for step_grads in steps:
            for p, g in zip(params, step_grads):
                p.grad = picotorch.tensor(g)
            opt.step()

    params = [picotorch.nn.Parameter(picotorch.tensor(v)) for v in init]
    opt = make(params)
    train(params, opt, grads[:2])
    saved = _round_trip({"params": params, "optim": opt.state_dict()})
    sd, loaded = opt.state_dict(), saved["optim"]
    assert loaded["param_groups"] == sd["param_groups"]
    assert list(loaded["state"]) == list(sd["state"])
    for key in sd["state"]:
        for field, value in sd["state"][key].items():
            assert loaded["state"][key][field].dtype == value.dtype
            assert tuple(loaded["state"][key][field].shape) == tuple(value.shape)
            np.testing.assert_array_equal(loaded["state"][key][field].numpy(), value.numpy())
    resumed = [picotorch.nn.Parameter(p.detach().clone()) for p in saved["params"]]
    fresh = make(resumed)
    fresh.load_state_dict(loaded)
    train(params, opt, grads[2:])
    train(resumed, fresh, grads[2:])
    for a, b in zip(params, resumed):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_unsupported_objects_and_missing_files_raise(tmp_path):
    with pytest.raises(TypeError, match="cannot store an object of type set"):
        picotorch.save({"s": {1, 2}}, io.BytesIO())
    with pytest.raises(FileNotFoundError, match="No such file or directory"):
        picotorch.load(tmp_path / "missing.pt")
