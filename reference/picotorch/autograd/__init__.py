"""``picotorch.autograd``: ``backward`` and ``grad``, the two ways to run the engine.

Models ``torch/autograd/__init__.py`` (``backward``, ``grad``, ``_make_grads``) and
``torch/csrc/autograd/python_engine.cpp`` (``run_backward``: turning tensors into root edges and
``inputs`` into output edges).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..native.dispatcher import ops
from ..native.tensor_impl import TensorImpl
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
from .graph import Edge, Identity
from .variable import grad_fn_of, gradient_edge, requires_grad, try_get_grad_accumulator

__all__ = ["Function", "Variable", "backward", "detect_anomaly", "enable_grad", "function", "grad", "gradcheck",
           "gradgradcheck", "graph", "is_grad_enabled", "no_grad", "profiler", "set_detect_anomaly",
           "set_grad_enabled", "set_multithreading_enabled", "inference_mode"]


def _tensor_tuple(value, what: str) -> tuple:
    if value is None:
        return ()
    if isinstance(value, TensorImpl):
        return (value,)
    return tuple(value)


def _make_grads(outputs, grads, is_grads_batched=False) -> list:
    new_grads = []
    for out, grad in zip(outputs, grads):
        if isinstance(grad, TensorImpl):
            if tuple(grad.shape) != tuple(out.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{len(new_grads)}] has a shape of "
                                   f"{grad.shape} and output[{len(new_grads)}] has a shape of {out.shape}.")
            if out.dtype.is_complex != grad.dtype.is_complex:
                raise RuntimeError(f"For complex Tensors, both grad_output and output are required to have "
                                   f"the same dtype. Mismatch in dtype: grad_output[{len(new_grads)}] has a "
                                   f"dtype of {grad.dtype} and output[{len(new_grads)}] has a dtype of {out.dtype}.")
            new_grads.append(grad)
        elif grad is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                       f"{out.dtype}")
                new_grads.append(ops.ones_like(out))
            else:
                new_grads.append(None)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(grad).__name__}")
    return new_grads


def _grads_tuple(grads, count: int) -> tuple:
    """``_tensor_or_tensors_to_tuple``: None means one None per output; a lone tensor is a 1-tuple."""
    return (None,) * count if grads is None else _tensor_tuple(grads, "grad_tensors")


def _root_edges(tensors, grads) -> list[Edge]:
    """``run_backward`` in python_engine.cpp: one gradient per tensor, each tensor in the graph."""
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    edges = []
    for i, t in enumerate(tensors):
        if not requires_grad(t):
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(gradient_edge(t))
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
    if inputs is not None and len(_tensor_tuple(inputs, "inputs")) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    given_inputs = inputs
    tensors = _tensor_tuple(tensors, "tensors")
    inputs = _tensor_tuple(inputs, "inputs")
    if _torch_function._has_torch_function(tensors + inputs):
        return _torch_function.handle_torch_function(
            backward, tensors + inputs, tensors, grad_tensors=grad_tensors, retain_graph=retain_graph,
            create_graph=create_graph, inputs=inputs if given_inputs is not None else None)
    grads = _make_grads(tensors, _grads_tuple(grad_tensors, len(tensors)))
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(tensors, grads)
    outputs = [_output_edge(t, accumulate=True) for t in inputs] if inputs else None
    get_default_engine().execute(roots, grads, retain_graph, create_graph, accumulate_grad=True, outputs=outputs)


def _output_edge(t, accumulate: bool) -> Edge:
    if accumulate:
        t.retain_grad()  # as run_backward: for every input, so one not requiring grad raises here
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
    outputs = _tensor_tuple(outputs, "outputs")
    keys = None
    if type(inputs) is dict:
        keys, inputs = list(inputs.keys()), tuple(inputs.values())
    elif isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `grad()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    inputs = _tensor_tuple(inputs, "inputs")
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if _torch_function._has_torch_function(outputs + inputs):
        result = _torch_function.handle_torch_function(
            grad, outputs + inputs, outputs, inputs, grad_outputs=grad_outputs, retain_graph=retain_graph,
            create_graph=create_graph, only_inputs=only_inputs, allow_unused=allow_unused,
            is_grads_batched=is_grads_batched, materialize_grads=materialize_grads)
        return result if keys is None else dict(zip(keys, result))
    if allow_unused is None:
        allow_unused = materialize_grads
    grads = _make_grads(outputs, _grads_tuple(grad_outputs, len(outputs)))
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(outputs, grads)  # THPEngine_run_backward checks the outputs, then the inputs
    for t in inputs:
        if not requires_grad(t):
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    edges = [_output_edge(t, accumulate=False) for t in inputs]
    result = get_default_engine().execute(roots, grads, retain_graph, create_graph, accumulate_grad=False,
                                          outputs=edges)
    result = tuple(_finish_grad(i, g, t, allow_unused, materialize_grads, create_graph)
                   for i, (g, t) in enumerate(zip(result, inputs)))
    return result if keys is None else dict(zip(keys, result))


def _finish_grad(i: int, g, t, allow_unused: bool, materialize: bool, create_graph: bool):
    if g is not None:
        return g
    if not allow_unused:
        raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                           "Set allow_unused=True if this is the desired behavior.")
    if materialize:
        return ops.zeros_like(t).requires_grad_(create_graph)
    return None


from . import functional  # noqa: E402, F401  (after grad, which it calls)
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402  (after grad, which they call)
from .gradcheck import register_grad as _register_grad  # noqa: E402
from .legacy_variable import Variable  # noqa: E402

_register_grad(grad)
