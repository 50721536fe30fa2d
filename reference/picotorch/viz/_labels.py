"""What a drawing says about each Node, read from outside as torchviz's ``make_dot`` does.

Models the parts of ``torch/csrc/autograd/function.h`` a Python user can observe: ``name()``,
``_sequence_nr()`` (NOTE [Sequence Number]), ``topological_nr`` (NOTE [Topological Number]),
saved variables (``_saved_self`` …, generated into ``torch/csrc/autograd/generated/``), the hooks,
and ``AccumulateGrad.variable`` (``torch/csrc/autograd/functions/accumulate_grad.h``).

PyTorch does not expose ``topological_nr`` or a C++ Node's hook lists to Python. The topological
number is recomputed here with PyTorch's rule (longest path to a leaf; ``AccumulateGrad`` is 0);
node hooks are shown only where the node exposes them (picotorch does), tensor hooks always.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._walk import UINT64_MAX, next_edges, root_node

# Hook lists a Node may expose (picotorch mirrors function.h's accessors), with the label shown.
# Where several attributes give one label, the first one present is read.
_NODE_HOOKS = (
    ("pre_hooks", "pre-hooks"),
    ("_forward_pre_hooks", "pre-hooks"),
    ("post_hooks", "post-hooks"),
    ("_forward_hooks", "post-hooks"),
)
# A Node also holds its output tensor's hooks; an AccumulateGrad's are shown with its leaf instead.
_NODE_TENSOR_HOOKS = (
    ("tensor_pre_hooks", "tensor pre-hooks"),
    ("retains_grad_hooks", "retains_grad hooks"),
)
_TENSOR_HOOKS = (
    ("_backward_hooks", "tensor hooks"),  # the same field in torch.Tensor and picotorch's TensorImpl
    ("_post_accumulate_grad_hooks", "post-accumulate-grad hooks"),
)


@dataclass
class Options:
    show_sequence_nr: bool = False
    show_topological_nr: bool = False
    show_hooks: bool = False
    show_saved: bool = False
    names: dict[int, str] = field(default_factory=dict)  # id(tensor) -> name, from `params`
    topo: dict[int, int] = field(default_factory=dict)  # id(node) -> computed topological_nr


def make_options(roots: tuple[Any, ...], params: dict[str, Any] | None, **flags: bool) -> Options:
    opts = Options(**flags, names={id(t): k for k, t in (params or {}).items()})
    if opts.show_topological_nr:
        opts.topo = topological_numbers([root_node(r) for r in roots])
    return opts


def is_accumulate_grad(node: Any) -> bool:
    return hasattr(node, "variable")


def short_name(node: Any) -> str:
    """``torch::autograd::AccumulateGrad`` -> ``AccumulateGrad``; other names are kept."""
    return node.name().removeprefix("torch::autograd::")


def shape_str(t: Any) -> str:
    return "(" + ", ".join(str(int(s)) for s in t.shape) + ")"


def tensor_label(t: Any, opts: Options) -> str:
    """A tensor box: its name from ``params`` (if any) and its shape, as torchviz labels it."""
    name = opts.names.get(id(t))
    return f"{name} {shape_str(t)}" if name else shape_str(t)


def node_label(node: Any, opts: Options) -> tuple[str, str, list[str]]:
    """``(title, detail, extras)``: the Node's name, its leaf (for AccumulateGrad), the options."""
    detail = tensor_label(node.variable, opts) if is_accumulate_grad(node) else ""
    extras: list[str] = []
    if opts.show_sequence_nr:
        extras += _sequence_nr(node)
    if opts.show_topological_nr:
        extras += _topological_nr(node, opts)
    if opts.show_hooks:
        extras += node_hooks(node)
    if opts.show_saved:
        extras += saved_values(node)
    return short_name(node), detail, extras


def _sequence_nr(node: Any) -> list[str]:
    if not hasattr(node, "_sequence_nr"):
        return []
    nr = node._sequence_nr()
    return ["seq=UINT64_MAX" if nr == UINT64_MAX else f"seq={nr}"]


def _topological_nr(node: Any, opts: Options) -> list[str]:
    """The Node's own number if it shows it without side effects, else the recomputed one.

    Not ``node.topological_nr``: as in function.h, reading it marks the Node as having a parent.
    """
    if hasattr(node, "_topological_nr_value"):
        return [f"topo={node._topological_nr_value()}"]
    return [f"topo={opts.topo[id(node)]}"]


def _count(value: Any) -> int:
    value = value() if callable(value) else value
    return 0 if value is None else len(value)


def _hook_lines(obj: Any, table: tuple[tuple[str, str], ...]) -> list[str]:
    counts: dict[str, int] = {}
    for attr, label in table:
        if label not in counts and hasattr(obj, attr):
            counts[label] = _count(getattr(obj, attr))
    return [f"{label}: {n}" for label, n in counts.items() if n]


def node_hooks(node: Any) -> list[str]:
    if is_accumulate_grad(node):
        return _hook_lines(node, _NODE_HOOKS) + tensor_hooks(node.variable)
    return _hook_lines(node, _NODE_HOOKS + _NODE_TENSOR_HOOKS)


def tensor_hooks(t: Any) -> list[str]:
    lines = _hook_lines(t, _TENSOR_HOOKS)
    return lines + (["retains_grad"] if getattr(t, "retains_grad", False) else [])


def saved_values(node: Any) -> list[str]:
    """``_saved_self=…`` attributes: tensors as their shape, the rest as ``repr``."""
    lines = []
    for attr in sorted(a for a in dir(node) if a.startswith("_saved_")):
        try:
            value = getattr(node, attr)
        except RuntimeError:  # freed by backward() without retain_graph=True
            value = "<freed>"
        lines.append(f"{attr.removeprefix('_saved_')}={_value_str(value)}")
    return lines


def _value_str(value: Any) -> str:
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return "tensor" + shape_str(value)
    if isinstance(value, list | tuple):
        return "(" + ", ".join(_value_str(v) for v in value) + ")"
    return value if isinstance(value, str) else repr(value)


def topological_numbers(roots: list[Any]) -> dict[int, int]:
    """NOTE [Topological Number]: 0 for a Node without next edges, else 1 + the largest below.

    An iterative post-order walk: a Node's number is written once every Node below it has one.
    """
    numbers: dict[int, int] = {}
    expanded: dict[int, Any] = {}  # also keeps the Nodes alive, so ids are not reused
    stack = [(r, False) for r in roots if r is not None]
    while stack:
        node, done = stack.pop()
        below = [nxt for nxt, _ in next_edges(node)]
        if done:
            numbers[id(node)] = 1 + max((numbers[id(n)] for n in below), default=-1)
        elif id(node) not in expanded:
            expanded[id(node)] = node
            stack.append((node, True))
            stack += [(n, False) for n in below if id(n) not in expanded]
    return numbers
