"""``picotorch.autograd``: ``backward`` and ``grad``, the two ways to run the engine.

Models ``torch/autograd/__init__.py`` (``backward``, ``grad``, ``_make_grads``) and
``torch/csrc/autograd/python_engine.cpp`` (``run_backward``: turning tensors into root edges and
``inputs`` into output edges).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

from ..c10.size import Size
from ..native.device import backend
from ..native.dispatcher import ops
from ..native.helpers import xp_dtype
from ..native.tensor_impl import TensorImpl, new_tensor
from . import accumulate_grad, anomaly_mode, gc_policy, graph, profiler  # noqa: F401  (accumulate_grad: NOTE [Who makes a leaf's AccumulateGrad]; gc_policy: NOTE [The cyclic GC and big graphs])
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import get_default_engine
from .function import Function
from .grad_mode import (
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .grad_mode import grad_mode_enabled as is_grad_enabled  # torch's: GradMode, not "does this op record"
from .graph import Edge, GradientEdge, Identity
from .variable import grad_fn_of, gradient_edge, requires_grad, try_get_grad_accumulator

__all__ = ["Function", "Variable", "backward", "detect_anomaly", "enable_grad", "function", "grad", "gradcheck",
           "gradgradcheck", "graph", "is_grad_enabled", "no_grad", "profiler", "set_detect_anomaly",
           "set_grad_enabled", "set_multithreading_enabled", "inference_mode"]


def _as_tuple(value) -> tuple:
    """``tensors``/``outputs``: a lone tensor or GradientEdge is a 1-tuple; anything else is iterated."""
    if isinstance(value, (TensorImpl, GradientEdge)):
        return (value,)
    return tuple(value)


def _inputs_tuple(inputs, caller: str) -> tuple:
    """``inputs``: as ``_as_tuple``, and a dict gives its values (its keys name the results of ``grad``)."""
    if isinstance(inputs, (TensorImpl, GradientEdge)):
        return (inputs,)
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{caller}()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    return tuple(inputs)


def _make_grads(outputs, grads, is_grads_batched: bool) -> tuple:
    """One gradient per output: the given one checked against its output, else ones for a scalar output."""
    new_grads = []
    for out, grad in zip(outputs, grads):
        shape, dtype = _output_shape_and_dtype(out)
        if isinstance(grad, TensorImpl):
            first_grad = grad[0] if is_grads_batched else grad
            if tuple(first_grad.shape) != tuple(shape):
                _refuse_shape(outputs, grads, out, grad, first_grad, is_grads_batched)
            if dtype.is_complex != grad.dtype.is_complex:
                raise RuntimeError(f"For complex Tensors, both grad_output and output are required to have the same "
                                   f"dtype. Mismatch in dtype: grad_output[{grads.index(grad)}] has a dtype of "
                                   f"{grad.dtype} and output[{outputs.index(out)}] has a dtype of {dtype}.")
            new_grads.append(grad)
        elif grad is None:
            new_grads.append(_implicit_grad(out, shape, dtype))
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(grad).__name__}")
    return tuple(new_grads)


def _output_shape_and_dtype(out) -> tuple:
    if isinstance(out, GradientEdge):
        meta = out.node.input_metadata[out.output_nr]
        return Size(meta.shape), meta.dtype
    if not isinstance(out, TensorImpl):
        raise AssertionError("Expected output to be a torch.Tensor")
    return out.shape, out.dtype


def _refuse_shape(outputs, grads, out, grad, first_grad, is_grads_batched: bool):
    """PyTorch finds the indices with ``tuple.index`` (so comparing a tensor with an earlier one may raise first)."""
    if isinstance(out, GradientEdge):
        if is_grads_batched:
            raise RuntimeError("Batched grads are not supported with GradientEdge")
        out_shape, grad_shape = Size(out.node.input_metadata[out.output_nr].shape), first_grad.shape
    else:
        out_shape, grad_shape = out.shape, first_grad.shape[1:] if is_grads_batched else first_grad.shape
    where = f"grad_output[{grads.index(grad)}] has a shape of {grad_shape} and output[{outputs.index(out)}] " \
            f"has a shape of {out_shape}."
    if is_grads_batched:
        raise RuntimeError("If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
                           "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
                           f"corresponding output, but a mismatch was detected: {where} If you only want some "
                           "tensors in `grad_output` to be considered batched, consider using vmap.")
    raise RuntimeError(f"Mismatch in shape: {where}")


def _implicit_grad(out, shape, dtype):
    """No gradient given: ones for a scalar output (or None for an output that does not require grad)."""
    is_edge = isinstance(out, GradientEdge)
    if not is_edge and not out.requires_grad:
        return None
    if not (all(size == 1 for size in shape) if is_edge else out.numel() == 1):
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if not dtype.is_floating_point:
        raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {dtype}")
    if is_edge:
        return _ones(out.node.input_metadata[out.output_nr])
    return ops.ones_like(out)


def _ones(meta):
    """Ones of an edge's shape, dtype and device (what ``torch.ones`` makes for a GradientEdge root)."""
    target = backend(meta.device)
    data = target.xp.ones(tuple(meta.shape), dtype=xp_dtype(target.xp, meta.dtype),
                          device=target.array_device(meta.device.index))
    return new_tensor(data, meta.dtype, meta.device)


