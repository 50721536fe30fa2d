'''Write ``_generated/nodes.py``: one backward ``Node`` subclass per ``derivatives.yaml`` entry.

Models ``tools/autograd/gen_autograd_functions.py``, which writes ``Functions.h`` / ``Functions.cpp``
from the templates beside it. A node holds what the forward saved for its formulas (nothing more: a
formula that does not read ``self`` does not keep ``self`` alive), and its ``apply`` computes the
gradient of each input whose edge needs one. The templates come first, the code filling them after.
'''

from __future__ import annotations

from .api.autograd import Op, Saved, differentiable_inputs, edge_ranges, formula_names, saved_values, should_compute
from .code_template import CodeTemplate

NODES_PY = CodeTemplate('''\
"""Backward nodes, one class per ``derivatives.yaml`` entry.

Models the generated ``torch/csrc/autograd/generated/Functions.h`` / ``Functions.cpp``.
"""

# ruff: noqa
${generated_comment}

from picotorch.autograd.functions_manual import *  # the helpers formulas call
from picotorch.autograd.graph import Node
from picotorch.autograd.variable import ERR_BACKWARD_TWICE, SavedVariable
from picotorch.native.dispatcher import ops

${node_classes}
''')

NODE = CodeTemplate('''\
class ${op_name}(Node):
    """Backward of ``${schema}``."""
    ${saved_slots}

    def apply(node, grads):
        grad = grads[0]
        grad_inputs = [None] * len(node.next_edges)
        ${unpack_tensors}
        if ${no_gradient}:
            return grad_inputs
        ${grad_inputs}
        return grad_inputs
    ${release_variables}
    ${saved_getters}
''')

# One input's gradient (a Tensor[] input's gradients fill a slice of grad_inputs).
GRAD_INPUT = CodeTemplate('''\
if ${should_compute}:
    ${unpack_saved}
    grad_inputs[${edges}] = ${formula}
''')

# One formula for several inputs (``input, weight, bias: native_layer_norm_backward(...)``): it returns a
# tuple, computed once if any of them needs a gradient; ``grad_input_mask`` says which do.
GRAD_INPUTS = CodeTemplate('''\
if ${any_should_compute}:
    ${unpack_saved}
    grad_input_mask = [${should_compute}]
    grad_result = ${formula}
    ${copy_results}
''')

COPY_RESULT = CodeTemplate('''\
if grad_input_mask[${i}]:
    grad_inputs[${edges}] = grad_result[${i}]
''')

UNPACK_SAVED = {
    "value": CodeTemplate("${name} = node.${name}"),
}

# Saved tensors are unpacked first, whether or not a formula will read them (as Functions.cpp does): a
# freed or modified one raises even when ``autograd.grad`` prunes the edge that reads it. None: not saved
# (the forward saves some only when the gradient that reads them will be needed).
UNPACK_TENSOR = {
    "tensor": CodeTemplate("${name} = None if node.${name}_ is None else node.${name}_.unpack(node)"),
    "output": CodeTemplate("${name} = None if node.${name}_ is None else node.${name}_.unpack(node)"),
    "tensor_list": CodeTemplate("${name} = None if node.${name}_ is None else [v.unpack(node) for v in node.${name}_]"),
}

RELEASE_VARIABLES = CodeTemplate('''\
def release_variables(node):
    ${reset_saved}
''')

RESET_SAVED_TENSOR = CodeTemplate('''\
if node.${name}_ is not None:
    node.${name}_.reset_data()
''')

RESET_SAVED = {
    "tensor": RESET_SAVED_TENSOR,
    "output": RESET_SAVED_TENSOR,
    "tensor_list": CodeTemplate('''\
if node.${name}_ is not None:
    for v in node.${name}_:
        v.reset_data()
node.${name}_released_ = True
'''),
}

# The Python getters torch gives a node for its saved values (``grad_fn._saved_self``).
SAVED_GETTER = CodeTemplate('''\
@property
def ${attribute}(node):
    ${body}
''')

