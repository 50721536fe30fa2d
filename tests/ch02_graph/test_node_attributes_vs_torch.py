"""What a learner sees on the backward nodes of every op case, beside PyTorch's.

For each case of ``tests/ch00_foundation/op_cases.py`` (and a few more below that pin a rule: negative dims
kept as given, ``float`` arguments read back as floats, broadcast ``normal``), the same program runs on both
libraries with leaves that require grad, and every node of the graph (walked through ``next_functions``)
is compared:

- its face: ``name()``, ``type(node).__name__`` and ``dir(node)`` without dunders (the saved-value getters
  and python_cpp_function.h's properties; nothing of the engine's own fields), and its ``_sequence_nr()``
  from the output node's (which ops a composite runs first: NOTE [C++ operand order]);
- its saved values (``_saved_*``): tensors by dtype, shape, value, and which object they are (a saved leaf or
  input comes back as the tensor itself, a saved output as a new tensor whose ``grad_fn`` is the node);
  other values by type and value (an ``int`` reads back unsigned, a ``float`` as a float, ``int[]`` as a tuple);
- the raw ``SavedTensor`` objects (``_raw_saved_*``): type, ``dir``, ``data``, ``unpack_hook``, ``unpack()``,
  and what ``register_hooks`` does (the pack hook's argument, the unpacked value, the second registration's
  error);
- the saved values after ``backward()`` (freed: PyTorch's error) and after ``backward(retain_graph=True)``,
  with only the first input requiring grad (what is saved depends on which gradients will be computed), after
  an in-place change of the inputs (the version check's error);
- the ``*BackwardBackward0`` nodes of the gradients' graphs (``create_graph=True``);
- that the getsets refuse assignment as PyTorch's do; ``_input_metadata``; a custom Function's node's ``dir``.

``KNOWN`` and ``KNOWN_PROGRAMS`` list what still differs, each entry checked to differ so that a fix shows.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import picotorch

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ch00_foundation"))
from op_cases import CASES, data  # noqa: E402

# Rules the op table does not exercise: each also fails on a picotorch that breaks the rule.
EXTRA = {
    # a ``float`` argument is a C++ double on the node: an int given reads back as a float
    "smooth_l1_loss_int_beta": ([data(2, 3), data(2, 3)], lambda T, a, b: T.nn.functional.smooth_l1_loss(a, b, beta=1)),
    "huber_loss_int_delta": ([data(2, 3), data(2, 3)], lambda T, a, b: T.nn.functional.huber_loss(a, b, delta=2)),
    "logit_int_eps": ([data(2, 3)], lambda T, a: T.logit(T.sigmoid(a), eps=0)),
    "cdist_int_p": ([data(3, 4), data(2, 4)], lambda T, a, b: T.cdist(a, b, p=1)),
    # dims as the caller gave them (composites pass them on unwrapped)
    "diff_default_dim": ([data(3, 4)], lambda T, a: T.diff(a, append=a[:, :1])),
    "narrow_negative": ([data(3, 4)], lambda T, a: a.narrow(-1, -3, 2)),
    "select_negative": ([data(3, 4)], lambda T, a: a.select(-1, -2)),
    "cat_stack_negative": ([data(3, 4), data(3, 4)], lambda T, a, b: T.cat([a, b], -1) * T.stack([a, b], -1).sum(-1)
                           .repeat(1, 2)),
    "reductions_negative": ([data(3, 4)], lambda T, a: a.sum(-1) + a.softmax(-1).prod(-1) + a.cumsum(-1).amax(-1)),
    "views_negative": ([data(3, 4)], lambda T, a: a.transpose(-1, 0).unsqueeze(-1).squeeze(-1).movedim(-1, 0)),
    "imag_real": ([data(2, 3), data(2, 3)], lambda T, a, b: T.complex(a, b).imag * T.complex(b, a).real),
    # normal's gradient is zeros of the input's own shape (saved as *_sym_sizes), not the broadcast output's
    "normal_broadcast": ([data(3), data(2, 3)], lambda T, m, s: T.normal(m, s.abs()) * 0 + m * s),
    "gradient_coordinates": ([data(3, 4), data(4)], lambda T, a, x: T.gradient(a, spacing=(x.detach().cumsum(0),),
                                                                               dim=1)[0] * x[0]),
    "gradient_coordinates_order_2": ([data(3, 4)], lambda T, a: T.gradient(a, spacing=(T.tensor([0.0, 0.5, 1.5, 3.0],
                                                                           dtype=a.dtype),), dim=1, edge_order=2)[0]),
    "gradient_order_1": ([data(3, 4)], lambda T, a: T.gradient(a)[1]),
    "bernoulli_tensor_p": ([data(2, 3), data(2, 3)], lambda T, a, p: (a * 1).bernoulli_(p.sigmoid()) * a),
}
ALL = {**CASES, **EXTRA}

# The values PyTorch leaves uninitialized (``rrelu`` outside training makes its noise with ``empty_like``).
UNINITIALIZED = {("rrelu", "_saved_noise"), ("rrelu_inplace", "_saved_noise")}
# pybind11's own attribute on every pybind class (SavedTensor, _InputMetadata): nothing a learner uses.
PYBIND = {"_pybind11_conduit_v1_"}

# (test, case): why picotorch still differs there.
_LAYER_NORM = ("NativeLayerNormBackward0's formula is composed of ops in picotorch; PyTorch's calls "
               "native_layer_norm_backward, whose node is NativeLayerNormBackwardBackward0")
_MV = "mv's backward: PyTorch's is a mul of views, picotorch's an mm of unsqueezed operands"
_SOLVE = "PyTorch's linalg_det/slogdet backward solves (LinalgSolveExBackward0); picotorch's multiplies by the inverse"
KNOWN: dict[tuple[str, str], str] = {
    ("double backward", "layer_norm"): _LAYER_NORM,
    ("gradient graph", "layer_norm"): _LAYER_NORM,
    ("gradient graph", "bce_with_logits"): ("binary_cross_entropy_with_logits_backward is a kernel without a "
                                            "derivative in picotorch: the gradient has no grad_fn"),
    ("gradient graph", "index"): "index_backward's index_put is not differentiable in the gradient in picotorch",
    ("gradient graph", "index_mask"): "index_backward's index_put is not differentiable in the gradient in picotorch",
    ("gradient graph", "det"): _SOLVE,
    ("gradient graph", "slogdet"): _SOLVE,
    ("gradient graph", "inverse"): "linalg_inv_ex's backward formula: one TransposeBackward0 fewer in picotorch",
    ("gradient graph", "matrix_power"): "matrix_power of a negative power: through inverse's backward (above)",
    ("gradient graph", "matmul_2d_1d"): _MV,
    ("gradient graph", "mv"): _MV,
    ("gradient graph", "native_dropout_eval"): "native_dropout's backward: an extra MulBackward1 by the scale 1",
    ("gradient graph", "remainder_tensor"): "remainder's other gradient: PyTorch's div(rounding_mode='floor') "
                                            "(DivBackward2), picotorch's NotImplemented node",
    ("gradient graph", "renorm"): "renorm's backward formula orders its ops differently",
    ("", "lstm_onednn"): "oneDNN's workspace is not modelled: MkldnnRnnLayerBackward0._saved_result3 is torch's "
                         "uint8 buffer, picotorch's an empty float32 tensor",
    ("gradient graph", "pack_padded_sequence"): "_pack_padded_sequence_backward is a kernel without a derivative in "
                                                "picotorch: the gradient has no grad_fn",
    ("double backward", "pack_padded_sequence"): "(the same)",
    ("faces", "pack_padded_sequence"): "pad_packed_sequence's composite makes its nodes in another order: the "
                                       "ViewBackward0's sequence number relative to the output is -6, torch's -4",
}

def _mm_gradient_order(T):
    """Which of mm's two gradients is made first under create_graph (their sequence numbers)."""
    a, b = (T.ones(2, 2, dtype=T.float64, requires_grad=True) for _ in range(2))
    upstream = T.ones(2, 2, dtype=T.float64, requires_grad=True)
    grad_a, grad_b = T.autograd.grad(T.mm(a, b), (a, b), upstream, create_graph=True)
    return grad_a.grad_fn._sequence_nr() < grad_b.grad_fn._sequence_nr()


