"""The node of a custom ``autograd.Function``: ``PyNode``, and ``apply``, which runs forward and builds it.

Models ``torch/csrc/autograd/python_function.cpp`` (``THPFunction`` with its ``PyNode``:
``THPFunction_apply``, ``unpack_input``, ``process_outputs``, ``_save_variables``, ``PyNode::apply``,
``to_py_args``, ``to_variable_list``, ``unpack_saved_variables``) and ``custom_function.cpp``
(``_process_backward_mode_ad``: how each output of ``forward`` joins the graph). The classes a user
writes against (``Function``, ``FunctionCtx``, ``once_differentiable``) are in ``function.py``.

``y = MyFn.apply(x, 2.0)`` takes this path::

    function_apply   ctx = MyFnBackward()           the ctx *is* the node: it takes the next sequence_nr
                     unpack_input                   needs_input_grad; one next edge per tensor input
                     MyFn.forward(ctx, x, 2.0)      with grad mode off
                     process_outputs                each tensor output gets grad_fn = ctx, output_nr = i;
                                                    then ctx.save_for_backward's tensors are saved

and the engine, reaching the node during ``backward``, calls ``PyNode.apply``::

    to_py_args          a missing gradient becomes zeros (unless ctx.set_materialize_grads(False))
    MyFn.backward       grad mode = create_graph, as for every node
    check_num_gradients one gradient per forward input (extra Nones are dropped)
    to_variable_list    None for non-tensor inputs; only tensors or None

Simplification: in PyTorch the node is two objects, the C++ ``PyNode`` in the graph and the Python
``THPFunction`` (the ``ctx``) it points to; picotorch has one object, so its ``apply`` answers both
callers (see ``BackwardCFunction.apply`` in ``function.py``).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

from ..c10.scalar_type import is_differentiable_type
from ..native.device import backend
from ..native.dispatcher import ops
from ..native.helpers import xp_dtype
from ..native.tensor_impl import TensorImpl, new_tensor
from .grad_mode import is_grad_enabled, no_grad
from .graph import InputMetadata, Node, node_attribute
from .variable import (
    ERR_BACKWARD_TWICE,
    SavedVariable,
    check_inplace,
    collect_next_edges,
    rebase_history,
    requires_grad,
    tensor_data,
)

# ``Node::undefined_input()``: the slot of an output that is not a differentiable tensor (an int, or
# a tensor passed to mark_non_differentiable). No edge ever points at it.
UNDEFINED_INPUT = InputMetadata((), None, None)


class PyNode(Node):
    """``torch._C._FunctionBase``: the node of one call of a custom Function, which is also its ``ctx``."""

    # Set by ctx.save_for_backward / mark_dirty / mark_non_differentiable (FunctionCtx), read once
    # when forward returns, then cleared.
    to_save = None
    non_differentiable = None
    dirty_tensors = None
    saved_for_forward = None
    needs_input_grad = None  # one bool per forward argument: did it require grad when apply was called
    _prints_with_module = True  # a Python class in PyTorch too (NOTE [Node classes print as C++ types])

    def __init__(self) -> None:
        super().__init__()
        self.is_variable_input: list[bool] = []  # one per forward argument
        self.output_info: list[InputMetadata | None] = []  # one per forward output; None: not a tensor
        self._packed_variables: list[SavedVariable] = []
        self.has_freed_buffers = False
        self._materialize_grads = True
        self._materialize_non_diff_grads = True
        self.clear_saved_tensors_on_access = False  # copied from the Function class by function_apply
        self.saved_tensors_accessed_and_cleared = False
        self.boxed_grads_call = False  # backward receives one list of gradients it may empty as it goes

    __repr__ = object.__repr__  # PyTorch's ctx prints as a plain Python object

    def __dir__(self) -> list:
        return [n for n in object.__dir__(self) if n.startswith("__") or n not in _ENGINE_NAMES]

    # ---- what forward and backward read on ctx
    @property
    def saved_tensors(self) -> tuple:
        if self.saved_tensors_accessed_and_cleared:
            raise RuntimeError(ERR_SAVED_TENSORS_CLEARED)
        if self.saved_for_forward is not None:
            return self.saved_for_forward
        return unpack_saved_variables(self)

    @property
    def saved_variables(self) -> tuple:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        if self.saved_tensors_accessed_and_cleared:
            raise RuntimeError(ERR_SAVED_TENSORS_CLEARED)
        return unpack_saved_variables(self)

    @property
    def _raw_saved_tensors(self) -> tuple:
        """The ``SavedVariable`` objects themselves (not unpacked, no version check)."""
        if self.has_freed_buffers:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        return tuple(self._packed_variables)

    @property
    def materialize_grads(self):
        raise AttributeError("attribute 'materialize_grads' of 'torch._C._FunctionBase' objects is not readable")

    @materialize_grads.setter
    def materialize_grads(self, value) -> None:
        if not isinstance(value, bool):
            raise TypeError("set_materialize_grads received an invalid combination of arguments - got (), but "
                            "expected (bool)")
        self._materialize_grads = value

    @node_attribute
    def requires_grad(self) -> bool:
        return True

    # ---- what the engine calls
    def apply(self, grads: list) -> list:
        """``PyNode::apply``: call the Python ``apply`` (the user's backward) and check what it returned."""
        args = self.to_py_args(grads)
        result = self.apply_boxed(args) if self.boxed_grads_call else self.apply(*args)
        result = result if isinstance(result, tuple) else (result,)  # ensure_tuple
        result = check_num_gradients(self.name(), result, len(self.is_variable_input))
        return to_variable_list(self.name(), result, self.is_variable_input)

    def to_py_args(self, grads: list) -> list:
        """The gradients backward receives: a missing one becomes zeros shaped like its output."""
        args = []
        for i, grad in enumerate(grads):
            if grad is not None or not self._materialize_grads or (
                    not self._materialize_non_diff_grads and self.input_metadata[i] is UNDEFINED_INPUT):
                args.append(grad)
            else:
                args.append(zeros(self.output_info[i]))
        return args

    def release_variables(self) -> None:
        self._packed_variables = []
        self.has_freed_buffers = True


# What Python lists of a custom Function's node in PyTorch besides the Function class's own names and what ctx was
# given (THPFunction's getsets and methods, torch.autograd.function's classes). The rest of what Node and PyNode
# define, or set on every node, is picotorch's engine: ``dir`` leaves it out.
_FUNCTION_NODE_FACE = frozenset({
    "_autograd_function_id", "_forward_cls", "_get_user_fn", "_input_metadata", "_materialize_non_diff_grads",
    "_raw_saved_tensors", "_register_hook_dict", "_sequence_nr", "_set_sequence_nr", "apply", "apply_boxed",
    "apply_jvp", "dirty_tensors", "mark_dirty", "mark_non_differentiable", "mark_shared_storage",
    "materialize_grads", "metadata", "name", "needs_input_grad", "next_functions", "non_differentiable",
    "register_hook", "register_prehook", "requires_grad", "save_for_backward", "save_for_forward",
    "saved_for_forward", "saved_tensors", "saved_variables", "set_materialize_grads", "to_save"})
_NODE_INSTANCE_FIELDS = ("_sequence_nr_value", "_topological_nr", "_has_parent", "next_edges", "input_metadata",
                         "is_variable_input", "output_info", "_packed_variables", "has_freed_buffers",
                         "_materialize_grads", "clear_saved_tensors_on_access", "saved_tensors_accessed_and_cleared",
                         "boxed_grads_call")
_ENGINE_NAMES = frozenset({*vars(Node), *vars(PyNode), *_NODE_INSTANCE_FIELDS}) - _FUNCTION_NODE_FACE


def zeros(info: InputMetadata | None):
    """``VariableInfo::zeros``: zeros of an output's shape, dtype and device (None for a non-tensor)."""
    if info is None:
        return None
    target = backend(info.device)
    data = target.xp.zeros(info.shape, dtype=xp_dtype(target.xp, info.dtype),
                           device=target.array_device(info.device.index))
    return new_tensor(data, info.dtype, info.device)


def to_variable_list(name: str, grads: tuple, is_variable_input: list[bool]) -> list:
    """One gradient per *tensor* input, in order; a non-tensor input must have received None.

    Worked example for ``check_num_gradients`` below: one rule per gradient, PyTorch's words on failure.
    """
    results = []
    for i, (grad, was_variable) in enumerate(zip(grads, is_variable_input)):
        if not was_variable:
            if grad is not None:
                raise RuntimeError(f"function {name} returned a gradient different than None at position {i + 1}, "
                                   "but the corresponding forward input was not a Variable")
            continue
        if grad is not None and not isinstance(grad, TensorImpl):
            raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
        results.append(grad)
    return results


def check_num_gradients(name: str, grads: tuple, num_forward_inputs: int) -> tuple:
    """Backward must return one gradient per forward argument; more is fine only if the extra are None.

    ``function MyFnBackward returned an incorrect number of gradients (expected 2, got 1)``.
    """
    # BEGIN SOLUTION 4.3: drop extra gradients if they are all None; then a count other than expected is an error
    if len(grads) > num_forward_inputs and all(g is None for g in grads[num_forward_inputs:]):
        grads = grads[:num_forward_inputs]
    if len(grads) != num_forward_inputs:
        raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected "
                           f"{num_forward_inputs}, got {len(grads)})")
    return grads
    # END SOLUTION


