"""``nn.Module`` and the layers against PyTorch: reprs, names, ``state_dict``, hooks, modes, conversions, init.

``repr(model)`` char for char; ``named_parameters``/``named_modules``/``named_buffers``/``children`` names;
``state_dict`` keys and ``load_state_dict`` results and error texts (missing, unexpected, size mismatch,
``strict=False``); ``train()/eval()``; ``zero_grad``; forward pre-hooks and hooks; ``apply``;
``.to()/.double()/.float()/.half()`` converting parameters and their ``.grad``; ``nn.init`` fans, gains and
errors; attribute-assignment errors; and a small model trained a few steps in both libraries.
"""

import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import picotorch
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


def _zoo(T):
    """A model using every module, nested, with repeated and distinct children."""
    nn = T.nn
    return nn.Sequential(OrderedDict([
        ("embed", nn.Embedding(10, 4, padding_idx=0)),
        ("blocks", nn.ModuleList([nn.Sequential(nn.Linear(4, 4), nn.GELU(approximate="tanh"), nn.Dropout(0.1))
                                  for _ in range(3)] + [nn.Identity(), nn.Identity()])),
        ("norm", nn.LayerNorm(4, eps=1e-6, elementwise_affine=True)),
        ("heads", nn.ModuleDict({"cls": nn.Linear(4, 3, bias=False), "act": nn.ReLU(inplace=True)})),
        ("misc", nn.ModuleList([nn.Tanh(), nn.Sigmoid(), nn.SiLU(), nn.Softmax(dim=1), nn.LogSoftmax(1),
                                nn.Flatten(), nn.Flatten(0, 2), nn.LayerNorm((2, 3), elementwise_affine=False),
                                nn.LayerNorm(5, bias=False), nn.Embedding(5, 2, max_norm=1.0, scale_grad_by_freq=True),
                                nn.Dropout(p=0.0, inplace=True)])),
        ("losses", nn.ModuleList([nn.MSELoss(), nn.L1Loss(), nn.NLLLoss(), nn.CrossEntropyLoss(), nn.BCEWithLogitsLoss(
            pos_weight=T.ones(3))])),
    ]))


def test_repr_of_every_module_matches_torch():
    assert_same(lambda T: repr(_zoo(T)))
    assert_same(lambda T: [repr(T.nn.ModuleList()), repr(T.nn.Sequential()), repr(T.nn.ModuleDict()),
                           repr(T.nn.ModuleList([T.nn.ReLU(), T.nn.ReLU(), T.nn.Tanh(), T.nn.ReLU()]))])


def test_names_of_parameters_modules_buffers_and_children():
    def prog(T):
        model = _zoo(T)
        return ([name for name, _ in model.named_parameters()], [name for name, _ in model.named_modules()],
                [name for name, _ in model.named_buffers()], [name for name, _ in model.named_children()],
                [type(m).__name__ for m in model.children()], [tuple(p.shape) for p in model.parameters()],
                list(model.state_dict()), [name for name, _ in model.heads.named_parameters(prefix="x")],
                [name for name, _ in model.named_parameters(recurse=False)], len(list(model.modules())),
                [type(m).__name__ for m in model.blocks[1:3]], len(model.blocks), "cls" in model.heads)
    assert_same(prog)


def test_shared_modules_and_parameters_are_listed_once():
    def prog(T):
        shared = T.nn.Linear(2, 2)
        model = T.nn.Sequential(shared, T.nn.ReLU(), shared)
        return ([n for n, _ in model.named_parameters()], [n for n, _ in model.named_modules()],
                [n for n, _ in model.named_modules(remove_duplicate=False)], list(model.state_dict()))
    assert_same(prog)


# ----------------------------------------------------------------------------- state_dict


def _pair(seed=0):
    """The same two-layer model in both libraries, weights copied through NumPy."""
    rng = np.random.default_rng(seed)
    weights = {"0.weight": rng.standard_normal((4, 3)), "0.bias": rng.standard_normal(4),
               "2.weight": rng.standard_normal((2, 4)), "2.bias": rng.standard_normal(2)}
    models = []
    for T in (picotorch, torch):
        model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2)).double()
        model.load_state_dict({k: T.tensor(v) for k, v in weights.items()})
        models.append(model)
    return models


def test_state_dict_round_trip_and_values():
    def prog(T):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.LayerNorm(4), T.nn.CrossEntropyLoss(weight=T.ones(4)))
        sd = model.state_dict()
        fresh = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.LayerNorm(4), T.nn.CrossEntropyLoss(weight=T.zeros(4)))
        result = fresh.load_state_dict(sd)
        same = all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(fresh.state_dict().values(), sd.values()))
        return (list(sd), [type(v).__name__ for v in sd.values()], [v.requires_grad for v in sd.values()], repr(result),
                result.missing_keys, same, [v.requires_grad for v in model.state_dict(keep_vars=True).values()],
                list(model.state_dict(prefix="model.")), type(sd).__name__)
    assert_same(prog)


