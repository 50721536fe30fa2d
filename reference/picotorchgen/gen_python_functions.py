'''Write ``_generated/python_bindings.py``: which overloads ``picotorch.<name>`` and ``Tensor.<name>`` try.

Models ``tools/autograd/gen_python_functions.py``, which writes ``python_torch_functions_*.cpp`` and
``python_variable_methods.cpp``. For each Python name it lists the overloads in the order the
argument parser tries them, each with its autograd kernel, the signature torch prints in its
messages and the parameter table the parser matches (written once, in ``variable_type.py``). A
function's functional overload and its out= overload (``add.Tensor``, ``add.out``) are one entry whose
signature ends in ``Tensor out=None`` (``group_overloads``); methods never take ``out=``. The
template comes first, the code filling it after.
'''

from __future__ import annotations

import re

from .api.autograd import Op
from .api.python import grouping_signature, out_parameter, python_signature, sort_signature
from .code_template import CodeTemplate

PYTHON_BINDINGS_PY = CodeTemplate('''\
"""Python signature tables for ``picotorch.<fn>`` and ``Tensor.<method>``.

Models the generated ``torch/csrc/autograd/generated/python_torch_functions_*.cpp`` and
``python_variable_methods.cpp``: for each Python name, the overloads the argument parser tries,
in order. ``picotorch._C`` builds the functions and methods from these tables.
"""

# ruff: noqa
${generated_comment}

from . import variable_type as vt

TORCH_FUNCTIONS = {
    ${torch_functions}
}

# ``python_module: nn`` ops: ``torch._C._nn.<name>``, which ``torch.nn.functional`` calls
TORCH_NN_FUNCTIONS = {
    ${torch_nn_functions}
}

# ``python_module: linalg`` ops: ``torch._C._linalg.<name>``, which ``torch.linalg`` exposes
TORCH_LINALG_FUNCTIONS = {
    ${torch_linalg_functions}
}

TENSOR_METHODS = {
    ${tensor_methods}
}

NUMBERS_AS_TENSORS = ${numbers_as_tensors}

# Overloads whose results all have names: their Python binding returns ``torch.return_types.<name>``
# (python_return_types.cpp), a named tuple with those fields.
RETURN_TYPES = {
    ${return_types}
}
''')

PYTHON_NAME = CodeTemplate('''\
${name}: [
    ${overloads}
],
''')

OVERLOAD = CodeTemplate("(vt.${py_name}, ${signature}, vt.PARAMETERS['${py_name}']),")

# A functional overload grouped with its out= overload (``add.Tensor`` + ``add.out``): one signature, which
# ends in ``Tensor out=None``; the parser calls the out overload when ``out`` is given, passing the tensor (or each
# of a tuple's, ``sort(..., out=(values, indices))``) as the out overload's arguments named last.
OVERLOAD_WITH_OUT = CodeTemplate(
    "(vt.${py_name}, ${signature}, (vt.PARAMETERS['${py_name}'][0], vt.PARAMETERS['${py_name}'][1] + "
    "(${out_parameter},)), (vt.${out_name}, ${out_names})),")

RETURN_TYPE = CodeTemplate("${py_name}: (${name}, ${fields}),")

# Bindings PyTorch leaves out (its SKIP_PYTHON_BINDINGS lists): the Scalar overloads of arithmetic
# (a Python number becomes a zero-dim tensor for the Tensor overload), the *_backward ops, and nonzero with its
# out and numpy forms (``torch.nonzero`` is bound by hand, for ``as_tuple``: picotorch/_C/_nonzero.py).
SKIP_PYTHON_SIGNATURES = {"add.Scalar", "sub.Scalar", "mul.Scalar", "div.Scalar"}
SKIP_PYTHON_PATTERNS = (re.compile(r".*_backward$"), re.compile(r"_index_put_impl_"), re.compile(r"nonzero(_numpy)?"))

# Ops whose Tensor arguments also accept Python numbers (python_arg_parser.cpp).
NUMBERS_AS_TENSORS = {"add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "floor_divide", "floor_divide_",
                      "copy_", "multiply", "multiply_", "divide", "divide_", "subtract", "subtract_", "true_divide",
                      "true_divide_"}