def unpack_saved_variables(ctx: PyNode) -> tuple:
    """``ctx.saved_tensors``: each saved tensor, checked against the version it had when saved."""
    if ctx.has_freed_buffers:
        raise RuntimeError(ERR_BACKWARD_TWICE)
    result = tuple(saved.unpack(ctx) for saved in ctx._packed_variables)
    if ctx.clear_saved_tensors_on_access:
        ctx._packed_variables = []
        ctx.saved_tensors_accessed_and_cleared = True
    return result


ERR_SAVED_TENSORS_CLEARED = (
    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on the "
    "autograd.Function. Either access saved_tensors only once, or set clear_saved_tensors_on_access=False.")


# ----------------------------------------------------------------------------- forward: apply


class InputFlags(NamedTuple):
    is_executable: bool  # grad mode is on and some tensor input requires grad: record the node
    next_edges: list
    needs_input_grad: tuple
    is_variable_input: list


def function_apply(cls, args: tuple, kwargs: dict, overridden_setup_context: bool):
    """``THPFunction_apply``: run ``cls.forward`` with grad mode off and attach its outputs to a new node."""
    args = resolve_kwargs_to_positional(cls, args, kwargs, has_ctx=not overridden_setup_context)
    ctx = cls._backward_cls()
    input_vars, flags = unpack_input(args)
    ctx.set_next_edges(flags.next_edges)
    ctx.needs_input_grad = flags.needs_input_grad
    ctx.is_variable_input = flags.is_variable_input
    ctx.clear_saved_tensors_on_access = _bool_attribute(cls, "clear_saved_tensors_on_access")
    ctx.boxed_grads_call = _bool_attribute(cls, "boxed_grads_call")
    with no_grad():
        if overridden_setup_context:
            output = cls.forward(*args)
            cls.setup_context(ctx, args, output)
        else:
            output = cls.forward(ctx, *args)
    return process_outputs(ctx, input_vars, output, flags.is_executable, overridden_setup_context)