def test_load_state_dict_errors_and_strict_false():
    def prog(T):
        model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
        sd = model.state_dict()
        bad = OrderedDict(sd)
        del bad["0.bias"]
        bad["2.weight"] = T.zeros(3, 3)
        bad["3.weight"] = T.zeros(1)
        bad["extra"] = T.zeros(1)
        out = []
        try:
            model.load_state_dict(bad)
        except RuntimeError as e:
            out.append(str(e))
        loose = OrderedDict(sd)
        del loose["2.bias"]
        loose["0.scale"] = T.ones(1)
        result = model.load_state_dict(loose, strict=False)
        out += [repr(result), result.missing_keys, result.unexpected_keys, str(result)]
        try:
            model.load_state_dict({"0.weight": 3.0}, strict=False)
        except RuntimeError as e:
            out.append(str(e))
        try:
            model.load_state_dict([1, 2])
        except TypeError as e:
            out.append(str(e))
        return out
    assert_same(prog)


def test_load_state_dict_copies_in_place_and_assign():
    def prog(T):
        model = T.nn.Linear(2, 2)
        before = model.weight
        model.load_state_dict({"weight": T.ones(2, 2), "bias": T.zeros(2)})
        kept = model.weight is before and model.weight.requires_grad and model.weight.is_leaf
        model.load_state_dict({"weight": T.full((2, 2), 3.0), "bias": T.zeros(2)}, assign=True)
        return kept, model.weight, type(model.weight).__name__, model.weight.requires_grad, model.weight is before
    assert_same(prog)


# ----------------------------------------------------------------------------- modes, grads, hooks, apply


def test_train_eval_propagate_and_dropout_becomes_identity():
    def prog(T):
        model = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.Sequential(T.nn.Dropout(0.5)))
        x = T.ones(3, 2)
        model.eval()
        modes = [m.training for m in model.modules()]
        drop = model[1][0]
        identity = drop(x) is x
        model.train()
        return modes, identity, [m.training for m in model.modules()], model.train(False) is model, model.training
    assert_same(prog)
    assert_same(lambda T: T.nn.Linear(1, 1).train("no"))


def test_zero_grad_set_to_none_or_zero():
    def prog(T):
        model = T.nn.Linear(3, 2)
        model(T.ones(4, 3)).sum().backward()
        model.zero_grad(set_to_none=False)
        zeros = [p.grad for p in model.parameters()]
        model(T.ones(4, 3)).sum().backward()
        model.zero_grad()
        return zeros, [p.grad for p in model.parameters()]
    assert_same(prog)


def test_forward_hooks_pre_hooks_kwargs_prepend_and_removal():
    def prog(T):
        calls = []
        model = T.nn.Linear(2, 2, bias=False)
        with T.no_grad():
            model.weight.copy_(T.eye(2) if hasattr(T, "eye") else T.tensor([[1.0, 0.0], [0.0, 1.0]]))
        h1 = model.register_forward_pre_hook(lambda m, args: calls.append("pre") or (args[0] * 2,))
        model.register_forward_pre_hook(lambda m, args: calls.append("pre-first"), prepend=True)
        model.register_forward_hook(lambda m, args, out: calls.append(("post", tuple(args[0].shape))) or out + 1)
        model.register_forward_hook(lambda m, args, kwargs, out: calls.append(("kw", sorted(kwargs))),
                                    with_kwargs=True)
        y1 = model(T.ones(1, 2))
        h1.remove()
        y2 = model(T.ones(1, 2))
        return y1, y2, calls
    assert_same(prog)


def test_pre_hook_with_kwargs_and_always_call():
    def prog(T):
        calls = []

        class Scale(T.nn.Module):
            def forward(self, x, factor=1.0):
                if factor < 0:
                    raise ValueError("negative factor")
                return x * factor
        m = Scale()
        m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": kwargs.get("factor", 1.0) * 3}),
                                    with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: calls.append("always"), always_call=True)
        first = m(T.ones(2), factor=2.0)
        try:
            m(T.ones(2), factor=-1.0)
        except ValueError as e:
            calls.append(str(e))
        return first, calls
    assert_same(prog)


def test_apply_visits_children_first():
    def prog(T):
        seen = []
        model = T.nn.Sequential(T.nn.Sequential(T.nn.Linear(1, 1), T.nn.ReLU()), T.nn.Tanh())
        returned = model.apply(lambda m: seen.append(type(m).__name__))
        return seen, returned is model
    assert_same(prog)


def test_missing_forward_and_unknown_attribute():
    assert_same(lambda T: T.nn.Module()(T.ones(1)))
    assert_same(lambda T: T.nn.Linear(1, 1).weights)
    assert_same(lambda T: T.nn.Module(3))


