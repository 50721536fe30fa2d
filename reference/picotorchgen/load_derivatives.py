"""Read ``derivatives.yaml``: which formula differentiates which input of which op.

Models PyTorch's ``tools/autograd/load_derivatives.py`` (and the data classes of
``torchgen/api/autograd.py``) in a smaller form. An entry looks like::

    - name: mul.Tensor(Tensor self, Tensor other) -> Tensor
      self: mul_tensor_backward(grad, other, self.scalar_type())
      other: mul_tensor_backward(grad, self, other.scalar_type())
      result: other_t * self_p + self_t * other_p

Keys that name inputs of the op hold backward formulas; other keys (``result``,
``result0`` ...) hold forward-mode (JVP) formulas. Each entry that has at least one
backward formula becomes an autograd node class whose name is computed by
:func:`backward_node_name` — ``MulBackward0`` for ``mul.Tensor``, ``MulBackward1`` for
``mul.Scalar``.

The node-naming rule, as in ``create_differentiability_info``:

1. take the operator name without its overload (``mul`` for ``mul.Tensor``, ``add_``
   for ``add_.Tensor``);
2. split it on ``_``, apply ``str.title()`` to every part and join them (``_to_copy`` ->
   ``ToCopy``, ``conv2d`` -> ``Conv2D``), then append ``Backward`` and replace
   ``ForwardBackward`` by ``Backward``;
3. for a per-dispatch-key formula set other than ``Default`` append the key
   (``...BackwardAutogradNestedTensor``);
4. append a counter kept per prefix, counted in yaml order, that only advances for
   entries which really differentiate some input: an entry whose formulas are all
   ``non_differentiable`` or forward-mode only gets no node (``op_name`` is ``None``)
   and does not use up a number.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .errors import ParseError, SchemaError, describe_entry
from .model import FunctionSchema, parse_each

__all__ = [
    "Derivative",
    "add_view_copy_derivatives",
    "DifferentiabilityInfo",
    "backward_node_name",
    "backward_node_prefix",
    "parse_derivatives_yaml",
]

# Keys of an entry that are not formulas.
_META_KEYS = ("name", "dispatch", "output_differentiability")


@dataclass(frozen=True)
class Derivative:
    """One formula and the variables it is for: ``"self, other: foo"`` -> ``('self', 'other')``."""

    var_names: tuple[str, ...]
    formula: str


@dataclass(frozen=True)
class DifferentiabilityInfo:
    """One ``- name:`` entry of ``derivatives.yaml``.

    The formula fields describe the ``Default`` formulas; ``dispatch_op_names`` lists
    ``(dispatch key, node name or None)`` for every key, e.g. ``AutogradNestedTensor``.
    """

    name: str
    func: FunctionSchema
    derivatives: tuple[Derivative, ...]
    result_formula: str | None
    output_differentiability: tuple[bool, ...] | None
    non_differentiable: tuple[str, ...]
    not_implemented: tuple[str, ...]
    op_name: str | None
    loc: tuple[str, int]
    # Additions beyond the brief's interface (all defaulted):
    forward_derivatives: tuple[Derivative, ...] = ()
    output_differentiability_conditions: tuple[str, ...] | None = None
    dispatch_op_names: tuple[tuple[str, str | None], ...] = ()

    @property
    def args_with_derivatives(self) -> tuple[str, ...]:
        """Inputs with a backward formula, in schema order."""
        names = {n for d in self.derivatives for n in d.var_names}
        return tuple(a.name for a in self.func.arguments.flat_all() if a.name in names)


def backward_node_prefix(op_name: str, dispatch_key: str = "Default") -> str:
    """``mul`` -> ``MulBackward``; ``_to_copy`` -> ``ToCopyBackward``."""
    camel = "".join(part.title() for part in op_name.split("_"))
    prefix = (camel + "Backward").replace("ForwardBackward", "Backward")
    return prefix if dispatch_key == "Default" else prefix + dispatch_key


def backward_node_name(op_name: str, counter: Counter[str], dispatch_key: str = "Default") -> str:
    """Next node name for ``op_name``, advancing ``counter``: ``MulBackward0``, ``MulBackward1``."""
    prefix = backward_node_prefix(op_name, dispatch_key)
    name = f"{prefix}{counter[prefix]}"
    counter[prefix] += 1
    return name


def _split_names(raw: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in raw.split(","))


def _is_backward_key(names: tuple[str, ...], arg_names: set[str]) -> bool:
    """torchgen looks at the first name only: an input name means a backward formula."""
    return names[0] in arg_names


@dataclass(frozen=True)
class _Formulas:
    backward: tuple[Derivative, ...]
    forward: tuple[Derivative, ...]
    non_differentiable: tuple[str, ...]
    not_implemented: tuple[str, ...]


def _sort_formulas(formulas: dict[str, Any], func: FunctionSchema) -> _Formulas:
    arg_names = {a.name for a in func.arguments.flat_all()}
    _check_keys(formulas, func, arg_names)
    backward: list[Derivative] = []
    forward: list[Derivative] = []
    non_diff: list[str] = []
    not_impl: list[str] = []
    for raw, formula in formulas.items():
        if not isinstance(formula, str):
            raise SchemaError(f"the formula for {raw!r} is {formula!r}", "a formula (a string) for each input")
        names = _split_names(str(raw))
        if not _is_backward_key(names, arg_names):
            forward.append(Derivative(names, formula))
        elif formula.strip().lower() == "non_differentiable":
            non_diff += names
        else:
            backward.append(Derivative(names, formula))
            if formula.strip().startswith("not_implemented("):
                not_impl += names
    _check_names(backward, non_diff, arg_names)
    return _Formulas(tuple(backward), tuple(forward), tuple(non_diff), tuple(not_impl))


def output_names(func: FunctionSchema) -> tuple[str, ...]:
    """What a forward formula may be for: the returns' names, else ``result`` (one) or ``result0``, ``result1``."""
    if len(func.returns) == 1:
        return (func.returns[0].name or "result",)
    return tuple(r.name or f"result{i}" for i, r in enumerate(func.returns))