def _bool_attribute(cls, name: str) -> bool:
    value = getattr(cls, name)
    if not isinstance(value, bool):
        raise RuntimeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def unpack_input(args: tuple) -> tuple[list, InputFlags]:
    """The tensor arguments, and what ``apply`` learns from them: only tensors get an edge."""
    input_vars = [arg for arg in args if isinstance(arg, TensorImpl)]
    needs_input_grad = tuple(isinstance(arg, TensorImpl) and requires_grad(arg) for arg in args)
    is_executable = is_grad_enabled() and any(needs_input_grad)
    next_edges = collect_next_edges(*input_vars) if is_executable else []
    return input_vars, InputFlags(is_executable, next_edges, needs_input_grad,
                                  [isinstance(arg, TensorImpl) for arg in args])


def resolve_kwargs_to_positional(cls, args: tuple, kwargs: dict, has_ctx: bool) -> tuple:
    """Keyword arguments of ``apply`` go to their place in ``forward``'s positional parameters."""
    if not kwargs:
        return args
    code = cls.forward.__code__
    offset = 1 if has_ctx else 0
    names = code.co_varnames[offset:code.co_argcount]
    last = len(args) - 1
    for key in kwargs:
        if key not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{key}'")
        index = names.index(key)
        if index < len(args):
            raise TypeError(f"forward() got multiple values for argument '{key}'")
        last = max(last, index)
    if last + 1 > len(names):
        raise TypeError(f"forward() takes {len(names)} positional arguments but {last + 1} were given")
    result = list(args) + [_MISSING] * (last + 1 - len(args))
    for key, value in kwargs.items():
        result[names.index(key)] = value
    for i, value in enumerate(result):
        if value is _MISSING:
            raise TypeError(f"forward() missing required argument: '{names[i]}' (position {i})")
    return tuple(result)


_MISSING = object()