def test_attribute_assignment_rules_and_errors():
    def prog(T):
        m = T.nn.Linear(2, 2)
        out = []
        for action in (lambda: setattr(m, "weight", T.ones(2, 2)), lambda: setattr(m, "weight", 3),
                       lambda: m.register_parameter("a.b", None), lambda: m.register_parameter("", None),
                       lambda: m.register_parameter("in_features", None),
                       lambda: m.register_parameter("w2", T.ones(1)), lambda: m.register_buffer("b", 5),
                       lambda: m.register_buffer("weight", T.ones(1)), lambda: m.add_module("x.y", T.nn.ReLU()),
                       lambda: m.add_module("z", 4),
                       lambda: m.register_parameter("grown", T.nn.Parameter(T.ones(1)) * 2)):
            try:
                action()
                out.append("ok")
            except Exception as e:
                out.append(f"{type(e).__name__}: {e}")
        m.bias = None
        m.register_buffer("running", T.zeros(2))
        m.register_buffer("scratch", T.ones(1), persistent=False)
        m.child = T.nn.ReLU()
        m.child = None
        names = (list(m.state_dict()), [n for n, _ in m.named_buffers()], [n for n, _ in m.named_parameters()],
                 [n for n, _ in m.named_children()])
        del m.running
        return out, names, [n for n, _ in m.named_buffers()], repr(m), "weight" in dir(m)
    assert_same(prog)


# ----------------------------------------------------------------------------- conversions


def test_double_float_half_and_to_convert_parameters_and_grads():
    def prog(T):
        model = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BCEWithLogitsLoss(pos_weight=T.ones(3)))
        weight = model[0].weight
        model[0](T.ones(4, 2)).sum().backward()
        out = []
        for convert in (lambda m: m.double(), lambda m: m.float(), lambda m: m.half(), lambda m: m.to(T.float64),
                        lambda m: m.to("cpu", T.float32), lambda m: m.to(T.zeros(1, dtype=T.float64)),
                        lambda m: m.to(dtype=T.float16)):
            returned = convert(model)
            out.append((returned is model, model[0].weight is weight, str(model[0].weight.dtype),
                        str(model[0].weight.grad.dtype), model[0].weight.is_leaf, model[0].weight.requires_grad,
                        str(model[1].pos_weight.dtype)))
        return out
    assert_same(prog)
    assert_same(lambda T: T.nn.Linear(1, 1).to(T.int64))


def test_optimizer_keeps_working_after_double():
    def prog(T):
        T.manual_seed(0)
        model = T.nn.Linear(2, 1)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        model.double()
        model(T.ones(3, 2, dtype=T.float64)).sum().backward()
        opt.step()
        return str(model.weight.dtype), opt.param_groups[0]["params"][0] is model.weight
    assert_same(prog)


# ----------------------------------------------------------------------------- the layers


def test_layers_forward_like_torch():
    def prog(T):
        T.manual_seed(0)
        x = T.tensor(np.linspace(-2, 2, 24).reshape(2, 3, 4), requires_grad=True)
        layers = [T.nn.GELU(), T.nn.GELU("tanh"), T.nn.SiLU(), T.nn.Tanh(), T.nn.Sigmoid(), T.nn.ReLU(),
                  T.nn.Softmax(dim=-1), T.nn.LogSoftmax(dim=1), T.nn.Identity(54, unused=True),
                  T.nn.LayerNorm(4).double(), T.nn.LayerNorm([3, 4], bias=False).double(), T.nn.Dropout(0.0)]
        out = [layer(x) for layer in layers]
        sum(o.sum() * (i + 1) for i, o in enumerate(out)).backward()
        return out, x.grad, [o.grad_fn.name() if o.grad_fn else None for o in out]
    assert_same(prog, rtol=1e-10, atol=1e-12)


def test_flatten_module():
    def prog(T):
        x = T.ones(2, 3, 4, requires_grad=True)
        return T.nn.Flatten()(x), T.nn.Flatten(0, 1)(x), T.nn.Flatten(-2)(x).grad_fn.name()
    assert_same(prog)


def test_embedding_module_init_and_padding_row():
    def prog(T):
        T.manual_seed(0)
        emb = T.nn.Embedding(5, 3, padding_idx=2)
        frozen = T.nn.Embedding(2, 2, _weight=T.ones(2, 2), _freeze=True)
        return (emb.weight[2], emb.weight.requires_grad, tuple(emb.weight.shape), emb.padding_idx, repr(frozen),
                frozen.weight.requires_grad, T.nn.Embedding(5, 3, padding_idx=-1).padding_idx)
    assert_same(prog)
    assert_same(lambda T: T.nn.Embedding(2, 2, _weight=T.ones(3, 2)))


