"""optim.SGD / Adam / AdamW and the lr schedulers against PyTorch: same weights and gradients in, same numbers out."""

import numpy as np
import pytest

import picotorch
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), (17,)]
STEPS = 6


def _grads(seed):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(STEPS)]


def _run(T, make, dtype, grads, set_to_none=True):
    rng = np.random.default_rng(0)
    params = [T.nn.Parameter(T.tensor(rng.standard_normal(s), dtype=dtype)) for s in SHAPES]
    opt = make(T, params)
    history = []
    for step_grads in grads:
        opt.zero_grad(set_to_none=set_to_none)
        for p, g in zip(params, step_grads):
            p.grad = T.tensor(g, dtype=dtype)
        opt.step()
        history.append([p.detach().numpy().copy() for p in params])
    return opt, history


SETTINGS = {
    "sgd": lambda T, ps: T.optim.SGD(ps, lr=0.1),
    "sgd_momentum": lambda T, ps: T.optim.SGD(ps, lr=0.05, momentum=0.9),
    "sgd_dampening_wd": lambda T, ps: T.optim.SGD(ps, lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01),
    "sgd_nesterov_maximize": lambda T, ps: T.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True, maximize=True),
    "adam": lambda T, ps: T.optim.Adam(ps, lr=0.01),
    "adam_wd_maximize": lambda T, ps: T.optim.Adam(ps, lr=0.02, betas=(0.8, 0.99), weight_decay=0.1, maximize=True),
    "adam_amsgrad": lambda T, ps: T.optim.Adam(ps, lr=0.01, amsgrad=True),
    "adamw": lambda T, ps: T.optim.AdamW(ps, lr=0.01),
    "adamw_groups": lambda T, ps: T.optim.AdamW([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.1}],
                                                weight_decay=0.5, eps=1e-6),
}


