'''Write ``_generated/variable_type.py``: the autograd kernel of every op, and the dispatcher's tables.

Models ``tools/autograd/gen_variable_type.py``, which writes ``VariableType_*.cpp``. The autograd
kernel of an op builds its backward node when some input requires grad, saves what the formulas
read (a tensor only when a gradient that reads it will be computed), runs the device kernel the
dispatcher picks, and sets the output's history. The end of the file registers, for each op, the
kernel of each dispatch key (``dispatch:`` in ``native_functions.yaml``) and ``ops.<name>``, which
chooses an overload by the arguments' types. The templates come first, the code filling them after.
'''

from __future__ import annotations

from .api.autograd import (
    Op,
    Saved,
    differentiable_inputs,
    edge_ranges,
    formula_names,
    saved_values,
    should_compute,
)
from .api.python import argument_default, argument_kind, call_arguments, formals, parameter_table, python_name
from .code_template import CodeTemplate

VARIABLE_TYPE_PY = CodeTemplate('''\
"""The autograd kernel of every op: build the node, save inputs, run the kernel, link the output.

Models the generated ``torch/csrc/autograd/generated/VariableType_*.cpp``. Each function is
registered with the dispatcher (``ops.<name>``) at the end of this file.
"""

# ruff: noqa
${generated_comment}

from picotorch.autograd.grad_mode import is_grad_enabled
from picotorch.autograd.variable import (
    SavedVariable, any_requires_grad, as_view, bump_version, check_inplace, check_no_requires_grad,
    collect_next_edges, rebase_history, set_history, set_inplace_view_history, throw_error_out_requires_grad,
)
from picotorch import native
from picotorch.autograd import variable_type_manual as manual
from picotorch.native.dispatcher import device_of, kernel_for, register_kernels, register_op, overloaded
from picotorch.c10.layout import MEMORY_FORMATS

from . import nodes

${autograd_kernels}


# ---- kernel tables: which kernel runs for which dispatch key (the `dispatch:` entries)
${kernel_tables}


# ---- parameter tables: each overload's (positional, keyword-only) parameters as (name, kind, has default);
# ops.<name> below and the Python argument parser (python_bindings.py) both match arguments against them
PARAMETERS = {
    ${parameter_tables}
}


# ---- operators by name, choosing an overload by the arguments' types (ops.mul -> mul_Tensor)
${operators_by_name}
''')


def kernel_reference(kernel: str) -> str:
    """How the generated code names a kernel of ``dispatch:``, through the ``picotorch.native`` import above.

    ``picotorch.native`` is the flat ``at::native`` namespace: every kernel the YAML names, whichever
    of ATen's files (``binary_ops.py``, ``cuda/elementwise.py``, ``composite.py``, ...) defines it.
    """
    return f"native.{kernel}"


AUTOGRAD_KERNEL = CodeTemplate('''\
def ${py_name}(${formals}):
    """``${schema}``"""
    ${check_no_requires_grad}
    ${record_grad_fn}
    result = kernel_for("${overload}", device_of(${tensor_arguments}))(${arguments})
    ${as_view}
    ${set_history}
    return ${returns}
''')

# A CompositeImplicitAutograd op has no autograd kernel of its own: the ops it calls record the graph.
COMPOSITE_KERNEL = CodeTemplate('''\
def ${py_name}(${formals}):
    """``${schema}``"""
    return ${kernel}(${arguments})
''')

# An out= overload (``add.out``): no graph (nothing may require grad while grad mode is on), the functional
# overload's result written into ``out`` with PyTorch's out= rules (native/resize.py), ``out`` returned.
# PyTorch gives each its own kernel that computes into ``out``; picotorch reuses the functional one. An out=
# overload with a CompositeImplicitAutograd kernel (``tensordot.out``) is a composite like any other.
OUT_KERNEL = CodeTemplate('''\
def ${py_name}(${formals}):
    """``${schema}``"""
    throw_error_out_requires_grad("${name}", ${tensors})
    ${checks_first}
    result = ${functional}(${call})
    ${write_outs}
    return ${outs}
''')

