"""A real training loop, step for step against PyTorch: ``examples/train_digits.py`` on both libraries.

The example trains a 64-128-10 MLP on scikit-learn's digits with ``DataLoader``, ``cross_entropy`` and
Adam or SGD with momentum. Both libraries start from the same weights (drawn with NumPy, loaded through
``load_state_dict``) and see the same batches (a NumPy-permuted sampler). Every step's loss and every
parameter after the run must agree within float32 tolerance.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import picotorch

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_digits.py"
STEPS = 90  # two epochs of 45 batches
LOSS_RTOL = 1e-5  # measured: ≤ 4.5e-6 relative after 450 steps of SGD, ≤ 3.6e-7 of Adam
PARAM_ATOL = 1e-5  # measured: ≤ 4.2e-7 after 450 steps


def _example():
    spec = importlib.util.spec_from_file_location("train_digits", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


train_digits = _example()


@pytest.fixture(scope="module", params=["adam", "sgd"])
def runs(request):
    ours = train_digits.train(picotorch, optimizer=request.param, steps=STEPS)
    theirs = train_digits.train(torch, optimizer=request.param, steps=STEPS)
    return ours, theirs


def _numpy_state(model):
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def test_every_step_loss_agrees(runs):
    (_, ours), (_, theirs) = runs
    assert len(ours.step_loss) == len(theirs.step_loss) == STEPS
    np.testing.assert_allclose(ours.step_loss, theirs.step_loss, rtol=LOSS_RTOL, atol=0)


def test_every_parameter_agrees_after_the_steps(runs):
    (ours, _), (theirs, _) = runs
    ours, theirs = _numpy_state(ours), _numpy_state(theirs)
    assert list(ours) == list(theirs) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    for key in ours:
        assert ours[key].dtype == theirs[key].dtype == np.float32, key
        np.testing.assert_allclose(ours[key], theirs[key], rtol=0, atol=PARAM_ATOL, err_msg=key)


def test_the_model_learns(runs):
    """Not a vacuous agreement: both losses fall and the test accuracy is far above chance."""
    (_, ours), (_, theirs) = runs
    for history in (ours, theirs):
        assert np.mean(history.step_loss[-10:]) < 0.6 * np.mean(history.step_loss[:10])
        assert history.test_accuracy[-1] > 0.8
    assert ours.test_accuracy == theirs.test_accuracy


def test_the_weights_start_the_same_and_move():
    start = train_digits.initial_weights()
    ours, _ = train_digits.train(picotorch, steps=1)
    theirs, _ = train_digits.train(torch, steps=1)
    for key, first in start.items():
        np.testing.assert_allclose(ours.state_dict()[key].numpy(), theirs.state_dict()[key].numpy(), atol=1e-7)
        assert not np.array_equal(ours.state_dict()[key].numpy(), first), key


def test_the_script_runs_and_prints_accuracy(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    picture = tmp_path / "curves.png"
    train_digits.main(["--epochs", "1", "--optimizer", "sgd", "--plot", str(picture)])
    out = capsys.readouterr().out
    assert "with picotorch 0.1.0, sgd, batch 32" in out
    assert "epoch  1  loss" in out and "test accuracy" in out
    assert picture.stat().st_size > 10_000


def test_an_unknown_optimizer_is_refused():
    with pytest.raises(SystemExit, match="--optimizer must be adam or sgd, not 'rmsprop'"):
        train_digits.make_optimizer(picotorch, [], "rmsprop")
