"""The chapter 04 exercises on anomaly mode (4.4) and saved-tensor hooks (4.5). Each test fails on the
stub (NotImplementedError) and passes on the reference. Expected values were printed by PyTorch 2.13;
no torch is needed to run these."""

from __future__ import annotations

import math

import pytest

import picotorch as torch
from exercise_helpers import raised
from picotorch.autograd import anomaly_mode


@pytest.fixture(autouse=True)
def anomaly_mode_off_after_each_test():
    yield
    torch.set_anomaly_enabled(False, True)


# --- 4.4: anomaly_mode.check_nan ------------------------------------------------------------------


@pytest.mark.exercise("4.4")
def test_check_nan_names_the_first_output_with_a_nan():
    """Skip None outputs; the message counts outputs from 0: "returned nan values in its 2th output."."""
    outputs = [None, torch.tensor([1.0, 2.0]), torch.tensor([float("nan")]), torch.tensor([float("nan")])]
    err = raised(lambda: anomaly_mode.check_nan("MulBackward0", outputs))
    assert isinstance(err, RuntimeError)
    assert str(err) == "Function 'MulBackward0' returned nan values in its 2th output."


@pytest.mark.exercise("4.4")
def test_check_nan_accepts_outputs_without_nan():
    """No nan anywhere (inf is not nan): check_nan returns None and raises nothing."""
    assert anomaly_mode.check_nan("ExpBackward0", [None, torch.tensor([float("inf"), 0.0])]) is None


@pytest.mark.exercise("4.4")
def test_a_backward_that_makes_nan_fails_in_anomaly_mode():
    """In anomaly mode the engine checks each node's outputs: 0/0 in forward makes MulBackward0's 1th output nan."""
    with torch.autograd.set_detect_anomaly(True):
        a = torch.tensor([0.0, 1.0], requires_grad=True)
        b = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (a / a) * b
        with pytest.warns(UserWarning, match="Error detected in MulBackward0"):
            err = raised(lambda: y.sum().backward())
    assert str(err) == "Function 'MulBackward0' returned nan values in its 1th output."


@pytest.mark.exercise("4.4")
def test_check_nan_false_lets_the_backward_finish():
    """set_detect_anomaly(True, check_nan=False) skips the check that check_nan=True makes."""
    a = torch.tensor([0.0, 1.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        (a / a).sum().backward()
    first, second = a.grad.tolist()
    assert math.isnan(first) and second == 0.0
    with torch.autograd.set_detect_anomaly(True):
        y = (a / a).sum()
        with pytest.warns(UserWarning, match="Error detected in DivBackward0"):
            err = raised(lambda: y.backward())
    assert str(err) == "Function 'DivBackward0' returned nan values in its 1th output."


# --- 4.5: SavedVariable.set_hooks_and_pack_data -----------------------------------------------------


@pytest.mark.exercise("4.5")
def test_pack_at_save_time_and_unpack_in_backward():
    """The pack hook sees each saved tensor when the op runs; backward gets unpack_hook(packed)."""
    log = []

    def pack(x):
        log.append(("pack", x.tolist()))
        return x.detach()

    def unpack(x):
        log.append(("unpack", x.tolist()))
        return x

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = a * a
    assert log == [("pack", [1.0, 2.0]), ("pack", [1.0, 2.0])]
    y.sum().backward()
    assert log[2:] == [("unpack", [1.0, 2.0]), ("unpack", [1.0, 2.0])]
    assert a.grad.tolist() == [2.0, 4.0]


@pytest.mark.exercise("4.5")
def test_the_node_keeps_what_the_pack_hook_returned():
    """SavedTensor.data is the packed object; _saved_self goes through the unpack hook."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda x: ("packed", x.detach() * 10), lambda p: p[1] + 1):
        y = a * 3.0
        z = y.exp()
    assert z.grad_fn._raw_saved_result.data[0] == "packed"
    assert y.grad_fn._saved_self is None  # a Python number's gradient is not needed: nothing saved
    assert z.grad_fn._saved_result.tolist()[0] > 10.0


@pytest.mark.exercise("4.5")
def test_the_pack_hook_runs_without_grad_mode():
    """Call the pack hook under no_grad(): what it computes is not recorded."""
    seen = []
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda x: seen.append(torch.is_grad_enabled()) or x * 2,
                                                  lambda p: p):
        a.exp()
    assert seen == [False]


@pytest.mark.exercise("4.5")
def test_a_pack_hook_that_modifies_its_input_in_place_is_refused():
    """Compare the tensor's version before and after the pack hook; a change raises PyTorch's error."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1

    def pack(x):
        x.add_(1)
        return x

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda p: p):
        err = raised(lambda: b * torch.ones(2))
    assert str(err) == (
        "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot "
        "be modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if "
        "you need to perform in-place operations on the input to a pack hook.")


@pytest.mark.exercise("4.5")
def test_register_hooks_packs_one_saved_tensor():
    """SavedTensor.register_hooks packs through the same method: the detached tensor goes to the pack hook."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a * a
    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(lambda x: x * 10, lambda p: p + 1)
    assert raw.data.tolist() == [10.0, 20.0]
    y.sum().backward()
    assert a.grad.tolist() == [12.0, 23.0]  # other * 1 + unpack(pack(self)) * 1