GETTER_BODY = {
    "tensor": CodeTemplate("return None if node.${name}_ is None else node.${name}_.unpack(node)"),
    "output": CodeTemplate("return None if node.${name}_ is None else node.${name}_.unpack(node)"),
    "tensor_list": CodeTemplate('''\
if node.${name}_released_:
    raise RuntimeError(ERR_BACKWARD_TWICE)
saved = node.${name}_
return None if saved is None else tuple(v.unpack(node) for v in saved)
'''),
    "value": CodeTemplate("return node.${name}"),
}

# A saved integer reads back as an unsigned 64-bit number (PyTorch's getters call PyLong_FromUnsignedLong):
# ``dim=-1`` shows as 18446744073709551615; a ``float`` argument, kept as a C++ double, as a Python float.
CONVERTING_GETTER_BODY = {
    "int": CodeTemplate("return None if node.${name} is None else node.${name} % 18446744073709551616"),
    "int[]": CodeTemplate('''\
saved = node.${name}
if saved is None:
    return None
return tuple(v % 18446744073709551616 for v in (saved if isinstance(saved, (tuple, list)) else (saved,)))
'''),
    "float": CodeTemplate("return None if node.${name} is None else float(node.${name})"),
}

# ``grad_fn._raw_saved_self``: the SavedVariable itself (``torch._C._autograd.SavedTensor``); an empty
# one where nothing was saved, as a C++ node's member SavedVariable is default-constructed.
RAW_GETTER_BODY = {
    "tensor": CodeTemplate("return SavedVariable(None) if node.${name}_ is None else node.${name}_"),
    "output": CodeTemplate("return SavedVariable(None) if node.${name}_ is None else node.${name}_"),
    "tensor_list": CodeTemplate('''\
if node.${name}_released_:
    raise RuntimeError(ERR_BACKWARD_TWICE)
return () if node.${name}_ is None else tuple(node.${name}_)
'''),
}

# PyTorch has no Python getter for a ScalarType, a TensorOptions or lists of them.
NO_GETTER = ("_scalar_type", "_options", "_info", "_geometry", "_args_scalartypes", "_args_sizes")


def gen_nodes_file(ops: list[Op], generated_comment: str) -> str:
    """One class per entry: the in-place variant of an op shares its out-of-place op's node."""
    first_op_of_node: dict[str, Op] = {}
    for op in ops:
        if op.has_node:
            first_op_of_node.setdefault(op.info.op_name, op)
    classes = [gen_node(op) for op in first_op_of_node.values()]  # each ends with a newline, so:
    two_blank_lines_between = "\n\n".join(classes)
    return NODES_PY.substitute(generated_comment=generated_comment, node_classes=two_blank_lines_between)


def gen_node(op: Op) -> str:
    saved = saved_values(op)
    return NODE.substitute(
        op_name=op.info.op_name,
        schema=op.info.name,
        no_gradient=_no_gradient(op),
        saved_slots=_section(line for s in saved for line in _slots(s)),
        grad_inputs=_grad_inputs(op, saved),
        unpack_tensors=[UNPACK_TENSOR[s.kind].substitute(name=s.name) for s in saved if s.kind in UNPACK_TENSOR],
        release_variables=_section(_release_variables(saved)),
        saved_getters=_saved_getters(saved),
    )


def _no_gradient(op: Op) -> str:
    """When a node has nothing to compute: no gradient for its output, or, when its formulas read every
    output's (``grads``: ``split``, ``unbind``), none for any of them (``any_grad_defined`` in PyTorch)."""
    if any("grads" in formula_names(d.formula) for d in op.info.derivatives):
        return "all(g is None for g in grads)"
    return "grad is None"


def _section(lines) -> list[str]:
    """An optional part of a class: a blank line then its lines, or nothing at all."""
    lines = list(lines)
    return ["", *lines] if lines else []


