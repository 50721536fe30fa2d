"""A module's state-dict hooks and the rest of its dotted-name API against PyTorch (``torch/nn/modules/module.py``):
``register_state_dict_pre_hook``/``_post_hook`` (and the private ``_register_state_dict_hook`` that may replace the
dict), ``register_load_state_dict_pre_hook``/``_post_hook`` (their order over a tree of modules, what they see,
editing the missing/unexpected keys), ``get_extra_state``/``set_extra_state``, ``assign=``, the deprecated positional
``state_dict`` arguments, ``get_parameter``/``get_buffer``/``set_submodule``, ``Module.type`` and the order of a
module's own attributes (``vars(module)``)."""

from __future__ import annotations

import warnings

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")


def _net(T):
    T.manual_seed(0)
    net = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.ReLU(), T.nn.Sequential(T.nn.Linear(3, 1), T.nn.BatchNorm1d(1)))
    return net


def _names(module, T):
    """Which module a hook saw, by its class and position: the same on both libraries."""
    return next(name for name, m in _net_modules(T) if m is module)


_NETS = {}


def _net_modules(T):
    return _NETS[T.__name__]


def _logging_net(T, log):
    net = _net(T)
    _NETS[T.__name__] = list(net.named_modules())
    for name, module in net.named_modules():
        module.register_state_dict_pre_hook(lambda m, prefix, keep, name=name: log.append(("pre", name, prefix, keep)))
        module.register_state_dict_post_hook(
            lambda m, sd, prefix, meta, name=name: log.append(("post", name, prefix, sorted(sd), meta)))
        module.register_load_state_dict_pre_hook(
            lambda m, sd, prefix, meta, strict, missing, unexpected, errors, name=name:
            log.append(("load pre", name, prefix, sorted(sd), dict(meta), strict, list(missing), list(unexpected))))
        module.register_load_state_dict_post_hook(
            lambda m, keys, name=name: log.append(("load post", name, list(keys.missing_keys),
                                                  list(keys.unexpected_keys))))
    return net


PROGRAMS = {
    "state_dict hooks in order": lambda T: (lambda log: (list(_logging_net(T, log).state_dict(keep_vars=True)),
                                                         log))([]),
    "load hooks in order": lambda T: (lambda log: (lambda net: (
        net.load_state_dict({k: v for k, v in net.state_dict().items() if k != "0.bias"}, strict=False), log))(
        _logging_net(T, log)))([]),
    "load hooks see the strict error's keys": lambda T: (lambda log: (lambda net: (
        _attempt(lambda: net.load_state_dict({"x": T.ones(1)})), log[-1]))(_logging_net(T, log)))([]),
    "a post hook edits the state dict": lambda T: (lambda net: (
        net.register_state_dict_post_hook(lambda m, sd, prefix, meta: sd.pop(prefix + "0.bias")),
        sorted(net.state_dict())))(_net(T))[1],
    "a post hook that returns a value": lambda T: (lambda net: (
        net.register_state_dict_post_hook(lambda m, sd, prefix, meta: sd),
        _attempt(lambda: net.state_dict())))(_net(T))[1],
    "the private post hook replaces the dict": lambda T: (lambda net: (
        net._register_state_dict_hook(lambda m, sd, prefix, meta: {"only": 1}), net.state_dict()))(_net(T))[1],
    "one function as both post hooks": lambda T: (lambda net, hook: (
        net.register_state_dict_post_hook(hook), _attempt(lambda: net._register_state_dict_hook(hook))))(
        _net(T), lambda m, sd, prefix, meta: None)[1],
    "a load post hook edits the keys": lambda T: (lambda net: (
        net.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.clear()),
        net.load_state_dict({})))(_net(T))[1],
    "a load post hook that returns a value": lambda T: (lambda net: (
        net.register_load_state_dict_post_hook(lambda m, keys: keys),
        _attempt(lambda: net.load_state_dict(net.state_dict()))))(_net(T))[1],
    "a removed hook": lambda T: (lambda net, log: (
        net.register_state_dict_pre_hook(lambda *a: log.append(1)).remove(), net.state_dict(), log))(_net(T), [])[2],
    "positional arguments": lambda T: _with_warnings(lambda: sorted(_net(T).state_dict(None, "p.")))(),
    "assign": lambda T: (lambda net: (
        net.load_state_dict({**net.state_dict(), "0.weight": T.zeros(3, 2)}, assign=True),
        type(net[0].weight).__name__, net[0].weight.requires_grad, net[0].weight))(_net(T))[1:],
    "metadata versions": lambda T: dict(_net(T).state_dict()._metadata),
}


