"""An op as the autograd generators see it: its derivatives entry, the inputs that get an edge, what to save.

Models ``torchgen/api/autograd.py`` (``NativeFunctionWithDifferentiabilityInfo``,
``match_differentiability_info``, ``SavedAttribute``). Both ``nodes.py`` (a node reads its saved
values back) and ``variable_type.py`` (the forward saves them) are written from the facts here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..load_derivatives import DifferentiabilityInfo
from ..model import Argument, FunctionSchema, NativeFunction
from .python import argument_kind

__all__ = ["Op", "Saved", "differentiable_inputs", "edge_ranges", "formula_names", "should_compute",
           "formula_value", "match_differentiability_info", "saved_values"]


@dataclass
class Op:
    """One native function and, when it has one, its derivatives entry."""

    fn: NativeFunction
    info: DifferentiabilityInfo | None

    @property
    def schema(self) -> FunctionSchema:
        return self.fn.func

    @property
    def overload(self) -> str:
        return str(self.schema.name)

    @property
    def py_name(self) -> str:
        """The Python function in variable_type.py: ``mul_Tensor``, ``squeeze__dim``."""
        name = self.schema.name
        return f"{name.name}_{name.overload_name}" if name.overload_name else name.name

    @property
    def base(self) -> str:
        return self.schema.name.name

    @property
    def is_inplace(self) -> bool:
        return self.schema.name.inplace

    @property
    def composite(self) -> bool:
        return "CompositeImplicitAutograd" in self.fn.dispatch

    @property
    def has_node(self) -> bool:
        """Whether some input is differentiated, so the op builds a backward node."""
        return self.info is not None and self.info.op_name is not None


def match_differentiability_info(functions: list[NativeFunction], infos: list[DifferentiabilityInfo]) -> list[Op]:
    """Pair each function with its entry: by schema, or, for an in-place op, its out-of-place entry."""
    by_schema = {str(i.func): i for i in infos}
    by_signature = {i.func.signature(): i for i in infos}
    ops = []
    for fn in functions:
        info = by_schema.get(str(fn.func))
        if info is None and fn.func.name.inplace:
            info = by_signature.get(fn.func.signature())
        ops.append(Op(fn, info))
    return ops


def differentiable_inputs(op: Op) -> list[Argument]:
    """The forward inputs that get an edge, in schema order (``args_with_derivatives``)."""
    names = set(op.info.args_with_derivatives) - set(op.info.non_differentiable)
    return [a for a in op.schema.arguments.flat_non_out() if a.name in names]


def edge_ranges(inputs: list[Argument]) -> list[tuple[str, str, bool]]:
    """(input name, the Python index or slice of its edges, is a list): a ``Tensor[]`` takes a run of edges."""
    out, offset = [], "0"
    for a in inputs:
        if argument_kind(a) == "Tensor[]":
            out.append((a.name, f"{offset}:{offset} + node.{a.name}_size_", True))
            offset = f"{offset} + node.{a.name}_size_"
        else:
            out.append((a.name, offset, False))
            offset = str(int(offset) + 1) if offset.isdigit() else f"{offset} + 1"
    return out


def should_compute(node: str, where: str, is_list: bool, task: bool = False) -> str:
    """The guard "is this input's gradient needed?": one edge's, or any edge of a ``Tensor[]`` input's.

    ``task``: asked by a node's ``apply``, where the running backward may prune edges
    (``task_should_compute_output`` in PyTorch's generated Functions.cpp)."""
    prefix = "task_" if task else ""
    if not is_list:
        return f"{node}.{prefix}should_compute_output({where})"
    start, end = where.split(":")
    return f"{node}.{prefix}should_compute_any_output({start}, ({end}) - ({start}))"


_IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


def formula_names(formula: str) -> set[str]:
    """The names a formula reads, leaving out attributes (``ops.mul`` reads ``ops``)."""
    return set(_IDENTIFIER.findall(re.sub(r"\.\s*[A-Za-z_]\w*", "", formula)))


_OP_CALL = re.compile(r"\bops\.\s*([A-Za-z_]\w*)")


def saved_names(formula: str) -> set[str]:
    """The names whose values the forward saves for a formula: what it reads, and the op names it calls.

    torchgen finds an input's name in a C++ formula by a word match, so ``at::real(grad)`` in ``complex``'s
    formula saves the input ``real`` although the formula never reads it; ``ops.real`` is that call here.
    """
    return formula_names(formula) | set(_OP_CALL.findall(formula))


@dataclass
class Saved:
    """A value the forward saves on the node because a formula reads it (``SavedAttribute``)."""

    name: str          # the name formulas use: self, other, self_sizes, result, alpha ...
    source: str        # how the forward computes it
    kind: str          # 'tensor', 'tensor_list', 'value', 'output'
    used_by: set       # which grad outputs (edge ranges) need it
    # How the Python getter shows an argument as PyTorch's does: 'int' / 'int[]' (unsigned), 'float' (a
    # ``double``), 'hidden' (a type PyTorch's getters leave out); '' as saved
    getter: str = ""


def saved_values(op: Op) -> list[Saved]:
    """What the formulas of ``op`` read, in the order PyTorch saves them: by name, ``result`` last.

    The order is observable (``saved_tensors_hooks`` packs them in it: ``mul`` packs ``other`` before
    ``self``); torchgen sorts the saved inputs by name for a deterministic output, and so do we.
    """
    args = {a.name: a for a in op.schema.arguments.flat_non_out()}
    outputs = {r.name: i for i, r in enumerate(op.schema.returns) if r.name} if len(op.schema.returns) > 1 else {}
    saved: dict[str, Saved] = {}
    for d in op.info.derivatives:
        if d.formula == "non_differentiable":
            continue
        for name in sorted(saved_names(d.formula)):
            entry = _saved_for(name, args, outputs)
            if entry is None:
                continue
            entry = saved.setdefault(name, entry)
            entry.used_by.update(d.var_names)
    return sorted(saved.values(), key=lambda s: (s.kind == "output", s.name))


def formula_value(op: Op, name: str) -> Saved | None:
    """What ``name`` in one of ``op``'s formulas stands for, as the forward would save it; ``None`` when it
    is no input, derived input value (``self_sizes``) or output of ``op``."""
    args = {a.name: a for a in op.schema.arguments.flat_non_out()}
    outputs = {r.name: i for i, r in enumerate(op.schema.returns) if r.name} if len(op.schema.returns) > 1 else {}
    return _saved_for(name, args, outputs)


# What a formula may say about an input besides its value: ``self_sizes`` is its shape as a tuple; its
# strides are kept only for an input that needs a gradient (``strides_or_error`` in PyTorch). They are read
# from the tensor's fields, as the C++ kernel reads the TensorImpl's (``self.sym_sizes()``): no Python
# property, no ``__torch_function__``, no ``torch.Size`` to build and take apart on every forward op.
_DERIVED = (("_sizes_opt", "tuple({0}._data.shape) if {0} is not None else (0,)"),  # an undefined tensor's: [0]
            ("_sizes", "tuple({0}._data.shape)"),
            ("_strides", "native.strides_of({0}) if any_requires_grad({0}) else ()"),
            ("_geometry", "native.tensor_geometry({0})"),  # PyTorch's ``TensorGeometry``: sizes, strides, offset
            ("_numel", "{0}.numel()"), ("_dim", "{0}._data.ndim"), ("_scalar_type", "{0}._dtype"),
            ("_options", "({0}._dtype, {0}._device)"),
            ("_info", "(tuple({0}._data.shape), {0}._dtype)"),  # PyTorch's ``TypeAndSize``: what zeros_like needs
            ("_args_sizes", "[tuple(t._data.shape) for t in {0}]"),
            ("_args_scalartypes", "[t._dtype for t in {0}]"))


_NTH_RESULT = re.compile(r"result(\d+)")
# ``weight.size(0)`` in a PyTorch formula: torchgen saves it as ``weight_sym_argsize_0``.
_ARGSIZE = re.compile(r"(\w+?)_sym_argsize_(minus_)?(\d+)")  # ``grad_output.size(-1)``: ..._argsize_minus_1


# Saved argument types gen_autograd_functions.py writes no Python getter for (``optional<bool>``, ``ScalarType``).
_NO_GETTER_KINDS = ("bool?", "ScalarType", "ScalarType?", "MemoryFormat", "MemoryFormat?", "Layout", "Layout?")


def _getter_kind(arg: Argument) -> str:
    kind = argument_kind(arg)
    if kind.startswith("int"):
        return "int[]" if kind.startswith("int[") else kind.rstrip("?")
    if kind in _NO_GETTER_KINDS:
        return "hidden"
    return "float" if arg.type.base == "float" and not arg.type.is_list else ""


def _saved_for(name: str, args: dict[str, Argument], outputs: dict[str, int]) -> Saved | None:
    """``outputs``: the named returns of an op with several (``nll_loss_forward``'s ``total_weight``)."""
    if name == "result":  # the single output, or the first one when it is named ``result`` (``_linalg_det``)
        return Saved(name, "result[0]" if outputs.get(name) == 0 else "result", "output", set())
    nth = _NTH_RESULT.fullmatch(name)
    if nth or name in outputs:  # one output of an op that returns several (``native_layer_norm``'s ``result1``)
        return Saved(name, f"result[{nth.group(1) if nth else outputs[name]}]", "output", set())
    if name in args:
        kind = argument_kind(args[name])
        if kind == "Tensor[]" or kind.startswith("Tensor?[]"):
            return Saved(name, name, "tensor_list", set())
        return Saved(name, name, "tensor" if kind.startswith("Tensor") else "value", set(), _getter_kind(args[name]))
    for suffix, expr in _DERIVED:
        base = name[: -len(suffix)] if name.endswith(suffix) else None
        if base in args:
            return Saved(name, expr.format(base), "value", set())
    argsize = _ARGSIZE.fullmatch(name)
    if argsize and argsize.group(1) in args:
        index = f"-{argsize.group(3)}" if argsize.group(2) else argsize.group(3)
        return Saved(name, f"{argsize.group(1)}.shape[{index}]", "value", set())
    return None