def _slots(s: Saved) -> list[str]:
    """A saved list also says whether backward freed it: then even its SavedVariables are gone."""
    released = [f"{s.name}_released_ = False"] if s.kind == "tensor_list" else []
    return [f"{_slot(s)} = None", *released]


def _slot(s: Saved) -> str:
    """Where the node keeps a saved value: a ``SavedVariable`` in ``<name>_``, a plain value in ``<name>``."""
    return s.name if s.kind == "value" else f"{s.name}_"


def _grad_inputs(op: Op, saved: list[Saved]) -> list[str]:
    edges = {name: (where, is_list) for name, where, is_list in edge_ranges(differentiable_inputs(op))}
    blocks = []
    # torchgen reads an entry's formulas in the sorted order of their names (load_derivatives: sorted(defn.keys())),
    # so under create_graph mm's mat2 gradient is made before self's: the same order here
    for d in sorted(op.info.derivatives, key=lambda d: ", ".join(d.var_names)):
        reads = formula_names(d.formula)
        unpack = [UNPACK_SAVED[s.kind].substitute(name=s.name) for s in saved if s.name in reads and s.kind == "value"]
        if len(d.var_names) == 1:
            where, is_list = edges[d.var_names[0]]
            blocks.append(GRAD_INPUT.substitute(should_compute=should_compute("node", where, is_list, task=True),
                                                unpack_saved=unpack, edges=where, formula=d.formula))
            continue
        checks = [should_compute("node", *edges[name], task=True) for name in d.var_names]
        blocks.append(GRAD_INPUTS.substitute(
            any_should_compute=" or ".join(checks), unpack_saved=unpack, should_compute=", ".join(checks),
            formula=d.formula,
            copy_results=[COPY_RESULT.substitute(i=i, edges=edges[name][0]) for i, name in enumerate(d.var_names)],
        ))
    return blocks


def _release_variables(saved: list[Saved]) -> list[str]:
    resets = [RESET_SAVED[s.kind].substitute(name=s.name) for s in saved if s.kind in RESET_SAVED]
    return [RELEASE_VARIABLES.substitute(reset_saved=resets)] if resets else []


def _saved_getters(saved: list[Saved]) -> list[str]:
    """Each getter after a blank line."""
    return [line for s in saved if not s.name.endswith(NO_GETTER) and s.getter != "hidden"
            for line in ("", _getter(s))]


def _getter(s: Saved) -> str:
    converts = s.kind == "value" and s.getter in CONVERTING_GETTER_BODY
    body = (CONVERTING_GETTER_BODY[s.getter] if converts else GETTER_BODY[s.kind]).substitute(name=s.name)
    getter = SAVED_GETTER.substitute(attribute=_attribute_name(s), body=body)
    if s.kind not in RAW_GETTER_BODY:
        return getter
    raw = SAVED_GETTER.substitute(attribute="_raw" + _attribute_name(s),
                                  body=RAW_GETTER_BODY[s.kind].substitute(name=s.name))
    return getter + "\n" + raw


def _attribute_name(s: Saved) -> str:
    """An argument keeps its own name (``split_with_sizes``'s ``split_sizes``); a derived value is renamed."""
    return "_saved_" + s.name if s.source == s.name else saved_attribute_name(s.name)


def saved_attribute_name(name: str) -> str:
    """PyTorch's Python name for a saved value: ``_saved_self``, ``_saved_self_sym_sizes``, ``..._sym_strides``."""
    if name.endswith("_sizes_opt"):  # ``bias->sym_sizes()`` of an optional tensor
        return "_saved_" + name.replace("_sizes_opt", "_sym_sizes_opt")
    if name.endswith("_sizes") and not name.endswith("_args_sizes"):
        return "_saved_" + name.replace("_sizes", "_sym_sizes")
    if name.endswith("_strides"):
        return "_saved_" + name.replace("_strides", "_sym_strides")
    if name.endswith("_numel"):
        return "_saved_" + name.replace("_numel", "_sym_numel")
    return "_saved_" + name
