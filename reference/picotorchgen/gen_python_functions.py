'''Write ``_generated/python_bindings.py``: which overloads ``picotorch.<name>`` and ``Tensor.<name>`` try.

Models ``tools/autograd/gen_python_functions.py``, which writes ``python_torch_functions_*.cpp`` and
``python_variable_methods.cpp``. For each Python name it lists the overloads in the order the
argument parser tries them, each with its autograd kernel, the signature torch prints in its
messages and the parameter table the parser matches (written once, in ``variable_type.py``). The
template comes first, the code filling it after.
'''

from __future__ import annotations

import re

from .api.autograd import Op
from .api.python import python_signature
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

RETURN_TYPE = CodeTemplate("${py_name}: (${name}, ${fields}),")

# Bindings PyTorch leaves out (its SKIP_PYTHON_BINDINGS lists): the Scalar overloads of arithmetic
# (a Python number becomes a zero-dim tensor for the Tensor overload) and the *_backward ops.
SKIP_PYTHON_SIGNATURES = {"add.Scalar", "sub.Scalar", "mul.Scalar", "div.Scalar"}
SKIP_PYTHON_PATTERNS = (re.compile(r".*_backward$"), re.compile(r"_index_put_impl_"))

# Ops whose Tensor arguments also accept Python numbers (python_arg_parser.cpp).
NUMBERS_AS_TENSORS = {"add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "floor_divide", "floor_divide_",
                      "copy_"}


def gen_python_bindings_file(ops: list[Op], generated_comment: str) -> str:
    functions: dict[str, list[str]] = {}
    nn_functions: dict[str, list[str]] = {}
    linalg_functions: dict[str, list[str]] = {}
    methods: dict[str, list[str]] = {}
    tables = {None: functions, "nn": nn_functions, "linalg": linalg_functions}
    bound = list(filter(bound_in_python, ops))
    siblings: dict[str, list[Op]] = {}
    for op in bound:
        siblings.setdefault(op.base, []).append(op)
    for op in sorted(bound, key=lambda op: _overload_order(op, siblings[op.base])):
        if "function" in op.fn.variants:
            tables[op.fn.python_module].setdefault(op.base, []).append(_overload(op, method=False))
        if "method" in op.fn.variants:
            methods.setdefault(op.base, []).append(_overload(op, method=True))
    return PYTHON_BINDINGS_PY.substitute(
        generated_comment=generated_comment,
        torch_functions=[PYTHON_NAME.substitute(name=repr(name), overloads=o) for name, o in functions.items()],
        torch_nn_functions=[PYTHON_NAME.substitute(name=repr(name), overloads=o) for name, o in nn_functions.items()],
        torch_linalg_functions=[PYTHON_NAME.substitute(name=repr(name), overloads=o)
                                for name, o in linalg_functions.items()],
        tensor_methods=[PYTHON_NAME.substitute(name=repr(name), overloads=o) for name, o in methods.items()],
        numbers_as_tensors=repr(sorted(NUMBERS_AS_TENSORS)),
        return_types=[RETURN_TYPE.substitute(py_name=repr(op.py_name), name=repr(op.base),
                                             fields=repr(tuple(r.name for r in op.schema.returns)))
                      for op in ops if bound_in_python(op) and _has_named_returns(op)],
    )


def _has_named_returns(op: Op) -> bool:
    """``structseq`` results in PyTorch: two or more returns, every one named, none written in place."""
    returns = op.schema.returns
    return len(returns) > 1 and all(r.name and not (r.annotation and r.annotation.is_write) for r in returns)


def bound_in_python(op: Op) -> bool:
    if op.overload in SKIP_PYTHON_SIGNATURES:
        return False
    return not any(p.fullmatch(op.base) for p in SKIP_PYTHON_PATTERNS)


def _overload_order(op: Op, siblings: list[Op]) -> tuple[str, int, int]:
    """Tensor overloads before Scalar ones of the same name, and before those taking an int where they take a
    Tensor (``narrow.Tensor`` before ``narrow``), as ``sort_overloads`` orders them."""
    scalars = sum(1 for a in op.schema.arguments.flat_non_out() if a.type.base == "Scalar" and not a.default)
    return (op.base, scalars, _ints_where_others_take_a_tensor(op, siblings))


def _ints_where_others_take_a_tensor(op: Op, siblings: list[Op]) -> int:
    def types(o: Op) -> list[str]:
        return [str(a.type) for a in o.schema.arguments.flat_non_out()]
    tensor_at = {i for other in siblings for i, t in enumerate(types(other)) if t == "Tensor"}
    return sum(1 for i, t in enumerate(types(op)) if t in ("int", "SymInt") and i in tensor_at)


def _overload(op: Op, method: bool) -> str:
    signature = repr(python_signature(op.schema, method))
    return OVERLOAD.substitute(py_name=op.py_name, signature=signature)
