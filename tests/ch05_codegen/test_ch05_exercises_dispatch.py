"""The chapter 05 exercises on the dispatcher: the keys of a call (5.1) and the "Could not run" error (5.2).

Each test fails on the stub (its NotImplementedError) and passes on the reference. Expected texts
follow PyTorch 2.13's (its trace format from Dispatcher.cpp, its error from OperatorEntry.cpp, and the
key sets ``torch._C._dispatch_keys`` prints); no torch is needed to run these.
"""

from __future__ import annotations

import io

import pytest

import picotorch as torch
from picotorch.native.device import use_backend

xps = pytest.importorskip("array_api_strict")


def trace(fn) -> list[str]:
    out = io.StringIO()
    with torch._C._dispatch_trace(file=out):
        fn()
    return out.getvalue().splitlines()


def could_not_run(fn) -> str:
    """The text of the NotImplementedError ``fn()`` raises; an exercise stub's own one propagates."""
    try:
        fn()
    except NotImplementedError as err:
        if str(err).startswith("Exercise 5."):
            raise
        return str(err)
    raise AssertionError("no NotImplementedError was raised")


def failed(fn) -> None:
    """Run ``fn``, which raises (tensors on two devices); exercise 5.1's stub error propagates."""
    try:
        fn()
    except Exception as err:
        if str(err).startswith("Exercise 5.1"):
            raise


@pytest.fixture
def fake_xpu():
    """An ``xpu`` device backed by array_api_strict: picotorch has no XPU kernels."""
    with use_backend("xpu", xps, [xps.Device("device1")]):
        yield


# --- 5.1: dispatch_trace.dispatch_key_set ------------------------------------------------------------


@pytest.mark.exercise("5.1")
def test_a_cpu_call_starts_at_the_autograd_key():
    """Union the tensors' key sets (key_set_of), drop excluded (Autocast) and fallthrough keys: AutogradCPU."""
    a, b = torch.ones(2, requires_grad=True), torch.ones(2)
    assert trace(lambda: a * b) == [" [call] op=[aten::mul.Tensor], key=[AutogradCPU]",
                                    "  [redispatch] op=[aten::mul.Tensor], key=[CPU]"]


@pytest.mark.exercise("5.1")
def test_no_grad_and_plain_tensors_still_go_through_autograd():
    """Grad mode and requires_grad are not keys: every tensor carries AutogradCPU, so the call starts there."""
    a = torch.ones(2, dtype=torch.int64)
    with torch.no_grad():
        lines = trace(lambda: a + a)
    assert lines[0] == " [call] op=[aten::add.Tensor], key=[AutogradCPU]"


@pytest.mark.exercise("5.1")
def test_the_highest_backend_among_the_arguments_wins():
    """A list argument counts too: a CUDA tensor beside a CPU one makes the call's key AutogradCUDA."""
    with use_backend("cuda", xps, [xps.Device("device1")]):
        x = torch.ones(2, device="cuda")
        lines = trace(lambda: failed(lambda: torch.cat([torch.ones(2), x])))
    assert lines[0] == " [call] op=[aten::cat], key=[AutogradCUDA]"


@pytest.mark.exercise("5.1")
def test_a_zero_dim_cpu_tensor_beside_a_cuda_one_runs_the_cuda_kernel():
    """CUDA is above CPU in priority (and AutogradCUDA above AutogradCPU): the redispatch goes to CUDA."""
    with use_backend("cuda", xps, [xps.Device("device1")]):
        x = torch.ones(2, device="cuda")
        lines = trace(lambda: x * torch.tensor(2.0))
    assert lines == [" [call] op=[aten::mul.Tensor], key=[AutogradCUDA]",
                     "  [redispatch] op=[aten::mul.Tensor], key=[CUDA]"]


@pytest.mark.exercise("5.1")
def test_a_composite_op_shows_the_ops_it_calls():
    """reshape is CompositeImplicitAutograd (its AutogradCPU slot holds the math kernel) and calls view, a
    view op: view keeps ADInplaceOrView (it has a kernel there), so it redispatches twice."""
    a = torch.ones(4)
    assert trace(lambda: a.reshape(2, 2)) == [" [call] op=[aten::reshape], key=[AutogradCPU]",
                                              "  [call] op=[aten::view], key=[AutogradCPU]",
                                              "   [redispatch] op=[aten::view], key=[ADInplaceOrView]",
                                              "    [redispatch] op=[aten::view], key=[CPU]"]


# --- 5.2: OperatorEntry.report_error -----------------------------------------------------------------

FIRST = "Could not run 'aten::mul.Tensor' with arguments from the 'XPU' backend."
MIDDLE = (" This could be because the operator doesn't exist for this backend, or was omitted during the "
          "selective/custom build process (if using custom build). If you are a Facebook employee using "
          "PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. ")
AVAILABLE = ("'aten::mul.Tensor' is only available for these backends: [CPU, CUDA, ADInplaceOrView, "
             "AutogradOther, AutogradCPU, AutogradCUDA, AutogradHIP, AutogradXLA, AutogradMPS, AutogradIPU, "
             "AutogradXPU, AutogradHPU, AutogradVE, AutogradLazy, AutogradMTIA, AutogradMAIA, "
             "AutogradPrivateUse1, AutogradPrivateUse2, AutogradPrivateUse3, AutogradMeta, AutocastCPU, "
             "AutocastMTIA, AutocastMAIA, AutocastXPU, AutocastMPS, AutocastCUDA].\n\n")


@pytest.mark.exercise("5.2")
def test_the_first_sentence_names_the_operator_and_the_backend(fake_xpu):
    """First sentence: Could not run '<name>' with arguments from the '<key>' backend."""
    x = torch.ones(2, device="xpu")
    assert could_not_run(lambda: x * x).startswith(FIRST + " This could be")


@pytest.mark.exercise("5.2")
def test_the_message_lists_the_keys_with_a_kernel_then_the_table(fake_xpu):
    """After PyTorch's fixed sentences: the keys with a kernel (list_all_dispatch_keys), a blank line, the table."""
    x = torch.ones(2, device="xpu")
    message = could_not_run(lambda: x * x)
    assert message == FIRST + MIDDLE + AVAILABLE + torch._C._dispatch_dump_table("aten::mul.Tensor")
    assert message.endswith("[backend fallback]\n")


@pytest.mark.exercise("5.2")
def test_the_error_is_the_same_with_grad(fake_xpu):
    """The autograd kernel runs first and records the graph; the error comes from its redispatch to XPU."""
    x = torch.ones(2, device="xpu", requires_grad=True)
    assert could_not_run(lambda: x.exp()).startswith(
        "Could not run 'aten::exp' with arguments from the 'XPU' backend. This could be")