def _check_keys(formulas: dict[str, Any], func: FunctionSchema, args: set[str]) -> None:
    """A key that names no input is a forward formula, so it must name an output (torchgen's
    ``create_forward_derivative``: "No matching output for forward derivative definition")."""
    outputs = output_names(func)
    allowed = set(outputs) | ({"result"} if len(func.returns) == 1 else set())
    for raw in formulas:
        names = _split_names(str(raw))
        if names[0] not in args and not set(names) <= allowed:
            expected = ", ".join(a.name for a in func.arguments.flat_all())
            raise SchemaError(f"{raw!r} is neither an argument nor an output of {func.name}",
                              f"an argument name ({expected}) for a backward formula, or an output name "
                              f"({', '.join(outputs)}) for a forward one")


def _check_names(backward: list[Derivative], non_diff: list[str], args: set[str]) -> None:
    names = [n for d in backward for n in d.var_names]
    unknown = sorted(set(names) - args)
    if unknown:
        raise SchemaError(f"{unknown} are not arguments of the op", "argument names of the schema only")
    overlap = sorted(set(names) & set(non_diff))
    if overlap:
        raise SchemaError(f"{overlap} are both differentiable and non_differentiable",
                          "each input either with a formula or non_differentiable")


def _parse_output_differentiability(
    value: list[Any] | None,
) -> tuple[tuple[bool, ...] | None, tuple[str, ...] | None]:
    """``[True, False]`` -> flags; ``['cond']`` -> ``(True,)`` plus the condition."""
    if value is None:
        return None, None
    if not isinstance(value, list):
        raise SchemaError(f"output_differentiability is {value!r}", "a list, e.g. [True, False]")
    if any(isinstance(v, str) for v in value):
        if len(value) != 1:
            raise SchemaError("output_differentiability has a condition and other items",
                              "a condition only for a single output, e.g. ['isDifferentiableType(...)']")
        return (True,), (value[0],)
    return tuple(bool(v) for v in value), None


