"""The chapter 08 exercises: the cosine learning-rate step (8.1) and label smoothing's extra term (8.2).

Each test fails on the stub (NotImplementedError) and passes on the reference. Expected values were
printed by PyTorch 2.13 (float64 inputs, so the numbers are exact to the last digits shown); no torch is
needed to run these.
"""

from __future__ import annotations

import pytest

import picotorch as torch
import picotorch.nn.functional as F

# --- 8.1: CosineAnnealingLR.chained_cosine_lr -----------------------------------------------------


def _cosine_lrs(steps, t_max=4, eta_min=0.01, change_at=None):
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.1)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=t_max, eta_min=eta_min)
    lrs = [opt.param_groups[0]["lr"]]
    for step in range(steps):
        opt.step()
        schedule.step()
        if step == change_at:
            opt.param_groups[0]["lr"] = 0.02
        lrs.append(opt.param_groups[0]["lr"])
    return lrs


@pytest.mark.exercise("8.1")
def test_cosine_schedule_goes_down_to_eta_min_and_back():
    """T_max=4, eta_min=0.01 from lr 0.1: down to 0.01 at step 4, up again to 0.1 at step 8 (PyTorch's values)."""
    expected = [0.1, 0.08681980515339464, 0.05500000000000001, 0.023180194846605363, 0.01, 0.023180194846605363,
                0.05500000000000002, 0.08681980515339469, 0.10000000000000006, 0.0868198051533947, 0.05500000000000005]
    assert _cosine_lrs(10) == pytest.approx(expected, rel=1e-12, abs=0)


@pytest.mark.exercise("8.1")
def test_cosine_step_starts_from_the_current_lr():
    """The chained form reads the group's lr: set it to 0.02 after step 2 and the curve continues from there."""
    assert _cosine_lrs(4, change_at=1)[1:] == pytest.approx(
        [0.08681980515339464, 0.02, 0.012928932188134526, 0.01], rel=1e-12, abs=0)


@pytest.mark.exercise("8.1")
def test_cosine_step_returns_a_python_float():
    """chained_cosine_lr(lr) is a plain float, computed from lr, eta_min, T_max and last_epoch."""
    lr = _cosine_lrs(1)[-1]
    assert type(lr) is float


# --- 8.2: the smoothing term of cross_entropy(label_smoothing=...) ------------------------------------

LOGITS = [[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [2.0, 2.0, -2.0], [0.0, 1.0, 0.0]]
TARGET = [0, 2, 1, 1]


def _logits():
    return torch.tensor(LOGITS, dtype=torch.float64)


@pytest.mark.exercise("8.2")
def test_label_smoothing_per_sample():
    """reduction='none': (1 - s) * nll + s / C * (-sum of the sample's log-probabilities), s = 0.2, C = 3."""
    loss = F.cross_entropy(_logits(), torch.tensor(TARGET), label_smoothing=0.2, reduction="none")
    assert loss.tolist() == pytest.approx(
        [1.4310354507746117, 0.5307742189604914, 0.9689299881057619, 0.6847780472653844], rel=1e-12)


@pytest.mark.exercise("8.2")
def test_label_smoothing_mean_and_ignore_index():
    """The mean over samples; an ignored target (-100) adds nothing and is not counted."""
    target = torch.tensor(TARGET)
    assert F.cross_entropy(_logits(), target, label_smoothing=0.2).item() == pytest.approx(0.9038794262765624,
                                                                                           rel=1e-12)
    ignored = torch.tensor([0, -100, 1, 1])
    assert F.cross_entropy(_logits(), ignored, label_smoothing=0.2).item() == pytest.approx(1.0282478287152528,
                                                                                            rel=1e-12)


@pytest.mark.exercise("8.2")
def test_label_smoothing_with_class_weights():
    """With weight=[1, 2, 0.5] each class's log-probability is weighted in the smoothing term too."""
    weight = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
    target = torch.tensor(TARGET)
    mean = F.cross_entropy(_logits(), target, weight=weight, label_smoothing=0.2)
    total = F.cross_entropy(_logits(), target, weight=weight, label_smoothing=0.2, reduction="sum")
    assert mean.item() == pytest.approx(0.8545096025030829, rel=1e-12)
    assert total.item() == pytest.approx(4.699802813766956, rel=1e-12)


@pytest.mark.exercise("8.2")
def test_label_smoothing_over_a_class_dim_that_is_not_last():
    """Input (N=1, C=3, 4 positions): the sum runs over dim 1, the class dim, giving one loss per position."""
    logits = _logits().t().reshape(1, 3, 4)
    loss = F.cross_entropy(logits, torch.tensor([TARGET]), label_smoothing=0.2, reduction="none")
    assert loss.shape == (1, 4)
    assert loss.tolist()[0] == pytest.approx(
        [1.4310354507746117, 0.5307742189604914, 0.9689299881057619, 0.6847780472653844], rel=1e-12)