def process_outputs(ctx: PyNode, input_vars: list, raw_output, is_executable: bool, overridden_setup_context: bool):
    """Wrap forward's outputs (they get their ``grad_fn``), then save the tensors ``ctx`` asked for.

    Saving comes after wrapping: a saved output must already know its ``grad_fn``, and a tensor
    marked dirty must be saved with the version ``mark_dirty`` gave it.
    """
    unpack_output = not isinstance(raw_output, tuple)
    raw = (raw_output,) if unpack_output else raw_output
    ctx.input_metadata = []
    to_save_if_setup_context, tensors_to_save = get_tensors_to_save(ctx, overridden_setup_context, is_executable)
    outputs = wrap_outputs(ctx, input_vars, raw, is_executable, to_save_if_setup_context)
    if is_executable:
        save_variables(tensors_to_save, ctx, outputs)
    else:
        ctx.to_save = ctx.non_differentiable = None
    ctx.saved_for_forward = None
    return outputs[0] if unpack_output else outputs


def get_tensors_to_save(ctx: PyNode, overridden_setup_context: bool, is_executable: bool) -> tuple[set, list]:
    """What ``save_for_backward`` received, checked (only tensors or None), and the ids setup_context saved."""
    to_save_if_setup_context: set[int] = set()
    if ctx.saved_for_forward is not None and overridden_setup_context:
        to_save_if_setup_context.update(id(t) for t in ctx.saved_for_forward if isinstance(t, TensorImpl))
    tensors_to_save: list = []
    if ctx.to_save is None:
        return to_save_if_setup_context, tensors_to_save
    for i, obj in enumerate(ctx.to_save):
        if obj is None:
            tensors_to_save.append(None)
        elif isinstance(obj, TensorImpl):
            if overridden_setup_context:
                to_save_if_setup_context.add(id(obj))
            if is_executable:
                tensors_to_save.append(obj)
        elif is_executable:
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                            f"{type(obj).__name__}")
    ctx.to_save = None
    return to_save_if_setup_context, tensors_to_save


def save_variables(tensors_to_save: list, ctx: PyNode, outputs: tuple) -> None:
    """A saved output is kept without its history (``SavedVariable``, is_output): the node owns it."""
    output_ids = {id(o) for o in outputs if isinstance(o, TensorImpl)}
    ctx._packed_variables = [SavedVariable(t, is_output=t is not None and id(t) in output_ids)
                           for t in tensors_to_save]


def parse_non_differentiable(ctx: PyNode) -> set[int]:
    found = set()
    for t in ctx.non_differentiable or ():
        if not isinstance(t, TensorImpl):
            raise RuntimeError("mark_non_differentiable only accepts variable arguments, but got ")
        found.add(id(t))
    ctx.non_differentiable = None
    return found


def mark_dirty(ctx: PyNode) -> set[int]:
    """``_mark_dirty``: each tensor modified in place by forward gets a new version."""
    dirty = set()
    for t in ctx.dirty_tensors or ():
        if not isinstance(t, TensorImpl):
            raise RuntimeError("mark_dirty can only accept variables, but argument ")
        dirty.add(id(t))
        t._version_counter.bump()
    ctx.dirty_tensors = None
    return dirty


# ----------------------------------------------------------------------------- forward: the outputs


ERR_INPUT_RETURNED_AS_IS = (
    "An input that has been returned as-is as output is being saved for backward. This is not supported if you "
    "override setup_context. You should return and save a view of the input instead, e.g. with x.view_as(x) or "
    "setup ctx inside the forward function itself.")
ERR_DIRTY_VIEW_MULTIPLE_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return "
    "more than one Tensor. This is not supported by the current autograd engine. You should either make sure "
    "the input is not a view (using .clone() for example) or make your Function only return one Tensor "
    "(potentially splitting it into two Functions: one doing the inplace that returns a single Tensor and a "
    "second one that does the other operations). You can ask on the forum https://discuss.pytorch.org/ if you "
    "need help to do this change.")
ERR_DIRTY_NOT_RETURNED = (
    "Some elements marked as dirty during the forward method were not returned as output. The inputs that are "
    "modified inplace must all be outputs of the Function.")
WARN_DIRTY_NOT_INPUT = (
    "Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an input, there is no need to "
    "pass it to mark_dirty().")


class OutputKind(NamedTuple):
    is_input: bool
    is_modified: bool
    is_differentiable: bool
    is_saved_and_setup_context: bool


