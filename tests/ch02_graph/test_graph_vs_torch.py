"""grad_fn names and next_functions, op by op, against PyTorch (torch.autograd graph, function.h / edge.h).

Every program builds the same tensors with both libraries; the graphs must have the same node names,
the same ``(node, input_nr)`` edges in argument order (``None`` where an input needs no grad) and
the same sharing (one AccumulateGrad per leaf, reached from every use).
"""

from __future__ import annotations

import pytest

from graph_helpers import LIBS, graph_structure, leaves_of, same

BINARY = {
    "add": lambda t, a, b: a + b,
    "add_alpha": lambda t, a, b: a.add(b, alpha=2),
    "sub": lambda t, a, b: a - b,
    "sub_alpha": lambda t, a, b: t.sub(a, b, alpha=3),
    "rsub": lambda t, a, b: t.rsub(a, b),
    "mul": lambda t, a, b: a * b,
    "div": lambda t, a, b: a / b,
    "pow": lambda t, a, b: a ** b,
    "stack": lambda t, a, b: t.stack([a, b]),
    "cat": lambda t, a, b: t.cat([a, b], 1),
    "mm": lambda t, a, b: a.mm(b.t()),
    "matmul": lambda t, a, b: a @ b.t(),
    "addmm": lambda t, a, b: t.addmm(a, a, b.t().mm(a)),
}
UNARY = {
    "neg": lambda t, a: -a,
    "reciprocal": lambda t, a: a.reciprocal(),
    "exp": lambda t, a: a.exp(),
    "log": lambda t, a: a.log(),
    "relu": lambda t, a: a.relu(),
    "sigmoid": lambda t, a: a.sigmoid(),
    "tanh": lambda t, a: a.tanh(),
    "sum": lambda t, a: a.sum(),
    "sum_dim": lambda t, a: a.sum(1),
    "sum_keepdim": lambda t, a: a.sum(0, keepdim=True),
    "mean": lambda t, a: a.mean(),
    "mean_dim": lambda t, a: a.mean(1),
    "add_scalar": lambda t, a: a + 1,
    "radd_scalar": lambda t, a: 1 + a,
    "sub_scalar": lambda t, a: a - 1.5,
    "rsub_scalar": lambda t, a: 2 - a,
    "mul_scalar": lambda t, a: a * 2,
    "rmul_scalar": lambda t, a: 2 * a,
    "div_scalar": lambda t, a: a / 2,
    "rdiv_scalar": lambda t, a: 2 / a,
    "pow_scalar": lambda t, a: a ** 2,
    "rpow_scalar": lambda t, a: 2 ** a,
    "t": lambda t, a: a.t(),
    "T": lambda t, a: a.T,
    "mT": lambda t, a: a.mT,
    "transpose": lambda t, a: a.transpose(0, 1),
    "permute": lambda t, a: a.permute(1, 0),
    "view": lambda t, a: a.view(6),
    "reshape": lambda t, a: a.reshape(3, 2),
    "expand": lambda t, a: a.expand(4, 2, 3),
    "expand_as": lambda t, a: a.expand_as(a),
    "unsqueeze": lambda t, a: a.unsqueeze(0),
    "squeeze": lambda t, a: a.unsqueeze(0).squeeze(),
    "squeeze_dim": lambda t, a: a.unsqueeze(1).squeeze(1),
    "select": lambda t, a: a[0],
    "select_both": lambda t, a: a[1, 2],
    "slice": lambda t, a: a[:, 1:],
    "slice_step": lambda t, a: a[::2],
    "index": lambda t, a: a[[1, 0]],
    "index_bool": lambda t, a: a[t.tensor([True, False])],
    "clone": lambda t, a: a.clone(),
    "double": lambda t, a: a.double(),
    "to_dtype": lambda t, a: a.to(t.float64),
    "to_copy": lambda t, a: a.to(t.float32, copy=True),
    "to_same": lambda t, a: a.to("cpu"),
    "half": lambda t, a: a.half(),
    "type_as": lambda t, a: a.type_as(t.zeros(1, dtype=t.float64)),
    "mv": lambda t, a: a.mv(t.ones(3)),
    "dot": lambda t, a: a[0].dot(a[1]),
    "matmul_vec": lambda t, a: a @ t.ones(3),
    "chain": lambda t, a: ((a * 2).exp().sum(1) + 1).mean(),
    "reuse": lambda t, a: a * a + a,
}


def _leaves(t, requires):
    a = t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=requires[0])
    b = t.tensor([[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]], requires_grad=requires[1])
    return a, b


