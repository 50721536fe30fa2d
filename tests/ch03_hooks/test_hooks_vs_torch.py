"""Hooks against PyTorch: every kind, registered in every order, fires in PyTorch's order
(NOTE [Hooks ordering] in function.h); what hooks receive and may return; the exact errors
(python_hook.cpp); which hooks fire when ``autograd.grad(inputs=...)`` prunes; RemovableHandle.

Each program records what fires by appending to a list, in both libraries, and the lists must match.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_helpers import LIBS, outcome, same

# Every hook a learner can register around y = a * 2 (then z = y * 3, loss = z.sum()).
KINDS = ["y.tensor", "y.tensor_scale", "y.retain", "y.pre", "y.post", "y.post_scale",
         "a.tensor", "a.post_acc", "acc.pre", "acc.post", "z.tensor", "z.retain", "z.pre_scale"]


def register(t, kind, g, log):
    """Register hook ``kind`` on the graph ``g`` (a dict of tensors and nodes), logging to ``log``."""
    y, a, z, acc = g["y"], g["a"], g["z"], g["acc"]
    note = lambda *what: log.append((kind, *what))  # noqa: E731
    actions = {
        "y.tensor": lambda: y.register_hook(lambda grad: note(grad.tolist())),
        "y.tensor_scale": lambda: y.register_hook(lambda grad: note(grad.tolist()) or grad * 10),
        "y.retain": lambda: y.retain_grad(),
        "y.pre": lambda: y.grad_fn.register_prehook(lambda go: note([x.tolist() for x in go])),
        "y.post": lambda: y.grad_fn.register_hook(lambda gi, go: note([_l(x) for x in gi], [_l(x) for x in go])),
        "y.post_scale": lambda: y.grad_fn.register_hook(lambda gi, go: note() or (gi[0] * 2, None)),
        "a.tensor": lambda: a.register_hook(lambda grad: note(grad.tolist())),
        "a.post_acc": lambda: a.register_post_accumulate_grad_hook(lambda p: note(p.grad.tolist())),
        "acc.pre": lambda: acc.register_prehook(lambda go: note([x.tolist() for x in go])),
        "acc.post": lambda: acc.register_hook(lambda gi, go: note(len(gi), [x.tolist() for x in go])),
        "z.tensor": lambda: z.register_hook(lambda grad: note(grad.tolist())),
        "z.retain": lambda: z.retain_grad(),
        "z.pre_scale": lambda: z.grad_fn.register_prehook(lambda go: note() or (go[0] + 1,)),
    }
    actions[kind]()


def _l(x):
    return None if x is None else x.tolist()


def build(t):
    a = t.tensor([1.0, 2.0], requires_grad=True)
    y = a * 2
    z = y * 3
    return {"a": a, "y": y, "z": z, "acc": y.grad_fn.next_functions[0][0]}


def hook_program(kinds):
    def prog(t):
        log = []
        g = build(t)
        for kind in kinds:
            register(t, kind, g, log)
        g["z"].sum().backward()
        grads = {k: g[k].grad.tolist() for k in ("a", "y", "z") if g[k].is_leaf or g[k].retains_grad}
        return log, grads

    return prog


def test_every_hook_kind_in_registration_order():
    log, _ = same(hook_program(KINDS))
    assert [entry[0] for entry in log][0] == "z.tensor"


def test_every_hook_kind_in_reverse_order():
    same(hook_program(list(reversed(KINDS))))


@settings(max_examples=80, deadline=None)
@given(st.permutations(KINDS), st.integers(1, len(KINDS)))
def test_hook_order_for_any_registration_order(kinds, n):
    same(hook_program(kinds[:n]))


def test_retain_grad_sees_what_tensor_hooks_returned_even_if_registered_first():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        b = a * 2
        b.retain_grad()
        b.register_hook(lambda g: g * 10)
        b.sum().backward()
        return b.grad.tolist(), a.grad.tolist()

    assert same(prog) == ([10.0, 10.0], [20.0, 20.0])


def test_hooks_registered_before_an_in_place_op_stay_with_the_old_node():
    def prog(t):
        log = []
        a = t.ones(2, requires_grad=True)
        b = a * 2
        b.register_hook(lambda g: log.append(("before", g.tolist())))
        b.retain_grad()
        b.mul_(3)
        b.register_hook(lambda g: log.append(("after", g.tolist())))
        (b * 5).sum().backward()
        return log, b.grad.tolist(), a.grad.tolist()

    assert same(prog)[0] == [("after", [5.0, 5.0]), ("before", [15.0, 15.0])]


def test_each_hook_sees_what_the_previous_returned_and_none_keeps_it():
    def prog(t):
        log = []
        a = t.ones(2, requires_grad=True)
        b = a * 1
        b.register_hook(lambda g: g + 1)
        b.register_hook(lambda g: log.append(g.tolist()))
        b.register_hook(lambda g: g * 3)
        b.grad_fn.register_prehook(lambda go: log.append(go[0].tolist()))
        b.sum().backward()
        return log, a.grad.tolist()

    assert same(prog) == ([[2.0, 2.0], [6.0, 6.0]], [6.0, 6.0])


def test_none_inside_a_returned_tuple_drops_the_gradient():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        b = t.ones(2, requires_grad=True)
        y = a * b
        y.grad_fn.register_hook(lambda gi, go: (None, gi[1]))
        z = a * 2
        z.grad_fn.register_prehook(lambda go: (None,))
        (y.sum() + z.sum()).backward()
        return a.grad, b.grad.tolist()

    assert same(prog) == (None, [1.0, 1.0])


def test_post_hook_receives_grad_inputs_and_grad_outputs():
    def prog(t):
        seen = []
        a = t.tensor([1.0, 2.0], requires_grad=True)
        c = t.tensor([3.0, 4.0])
        y = a * c
        y.grad_fn.register_hook(lambda gi, go: seen.append(([_l(x) for x in gi], [_l(x) for x in go])))
        y.sum().backward()
        return seen, type(seen[0]).__name__

    assert same(prog)[0] == [([[3.0, 4.0], None], [[1.0, 1.0]])]


def test_post_accumulate_grad_hook_receives_the_tensor():
    def prog(t):
        seen = []
        a = t.ones(2, requires_grad=True)
        a.register_post_accumulate_grad_hook(lambda p: seen.append((p is a, p.grad.tolist())))
        (a * 2).sum().backward()
        (a * 2).sum().backward()
        return seen

    assert same(prog) == [(True, [2.0, 2.0]), (True, [4.0, 4.0])]


BAD_TENSOR_HOOKS = {
    "size": lambda t: lambda g: t.ones(3),
    "dtype": lambda t: lambda g: g.double(),
    "int": lambda t: lambda g: 1,
    "tuple": lambda t: lambda g: (g,),
    "list": lambda t: lambda g: [g],
    "callable_object_size": lambda t: _Callable(t),
}


class _Callable:
    """A hook without ``__name__``: PyTorch calls it '<unknown>' in its errors."""

    def __init__(self, t):
        self.t = t

    def __call__(self, grad):
        return self.t.ones(5)


BAD_NODE_HOOKS = {
    "post_none_slot": lambda t: ("post", lambda gi, go: (gi[0], gi[0])),
    "post_tensor": lambda t: ("post", lambda gi, go: gi[0]),
    "post_count": lambda t: ("post", lambda gi, go: (t.ones(5),)),
    "post_list": lambda t: ("post", lambda gi, go: [gi[0], None]),
    "post_size": lambda t: ("post", lambda gi, go: (t.ones(5), None)),
    "post_int": lambda t: ("post", lambda gi, go: (1, None)),
    "pre_count": lambda t: ("pre", lambda go: (go[0], go[0])),
    "pre_tensor": lambda t: ("pre", lambda go: go[0]),
    "pre_size": lambda t: ("pre", lambda go: (t.ones(5),)),
    "pre_dtype": lambda t: ("pre", lambda go: (go[0].double(),)),
    "pre_int": lambda t: ("pre", lambda go: (1,)),
    "pre_str": lambda t: ("pre", lambda go: "no"),
}


@pytest.mark.parametrize("name", sorted(BAD_TENSOR_HOOKS))
@pytest.mark.parametrize("where", ["nonleaf", "leaf"])
def test_bad_tensor_hook_results_and_the_graph_stays_usable(name, where):
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        y = a * 2
        target = y if where == "nonleaf" else a
        handle = target.register_hook(BAD_TENSOR_HOOKS[name](t))
        error = outcome(lambda _: y.sum().backward(retain_graph=True), t)
        handle.remove()
        y.sum().backward()
        return error, a.grad.tolist()

    assert same(prog)[0][0] == "raised"


@pytest.mark.parametrize("name", sorted(BAD_NODE_HOOKS))
def test_bad_node_hook_results_and_the_graph_stays_usable(name):
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        y = a * 2
        kind, fn = BAD_NODE_HOOKS[name](t)
        handle = (y.grad_fn.register_hook if kind == "post" else y.grad_fn.register_prehook)(fn)
        error = outcome(lambda _: y.sum().backward(retain_graph=True), t)
        handle.remove()
        y.sum().backward()
        return error, a.grad.tolist()

    assert same(prog)[0][0] == "raised"


@pytest.mark.parametrize("returned", ["int", "tensor", "str", "tuple", "none"])
def test_a_post_accumulate_grad_hook_returning_a_value_is_refused(returned):
    """Only None may come back from a post-accumulate-grad hook: a tensor is a RuntimeError, anything else a
    TypeError; .grad is written before the hook runs, and the engine takes the next backward."""
    def prog(t):
        value = {"int": 5, "tensor": t.ones(2), "str": "s", "tuple": (1,), "none": None}[returned]
        a = t.ones(2, requires_grad=True)
        handle = a.register_post_accumulate_grad_hook(lambda p: value)
        error = outcome(lambda _: (a * 2).sum().backward(), t)
        handle.remove()
        (a * 3).sum().backward()
        return error, a.grad.tolist()

    assert same(prog)[1] == [5.0, 5.0]


BAD_REGISTRATIONS = {
    "hook_on_constant": lambda t: t.ones(2).register_hook(print),
    "retain_grad_on_constant": lambda t: t.ones(2).retain_grad(),
    "post_acc_on_nonleaf": lambda t: (t.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(print),
    "post_acc_on_constant": lambda t: t.ones(2).register_post_accumulate_grad_hook(print),
    "hook_on_int": lambda t: t.ones(2, dtype=t.int64).register_hook(print),
}


@pytest.mark.parametrize("name", sorted(BAD_REGISTRATIONS))
def test_bad_registrations(name):
    def prog(t):
        error = outcome(lambda _: BAD_REGISTRATIONS[name](t), t)
        a = t.ones(2, requires_grad=True)
        (a * 2).sum().backward()
        return error, a.grad.tolist()

    assert same(prog)[0][0] == "raised"


def prune_program(call):
    def prog(t):
        log = []
        a = t.ones(2, requires_grad=True)
        b = a * 2
        c = b * 3
        d = c.sum()
        b.register_hook(lambda g: log.append("b.tensor") or g * 2)
        b.retain_grad()
        b.grad_fn.register_prehook(lambda g: log.append("b.pre"))
        b.grad_fn.register_hook(lambda gi, go: log.append("b.post"))
        c.grad_fn.register_hook(lambda gi, go: log.append("c.post"))
        a.register_hook(lambda g: log.append("a.tensor"))
        a.register_post_accumulate_grad_hook(lambda p: log.append("a.post_acc"))
        result = call(t, a, b, d)
        grads = {"a": None if a.grad is None else a.grad.tolist(), "b": None if b.grad is None else b.grad.tolist()}
        return log, result, grads

    return prog


PRUNES = {
    "grad_wrt_nonleaf": lambda t, a, b, d: [g.tolist() for g in t.autograd.grad(d, [b])],
    "grad_wrt_leaf": lambda t, a, b, d: [g.tolist() for g in t.autograd.grad(d, [a])],
    "grad_wrt_both": lambda t, a, b, d: [g.tolist() for g in t.autograd.grad(d, [a, b])],
    "backward_inputs_nonleaf": lambda t, a, b, d: d.backward(inputs=[b]),
    "backward_inputs_leaf": lambda t, a, b, d: d.backward(inputs=[a]),
    "grad_unused": lambda t, a, b, d: t.autograd.grad(d, [t.ones(2, requires_grad=True)], allow_unused=True),
}


@pytest.mark.parametrize("name", sorted(PRUNES))
def test_which_hooks_fire_when_inputs_prune_the_graph(name):
    same(prune_program(PRUNES[name]))


def test_removable_handles():
    def prog(t):
        log = []
        a = t.ones(2, requires_grad=True)
        b = a * 2
        handles = [b.register_hook(lambda g: log.append("t")), b.grad_fn.register_prehook(lambda g: log.append("pre")),
                   b.grad_fn.register_hook(lambda gi, go: log.append("post")),
                   a.register_post_accumulate_grad_hook(lambda p: log.append("pa")),
                   a.register_hook(lambda g: log.append("ta"))]
        for h in handles:
            h.remove()
        handles[0].remove()  # twice is harmless
        with b.register_hook(lambda g: log.append("ctx")):
            pass
        keep = b.register_hook(lambda g: log.append("kept"))
        b.sum().backward()
        ids = [h.id for h in handles]
        return log, type(keep).__name__, ids == sorted(ids), len(set(ids)), hasattr(keep, "hooks_dict_ref")

    assert same(prog)[0] == ["kept"]


def test_a_hook_may_remove_itself_while_running():
    def prog(t):
        log = []
        a = t.ones(2, requires_grad=True)
        handles = []
        handles.append(a.register_hook(lambda g: log.append("once") or handles[0].remove()))
        a.register_hook(lambda g: log.append("always"))
        (a * 2).sum().backward()
        (a * 2).sum().backward()
        return log

    assert same(prog) == ["once", "always", "always"]


def test_hooks_run_with_grad_mode_of_create_graph():
    def prog(t):
        log = []
        a = t.ones(2, requires_grad=True)
        b = a * 2
        b.register_hook(lambda g: log.append(("tensor", t.is_grad_enabled())))
        b.grad_fn.register_prehook(lambda g: log.append(("pre", t.is_grad_enabled())))
        b.grad_fn.register_hook(lambda gi, go: log.append(("post", t.is_grad_enabled())))
        a.register_post_accumulate_grad_hook(lambda p: log.append(("post_acc", t.is_grad_enabled())))
        b.sum().backward()
        return log

    assert all(not enabled for _, enabled in same(prog))


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_handle_class_lives_in_utils_hooks(lib):
    handle = lib.ones(2, requires_grad=True).register_hook(print)
    assert type(handle).__module__ == f"{lib.__name__}.utils.hooks"


_MULTI_GRAD_HOOK_PROGRAMS = [
    # torch/autograd/graph.py's own example: c and d share a and b; inputs= prunes
    """a = T.rand(2, 3, requires_grad=True); b = T.rand(2, 3, requires_grad=True); c = a * b; d = a * b