def test_a_nodes_formulas_run_in_torchgens_sorted_order():
    """torchgen writes a node's formulas sorted by their names (load_derivatives: sorted(defn.keys())): under
    create_graph mm's mat2 gradient is made before self's, so the sequence numbers say so. (Within a formula, the
    ops are made in Python's order where C++ makes the right operand first: not compared.)"""
    assert _mm_gradient_order(picotorch) == _mm_gradient_order(torch) is False


# Differences outside the op cases, each a program run on both libraries; each must still differ.
KNOWN_PROGRAMS = {
    # picotorch's nodes are plain Python objects: a C++ node refuses new attributes and assignment to its
    # methods, and AccumulateGrad's ``variable`` is an instance attribute the engine reads on every leaf
    "assign_method": lambda T: setattr(T.ones(2, requires_grad=True).exp().grad_fn, "name", None),
    "assign_new_attribute": lambda T: setattr(T.ones(2, requires_grad=True).exp().grad_fn, "note", 1),
    "assign_variable": lambda T: setattr(T.ones(2, requires_grad=True).sum().grad_fn.next_functions[0][0],
                                         "variable", None),
    # pybind11 lists its ``_pybind11_conduit_v1_`` on every class it binds
    "pybind_conduit": lambda T: "_pybind11_conduit_v1_" in dir(T.ones(2, requires_grad=True).exp().grad_fn
                                                            ._raw_saved_result),
}