def wrap_outputs(ctx: PyNode, input_vars: list, raw: tuple, is_executable: bool, to_save_if_setup_context: set):
    """``_wrap_outputs``: non-tensors pass through; each tensor output becomes output ``i`` of ``ctx``."""
    node = ctx if is_executable else None
    non_differentiable = parse_non_differentiable(ctx)
    dirty = mark_dirty(ctx)
    input_ids = {id(t) for t in input_vars}
    outputs, output_ids, differentiable = [], set(), 0
    for i, obj in enumerate(raw):
        if not isinstance(obj, TensorImpl):
            if node is not None:
                node.input_metadata.append(UNDEFINED_INPUT)
            outputs.append(obj)
            continue
        kind = OutputKind(id(obj) in input_ids, id(obj) in dirty,
                          node is not None and id(obj) not in non_differentiable and is_differentiable_type(obj._dtype),
                          id(obj) in to_save_if_setup_context)
        var = set_output_history(obj, i, node, kind, len(raw))
        if var._base is not None and not (kind.is_input and kind.is_modified):
            var._creation_meta = "IN_CUSTOM_FUNCTION"  # NOTE [ View + Inplace detection ] (variable.py)
        differentiable += kind.is_differentiable
        output_ids.add(id(obj))
        outputs.append(var)
    if differentiable > 1:  # one node cannot stand for several views: none of them may be modified in place
        for var in outputs:
            if isinstance(var, TensorImpl) and var._base is not None:
                var._creation_meta = "MULTI_OUTPUT_NODE"
    if dirty - output_ids:
        raise RuntimeError(ERR_DIRTY_NOT_RETURNED)
    if is_executable:
        ctx.output_info = [InputMetadata.of(o) if isinstance(o, TensorImpl) else None for o in outputs]
    return tuple(outputs)


def set_output_history(var, output_nr: int, node: PyNode | None, kind: OutputKind, num_outputs: int):
    """The ``set_history`` lambda of ``_process_backward_mode_ad``: how one tensor output joins the graph.

    - not differentiable: no grad_fn (an input returned as-is becomes a view of it, a tensor that
      requires grad is detached);
    - modified in place (``mark_dirty``): the tensor itself gets ``node`` as its new grad_fn
      (``rebase_history``, as an in-place op would do);
    - an input returned as-is: a view of it gets ``node`` (the input keeps its own history);
    - otherwise: the tensor gets ``node``, as output ``output_nr``.
    """
    if node is not None:
        if not kind.is_differentiable:
            node.input_metadata.append(UNDEFINED_INPUT)
        elif not (kind.is_modified and var._base is None):  # rebase_history's set_history adds it
            node.add_input_metadata(var)
    if not kind.is_differentiable:
        return _non_differentiable_output(var, kind)
    if kind.is_modified:
        _check_dirty_output(var, kind, num_outputs)
        var._grad = None
        rebase_history(var, node)
        return var
    if kind.is_input:
        if kind.is_saved_and_setup_context:
            raise RuntimeError(ERR_INPUT_RETURNED_AS_IS)
        var = _view_as_self_with_no_grad(var)
    set_gradient_edge(var, node, output_nr)
    return var


def _non_differentiable_output(var, kind: OutputKind):
    if not requires_grad(var):
        if kind.is_input and not kind.is_modified:
            if kind.is_saved_and_setup_context:
                raise RuntimeError(ERR_INPUT_RETURNED_AS_IS)
            var = _view_as_self_with_no_grad(var)
        return var
    if kind.is_input:
        return tensor_data(var)  # var.detach()
    if var._base is None:
        var._grad_fn, var._requires_grad, var._output_nr = None, False, 0  # var.detach_()
    return var


def _check_dirty_output(var, kind: OutputKind, num_outputs: int) -> None:
    if var._grad_fn is None and requires_grad(var):
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    if not kind.is_input:
        warnings.warn(WARN_DIRTY_NOT_INPUT, UserWarning, stacklevel=2)
    if var._base is not None and num_outputs > 1:
        raise RuntimeError(ERR_DIRTY_VIEW_MULTIPLE_OUTPUTS)
    if var._base is not None:  # rebase_history checks the view as an in-place op would (check_inplace)
        check_inplace(var)


def _view_as_self_with_no_grad(var):
    """An input returned as-is is returned as ``var.view_as(var)``, so the view can carry the new grad_fn."""
    with no_grad():
        return ops.view(var, list(var._data.shape))


def set_gradient_edge(t, node: Node, output_nr: int) -> None:
    """``impl::set_gradient_edge``: ``t`` is output ``output_nr`` of ``node`` (its metadata is already there)."""
    t._grad_fn = node
    t._output_nr = output_nr
    t._requires_grad = False