def _grads_tuple(grads, count: int) -> tuple:
    """``_tensor_or_tensors_to_tuple``: None means one None per output; a lone tensor is a 1-tuple."""
    if grads is None:
        return (None,) * count
    return (grads,) if isinstance(grads, TensorImpl) else tuple(grads)


def _root_edges(tensors, grads) -> list[Edge]:
    """``run_backward`` in python_engine.cpp: one gradient per tensor, each tensor in the graph."""
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    edges = []
    for i, t in enumerate(tensors):
        if isinstance(t, GradientEdge):
            edges.append(Edge(t.node, t.output_nr))
            continue
        if not requires_grad(t):
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(gradient_edge(t))
    return edges


def _output_edges(inputs, accumulate: bool) -> list[Edge]:
    """``run_backward``'s edges of ``inputs``: where the engine stops and hands back (or keeps) a gradient."""
    edges = []
    for t in inputs:
        if isinstance(t, GradientEdge):
            edges.append(Edge(t.node, t.output_nr))
        elif isinstance(t, TensorImpl):
            if accumulate:
                t.retain_grad()  # for every input, so one not requiring grad raises here
            elif not requires_grad(t):
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            edges.append(_output_edge(t))
        else:
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
    return edges


class _NoTorchFunction:
    """Until ``picotorch._C`` registers the ``__torch_function__`` protocol (it lives a layer above)."""

    @staticmethod
    def _has_torch_function(args) -> bool:
        return False


_torch_function = _NoTorchFunction


def set_torch_function(protocol) -> None:
    """Called by ``picotorch._C``: ``backward`` and ``grad`` hand subclass tensors to ``__torch_function__``
    (torch/autograd/__init__.py imports torch.overrides for it)."""
    global _torch_function
    _torch_function = protocol


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None) -> None:
    """Accumulate d(tensors)/d(leaf) into each leaf's ``.grad`` (or only into ``inputs``)."""
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                               "`backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    inputs_tuple = () if inputs is None else _inputs_tuple(inputs, "backward")
    if inputs is not None and not inputs_tuple:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _as_tuple(tensors)
    overridable = tuple(t for t in tensors + inputs_tuple if isinstance(t, TensorImpl))
    if _torch_function._has_torch_function(overridable):
        return _torch_function.handle_torch_function(
            backward, overridable, tensors, grad_tensors=grad_tensors, retain_graph=retain_graph,
            create_graph=create_graph, inputs=inputs_tuple if inputs is not None else None)
    grads = _make_grads(tensors, _grads_tuple(grad_tensors, len(tensors)), False)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(tensors, grads)
    outputs = _output_edges(inputs_tuple, accumulate=True) if inputs_tuple else None
    get_default_engine().execute(roots, list(grads), retain_graph, create_graph, accumulate_grad=True,
                                 outputs=outputs)