# out= kernels of PyTorch's that check ``out`` against the inputs before they compute (the functional overload
# would raise its own errors first): a native function called with the tensors and the outs
OUT_CHECKS_FIRST = {"dot.out": "dot_out_checks", "mv.out": "mv_out_checks", "mm.out": "mm_out_checks",
                    "bmm.out": "bmm_out_checks"}

WRITE_OUT = CodeTemplate('''\
native.write_out(${out}, ${result}, "${overload}")
bump_version(${out})
''')

# Ops whose out= overload takes its dtype from ``out`` when none is given (``infer_dtype_from_optional``).
DTYPE_FROM_OUT = {"sum"}

# Ops whose autograd kernel is written by hand (PyTorch's MANUAL_AUTOGRAD): VariableTypeManual.cpp.
MANUAL_AUTOGRAD = {"copy_", "index_put_", "index_put", "matmul.out"}

MANUAL_KERNEL = CodeTemplate('${py_name} = manual.${py_name}  # ``${schema}``, hand-written')

# Ops with differentiable inputs but no formula (not in derivatives.yaml, nor in PyTorch's
# DONT_REQUIRE_DERIVATIVE): their output requires grad through a NotImplemented node.
NOT_IMPLEMENTED_DERIVATIVES = {"floor_divide", "floor_divide_", "remainder", "native_layer_norm_backward",
                               # (so their in-place forms refuse a leaf that requires grad before the kernel runs)
                               "bitwise_not", "bitwise_not_", "bitwise_and", "bitwise_and_", "bitwise_or",
                               "bitwise_or_", "bitwise_xor", "bitwise_xor_", "bincount", "heaviside", "heaviside_",
                               "hardsigmoid_backward", "mish_backward", "multi_margin_loss_backward"}

RECORD_NOT_IMPLEMENTED = CodeTemplate('''\
${check_inplace}
grad_fn = None
if is_grad_enabled() and any_requires_grad(${arguments}):
    grad_fn = manual.NotImplemented("aten::${name}", ${arguments})
''')

RECORD_GRAD_FN = CodeTemplate('''\
${check_inplace}
grad_fn = None
if is_grad_enabled() and any_requires_grad(${edge_arguments}):
    grad_fn = nodes.${op_name}()
    grad_fn.set_next_edges(collect_next_edges(${edge_arguments}))
    ${save_inputs}
''')

SAVE_IF_NEEDED = CodeTemplate('''\
if ${needed}:
    ${save}
''')

SAVE = {
    "tensor": CodeTemplate("grad_fn.${name}_ = SavedVariable(${source})"),
    "tensor_list": CodeTemplate("grad_fn.${name}_ = [SavedVariable(t) for t in ${source}]"),
    "value": CodeTemplate("grad_fn.${name} = ${source}"),
}

SET_HISTORY = CodeTemplate('''\
if grad_fn is not None:
    set_history(result, grad_fn)
    ${save_result}
''')

# An op with several outputs (``native_layer_norm``): its differentiable outputs join the graph, in order.
SET_HISTORY_OUTPUTS = CodeTemplate('''\
if grad_fn is not None:
    ${set_outputs}
    ${save_result}
''')

# An op returning a list of tensors (``split``, ``unbind``): each is the next output of the one node.
SET_HISTORY_LIST = CodeTemplate('''\
if grad_fn is not None:
    for output in result:
        set_history(output, grad_fn)
    ${save_result}
''')

SET_OUTPUT_HISTORY = CodeTemplate('''\
if result[${i}] is not None:  # undefined when a gradient output_mask left it out
    set_history(result[${i}], grad_fn)
''')

REBASE_HISTORY = CodeTemplate('''\
bump_version(self)
if grad_fn is not None:
    rebase_history(self, grad_fn)
    ${save_result}
''')

# An in-place view op (``t_``, ``squeeze_``: a view function's in-place variant) changes only ``self``'s geometry:
# its node joins ``self``'s history as a view op's would (``set_history``, not ``rebase_history``, in torchgen's
# ``emit_history`` when the op has view info), after the version bump of its ADInplaceOrView kernel.
INPLACE_VIEW_HISTORY = CodeTemplate('''\
bump_version(self)
if grad_fn is not None:
    set_inplace_view_history(self, grad_fn)
    ${save_result}
''')