def _leaves(T, arrays, first_only=False):
    return [T.tensor(a, dtype=T.float64, requires_grad=not (first_only and i)) for i, a in enumerate(arrays)]


def _run(T, name, first_only=False):
    """The case's output; ``first_only``: only its first input requires grad (what a node saves depends on
    which gradients it will compute)."""
    T.manual_seed(0)
    arrays, fn = ALL[name]
    leaves = _leaves(T, arrays, first_only)
    return leaves, fn(T, *leaves)


def _nodes(out) -> list:
    seen, order, stack = set(), [], [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(n for n, _ in reversed(node.next_functions))
    return order


def _saved_names(node) -> list:
    return sorted(n for n in dir(node) if n.startswith(("_saved_", "_raw_saved_")))


class Values:
    """A tensor's values, equal to another's within float64 rounding (NaN equal to NaN)."""

    def __init__(self, array) -> None:
        self.array = np.asarray(array)

    def __eq__(self, other) -> bool:
        a, b = self.array, other.array
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return bool(np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True))
        return bool((a == b).all())

    def __repr__(self) -> str:
        return np.array2string(self.array, precision=6)


def _tensor(T, t, ctx):
    """A saved tensor as a learner sees it, and which object it is."""
    leaves, out, node, skip_values = ctx
    which = next((f"leaf {i}" for i, leaf in enumerate(leaves) if t is leaf), "output" if t is out else "new")
    grad_fn = t.grad_fn
    fn = None if grad_fn is None else "this node" if grad_fn is node else grad_fn.name()
    values = None if skip_values else Values(t.detach().resolve_conj().numpy())
    return ("Tensor", str(t.dtype), tuple(t.shape), which, t.requires_grad, t.is_leaf, fn, values)


def _value(T, v, ctx):
    if isinstance(v, T.Tensor):
        return _tensor(T, v, ctx)
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [_value(T, x, ctx) for x in v])
    if isinstance(v, float):
        return ("float", "nan" if math.isnan(v) else round(v, 9))
    if isinstance(v, T.dtype):
        return ("dtype", str(v))
    return (type(v).__name__, v)