@pytest.mark.parametrize("name", sorted(SETTINGS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_updates_match_torch_step_for_step(name, dtype):
    grads = _grads(1)
    (p_opt, p_hist), (t_opt, t_hist) = [_run(T, SETTINGS[name], getattr(T, dtype), grads) for T in (picotorch, torch)]
    rtol = 1e-6 if dtype == "float32" else 1e-14
    for p_step, t_step in zip(p_hist, t_hist):
        for p, t in zip(p_step, t_step):
            assert p.dtype == t.dtype
            if name.startswith("sgd") and dtype == "float32":
                # bit for bit: every add/mul rounds as PyTorch's CPU kernel does, its fused multiply-adds included
                np.testing.assert_array_equal(p, t)
            else:
                # Adam's sqrt: PyTorch's float32 CPU sqrt is one ulp off the correctly rounded one on some inputs
                np.testing.assert_allclose(p, t, rtol=rtol, atol=rtol)
    p_sd, t_sd = p_opt.state_dict(), t_opt.state_dict()
    assert p_sd["param_groups"] == t_sd["param_groups"]
    assert list(p_sd["state"]) == list(t_sd["state"])
    for key, p_state in p_sd["state"].items():
        t_state = t_sd["state"][key]
        assert list(p_state) == list(t_state)
        for field in p_state:
            assert str(p_state[field].dtype) == str(t_state[field].dtype)
            assert tuple(p_state[field].shape) == tuple(t_state[field].shape)
            np.testing.assert_allclose(p_state[field].numpy(), t_state[field].numpy(), rtol=rtol, atol=rtol)
    assert repr(p_opt) == repr(t_opt)


def test_zero_grad_without_set_to_none_keeps_zeroed_tensors():
    grads = _grads(2)
    make = SETTINGS["sgd_momentum"]
    for T in (picotorch, torch):
        opt, _ = _run(T, make, T.float32, grads, set_to_none=False)
        opt.zero_grad(set_to_none=False)
        assert all(p.grad is not None and not p.grad.numpy().any() for p in opt.param_groups[0]["params"])
        opt.zero_grad()
        assert all(p.grad is None for p in opt.param_groups[0]["params"])


@pytest.mark.parametrize("name", ["sgd_momentum", "adam", "adamw_groups"])
def test_state_dict_round_trip_continues_identically(name):
    grads = _grads(3)
    results = []
    for T in (picotorch, torch):
        opt, _ = _run(T, SETTINGS[name], T.float32, grads[:3])
        saved = opt.state_dict()
        params = [T.nn.Parameter(p.detach().clone()) for g in opt.param_groups for p in g["params"]]
        fresh = SETTINGS[name](T, params)
        fresh.load_state_dict(saved)
        for step_grads in grads[3:]:
            for p, g in zip(params, step_grads):
                p.grad = T.tensor(g)
            fresh.step()
        results.append([p.detach().numpy() for p in params])
        assert fresh.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    for p, t in zip(*results):
        np.testing.assert_allclose(p, t, rtol=1e-6, atol=1e-7)


def _error(program, T):
    try:
        program(T, T.nn.Parameter(T.ones(2)))
    except Exception as e:  # noqa: BLE001 - the type is what we compare
        return type(e), str(e)
    return None


@pytest.mark.parametrize("program", [
    lambda T, p: T.optim.SGD([p], lr=-1),
    lambda T, p: T.optim.SGD([p], momentum=-0.5),
    lambda T, p: T.optim.SGD([p], weight_decay=-1e-3),
    lambda T, p: T.optim.SGD([p], lr=0.1, nesterov=True),
    lambda T, p: T.optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
    lambda T, p: T.optim.SGD([], lr=0.1),
    lambda T, p: T.optim.SGD(p, lr=0.1),
    lambda T, p: T.optim.SGD([p, 1.0], lr=0.1),
    lambda T, p: T.optim.SGD([p * 2], lr=0.1),
    lambda T, p: T.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1),
    lambda T, p: T.optim.Adam([p], lr=-0.1),
    lambda T, p: T.optim.Adam([p], eps=-1.0),
    lambda T, p: T.optim.Adam([p], betas=(1.0, 0.9)),
    lambda T, p: T.optim.Adam([p], betas=(0.9, -0.1)),
    lambda T, p: T.optim.AdamW([p], weight_decay=-0.1),
    lambda T, p: T.optim.SGD([p], lr=0.1).load_state_dict({"state": {}, "param_groups": []}),
    lambda T, p: T.optim.SGD([p], lr=0.1).load_state_dict({"state": {}, "param_groups": [{"params": [0, 1]}]}),
])
def test_bad_arguments_raise_torchs_errors(program):
    errors = [_error(program, T) for T in (picotorch, torch)]
    assert errors[0] is not None and errors[0] == errors[1]


SCHEDULERS = {
    "step": lambda T, o: T.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
    "cosine": lambda T, o: T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.01),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_schedulers_follow_torch(name):
    records = []
    for T in (picotorch, torch):
        p = T.nn.Parameter(T.ones(2))
        opt = T.optim.SGD([{"params": [p]}, {"params": [T.nn.Parameter(T.ones(1))], "lr": 0.3}], lr=0.1)
        sched = SCHEDULERS[name](T, opt)
        lrs = [sched.get_last_lr()]
        for _ in range(11):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        records.append((lrs, sched.state_dict(), [g["lr"] for g in opt.param_groups], opt.param_groups[0].keys()))
    (p_lrs, p_sd, p_groups, p_keys), (t_lrs, t_sd, t_groups, t_keys) = records
    np.testing.assert_allclose(p_lrs, t_lrs, rtol=1e-15)
    assert p_groups == t_groups and list(p_keys) == list(t_keys)
    assert list(p_sd) == list(t_sd)
    assert {k: v for k, v in p_sd.items() if k != "_last_lr"} == {k: v for k, v in t_sd.items() if k != "_last_lr"}


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_step_with_a_closure_runs_it_with_grad_mode_on(name):
    """opt.step(closure): the closure's forward and backward build a graph; its loss is returned."""
    def prog(T):
        w = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = getattr(T.optim, name)([w], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss
        losses = [opt.step(closure) for _ in range(3)]
        return losses, w
    assert_same(prog)
