"""An optimizer's hooks against PyTorch (``torch/optim/optimizer.py``): step pre and post hooks (a pre hook may
replace ``(args, kwargs)``; anything else it returns is refused), the global ones of ``torch.optim.optimizer`` and
their order around the optimizer's own, state-dict and load-state-dict hooks (``prepend``, replacing the dict),
removal, and the attributes an optimizer holds (``vars(optimizer)``)."""

from __future__ import annotations

import importlib

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")


def _sgd(T, log=None):
    T.manual_seed(0)
    w = T.nn.Parameter(T.ones(2))
    w.grad = T.full((2,), 0.5)
    return T.optim.SGD([w], lr=0.1, momentum=0.9), w


def _attempt(call):
    try:
        return call()
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        return type(error).__name__, str(error).replace("picotorch", "torch").split(" at 0x")[0]


def _global_hooks(T, log):
    module = importlib.import_module(T.__name__ + ".optim.optimizer")  # not an attribute of torch.optim
    return [module.register_optimizer_step_pre_hook(lambda o, a, k: log.append(("global pre", len(a), k))),
            module.register_optimizer_step_post_hook(lambda o, a, k: log.append(("global post", len(a), k)))]


def _step_order(T):
    log = []
    opt, w = _sgd(T)
    handles = _global_hooks(T, log)
    opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", type(o).__name__, len(a), k)))
    opt.register_step_post_hook(lambda o, a, k: log.append(("post", w.tolist())))
    try:
        opt.step()
        opt.step(closure=None)
    finally:
        for handle in handles:
            handle.remove()
    opt.step()
    return log, w


def _replacing_args(T):
    opt, w = _sgd(T)
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": lambda: calls.append("closure") or 3.0}))
    return opt.step(), calls, w


PROGRAMS = {
    "step hooks in order": _step_order,
    "a pre hook replaces the arguments": _replacing_args,
    "a pre hook returning something else": lambda T: (lambda opt: (
        opt.register_step_pre_hook(lambda o, a, k: 5), _attempt(lambda: opt.step())))(_sgd(T)[0])[1],
    "a removed step hook": lambda T: (lambda opt, log: (
        opt.register_step_post_hook(lambda *a: log.append(1)).remove(), opt.step(), log))(_sgd(T)[0], [])[2],
    "state_dict hooks": lambda T: (lambda opt, log: (
        opt.register_state_dict_pre_hook(lambda o: log.append("pre")),
        opt.register_state_dict_pre_hook(lambda o: log.append("first"), prepend=True),
        opt.register_state_dict_post_hook(lambda o, sd: log.append(sorted(sd)) or {"replaced": True}),
        opt.state_dict(), log))(_sgd(T)[0], [])[3:],
    "load_state_dict hooks": lambda T: (lambda opt, log: (
        opt.step(),
        opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(sorted(sd)) or {**sd, "param_groups": [
            {**sd["param_groups"][0], "lr": 0.5}]}),
        opt.register_load_state_dict_post_hook(lambda o: log.append(o.param_groups[0]["lr"])),
        opt.load_state_dict(opt.state_dict()), log))(_sgd(T)[0], [])[4],
    "the attributes": lambda T: list(vars(_sgd(T)[0])),
    "the optimizers' modules are not attributes": lambda T: [hasattr(T.optim, name) for name in (
        "sgd", "adam", "adamw", "optimizer", "lr_scheduler", "rmsprop")],
    "the class's step is wrapped once": lambda T: (lambda a, b: (type(a[0]).step is type(b[0]).step,
                                                                 getattr(type(a[0]).step, "hooked", None),
                                                                 type(a[0]).step.__name__))(_sgd(T), _sgd(T)),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_optimizer_hooks(name):
    assert_same(PROGRAMS[name])