def _attempt(call):
    try:
        return call()
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        return type(error).__name__, str(error)


def _with_warnings(call):
    def run():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call()
        return result, [str(w.message) for w in caught]
    return run


@pytest.mark.parametrize("name", PROGRAMS)
def test_state_dict_hooks(name):
    assert_same(PROGRAMS[name])


def _stateful(T):
    class Counter(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.count = 3
            self.scale = T.nn.Linear(1, 1)

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"]

    return Counter()


EXTRA = {
    "saved": lambda T: list(_stateful(T).state_dict()),
    "loaded": lambda T: (lambda m: (m.load_state_dict({**m.state_dict(), "_extra_state": {"count": 7}}), m.count))(
        _stateful(T)),
    "missing": lambda T: (lambda m: _attempt(lambda: m.load_state_dict({"scale.weight": T.ones(1, 1),
                                                                        "scale.bias": T.ones(1)})))(_stateful(T)),
    "unexpected on a module without it": lambda T: _attempt(
        lambda: T.nn.Linear(1, 1).load_state_dict({"weight": T.ones(1, 1), "bias": T.ones(1), "_extra_state": 1})),
    "the base methods": lambda T: (_attempt(lambda: T.nn.Linear(1, 1).get_extra_state()),
                                   _attempt(lambda: T.nn.Linear(1, 1).set_extra_state(1))),
}


@pytest.mark.parametrize("name", EXTRA)
def test_extra_state(name):
    assert_same(EXTRA[name])


DOTTED = {
    "get_parameter": lambda T: _net(T).get_parameter("2.0.weight").shape,
    "get_parameter of a buffer": lambda T: _attempt(lambda: _net(T).get_parameter("2.1.running_mean")),
    "get_parameter of a missing name": lambda T: _attempt(lambda: _net(T).get_parameter("2.0.nope")),
    "get_parameter through a missing module": lambda T: _attempt(lambda: _net(T).get_parameter("5.weight")),
    "get_buffer": lambda T: _net(T).get_buffer("2.1.num_batches_tracked"),
    "get_buffer of a parameter": lambda T: _attempt(lambda: _net(T).get_buffer("0.weight")),
    "set_submodule": lambda T: (lambda net: (net.set_submodule("2.0", T.nn.Tanh()), net))(_net(T))[1],
    "set_submodule of a new name": lambda T: (lambda net: (net.set_submodule("2.new", T.nn.Tanh()), net))(_net(T))[1],
    "set_submodule strict": lambda T: _attempt(lambda: _net(T).set_submodule("2.new", T.nn.Tanh(), strict=True)),
    "set_submodule over a parameter": lambda T: _attempt(lambda: _net(T).set_submodule("0.weight", T.nn.Tanh())),
    "set_submodule without a target": lambda T: _attempt(lambda: _net(T).set_submodule("", T.nn.Tanh())),
    "set_submodule of a non-module": lambda T: _attempt(lambda: _net(T).set_submodule("0", 3)),
    "Module.type": lambda T: [(n, p.dtype) for n, p in _net(T).type(T.float64).state_dict().items()],
    "Module.type by name": lambda T: [p.dtype for p in _net(T).type("torch.IntTensor").state_dict().values()],
    "the attribute order": lambda T: list(vars(T.nn.Linear(2, 3))),
}


@pytest.mark.parametrize("name", DOTTED)
def test_dotted_names_and_type(name):
    assert_same(DOTTED[name])