def _raw(T, raw, ctx):
    """A ``SavedTensor``: its type, ``dir``, ``data``, ``unpack_hook`` and what ``unpack()`` gives or raises."""
    if isinstance(raw, (list, tuple)):
        return (type(raw).__name__, [_raw(T, r, ctx) for r in raw])
    face = sorted(set(n for n in dir(raw) if not n.startswith("__")) - PYBIND)
    data = raw.data
    return (type(raw).__name__, face, None if data is None else (str(data.dtype), tuple(data.shape)),
            raw.unpack_hook, _outcome(lambda: _value(T, raw.unpack(), ctx)))


def _outcome(fn):
    try:
        return fn()
    except Exception as err:  # the error is what a learner sees
        return ("raised", type(err).__name__, str(err))


def _saved(T, name, leaves, out, node, attribute):
    """A saved value, and for a tensor whether reading it again gives the same object (a saved input is the
    tensor itself, a saved output a new tensor each time)."""
    skip = (name, attribute) in UNINITIALIZED

    def read():
        value = getattr(node, attribute)
        again = getattr(node, attribute) is value if isinstance(value, T.Tensor) else None  # other values: new objects
        return _value(T, value, (leaves, out, node, skip)), again
    return _outcome(read)


def _read_all(T, name, leaves, out, nodes) -> list:
    """Every node's saved values, as ``dir`` lists them; raw ones by what the SavedTensor shows."""
    def raw(node, attr):
        ctx = (leaves, out, node, (name, attr.replace("_raw", "", 1)) in UNINITIALIZED)
        return _outcome(lambda: _raw(T, getattr(node, attr), ctx))

    def saved(node, attr):
        return raw(node, attr) if attr.startswith("_raw") else _saved(T, name, leaves, out, node, attr)

    return [(node.name(), {attr: saved(node, attr) for attr in _saved_names(node)}) for node in nodes]


def _face(node):
    names = [n for n in dir(node) if not n.startswith("__") and not n.startswith(("_saved_", "_raw_saved_"))]
    inputs = [(m.shape, str(m.dtype), str(m.device)) for m in node._input_metadata]  # one per forward output
    return node.name(), type(node).__name__, names, _saved_names(node), node.requires_grad, inputs, node.metadata


def _first_difference(ours, theirs) -> str:
    for (p_name, p), (t_name, t) in zip(ours, theirs):
        if (p_name, p) != (t_name, t):
            if isinstance(p, tuple) and isinstance(t, tuple) and len(p) == len(t):  # only the parts that differ
                p, t = [a for a, b in zip(p, t) if a != b], [b for a, b in zip(p, t) if a != b]
            if not isinstance(p, dict):
                return f"\npicotorch: {p_name} {p}\ntorch:     {t_name} {t}"
            keys = sorted(k for k in set(p) | set(t) if p.get(k, "missing") != t.get(k, "missing"))
            return "".join(f"\n{p_name} {k}\n  picotorch: {p.get(k, 'missing')}\n  torch:     {t.get(k, 'missing')}"
                           for k in keys)
    return f"\n{len(ours)} nodes against {len(theirs)}"


def _program_saved(T, name, retain=None, first_only=False, bump=False):
    """The saved values of every node; after backward (``retain``: its retain_graph) when asked; ``bump``: after
    an in-place change of every input (saved ones then fail their version check)."""
    leaves, out = _run(T, name, first_only)
    nodes = _nodes(out)
    if retain is not None:
        out.backward(T.ones_like(out), retain_graph=retain)
    if bump:
        with T.no_grad():
            for leaf in leaves:
                leaf.add_(0)
    return _read_all(T, name, leaves, out, nodes)


# The attributes a C++ node has as getsets (python_cpp_function.h); its saved values are getsets too.
GETSETS = ("next_functions", "metadata", "requires_grad", "_input_metadata")