# the out-of-place view functions (torchgen's VIEW_FUNCTIONS) that have an in-place variant
INPLACE_VIEW_BASES = frozenset({"as_strided", "squeeze", "t", "transpose", "unsqueeze"})

SAVE_RESULT = CodeTemplate("grad_fn.${name}_ = SavedVariable(${source}, is_output=True)")

# Each overload's schema, the kernels of its `dispatch:` keys, and the function Python calls (the autograd
# kernel above, or a CompositeImplicitAutograd op's function): the dispatcher's table (_dispatch_dump).
REGISTER_KERNELS = CodeTemplate('register_kernels("${schema}", {${kernels}}, ${py_name}${view})')

PARAMETER_TABLE = CodeTemplate('"${py_name}": ${parameters},')

REGISTER_OP = CodeTemplate('register_op("${name}", overloaded("${name}", [${overloads}]))')


def gen_variable_type_file(ops: list[Op], generated_comment: str) -> str:
    functional = {op.schema.signature(): op for op in ops if op.schema.kind() == "functional"}
    return VARIABLE_TYPE_PY.substitute(
        generated_comment=generated_comment,
        autograd_kernels="\n\n".join(  # two blank lines between
            gen_out_kernel(op, functional) if _generated_out(op) else gen_autograd_kernel(op) for op in ops),
        kernel_tables=[_register_kernels(op) for op in ops],
        parameter_tables=[PARAMETER_TABLE.substitute(py_name=op.py_name, parameters=parameter_table(op.schema))
                          for op in ops],
        operators_by_name=[_register_op(name, group) for name, group in _by_name(ops).items()],
    )


def _generated_out(op: Op) -> bool:
    return op.schema.is_out_fn() and not op.composite and op.overload not in MANUAL_AUTOGRAD


def gen_autograd_kernel(op: Op) -> str:
    schema = op.schema
    common = {"py_name": op.py_name, "formals": formals(schema), "schema": schema,
              "arguments": ", ".join(call_arguments(schema))}
    if op.overload in MANUAL_AUTOGRAD:
        return MANUAL_KERNEL.substitute(py_name=op.py_name, schema=schema)
    if op.composite:
        kernel = kernel_reference(op.fn.dispatch["CompositeImplicitAutograd"])
        if schema.is_out_fn():
            common.update(_with_outs(schema, common))
        return COMPOSITE_KERNEL.substitute(common, kernel=kernel)
    tensors = [a.name for a in schema.arguments.flat_non_out() if argument_kind(a).startswith("Tensor")]
    return AUTOGRAD_KERNEL.substitute(
        common,
        check_no_requires_grad=_check_no_requires_grad(op),
        record_grad_fn=_record_grad_fn(op) if op.has_node else _record_not_implemented(op),
        overload=op.overload,
        tensor_arguments=", ".join(tensors),
        set_history=_set_history(op),
        as_view=_as_view(op),
        returns="self" if op.is_inplace else "result",
    )


def _with_outs(schema, common: dict) -> dict:
    """A composite out= overload's formals and call with its ``out`` arguments, passed on by keyword."""
    outs = [python_name(a) for a in schema.arguments.out]
    star = ", " if schema.arguments.kwarg_only else ", *, "
    return {"formals": common["formals"] + star + ", ".join(outs),
            "arguments": ", ".join([common["arguments"], *(f"{o}={o}" for o in outs)])}


