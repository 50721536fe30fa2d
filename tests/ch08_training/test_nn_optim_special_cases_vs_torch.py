"""What a first training loop trips over, against PyTorch: module reprs and names, state_dict errors, optimizer
groups and their errors and warnings, schedulers used out of order, data loading edge cases.

Every expected value comes from running the same program on torch (``assert_same``); printed text is compared
exactly, so error messages, warnings and reprs must match character for character.
"""

import math
import warnings

import numpy as np
import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")


def _outcome(f):
    """What ``f()`` did: its repr (or type name) and the warnings it raised, or the error's type and text."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = f()
    except Exception as e:  # the error is the observed behaviour
        return f"{type(e).__name__}: {e}"
    shown = result if isinstance(result, (int, float, str, list, tuple, type(None))) else type(result).__name__
    return f"ok {shown!r} {[(w.category.__name__, str(w.message)) for w in caught]}"


def _bits(values):
    """Values with the sign of zero and NaN made visible (``assert_same`` compares floats with a tolerance)."""
    return [("nan" if math.isnan(v) else repr(v), math.copysign(1.0, v)) for v in values]


# ----------------------------------------------------------------------------- modules


def test_repr_of_nested_modules_char_exact():
    def prog(torch):
        nn = torch.nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 4, bias=False)
                self.drop = nn.Dropout(p=0.25)
                self.ln = nn.LayerNorm(4, eps=1e-6, elementwise_affine=False)
                self.emb = nn.Embedding(10, 3, padding_idx=0)
                self.ml = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.Linear(2, 2), nn.Linear(2, 2)])
                self.md = nn.ModuleDict({"b": nn.GELU(), "a": nn.GELU(approximate="tanh")})

        print(nn.Sequential(Block(), nn.Sequential(), nn.ModuleList(), nn.ModuleDict(), nn.LayerNorm([2, 3]),
                            nn.LayerNorm(3, bias=False), nn.Embedding(5, 2, padding_idx=-1), nn.Softmax(dim=1),
                            nn.Dropout(1), nn.ReLU(inplace=True), nn.CrossEntropyLoss(label_smoothing=0.1)))

    assert_same(prog)


def test_named_members_with_shared_parameters_and_buffers():
    def prog(torch):
        nn = torch.nn
        a = nn.Linear(2, 2)
        m = nn.Sequential(a, nn.ReLU(), a, nn.Sequential(a, nn.Linear(2, 1)))
        m.register_buffer("buf", torch.zeros(1))
        m[1].register_buffer("np", torch.ones(2), persistent=False)
        for kwargs in [{}, {"remove_duplicate": False}, {"prefix": "root"}]:
            print([n for n, _ in m.named_parameters(**kwargs)], [n for n, _ in m.named_modules(**kwargs)])
        print([n for n, _ in m.named_buffers()], list(m.state_dict()), m.state_dict()._metadata)

    assert_same(prog)


def test_load_state_dict_errors_and_incompatible_keys():
    def prog(torch):
        nn = torch.nn
        m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        sd = dict(m.state_dict())
        del sd["0.bias"]
        sd["extra"], sd["2.foo"], sd["0.weight"] = torch.zeros(1), torch.zeros(1), torch.zeros(4, 2)
        print(_outcome(lambda: m.load_state_dict(sd)))
        del sd["0.weight"]
        result = m.load_state_dict(sd, strict=False)
        print(result, type(result).__name__, result._fields)
        print(m.load_state_dict(m.state_dict()))

    assert_same(prog)


def test_parameter_of_an_integer_tensor_and_of_a_list():
    def prog(torch):
        for make in [lambda: torch.nn.Parameter(torch.tensor([1])), lambda: torch.nn.Parameter(torch.tensor([True])),
                     lambda: repr(torch.nn.Parameter(torch.tensor([1]), requires_grad=False)),
                     lambda: torch.nn.Parameter([1.0]), lambda: torch.tensor([1]).requires_grad_()]:
            print(_outcome(make))

    assert_same(prog)


def test_size_and_stride_of_a_zero_dim_tensor():
    def prog(torch):
        for dim in [0, -1, 3]:
            print(_outcome(lambda d=dim: torch.tensor(1.0).size(d)))
            print(_outcome(lambda d=dim: torch.tensor(1.0).stride(d)))
        print(_outcome(lambda: torch.ones(2, 3).size(-3)), _outcome(lambda: torch.ones(2, 3).size(-2)))
        print(_outcome(lambda: torch.utils.data.TensorDataset(torch.tensor(1.0))))

    assert_same(prog)


# ----------------------------------------------------------------------------- optimizers


def test_add_param_group_errors_and_duplicate_warning():
    def prog(torch):
        p, q = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(3))
        opt = torch.optim.SGD([p], lr=0.1)
        print(_outcome(lambda: opt.add_param_group({"params": [p]})))
        print(_outcome(lambda: opt.add_param_group([q])))
        print(_outcome(lambda: torch.optim.SGD([{"params": [q]}, [p]], lr=0.1)))
        print(_outcome(lambda: opt.add_param_group({"params": [q, q], "lr": 0.5})))
        print(_outcome(lambda: torch.optim.SGD([p, p], lr=0.1)))
        print(opt.state_dict())

    assert_same(prog)


def test_non_leaf_that_retains_grad_can_be_optimized():
    def prog(torch):
        x = torch.ones(2, requires_grad=True) * 2
        print(_outcome(lambda: torch.optim.SGD([x], lr=0.1)))
        x.retain_grad()
        print(_outcome(lambda: torch.optim.SGD([x], lr=0.1)))
        print(_outcome(lambda: torch.optim.Adam([torch.ones(2, requires_grad=True) * 3], differentiable=True)))

    assert_same(prog)


def test_optimizer_over_named_parameters():
    def prog(torch):
        m = torch.nn.Linear(2, 1)
        opt = torch.optim.SGD(m.named_parameters(), lr=0.1, momentum=0.9)
        print(opt.state_dict()["param_groups"])
        print(opt)
        print(_outcome(lambda: torch.optim.SGD([("w", m.weight), m.bias], lr=0.1)))
        print(_outcome(lambda: opt.add_param_group({"params": [torch.nn.Parameter(torch.ones(1))]})))
        m(torch.ones(2)).sum().backward()
        opt.step()
        fresh = torch.optim.SGD(m.parameters(), lr=1.0, momentum=0.9)
        fresh.load_state_dict(opt.state_dict())
        print(fresh.state_dict()["param_groups"])
        named = torch.optim.SGD(m.named_parameters(), lr=1.0)
        named.load_state_dict(torch.optim.SGD(m.parameters(), lr=0.5).state_dict())
        print(named.state_dict()["param_groups"])

    assert_same(prog)


@pytest.mark.parametrize("make", [
    lambda T, ps: T.optim.Adam(ps, lr=0.1, amsgrad=True),
    lambda T, ps: T.optim.AdamW(ps, lr=0.1, maximize=True, weight_decay=0.1),
    lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
], ids=["adam_amsgrad", "adamw_maximize", "sgd_nesterov"])
def test_optimizer_steps_on_special_values(make):
    def prog(torch):
        p = torch.nn.Parameter(torch.tensor([0.0, -0.0, 1.0, -1.0, 1e-45, 3e38, -0.0]))
        q = torch.nn.Parameter(torch.ones(2))  # no grad: skipped, no state
        opt = make(torch, [p, q])
        grads = [[-0.0, 0.0, float("inf"), float("nan"), 1e-45, -3e38, -0.0], [-0.0, -0.0, 1.0, 2.0, 0.0, 1.0, 0.0]]
        for grad in grads:
            p.grad = torch.tensor(grad)
            opt.step()
            print(_bits(p.tolist()))
        state = opt.state[p]
        print(list(state), {k: (type(v).__name__, str(v.dtype), tuple(v.shape)) for k, v in state.items()})
        print(q in opt.state)
        print({k: _bits(v.reshape(-1).tolist()) for k, v in state.items()})

    assert_same(prog)


# ----------------------------------------------------------------------------- lr schedulers


def test_scheduler_warnings_and_checks():
    def prog(torch):
        def stepped_before_optimizer():
            opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, 2)
            sched.step()
            sched.step()
            return sched.get_last_lr()

        def in_order():
            opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3)
            opt.step()
            sched.step()
            return sched.get_lr()

        def with_epoch():
            opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
            step = torch.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
            cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)
            opt.step()
            step.step(5)
            cosine.step(3)
            return [step.last_epoch, cosine.last_epoch, cosine.get_last_lr(), step.get_last_lr()]

        for f in [stepped_before_optimizer, in_order, with_epoch,
                  lambda: torch.optim.lr_scheduler.StepLR(3, 2),
                  lambda: torch.optim.lr_scheduler.CosineAnnealingLR([], 2)]:
            print(_outcome(f))

    assert_same(prog)


def test_scheduler_values_over_epochs():
    def prog(torch):
        p = torch.nn.Parameter(torch.ones(1))
        opt = torch.optim.SGD([{"params": [p]}, {"params": [torch.nn.Parameter(torch.ones(1))], "lr": 1.0}], lr=0.1)
        step = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)
        values = []
        for _ in range(11):
            opt.step()
            step.step()
            cosine.step()
            values.append((step.get_last_lr(), cosine.get_last_lr()))
        print(values)
        print(sorted(cosine.state_dict()), opt.param_groups[0].keys())

    assert_same(prog)


# ----------------------------------------------------------------------------- data


def test_loader_batches_and_errors():
    def prog(torch):
        data = torch.utils.data
        ds = data.TensorDataset(torch.arange(10.0).reshape(5, 2), torch.arange(5))
        for batch_size, drop_last in [(2, False), (2, True), (5, True), (6, True), (6, False)]:
            loader = data.DataLoader(ds, batch_size=batch_size, drop_last=drop_last)
            print(len(loader), [[tuple(t.shape) for t in b] for b in loader])
        for kwargs in [{"batch_size": 0}, {"batch_size": True}, {"drop_last": 1},
                       {"batch_size": None, "drop_last": True}]:
            print(_outcome(lambda kw=kwargs: data.DataLoader(ds, **kw)))
        print(_outcome(lambda: data.TensorDataset(torch.ones(3), torch.ones(4))))
        print(_outcome(lambda: data.default_collate([np.array(["a"]), np.array(["b"])])))
        print(_outcome(lambda: data.default_collate([np.array([1.5]), np.array([2.5])]).tolist()))

    assert_same(prog)


def test_random_split_fraction_rounding():
    def prog(torch):
        ds = torch.utils.data.TensorDataset(torch.arange(10))
        for lengths in [[0.3, 0.3, 0.4], [0.33, 0.33, 0.34], [0.25] * 4, [1.0, 0.0], [0.05] * 20, [0.5, 0.6],
                        [-0.1, 1.1], [3, 3]]:
            print(_outcome(lambda ls=lengths: [len(s) for s in torch.utils.data.random_split(ds, ls)]))

    assert_same(prog)