def gen_python_bindings_file(ops: list[Op], generated_comment: str) -> str:
    functions: dict[str, list[str]] = {}
    nn_functions: dict[str, list[str]] = {}
    linalg_functions: dict[str, list[str]] = {}
    methods: dict[str, list[str]] = {}
    tables = {None: functions, "nn": nn_functions, "linalg": linalg_functions}
    bound = list(filter(bound_in_python, ops))
    for name in sorted({op.base for op in bound}):
        overloads = [op for op in bound if op.base == name]
        functions_of_name = group_overloads([op for op in overloads if "function" in op.fn.variants])
        for op, out in sort_overloads(functions_of_name, method=False):
            if op.fn.python_module == "special":  # picotorch/special.py binds torch.special's by hand
                continue
            tables[op.fn.python_module].setdefault(name, []).append(_overload(op, method=False, out=out))
        methods_of_name = [(op, None) for op in overloads if "method" in op.fn.variants and not op.schema.is_out_fn()]
        for op, _ in sort_overloads(methods_of_name, method=True):
            methods.setdefault(name, []).append(_overload(op, method=True))
    return PYTHON_BINDINGS_PY.substitute(
        generated_comment=generated_comment,
        torch_functions=[PYTHON_NAME.substitute(name=repr(name), overloads=o) for name, o in functions.items()],
        torch_nn_functions=[PYTHON_NAME.substitute(name=repr(name), overloads=o) for name, o in nn_functions.items()],
        torch_linalg_functions=[PYTHON_NAME.substitute(name=repr(name), overloads=o)
                                for name, o in linalg_functions.items()],
        tensor_methods=[PYTHON_NAME.substitute(name=repr(name), overloads=o) for name, o in methods.items()],
        numbers_as_tensors=repr(sorted(NUMBERS_AS_TENSORS)),
        return_types=[RETURN_TYPE.substitute(py_name=repr(op.py_name), name=repr(_return_type_name(op)),
                                             fields=repr(tuple(r.name for r in op.schema.returns)))
                      for op in ops if bound_in_python(op) and _has_named_returns(op)],
    )


def _has_named_returns(op: Op) -> bool:
    """``structseq`` results in PyTorch: two or more returns, every one named, none written in place
    except by an out= overload (``sort.values``)."""
    returns = op.schema.returns
    written = op.schema.is_out_fn()
    return len(returns) > 1 and all(r.name and (written or not (r.annotation and r.annotation.is_write))
                                    for r in returns)


def _return_type_name(op: Op) -> str:
    """``torch.return_types.sort``, and ``sort_out`` for what ``sort(..., out=...)`` returns."""
    return f"{op.base}_out" if op.schema.is_out_fn() else op.base


def bound_in_python(op: Op) -> bool:
    if op.overload in SKIP_PYTHON_SIGNATURES:
        return False
    return not any(p.fullmatch(op.base) for p in SKIP_PYTHON_PATTERNS)


def group_overloads(ops: list[Op]) -> list[tuple[Op, Op | None]]:
    """Each functional overload with its out= overload, if it has one (``group_overloads``): they pair when
    their Python signatures without the outputs are the same text. An out overload without a partner is
    an error in PyTorch's generator; here it is left out of Python (it is still ``ops.<name>``)."""
    outs = {grouping_signature(op.schema): op for op in ops if op.schema.is_out_fn()}
    return [(op, outs.get(grouping_signature(op.schema))) for op in ops if not op.schema.is_out_fn()]


def sort_overloads(groups: list[tuple[Op, Op | None]], method: bool) -> list[tuple[Op, Op | None]]:
    """The order the parser tries one name's overloads, as ``sort_overloads`` orders them: by signature
    text (with ``out=`` when grouped), then each overload moved after every one it is "smaller" than (same
    parameters, but a Scalar where the other takes a Tensor, an int list where it takes an int ...), so the
    narrower one wins. ``groups`` are (functional, out overload or None) pairs."""
    groups = sorted(groups, key=lambda g: sort_signature(g[0].schema, method, g[1].schema if g[1] else None))
    ops = [op for op, _ in groups]
    larger_than = {i: {j for j, other in enumerate(ops) if _is_smaller(op, other, method)} for i, op in enumerate(ops)}
    larger_than = {i: larger for i, larger in larger_than.items() if larger}
    order = [i for i in range(len(ops)) if i not in larger_than]
    for i in order:  # a topological sort: ``order`` grows while it is read
        for j in sorted(larger_than):
            larger_than[j].discard(i)
            if not larger_than[j]:
                del larger_than[j]
                order.append(j)
    return [groups[i] for i in order]


def _is_smaller(op: Op, other: Op, method: bool) -> bool:
    types, other_types = _argument_types(op, method), _argument_types(other, method)
    if len(types) != len(other_types) or types == other_types:
        return False
    return all(t == o or _is_type_smaller(t, o) for t, o in zip(types, other_types))


def _argument_types(op: Op, method: bool) -> list[str]:
    return [str(a.type) for a in op.schema.arguments.flat_non_out() if not (method and a.name == "self")]


def _is_type_smaller(t: str, other: str) -> bool:
    return ((t, other) in (("Scalar", "Tensor"), ("Scalar?", "Tensor?"), ("int[]", "int"), ("int[]", "int?"),
                           ("SymInt[]", "int[]"), ("SymInt", "Tensor"), ("int", "Tensor"))
            or ("Dimname" in t and "Dimname" not in other) or (t == "Tensor[]" and "[]" in other))


def _overload(op: Op, method: bool, out: Op | None = None) -> str:
    if out is None:
        return OVERLOAD.substitute(py_name=op.py_name, signature=repr(python_signature(op.schema, method)))
    signature = repr(python_signature(op.schema, method, out.schema))
    return OVERLOAD_WITH_OUT.substitute(py_name=op.py_name, signature=signature,
                                        out_parameter=out_parameter(out.schema), out_name=out.py_name,
                                        out_names=repr(tuple(a.name for a in out.schema.arguments.out)))