def gen_out_kernel(op: Op, functional: dict[str, Op]) -> str:
    """An out= overload's function, calling its functional overload (the one with the same signature)."""
    schema = op.schema
    base = functional[schema.signature()]  # there is one: validate.check_out_overloads
    arguments = schema.arguments
    outs = [python_name(a) for a in arguments.out]
    call = [python_name(a) for a in arguments.positional]
    for a in arguments.kwarg_only:
        value = python_name(a)
        if a.name == "dtype" and op.base in DTYPE_FROM_OUT:
            value = f"{value} if {value} is not None else {outs[0]}._dtype"
        call.append(f"{python_name(a)}={value}")
    tensors = [f"*{python_name(a)}" if argument_kind(a) == "Tensor[]" else python_name(a)
               for a in arguments.flat_non_out() if argument_kind(a).startswith("Tensor")]
    kwarg_only = formals(schema).partition("*")[2].lstrip(", ")
    positional = [python_name(a) if a.default is None else f"{python_name(a)}={argument_default(a)}"
                  for a in arguments.positional]
    every = ", ".join([*positional, "*", *filter(None, [kwarg_only]), *outs])
    results = ["result"] if len(outs) == 1 else [f"result[{i}]" for i in range(len(outs))]
    write_outs = [WRITE_OUT.substitute(out=out, result=result, overload=op.overload)
                  for out, result in zip(outs, results)]
    callee = base.py_name
    if callee in {python_name(a) for a in arguments.flat_non_out()}:  # threshold(self, threshold, value)
        callee = f'globals()["{callee}"]'
    checks = OUT_CHECKS_FIRST.get(op.overload)
    checks_first = [f"native.{checks}({', '.join([*tensors, *outs])})"] if checks else []
    return OUT_KERNEL.substitute(py_name=op.py_name, formals=every, schema=schema, name=op.base,
                                 tensors=", ".join([*tensors, *outs]), functional=callee, checks_first=checks_first,
                                 call=", ".join(call), write_outs=write_outs,
                                 outs=outs[0] if len(outs) == 1 else f"({', '.join(outs)})")


def _check_no_requires_grad(op: Op) -> list[str]:
    """A tensor input the op has no formula for, and does not call non-differentiable, must not require
    grad (``check_no_requires_grad`` in PyTorch's generated kernels: ``nll_loss``'s class ``weight``)."""
    if not op.has_node:
        return []
    info = op.info
    covered = {a.name for a in differentiable_inputs(op)} | set(info.non_differentiable)
    return [f'check_no_requires_grad({a.name}, "{a.name}", "{info.func.name.name}")'
            for a in op.schema.arguments.flat_non_out()
            if argument_kind(a) in ("Tensor", "Tensor?") and a.name not in covered]


def _not_implemented(op: Op) -> bool:
    return op.info is None and op.base in NOT_IMPLEMENTED_DERIVATIVES


def _record_not_implemented(op: Op) -> list[str]:
    if not _not_implemented(op):
        return []
    tensors = [a.name for a in op.schema.arguments.flat_non_out() if argument_kind(a) in ("Tensor", "Tensor?")]
    return [RECORD_NOT_IMPLEMENTED.substitute(check_inplace=["check_inplace(self)"] if op.is_inplace else [],
                                              arguments=", ".join(tensors), name=op.base)]


def _record_grad_fn(op: Op) -> str:
    inputs = differentiable_inputs(op)
    list_sizes = [f"grad_fn.{a.name}_size_ = len({a.name})" for a in inputs if argument_kind(a) == "Tensor[]"]
    edge_arguments = ", ".join(f"*{a.name}" if argument_kind(a) == "Tensor[]" else a.name for a in inputs)
    return RECORD_GRAD_FN.substitute(
        check_inplace=[f"check_inplace(self, any_requires_grad({edge_arguments}))"] if op.is_inplace else [],
        edge_arguments=edge_arguments,
        op_name=op.info.op_name,
        save_inputs=list_sizes + _save_inputs(op, inputs),
    )


def _save_inputs(op: Op, inputs) -> list[str]:
    """Sizes, dtypes and scalars are cheap and always saved; a tensor only if a gradient reads it."""
    edges = {name: (where, is_list) for name, where, is_list in edge_ranges(inputs)}
    saves = []
    for s in saved_values(op):
        if s.kind == "output":
            continue
        save = _save(s, op)
        guard = _guard_for(s, op, inputs, edges)
        saves.append(save if guard is None else SAVE_IF_NEEDED.substitute(needed=guard, save=save))
    return saves