def _assignments(node) -> list:
    """What assigning and deleting each getset of ``node`` raises."""
    names = [n for n in (*GETSETS, *_saved_names(node)) if n != "variable"]
    return [(n, _outcome(lambda a=n: setattr(node, a, None)), _outcome(lambda a=n: delattr(node, a))) for n in names]


def _sequence_nr(node, top: int):
    """A node's sequence number from the output's node's (which ops ran first; AccumulateGrad's is UINT64_MAX)."""
    nr = node._sequence_nr()
    return "UINT64_MAX" if nr == 2**64 - 1 else nr - top


def _program_faces(T, name):
    _, out = _run(T, name)
    top = out.grad_fn._sequence_nr() if out.grad_fn is not None else 0  # ``to`` its own dtype: the leaf itself
    return [(node.name(), (_face(node), _sequence_nr(node, top), _assignments(node))) for node in _nodes(out)]


def _program_hooks(T, name):
    """``register_hooks`` on every raw SavedTensor: what the pack hook gets, what unpacking gives, what a second
    registration raises; then backward through the hooks gives the same gradients."""
    leaves, out = _run(T, name)
    nodes, seen = _nodes(out), []
    for node in nodes:
        for attr in _saved_names(node):
            if not attr.startswith("_raw"):
                continue
            raws = getattr(node, attr)
            for i, raw in enumerate(raws if isinstance(raws, (list, tuple)) else [raws]):
                ctx = (leaves, out, node, (name, attr.replace("_raw", "", 1)) in UNINITIALIZED)
                packed = []

                def pack(t, packed=packed, ctx=ctx):
                    packed.append(_tensor(T, t, ctx))
                    return ("packed", t)

                def unpack(p):
                    return p[1]

                registered = _outcome(lambda r=raw: r.register_hooks(pack, unpack))
                again = _outcome(lambda r=raw: r.register_hooks(pack, unpack))
                hooks_kept = raw.unpack_hook is unpack if registered is None else raw.unpack_hook
                seen.append((node.name(), attr, i, registered, packed, again, hooks_kept,
                             _outcome(lambda r=raw: type(r.data).__name__)))
            seen.append((node.name(), attr, _saved(T, name, leaves, out, node, attr.replace("_raw", "", 1))))
    out.backward(T.ones_like(out))
    return seen, [None if leaf.grad is None else Values(leaf.grad.numpy()) for leaf in leaves]


def _check(name, program, kind=""):
    ours, theirs = program(picotorch, name), program(torch, name)
    if (kind, name) in KNOWN:
        assert ours != theirs, f"{name} now matches torch: remove it from KNOWN ({KNOWN[kind, name]})"
        return
    assert ours == theirs, _first_difference(ours, theirs) if isinstance(ours, list) else f"\n{ours}\n{theirs}"


@pytest.mark.parametrize("name", sorted(ALL))
def test_saved_values_match_torch(name):
    _check(name, _program_saved)


MULTI_INPUT = sorted(name for name, (arrays, _) in ALL.items() if len(arrays) > 1)


@pytest.mark.parametrize("name", MULTI_INPUT)
def test_saved_values_with_one_input_requiring_grad_match_torch(name):
    _check(name, lambda T, n: _program_saved(T, n, first_only=True))


@pytest.mark.parametrize("name", sorted(ALL))
def test_saved_inputs_modified_in_place_match_torch(name):
    _check(name, lambda T, n: _program_saved(T, n, bump=True))


def _program_gradient_graph(T, name, only_double_backward=False):
    """The nodes of the graph of the case's gradients (``create_graph=True``, with an upstream gradient that
    requires grad too): the ops the backward formulas call, with their saved values.
    ``only_double_backward``: the ``*BackwardBackward0`` nodes alone, by name and values."""
    leaves, out = _run(T, name)
    upstream = T.tensor(np.linspace(-1.0, 1.0, out.numel()).reshape(tuple(out.shape)), dtype=out.dtype,
                        requires_grad=True)
    grads = T.autograd.grad(out, leaves, upstream, create_graph=True, allow_unused=True)
    seen, found = set(), []
    for grad in grads:
        for node in [] if grad is None or grad.grad_fn is None else _nodes(grad):
            if node not in seen and (not only_double_backward or "BackwardBackward" in node.name()):
                seen.add(node)
                found.append(node)
    saved = _read_all(T, name, [*leaves, upstream], None, found)
    # Sequence numbers are not compared here: the formulas make their ops in Python's order (KNOWN_PROGRAMS)
    return sorted(saved, key=lambda entry: (entry[0], repr(entry[1]))) if only_double_backward else saved