h = T.autograd.graph.register_multi_grad_hook((a, b, c, d), lambda grads: log.append([g is not None for g in grads]))
c.sum().backward(retain_graph=True)
c.sum().backward(inputs=(a,), retain_graph=True)
d.sum().backward(retain_graph=True)
h.remove()
c.sum().backward()""",
    """a = T.tensor([1., 2.], requires_grad=True); b = T.tensor([3.], requires_grad=True)
T.autograd.graph.register_multi_grad_hook((a, b), record)
(a * 2).sum().backward(retain_graph=True)
(a * b).sum().backward()
T.autograd.grad((a * b).sum(), b)""",
    """a = T.tensor([1., 2.], requires_grad=True); b = T.tensor([3.], requires_grad=True); n = T.ones(2)
T.autograd.graph.register_multi_grad_hook((a, n, b), record)
(a * b * n).sum().backward()""",
    """a = T.tensor([1., 2.], requires_grad=True); b = T.tensor([3.], requires_grad=True)
T.autograd.graph.register_multi_grad_hook((a, b), lambda g: log.append(g.tolist()), mode="any")
(a * b).sum().backward()
(b * 2).sum().backward()""",
    """a = T.tensor([1., 2.], requires_grad=True)
T.autograd.graph.register_multi_grad_hook((a,), lambda g: None, mode="some")""",
    """a = T.tensor([1., 2.], requires_grad=True)
T.autograd.graph.register_multi_grad_hook((a,), lambda g: None)
log.append(T.autograd.graph.get_gradient_edge(a * 1).node.name())""",
]


@pytest.mark.parametrize("program", _MULTI_GRAD_HOOK_PROGRAMS)
def test_register_multi_grad_hook(program):
    """``"all"``: one call per backward once every gradient that backward computes is in (None for the others,
    pruning by ``inputs=`` counted through ``_will_engine_execute_node``); ``"any"``: the first gradient only."""
    def prog(T):
        T.manual_seed(0)
        log = []

        def record(grads):
            log.append([None if g is None else g.tolist() for g in grads])
        exec(program, {"T": T, "log": log, "record": record})
        return log
    same(prog)