def test_embedding_module_forward():
    def prog(T):
        emb = T.nn.Embedding(4, 2, padding_idx=0)
        with T.no_grad():
            emb.weight.copy_(T.tensor(np.arange(8.0).reshape(4, 2)))
        out = emb(T.tensor([[0, 3], [1, 1]]))
        out.sum().backward()
        return out, emb.weight.grad
    assert_same(prog)


def test_nn_linear_on_float64_input_raises_pytorchs_error():
    assert_same(lambda T: T.nn.Linear(3, 2)(T.ones(4, 3, dtype=T.float64)))
    assert_same(lambda T: T.nn.Linear(3, 2)(T.ones(3, dtype=T.float64)))


def test_training_steps_follow_torch():
    """Same initial weights, same batches: the losses and parameters agree after several steps."""
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((16, 3)), rng.integers(0, 2, 16)
    runs = []
    for T, model in zip((picotorch, torch), _pair()):
        opt = T.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = T.nn.functional.cross_entropy(model(T.tensor(x)), T.tensor(y), label_smoothing=0.05)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        runs.append((losses, [p.detach().numpy() for p in model.parameters()]))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-12)
    for a, b in zip(runs[0][1], runs[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-13)


# ----------------------------------------------------------------------------- nn.init


@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (4, 3, 2, 2)])
def test_fan_in_fan_out_and_gains(shape):
    def prog(T):
        t = T.empty(shape)
        init = T.nn.init
        return (init._calculate_fan_in_and_fan_out(t), [init.calculate_gain(n) for n in
                ("linear", "conv2d", "sigmoid", "tanh", "relu", "selu")],
                init.calculate_gain("leaky_relu"), init.calculate_gain("leaky_relu", 0.2),
                init.calculate_gain("leaky_relu", 3))
    assert_same(prog)


def test_init_bad_input():
    for prog in (lambda T: T.nn.init._calculate_fan_in_and_fan_out(T.ones(3)),
                 lambda T: T.nn.init.xavier_uniform_(T.ones(3)),
                 lambda T: T.nn.init.kaiming_uniform_(T.ones(3, 2), mode="fan_avg"),
                 lambda T: T.nn.init.calculate_gain("swish"),
                 lambda T: T.nn.init.calculate_gain("leaky_relu", True),
                 lambda T: T.nn.init.kaiming_normal_(T.ones(3, 2), nonlinearity="gelu")):
        assert_same(prog)
    for T in (picotorch, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.nn.init.kaiming_uniform_(T.ones(0, 3))
        assert [str(w.message) for w in caught] == ["Initializing zero-element tensors is a no-op"]


@pytest.mark.parametrize("name", ["kaiming_uniform_", "kaiming_normal_", "xavier_uniform_", "xavier_normal_",
                                  "uniform_", "normal_"])
def test_init_distributions_have_pytorchs_bounds_and_spread(name):
    """Values differ from PyTorch's generator; the range and standard deviation its formula gives do not."""
    t = picotorch.empty(400, 300)
    with picotorch.no_grad():
        out = getattr(picotorch.nn.init, name)(t)
    assert out is t and t.is_leaf
    values = t.numpy()
    fan_in, fan_out = 300, 400
    std = {"kaiming_uniform_": math.sqrt(2) / math.sqrt(fan_in),  # a=0: leaky_relu with slope 0
           "kaiming_normal_": math.sqrt(2) / math.sqrt(fan_in),
           "xavier_uniform_": math.sqrt(2 / (fan_in + fan_out)), "xavier_normal_": math.sqrt(2 / (fan_in + fan_out)),
           "uniform_": 1 / math.sqrt(12), "normal_": 1.0}[name]
    assert abs(values.std() - std) < 0.02 * std
    if name.endswith("uniform_"):
        bound = math.sqrt(3) * std if name != "uniform_" else 1.0
        bound *= 1 + 1e-6  # the float64 draw rounded to float32 may land on the next float
        assert values.max() <= bound and values.min() >= (-bound if name != "uniform_" else 0.0)


def test_constant_ones_zeros_keep_the_parameter_a_leaf():
    def prog(T):
        p = T.nn.Parameter(T.empty(2, 3))
        outs = [T.nn.init.constant_(p, 0.5).clone(), T.nn.init.ones_(p).clone(), T.nn.init.zeros_(p).clone()]
        return outs, p.is_leaf, p.requires_grad, p.grad_fn, p._version
    assert_same(prog)


def test_linear_reset_parameters_bounds():
    for T in (picotorch,):
        lin = T.nn.Linear(50, 40)
        bound = 1 / math.sqrt(50)
        assert np.abs(lin.weight.detach().numpy()).max() <= bound
        assert np.abs(lin.bias.detach().numpy()).max() <= bound
        assert lin.weight.detach().numpy().std() > 0.8 * bound / math.sqrt(3)