@pytest.mark.parametrize("name", sorted(ALL))
def test_gradient_graph_saved_values_match_torch(name):
    _check(name, _program_gradient_graph, "gradient graph")


@pytest.mark.parametrize("name", sorted(ALL))
def test_double_backward_saved_values_match_torch(name):
    _check(name, lambda T, n: _program_gradient_graph(T, n, only_double_backward=True), "double backward")


@pytest.mark.parametrize("name", sorted(ALL))
def test_node_faces_match_torch(name):
    _check(name, _program_faces, "faces")


@pytest.mark.parametrize("name", sorted(ALL))
def test_saved_values_after_backward_match_torch(name):
    _check(name, lambda T, n: _program_saved(T, n, retain=False), "freed")
    _check(name, lambda T, n: _program_saved(T, n, retain=True))


@pytest.mark.parametrize("name", sorted(ALL))
def test_raw_saved_register_hooks_match_torch(name):
    _check(name, _program_hooks)


def test_input_metadata_matches_torch():
    """``node._input_metadata``: one entry per forward output, its shape a list; read-only like requires_grad."""
    def program(T):
        x = T.ones(2, 3, dtype=T.float64, requires_grad=True)
        nodes = [x.exp().grad_fn, x.unbind(1)[0].grad_fn, (x * 2).sum().grad_fn, x.exp().grad_fn.next_functions[0][0]]
        metas = [[(type(m).__name__, sorted(set(n for n in dir(m) if not n.startswith("__")) - PYBIND), m.shape,
                   type(m.shape).__name__, str(m.dtype), str(m.device), m.is_nested_tensor, m.is_cpp_nested_tensor)
                  for m in node._input_metadata] for node in nodes]
        return metas, type(nodes[0]._input_metadata).__name__, [node.requires_grad for node in nodes]

    assert program(picotorch) == program(torch)


@pytest.mark.parametrize("name", sorted(KNOWN_PROGRAMS))
def test_known_differences_still_differ(name):
    program = KNOWN_PROGRAMS[name]
    assert _outcome(lambda: program(picotorch)) != _outcome(lambda: program(torch))


# What PyTorch lists on a custom Function's node that picotorch lacks (compiled autograd's hooks and two
# internals); checked to be still missing.
FUNCTION_NODE_ONLY_IN_TORCH = {"_compiled_autograd_backward_state", "_compiled_autograd_key",
                               "_get_compiled_autograd_symints", "_is_pure_view", "_register_hook",
                               "maybe_clear_saved_tensors"}


def _custom_function_node_face(T):
    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            ctx.factor = 3
            return x * y

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            return grad * y, grad * x

    node = Scale.apply(T.ones(2, requires_grad=True), T.ones(2, requires_grad=True)).grad_fn
    return type(node).__name__, [n for n in dir(node) if not n.startswith("__")], node.requires_grad


def test_custom_function_node_face_matches_torch():
    """A custom Function's node is a Python object in PyTorch too: ``dir`` shows the ctx's attributes and
    THPFunction's, not picotorch's engine fields."""
    ours, theirs = _custom_function_node_face(picotorch), _custom_function_node_face(torch)
    assert FUNCTION_NODE_ONLY_IN_TORCH <= set(theirs[1]) and not FUNCTION_NODE_ONLY_IN_TORCH & set(ours[1])
    assert ours == (theirs[0], [n for n in theirs[1] if n not in FUNCTION_NODE_ONLY_IN_TORCH], theirs[2])