def _guard_for(s: Saved, op: Op, inputs, edges) -> str | None:
    """``guard_for`` in PyTorch's gen_variable_type.py: when the save can wait on one edge being needed.

    Only a plain tensor read by exactly one formula of an op with several differentiable inputs is
    guarded; a ``*_backward`` op (PyTorch found the guards useless there) and an op with a ``Tensor[]``
    input never are. Which tensors a node holds shows in ``grad_fn._saved_self``.
    """
    if s.kind != "tensor" or "backward" in op.base or len(inputs) <= 1 or len(s.used_by) != 1:
        return None
    if any(argument_kind(a) == "Tensor[]" for a in op.schema.arguments.flat_non_out()):
        return None
    (name,) = s.used_by
    return _gradient_needed(*edges[name]) if name in edges else None


def _gradient_needed(where: str, is_list: bool) -> str:
    return should_compute("grad_fn", where, is_list).replace("node.", "grad_fn.")


def _save(s: Saved, op: Op) -> str:
    source = s.source
    if s.kind == "tensor" and op.is_inplace and s.name == "self":
        source = "self.clone()"  # the value before the in-place op, recorded (CloneBackward0) as PyTorch does
    return SAVE[s.kind].substitute(name=s.name, source=source)


def _as_view(op: Op) -> list[str]:
    """A view op's output remembers how it was made (``as_view`` in the ADInplaceOrView kernels)."""
    returns = op.schema.returns
    if len(returns) != 1 or returns[0].annotation is None or returns[0].is_write:
        return []
    if str(returns[0].type) == "Tensor[]":
        return ["for view in result:", "    as_view(self, view, multi_output=True)"]
    return ["as_view(self, result)"]


def _set_history(op: Op) -> list[str]:
    if _not_implemented(op):
        return [_history(op, range(len(op.schema.returns)), [])]
    if not op.has_node:
        return ["bump_version(self)"] if op.is_inplace else []
    save_result = [SAVE_RESULT.substitute(name=s.name, source=s.source) for s in saved_values(op) if s.kind == "output"]
    return [_history(op, _differentiable_outputs(op), save_result)]


def _history(op: Op, outputs, save_result) -> str:
    if op.is_inplace and op.base.removesuffix("_") in INPLACE_VIEW_BASES:
        return INPLACE_VIEW_HISTORY.substitute(save_result=save_result)
    if op.is_inplace:
        return REBASE_HISTORY.substitute(save_result=save_result)
    if len(op.schema.returns) == 1:
        template = SET_HISTORY_LIST if str(op.schema.returns[0].type) == "Tensor[]" else SET_HISTORY
        return template.substitute(save_result=save_result)
    return SET_HISTORY_OUTPUTS.substitute(set_outputs=[SET_OUTPUT_HISTORY.substitute(i=i) for i in outputs],
                                          save_result=save_result)


def _differentiable_outputs(op: Op) -> list[int]:
    """Which outputs get a gradient edge (``gen_differentiable_outputs`` in torchgen): those flagged by
    ``output_differentiability``, else all, but only the first when the formulas read ``grad`` and never
    ``grads`` (``native_layer_norm``'s mean and rstd, ``nll_loss_forward``'s total_weight get none)."""
    flags = op.info.output_differentiability
    outputs = [i for i in range(len(op.schema.returns)) if flags is None or flags[i]]
    uses_grads = any("grads" in formula_names(d.formula) for d in op.info.derivatives)
    return outputs if uses_grads else outputs[:1]


def _register_kernels(op: Op) -> str:
    kernels = [f'"{key}": {kernel_reference(name)}' for key, name in sorted(op.fn.dispatch.items())]
    view = ", computes=False" if _is_view(op) else ""
    return REGISTER_KERNELS.substitute(schema=op.schema, kernels=kernels, py_name=op.py_name, view=view)


def _is_view(op: Op) -> bool:
    """Returns an alias of an input (``Tensor(a)``) without writing it: a view, which computes nothing."""
    returns = op.schema.returns
    return bool(returns) and all(r.annotation is not None and not r.annotation.is_write for r in returns)


def _register_op(name: str, group: list[Op]) -> str:
    return REGISTER_OP.substitute(name=name, overloads=[f'({op.py_name}, PARAMETERS["{op.py_name}"])'
                                                        for op in group])


def _by_name(ops: list[Op]) -> dict[str, list[Op]]:
    groups: dict[str, list[Op]] = {}
    for op in ops:
        groups.setdefault(op.base, []).append(op)
    return groups