def _output_edge(t) -> Edge:
    grad_fn = grad_fn_of(t)  # a stale view gets its new node (or raises) as tensor.grad_fn() does
    if grad_fn is not None:
        return Edge(grad_fn, t._output_nr)
    node = try_get_grad_accumulator(t)
    return Edge(node, 0) if node is not None else Edge(Identity(), 0)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching ``.grad`` (a dict of inputs: a dict of gradients)."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs_tuple = _inputs_tuple(inputs, "grad")
    if not inputs_tuple:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    overridable = tuple(t for t in outputs + inputs_tuple if isinstance(t, TensorImpl))
    if _torch_function._has_torch_function(overridable):
        result = _torch_function.handle_torch_function(
            grad, overridable, outputs, inputs_tuple, grad_outputs=grad_outputs, retain_graph=retain_graph,
            create_graph=create_graph, only_inputs=only_inputs, allow_unused=allow_unused,
            is_grads_batched=is_grads_batched, materialize_grads=materialize_grads)
        return dict(zip(inputs.keys(), result)) if type(inputs) is dict else result
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.",
                      FutureWarning, stacklevel=2)
    grads = _make_grads(outputs, _grads_tuple(grad_outputs, len(outputs)), is_grads_batched)
    if retain_graph is None:
        retain_graph = create_graph

    def vjp(row_grads, keep_graph=retain_graph):
        roots = _root_edges(outputs, row_grads)  # THPEngine_run_backward checks the outputs, then the inputs
        edges = _output_edges(inputs_tuple, accumulate=False)
        result = get_default_engine().execute(roots, list(row_grads), keep_graph, create_graph,
                                              accumulate_grad=False, outputs=edges)
        return tuple(_check_used(i, g, allow_unused) for i, g in enumerate(result))

    result = _batched(vjp, grads, retain_graph) if is_grads_batched else vjp(grads)
    if materialize_grads:
        result = _materialized(result, inputs_tuple, create_graph)
    return dict(zip(inputs.keys(), result)) if type(inputs) is dict else result


def _check_used(i: int, g, allow_unused: bool):
    if g is None and not allow_unused:
        raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                           "Set allow_unused=True if this is the desired behavior.")
    return g


def _materialized(result: tuple, inputs: tuple, create_graph: bool) -> tuple:
    """``materialize_grads``: zeros for an input the outputs do not reach (a GradientEdge has no shape to fill)."""
    if any(g is None and isinstance(t, GradientEdge) for g, t in zip(result, inputs)):
        raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
    return tuple(ops.zeros_like(t).requires_grad_(create_graph) if g is None else g for g, t in zip(result, inputs))


def _batched(vjp, grads: tuple, retain_graph: bool) -> tuple:
    """``is_grads_batched``: one vjp per row of the grad_outputs, stacked.

    PyTorch vmaps the vjp over dim 0 of every grad_output (``torch/_vmap_internals.py``) and runs the engine once,
    on batched tensors. picotorch runs it once per row, keeping the graph until the last, and stacks the rows: the
    same values and checks, but under ``create_graph`` a result's ``grad_fn`` is ``StackBackward0`` where PyTorch's
    is the backward formula's last op, and a hook on the graph runs once per row.
    """
    batched = [g for g in grads if g is not None]  # a None is no leaf of the vmapped pytree
    for g in batched:
        if g.dim() == 0:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that input is a "
                             "Tensor of dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0.")
    sizes = [g.shape[0] for g in batched]
    if any(size != sizes[0] for size in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    rows = [vjp(tuple(None if g is None else g[row] for g in grads), retain_graph or row < sizes[0] - 1)
            for row in range(sizes[0])]
    return tuple(None if column[0] is None else ops.stack(list(column)) for column in zip(*rows))


from . import functional  # noqa: E402, F401  (after grad, which it calls)
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402  (after grad, which they call)
from .gradcheck import register_grad as _register_grad  # noqa: E402
from .legacy_variable import Variable  # noqa: E402

_register_grad(grad)
