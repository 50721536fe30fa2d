"""A tensor's autograd metadata and how ops attach tensors to the graph.

Models ``torch/csrc/autograd/variable.h`` / ``variable.cpp`` (``gradient_edge``, ``set_history``,
``grad_accumulator``, ``retain_grad``), ``saved_variable.h`` / ``saved_variable.cpp`` (saved tensors
with version checks) and ``functions/utils.h`` (``collect_next_edges``). Fields live on the tensor
object (see ``native/tensor_impl.py``): ``_requires_grad``, ``_grad_fn``, ``_output_nr``, ``_grad``,
``_grad_accumulator`` (a weak reference), ``_hooks``, ``_retains_grad``, ``_version_counter``.
"""

from __future__ import annotations

import weakref

from .graph import Edge


def requires_grad(t) -> bool:
    return t._requires_grad or t._grad_fn is not None


def is_leaf(t) -> bool:
    return t._grad_fn is None


def grad_accumulator(t):
    """The leaf's AccumulateGrad node, created on first use and cached weakly.

    The tensor keeps only a weak reference: the graph (the nodes whose edges point at it) owns the
    node. Hence ``p.expand_as(p).grad_fn.next_functions[0][0]`` returns the same object while someone
    holds it, and a new one once nobody does — and hooks on a dropped one never fire.
    """
    if t._grad_fn is not None:
        raise RuntimeError("grad_accumulator() should be only called on leaf Variables")
    if not t._requires_grad:
        return None
    node = t._grad_accumulator() if t._grad_accumulator is not None else None
    if node is None:
        from .accumulate_grad import AccumulateGrad

        node = AccumulateGrad(t)
        t._grad_accumulator = weakref.ref(node)
    return node


def try_get_grad_accumulator(t):
    return t._grad_accumulator() if t._grad_accumulator is not None else None


def gradient_edge(t) -> Edge:
    """Where this tensor's gradient goes: its grad_fn's input, or its leaf accumulator."""
    if t._grad_fn is not None:
        return Edge(t._grad_fn, t._output_nr)
    return Edge(grad_accumulator(t), 0)


def collect_next_edges(*tensors) -> list[Edge]:
    """One edge per input of a forward op (``Edge(None, 0)`` for inputs that need no gradient)."""
    edges = []
    for t in tensors:
        if t is None or not hasattr(t, "_data") or not requires_grad(t):
            edges.append(Edge(None, 0))
        else:
            edges.append(gradient_edge(t))
    return edges


def any_requires_grad(*tensors) -> bool:
    return any(t is not None and hasattr(t, "_data") and requires_grad(t) for t in tensors)


def set_history(t, grad_fn) -> None:
    """Make ``t`` the next output of ``grad_fn`` (its gradient will be that node's input)."""
    t._output_nr = grad_fn.add_input_metadata(t)
    t._grad_fn = grad_fn
    t._requires_grad = False


def rebase_history(t, grad_fn) -> None:
    """After an in-place op: ``t`` now comes out of ``grad_fn``; old tensor hooks stay with the old node."""
    if t._hooks is not None and not t._retains_grad:
        t._hooks = None
    set_history(t, grad_fn)
    if t._retains_grad:
        t._retains_grad = False
        retain_grad(t)


def check_inplace(t) -> None:
    from .grad_mode import is_grad_enabled

    if is_grad_enabled() and t._grad_fn is None and t._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def bump_version(t) -> None:
    t._version_counter.bump()


def retain_grad(t) -> None:
    """Install the retains-grad hook on a non-leaf (``VariableHooks::retain_grad``)."""
    if not requires_grad(t):
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t._grad_fn is None or t._retains_grad:
        return
    node, index = t._grad_fn, t._output_nr
    ref = weakref.ref(t)

    def retains_grad_hook(grads):
        owner = ref()
        if owner is not None and grads[index] is not None:
            owner._grad = _accumulate_retained(owner._grad, grads[index])
        return grads

    node._retains_grad_hooks[index] = retains_grad_hook
    t._retains_grad = True


def _accumulate_retained(old, new):
    from ..native.dispatcher import ops

    if old is None:
        return ops.clone(new).detach()
    return ops.add(old, new).detach()


# ----------------------------------------------------------------------------- saved tensors

ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")


class SavedVariable:
    """A tensor a backward formula needs, with the version it had when it was saved.

    Saving an output (``is_output``) must not keep the output's own grad_fn alive (a cycle), so we
    keep the data and rebuild the link to the node when unpacking, as PyTorch does.
    """

    __slots__ = ("data", "saved_version", "was_default", "is_output", "is_leaf", "requires_grad",
                 "grad_fn_ref", "output_nr", "released", "weak_grad_fn", "_grad_accumulator")

    def __init__(self, tensor, is_output: bool = False) -> None:
        self.released = False
        self.was_default = tensor is None
        if tensor is None:
            return
        self.is_output = is_output
        self.saved_version = tensor._version_counter.version
        self.output_nr = tensor._output_nr
        self.requires_grad = requires_grad(tensor)
        self.is_leaf = tensor._grad_fn is None
        # An output's grad_fn is the node saving it: keep only the data and rebuild on unpack.
        self.data = tensor if not is_output else _shallow_detached(tensor)
        self.grad_fn_ref = None if is_output else tensor._grad_fn

    def unpack(self, grad_fn=None):
        if self.was_default:
            return None
        if self.released:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        current = self.data._version_counter.version
        if current != self.saved_version:
            raise RuntimeError(self._version_message(current, grad_fn))
        if not self.is_output:
            return self.data
        if not self.requires_grad:
            return self.data
        out = _shallow_detached(self.data)
        out._grad_fn = grad_fn
        out._output_nr = self.output_nr
        return out

    def _version_message(self, current: int, grad_fn) -> str:
        t = self.data
        desc = f"[torch.{_legacy_type(t)} [{', '.join(str(s) for s in t._data.shape)}]]"
        node = grad_fn if self.is_output else self.grad_fn_ref
        where = f", which is output {self.output_nr} of {node.name()}," if node is not None else ""
        return (f"one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: {desc}{where} is at version {current}; expected version "
                f"{self.saved_version} instead. Hint: enable anomaly detection to find the operation "
                "that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).")

    def reset_data(self) -> None:
        self.released = True
        self.data = None
        self.grad_fn_ref = None


def _legacy_type(t) -> str:
    prefix = "cuda." if t._device.type == "cuda" else ""
    return f"{prefix}{t._dtype.c10_name}Tensor"


def _shallow_detached(t):
    from ..native.tensor_impl import new_tensor

    out = new_tensor(t._data, t._dtype, t._device, version=t._version_counter)
    return out