@pytest.mark.parametrize("requires", [(True, True), (True, False), (False, True)], ids=["both", "left", "right"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_op_graph_matches_torch(name, requires):
    def prog(t):
        a, b = _leaves(t, requires)
        out = BINARY[name](t, a, b)
        return graph_structure(out), leaves_of(out, {"a": a, "b": b}), out.is_leaf, out.requires_grad

    same(prog)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_op_graph_matches_torch(name):
    def prog(t):
        a, _ = _leaves(t, (True, False))
        out = UNARY[name](t, a)
        return graph_structure(out), out.grad_fn.name(), out.is_leaf, out.output_nr

    same(prog)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_op_on_a_constant_records_nothing(name):
    def prog(t):
        a, _ = _leaves(t, (False, False))
        out = UNARY[name](t, a)
        return out.grad_fn, out.requires_grad, out.is_leaf

    assert same(prog) == (None, False, True)


def test_leaf_and_constant_edges_are_accumulate_grad_and_none():
    def prog(t):
        a, b = _leaves(t, (True, False))
        out = a * b
        fns = out.grad_fn.next_functions
        return [(fn.name() if fn is not None else None, nr) for fn, nr in fns], fns[0][0].variable is a

    assert same(prog) == ([("torch::autograd::AccumulateGrad", 0), (None, 0)], True)


def test_python_scalar_is_not_an_edge():
    same(lambda t: graph_structure(t.ones(2, requires_grad=True) * 3.0))


def test_output_nr_of_a_second_use_and_a_shared_leaf():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        x = a * 2
        y = t.stack([x, a, x])
        return graph_structure(y), [nr for _, nr in y.grad_fn.next_functions]

    same(prog)


def test_parameter_and_linear_graph():
    def prog(t):
        t.manual_seed(0)
        lin = t.nn.Linear(3, 2)
        x = t.ones(4, 3)
        out = [lin(x), lin(t.ones(3)), t.nn.Linear(3, 2, bias=False)(x), t.nn.functional.relu(lin(x)),
               lin(t.ones(2, 4, 3))]
        named = {"weight": lin.weight, "bias": lin.bias}
        return ([graph_structure(o) for o in out], [leaves_of(o, named) for o in out[:2]],
                lin.weight.is_leaf, lin.weight.grad_fn)

    same(prog)


def test_parameter_times_two():
    same(lambda t: (graph_structure(t.nn.Parameter(t.ones(2)) * 2), t.nn.Parameter(t.ones(2)).is_leaf))


def test_deep_chain_has_the_same_structure_without_recursion():
    def prog(t):
        x = t.ones(2, requires_grad=True)
        for _ in range(3000):
            x = x * 1.0001
        return len(graph_structure(x)[1]), x.grad_fn.name()

    assert same(prog) == (3001, "MulBackward0")


def test_grad_fn_repr_and_name():
    def prog(t):
        a = t.ones(2, requires_grad=True)
        out = a * 2
        acc = out.grad_fn.next_functions[0][0]
        strip = lambda r: r.split(" object at ")[0]  # noqa: E731
        return strip(repr(out.grad_fn)), strip(repr(acc)), out.grad_fn.name(), acc.name(), type(acc).__name__

    assert same(prog)[:2] == ("<MulBackward0", "<AccumulateGrad")


def test_a_node_class_prints_as_pytorch_prints_it():
    """NOTE [Node classes print as C++ types]: a built-in node's class has no module; a custom Function's
    node class and ``Node`` itself print with theirs (the library's name aside)."""
    def prog(t):
        class Double(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        a = t.ones(2, 2, requires_grad=True)
        b = a.clone()
        b[0] = 1
        nodes = [a * 2, (a * 2).sum(), a[0], a.t(), b, Double.apply(a)]
        acc = nodes[0].grad_fn.next_functions[0][0]
        shown = [repr(type(n.grad_fn)) for n in nodes] + [str(type(acc)), repr(t.autograd.graph.Node)]
        return [s.replace("picotorch", "torch") for s in shown]

    assert same(prog)[0] == "<class 'MulBackward0'>"


def test_metadata_is_a_dict_kept_on_the_node():
    def prog(t):
        out = t.ones(2, requires_grad=True) * 2
        out.grad_fn.metadata["k"] = 1
        return out.grad_fn.metadata, type(out.grad_fn.metadata).__name__

    same(prog)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_grad_fn_is_a_node(lib):
    out = lib.ones(2, requires_grad=True) * 2
    assert isinstance(out.grad_fn, lib.autograd.graph.Node)