def _per_dispatch_formulas(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{'Default': {...}, 'AutogradNestedTensor': {...}}``; plain entries are ``Default``.

    A ``dispatch:`` entry need not have a ``Default`` key (then ``op_name`` is ``None``).
    """
    if "dispatch" not in entry:
        return {"Default": {k: v for k, v in entry.items() if k not in _META_KEYS}}
    dispatch = entry["dispatch"]
    if not isinstance(dispatch, dict) or not dispatch:
        raise SchemaError(f"'dispatch:' is {dispatch!r}", "a mapping of dispatch keys (Default, ...) to formulas")
    if not all(isinstance(v, dict) for v in dispatch.values()):
        raise SchemaError("a dispatch key of 'dispatch:' holds no mapping", "'<key>:' then '<input>: <formula>' lines")
    return dispatch


def _op_names(per_key: dict[str, _Formulas], op: str, counter: Counter[str]) -> tuple[tuple[str, str | None], ...]:
    return tuple(
        (key, backward_node_name(op, counter, key) if formulas.backward else None) for key, formulas in per_key.items()
    )


def _parse_entry(
    entry: dict[str, Any],
    loc: tuple[str, int],
    schemas: Collection[str] | None,
    counter: Counter[str],
) -> DifferentiabilityInfo:
    """One entry; a :class:`ParseError` naming ``loc`` (file, line) and the entry if it is wrong."""
    path, line = loc
    shown = describe_entry(entry, "name")
    spec = entry.get("name") if isinstance(entry, dict) else None
    if not isinstance(spec, str):
        raise ParseError(path, line, "the entry has no 'name:' schema",
                         "a mapping '- name: <schema>' then '<input>: <formula>' lines", shown)
    if schemas is not None and spec not in schemas:
        raise ParseError(path, line, f"no native function has the schema {spec!r}",
                         "the 'func:' schema of an entry of native_functions.yaml, character for character", shown)
    try:
        return _entry_info(entry, spec, loc, counter)
    except SchemaError as e:
        raise ParseError(path, line, e.problem, e.expected, shown) from None


def _entry_info(entry: dict[str, Any], spec: str, loc: tuple[str, int], counter: Counter[str]) -> DifferentiabilityInfo:
    func = FunctionSchema.parse(spec)
    per_key = {key: _sort_formulas(f, func) for key, f in _per_dispatch_formulas(entry).items()}
    flags, conditions = _parse_output_differentiability(entry.get("output_differentiability"))
    names = _op_names(per_key, func.name.name, counter)
    default = per_key.get("Default", _Formulas((), (), (), ()))
    result = next((d.formula for d in default.forward if d.var_names == ("result",)), None)
    return DifferentiabilityInfo(
        name=spec,
        func=func,
        derivatives=default.backward,
        result_formula=result,
        output_differentiability=flags,
        non_differentiable=default.non_differentiable,
        not_implemented=default.not_implemented,
        op_name=dict(names).get("Default"),
        loc=loc,
        forward_derivatives=default.forward,
        output_differentiability_conditions=conditions,
        dispatch_op_names=names,
    )


def parse_derivatives_yaml(
    path: str | Path, native_schemas: Collection[str] | None = None, failures: list[ParseError] | None = None
) -> list[DifferentiabilityInfo]:
    """Parse every entry of a ``derivatives.yaml`` file, in file order.

    ``native_schemas`` (schema strings, e.g. ``{str(f.func) for f in parse_native_yaml(...)}``)
    is optional; when given, every ``name:`` must be one of them, as upstream requires. The first bad
    entry raises its :class:`ParseError`; with a ``failures`` list, each is appended there instead.
    """
    schemas = None if native_schemas is None else frozenset(native_schemas)
    counter: Counter[str] = Counter()
    infos = parse_each(path, lambda entry, loc: _parse_entry(entry, loc, schemas, counter), failures)
    return _check_unique(infos, failures)


def _check_unique(infos: list[DifferentiabilityInfo], failures: list[ParseError] | None) -> list[DifferentiabilityInfo]:
    seen: dict[str, int] = {}
    unique = []
    for info in infos:
        if info.name not in seen:
            seen[info.name] = info.loc[1]
            unique.append(info)
            continue
        error = ParseError(*info.loc, f"{info.name!r} already has derivatives at line {seen[info.name]}",
                           "one entry per schema", f"name: {info.name}")
        if failures is None:
            raise error
        failures.append(error)
    return unique


def add_view_copy_derivatives(infos: list[DifferentiabilityInfo], functions) -> list[DifferentiabilityInfo]:
    """``infos`` plus, for each view op whose ``<name>_copy`` twin ``native_functions.yaml`` declares, an entry for
    the twin with the view's formulas, its node named after the view's with ``_copy`` appended
    (``diagonal_copy`` -> ``DiagonalBackward0_copy``), as torchgen's ``add_view_copy_derivatives`` does."""
    declared = {str(f.func.name): f.func for f in functions}
    copies = []
    for info in infos:
        name = info.func.name
        returns_view = bool(info.func.returns) and any(
            r.annotation is not None and not r.annotation.is_write for r in info.func.returns)
        twin = declared.get(str(replace(name, base=f"{name.base}_copy")))
        if not returns_view or name.inplace or twin is None or info.op_name is None:
            continue
        copies.append(replace(info, name=str(twin), func=twin, op_name=f"{info.op_name}_copy",
                              dispatch_op_names=tuple((k, n and f"{n}_copy") for k, n in info.dispatch_op_names)))
    return infos + copies
