"""A tensor's autograd metadata and how ops attach tensors to the graph.

Models ``torch/csrc/autograd/variable.h`` / ``variable.cpp`` (``gradient_edge``, ``set_history``,
``grad_accumulator``, ``retain_grad``, ``rebase_history`` with its view branch, and ``VariableHooks::grad_fn``:
a view whose base was modified in place after the view was made gets a fresh ``AsStridedBackward0``, or is
refused, on its next use — ``_attr_version`` remembers the version its ``grad_fn`` was made at), ``saved_variable.h`` /
``saved_variable.cpp`` (saved tensors with version checks) and ``functions/utils.h``
(``collect_next_edges``). The fields live on the tensor itself (``native/tensor_impl.py``,
``TensorImpl``): ``_requires_grad``, ``_grad_fn``, ``_output_nr``, ``_grad``, ``_grad_accumulator``
(a weak reference), ``_backward_hooks``, ``_retains_grad``, ``_base``, ``_version_counter``.
"""

from __future__ import annotations

import re
import weakref

from ..c10 import inference_mode
from ..c10.scalar_type import is_differentiable_type
from ..native.dispatcher import ops
from ..native.tensor_impl import TensorImpl, new_tensor
from . import copy_slices
from .anomaly_mode import AnomalyMode
from .copy_slices import AsStridedBackward0, CopySlices, Region
from .grad_mode import is_grad_enabled, no_grad
from .graph import ERR_BACKWARD_TWICE, Edge, Node
from .hooks import error_type_string
from .saved_variable_hooks import PySavedVariableHooks, get_default_hooks


def requires_grad(t) -> bool:
    """``DifferentiableViewMeta::requires_grad``: a view also requires grad when its base does."""
    return t._requires_grad or t._grad_fn is not None or (t._base is not None and requires_grad(t._base))


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
    node = try_get_grad_accumulator(t)
    if node is None:
        node = _accumulate_grad_class(t)
        t._grad_accumulator = weakref.ref(node)
    return node


# NOTE [Who makes a leaf's AccumulateGrad]
# ``accumulate_grad.py`` builds on this module (under create_graph its copy of the gradient gets a
# history, with ``set_history``), so this module cannot import it. It hands its node class down when
# it is imported (``picotorch.autograd`` imports it), as ``_tensor.py`` hands ``Tensor`` to
# ``tensor_impl``. In PyTorch, C++ headers break the same circle.
_accumulate_grad_class: type | None = None


def set_accumulate_grad_class(cls: type) -> None:
    global _accumulate_grad_class
    _accumulate_grad_class = cls


def try_get_grad_accumulator(t):
    """The cached AccumulateGrad if someone still holds it, else None.

    ``t._grad_accumulator`` is None (never created) or a ``weakref.ref``; calling a weak reference
    returns the object, or None once it has been garbage collected.
    """
    return t._grad_accumulator() if t._grad_accumulator is not None else None


def grad_fn_of(t):
    """``Tensor::grad_fn()``: a view whose base was modified in place since it was made gets its new node
    first (and one that must not be modified raises)."""
    if t._attr_version is not None and t._attr_version != t._version_counter.version:
        refresh_view_grad_fn(t)
    return t._grad_fn


def gradient_edge(t) -> Edge:
    """Where this tensor's gradient goes: its grad_fn's input, or its leaf accumulator."""
    if t._attr_version is not None and t._attr_version != t._version_counter.version:  # _stale_view, inlined
        refresh_view_grad_fn(t)
    if t._grad_fn is not None:
        return _new_tuple(Edge, (t._grad_fn, t._output_nr))  # Edge(...) without its Python __new__: 0.15 us
    return _new_tuple(Edge, (grad_accumulator(t), 0))


def collect_next_edges(*tensors) -> list[Edge]:
    """One edge per input of a forward op (``Edge(None, 0)`` for inputs that need no gradient)."""
    return [gradient_edge(t) if isinstance(t, TensorImpl) and (t._requires_grad or t._grad_fn is not None
                                                               or t._attr_version is not None and _stale_view(t))
            else _NO_EDGE for t in tensors]


def _stale_view(t) -> bool:
    """A view whose base (or another view of it) was modified in place since its grad_fn was made."""
    return t._attr_version is not None and t._attr_version != t._version_counter.version


# Edges are immutable, so every "no gradient here" edge can be this one: an op on a Python number (a
# wrapped-number input) then allocates nothing for it, and the cyclic GC has one object less to scan.
_NO_EDGE = Edge(None, 0)
_new_tuple = tuple.__new__


def any_requires_grad(*tensors) -> bool:
    for t in tensors:  # a loop, not any(<generator>): asked on every op, and a generator costs twice as much
        if isinstance(t, TensorImpl) and (t._requires_grad or t._grad_fn is not None
                                          or (t._base is not None and requires_grad(t._base))):
            return True
    return False


def set_history(t, grad_fn) -> None:
    """Make ``t`` the next output of ``grad_fn`` (its gradient will be that node's input).

    An integer or bool output never joins the graph: ``x.long()`` says so in its
    ``output_differentiability`` (``"!dtype || isDifferentiableType(*dtype)"``), ``int_tensor.copy_(x)``
    never asks; any other op that would make one (``x.sum(dtype=torch.long)``) is an error, as in
    PyTorch's ``set_history`` (functions/utils.h).
    """
    if not is_differentiable_type(t._dtype):
        if type(grad_fn).__name__ == "ToCopyBackward0":
            return
        raise RuntimeError(f"Autograd not support dtype: {t._dtype.c10_name}")
    _attach(t, grad_fn)


def _attach(t, grad_fn) -> None:
    """The edge itself. An in-place op's ``rebase_history`` attaches without asking the dtype: an integer tensor
    written by ``masked_fill_``/``index_put_`` from a value that requires grad gets the node, as in PyTorch."""
    t._output_nr = grad_fn.add_input_metadata(t)
    t._grad_fn = grad_fn
    t._requires_grad = False


def set_inplace_view_history(t, grad_fn) -> None:
    """After an in-place view op (``t_``, ``squeeze_``): ``t`` is ``grad_fn``'s output, as after any view op; a
    view's node is current again at its new version (``set_gradient_edge`` sets the view's attr_version), so it is
    not re-derived from its base."""
    set_history(t, grad_fn)
    if t._base is not None:
        t._attr_version = t._version_counter.version


def rebase_history(t, grad_fn) -> None:
    """After an in-place op ``t`` comes out of ``grad_fn``: move what must follow the tensor.

    ``update_tensor_hooks_on_new_gradfn`` in variable.cpp: hooks registered before the in-place op
    stay with the old node (they see the gradient of the old value); the tensor starts a fresh hooks
    dict for the new node. The retains-grad hook is the exception: it moves to the new node, so
    ``.grad`` is the gradient of the tensor's current value.
    """
    old_fn, old_output_nr = t._grad_fn, t._output_nr
    if t._base is not None:
        rebase_view_history(t, grad_fn)
    else:
        _attach(t, grad_fn)
    _move_hooks_to_new_grad_fn(t, old_fn, old_output_nr, grad_fn)


def _move_hooks_to_new_grad_fn(t, old_fn, old_output_nr, new_fn) -> None:
    t._backward_hooks = None
    if t._retains_grad and old_fn is not None:
        hook = old_fn.pop_retains_grad_hook(old_output_nr)
        hook.index = t._output_nr
        new_fn.add_retains_grad_hook(hook, t._output_nr)


def rebase_view_history(view, fn: Node) -> None:
    """The view branch of ``rebase_history``: the base gets CopySlices(fn), the view AsStridedBackward0.

    An in-place op on a view changes the base's values too, so the base's history changes: its new
    node applies ``fn`` to the region of the gradient the view covers (``copy_slices.py``).
    """
    base = view._base
    region = Region(view, base)
    base_edge, = collect_next_edges(base)
    copy_slices = CopySlices(base_edge, region, fn)
    _attach(base, copy_slices)
    _attach(view, AsStridedBackward0(Edge(copy_slices, 0), region, view))
    view._attr_version = view._version_counter.version


def as_strided_with_history(base, region: Region):
    """``base.as_strided(...)`` for the nodes of ``copy_slices.py``: in grad mode, a view whose node is
    ``AsStridedBackward0``."""
    view = region.of(base)
    if is_grad_enabled() and requires_grad(base):
        as_view(base, view)
        set_history(view, AsStridedBackward0(gradient_edge(base), region, view))
    return view


copy_slices.set_view_maker(as_strided_with_history)


def _current_grad_fn(t):
    """``t.grad_fn()`` in C++: a stale view's is re-derived first (``refresh_view_grad_fn``)."""
    if t._attr_version is not None and t._attr_version != t._version_counter.version:
        refresh_view_grad_fn(t)
    return t._grad_fn


def refresh_view_grad_fn(view) -> None:
    """``VariableHooks::grad_fn``: a view whose base, or another view of its base, was modified in place after
    its ``grad_fn`` was made must not use it (it computes the old values); it gets ``AsStridedBackward0``
    onto the base's current history — unless the view may not be rebased, then PyTorch's error."""
    base = view._base
    if view._grad_fn is None and not requires_grad(base):
        return
    handle_view_on_rebase(view, indirect=True)
    old_fn, old_output_nr = view._grad_fn, view._output_nr
    base_edge, = collect_next_edges(base)
    view._attr_version = view._version_counter.version
    new_fn = AsStridedBackward0(base_edge, Region(view, base), view)
    set_history(view, new_fn)
    _move_hooks_to_new_grad_fn(view, old_fn, old_output_nr, new_fn)


def check_inplace(t, any_input_requires_grad: bool | None = None) -> None:
    """``check_inplace`` in VariableTypeUtils.h: a leaf (or a view of one) must not be modified in place,
    nor a view whose creation forbids it (``handle_view_on_rebase``). ``any_input_requires_grad``: whether
    any input of the op requires grad (the other operand counts too); by default ``t``'s own."""
    if any_input_requires_grad is None:
        any_input_requires_grad = requires_grad(t)
    if not is_grad_enabled() or not any_input_requires_grad:
        return
    base = t._base
    if base is not None:
        handle_view_on_rebase(t)
        if requires_grad(t) and base._grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if requires_grad(t) and t._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


# ----------------------------------------------------------------------------- views and in-place ops
# NOTE [ View + Inplace detection ]
# An in-place op on a view rewrites the base's history (CopySlices). PyTorch forbids it when it cannot
# do that right: the view was made with grad mode off (was the in-place op meant to be tracked?), or it
# is one of several views one op returned (``unbind``, ``split``: one CopySlices cannot cover them all), or
# a custom Function returned it (CopySlices would wrap the Function's own backward, which never saw the view).
# Every view remembers which case it is, its CreationMeta, set when it is made (``as_view``) or by a custom
# Function's output wrapping (``python_function.wrap_outputs``).

_NO_GRAD_ADVICE = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
    "both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
    "tracked) or both outside (if you want the inplace to be tracked).")
_INFERENCE_MODE_ADVICE = _NO_GRAD_ADVICE.replace("no_grad block", "inference_mode block")
_CUSTOM_FUNCTION_ADVICE = (
    " This view was created inside a custom Function (or because an input was returned as-is) and the autograd logic "
    "to handle view+inplace would override the custom backward associated with the custom Function, leading to "
    "incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom Function.")
_MULTI_OUTPUT_ADVICE = (
    " This view is the output of a function that returns multiple views. Such functions do not allow the output "
    "views to be modified inplace. You should replace the inplace operation by an out-of-place one.")


def as_view(base, view, multi_output: bool = False) -> None:
    """Record ``view``'s CreationMeta; a view of a view keeps its base's unless it is made in grad mode. An
    inference tensor's views are no autograd views (NOTE [Inference tensors have no version counter])."""
    if not view._version_counter.tracked:
        return
    if inference_mode.state.enabled:
        meta = "INFERENCE_MODE"
    elif not is_grad_enabled():
        meta = "NO_GRAD_MODE"
    else:
        meta = "MULTI_OUTPUT_NODE" if multi_output else "DEFAULT"
    if meta == "DEFAULT" and base._base is not None:
        meta = base._creation_meta
    view._creation_meta = meta
    view._attr_version = view._version_counter.version


def handle_view_on_rebase(view, indirect: bool = False) -> None:
    """``handle_view_on_rebase`` in variable.cpp: the error for a view that must not be modified in place
    (``indirect``: its base or another view of its base was)."""
    meta = view._creation_meta
    if meta == "DEFAULT":
        return
    modified = "its base or another view of its base has been" if indirect else "is being"
    grad_fn = view._grad_fn
    where = f"Output {view._output_nr} of {_forward_op_name(grad_fn)}" if grad_fn is not None else None
    if meta == "INFERENCE_MODE":
        message = f"A view was created in inference mode and {modified} modified inplace in normal mode."
    elif meta == "NO_GRAD_MODE" or grad_fn is None:
        prefix = f"{where} is a view of a view which was created in" if where else "A view was created in"
        message = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        message = f"{where} is a view and {modified} modified inplace."
    advice = {"MULTI_OUTPUT_NODE": _MULTI_OUTPUT_ADVICE, "IN_CUSTOM_FUNCTION": _CUSTOM_FUNCTION_ADVICE,
              "INFERENCE_MODE": _INFERENCE_MODE_ADVICE}.get(meta, _NO_GRAD_ADVICE)
    raise RuntimeError(message + advice)


def _forward_op_name(node) -> str:
    """``Node::forward_op_name``: the node's name without ``Backward`` and its number (``Select``)."""
    return re.sub(r"Backward\d*$", "", node.name())


def bump_version(t) -> None:
    t._version_counter.bump()


def retain_grad(t) -> None:
    """``VariableHooks::retain_grad``: install the retains-grad hook on a non-leaf (no-op on a leaf)."""
    if not requires_grad(t):
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t._grad_fn is None or t._retains_grad:
        return
    grad_fn_of(t).add_retains_grad_hook(_RetainsGradHook(t, t._output_nr), t._output_nr)
    t._retains_grad = True


class _RetainsGradHook:
    """Copies the gradient flowing into output ``index`` of a node into the tensor's ``.grad``.

    Holds the tensor weakly (a node must not keep its output alive). Runs under the engine's grad
    mode, so with ``create_graph=True`` the copy is recorded (``CloneBackward0``, ``AddBackward0``).
    """

    def __init__(self, tensor, index: int) -> None:
        self.owner = weakref.ref(tensor)
        self.index = index

    def __call__(self, grads: list) -> list:
        owner, grad = self.owner(), grads[self.index]
        # BEGIN SOLUTION 3.4: if the tensor is alive and grad is not None: .grad = clone(grad), or .grad + grad
        if owner is not None and grad is not None:
            owner._grad = ops.clone(grad) if owner._grad is None else ops.add(owner._grad, grad)
        # END SOLUTION
        return grads


# ----------------------------------------------------------------------------- saved tensors


# NOTE [Inference tensor cannot be saved for backward]
# A saved tensor is checked against its version when backward unpacks it; an inference tensor has no version to
# check (native/tensor_impl.py), so saving one is refused up front. Only ops that record a node save anything: an
# inference tensor may still flow through ``x + y`` (AddBackward0 saves nothing) but not through ``x * y``.
ERR_INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
    "in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")

_FROM_PYTHON = object()  # ``torch._C._autograd.SavedTensor()``: called with no tensor


class SavedVariable:
    """A tensor a backward formula needs, with the version it had when it was saved.

    ``saved_variable.cpp``: an input (or a leaf) is kept as the tensor itself; an output is kept
    as its bare data (``tensor_data``: same storage and version counter, no autograd metadata),
    because keeping the output itself would make the node own the tensor that owns the node. On
    unpack the link to the node is rebuilt from ``saved_for``, the node doing the unpacking.

    Under ``saved_tensors_hooks`` (chapter 4) the tensor is handed to the pack hook instead and only
    what it returned is kept (``hooks.data``); unpacking calls the unpack hook. Python sees this
    object as ``torch._C._autograd.SavedTensor`` (``grad_fn._raw_saved_self``).
    """

    __slots__ = ("data_", "saved_version", "was_default", "is_output", "is_leaf", "saved_original",
                 "output_nr", "requires_grad", "grad_accumulator", "grad_fn", "hooks")

    def __init__(self, tensor=_FROM_PYTHON, is_output: bool = False) -> None:
        if tensor is _FROM_PYTHON:
            raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")
        self.was_default = tensor is None
        self.hooks = None
        if tensor is None:
            self.data_ = None
            return
        if not tensor._version_counter.tracked:
            raise RuntimeError(ERR_INFERENCE_SAVED)
        self.saved_version = tensor._version_counter.version
        self.is_leaf = tensor._grad_fn is None
        self.is_output = is_output
        self.output_nr = tensor._output_nr
        self.requires_grad = tensor._requires_grad or tensor._grad_fn is not None  # requires_grad(), inlined
        self.grad_accumulator = None
        hooks = get_default_hooks()
        if hooks is not None and not tensor._is_wrapped_number:  # chapter 4: saved_tensors_hooks
            self.saved_original, self.data_, self.grad_fn = False, None, None
            self.save_metadata(tensor)
            self.set_hooks_and_pack_data(hooks, tensor)
            return
        self.saved_original = not is_output or self.is_leaf
        self.data_ = tensor if self.saved_original else tensor_data(tensor)
        if self.saved_original:  # PyTorch keeps no metadata then: output_nr_ stays 0 (the version error says so)
            self.output_nr = 0

    def unpack(self, saved_for=None):
        if self.was_default:
            return None
        if self.data_ is None and self.hooks is None:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        if self.hooks is not None:
            grad_fn = self.grad_fn
        else:
            grad_fn = _current_grad_fn(self.data_) if self.saved_original else None
        if not self.is_leaf and grad_fn is None:
            if saved_for is None:
                raise RuntimeError(ERR_DETACHED_IN_PLACE)
            grad_fn = saved_for
        if self.hooks is None:  # with hooks the version cannot be followed through them
            current = self.data_._version_counter.version
            if current != self.saved_version:
                raise RuntimeError(_with_anomaly_hint(
                    version_error(self.data_, current, self.saved_version, self.output_nr, grad_fn)))
            if self.saved_original:
                return self.data_
        data = self.data_ if self.hooks is None else self.hooks.call_unpack_hook()
        if grad_fn is None and not self.requires_grad and not requires_grad(data):
            return data
        out = tensor_data(data)
        if grad_fn is not None:
            out._grad_fn, out._output_nr = grad_fn, self.output_nr
        else:
            out._requires_grad, out._grad_accumulator = self.requires_grad, self.grad_accumulator
        return out

    def reset_data(self) -> None:
        """Free the tensor once the node has run (unless ``retain_graph``)."""
        self.hooks = None
        self.grad_fn = None
        self.data_ = None

    # ---- saved_tensors_hooks (chapter 4)
    def save_metadata(self, tensor) -> None:
        """What unpacking needs once only the packed object is kept: the leaf's accumulator or the grad_fn."""
        if self.is_leaf:
            node = grad_accumulator(tensor)
            self.grad_accumulator = weakref.ref(node) if node is not None else None
        elif not self.is_output:
            self.grad_fn = tensor._grad_fn

    def set_hooks_and_pack_data(self, hooks, tensor) -> None:
        """Hand ``tensor`` to the pack hook (``hooks.call_pack_hook``), which runs with grad mode off and
        must not modify the tensor in place: its version counter tells (``ERR_PACK_HOOK_IN_PLACE``).

        Worked example of calling a hook and checking what happened: ``call_unpack_hook`` in
        ``saved_variable_hooks.py``.
        """
        self.hooks = hooks
        # BEGIN SOLUTION 4.5: under no_grad() call hooks.call_pack_hook(tensor); raise if the tensor's version moved
        version = tensor._version_counter.version
        with no_grad():
            hooks.call_pack_hook(tensor)
        if tensor._version_counter.version != version:
            raise RuntimeError(ERR_PACK_HOOK_IN_PLACE)
        # END SOLUTION

    # ---- what Python sees: torch._C._autograd.SavedTensor
    def register_hooks(self, *hooks) -> None:
        """``SavedTensor.register_hooks(pack_hook, unpack_hook)``: pack this saved tensor now; one pair only."""
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise TypeError(_register_hooks_type_error(self, *hooks))
        pack_hook, unpack_hook = hooks
        if self.hooks is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. "
                               "Hint: only one pair of hooks is allowed at a time.")
        if self.data_ is None:
            raise RuntimeError(ERR_REGISTER_HOOKS_FREED if not self.was_default else
                               "Calling register_hooks on a saved tensor with value None is forbidden")
        data, self.data_, self.grad_fn = self.data_, None, None
        if self.saved_original:  # the pack hook gets it detached, as the graph keeps no link through it
            self.save_metadata(data)
            data = tensor_data(data)
        self.set_hooks_and_pack_data(PySavedVariableHooks(pack_hook, unpack_hook), data)

    @property
    def data(self):
        """The saved tensor as stored, or what the pack hook returned; None once freed."""
        return self.hooks.data if self.hooks is not None else self.data_

    @property
    def unpack_hook(self):
        return self.hooks.unpack_hook if self.hooks is not None else None

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"

    def __dir__(self) -> list:
        """What Python lists of PyTorch's SavedTensor: its four bindings, not the C++ object's fields."""
        return [n for n in object.__dir__(self) if n.startswith("__")] + ["data", "register_hooks", "unpack",
                                                                           "unpack_hook"]


SavedVariable.__name__ = SavedVariable.__qualname__ = "SavedTensor"  # its Python name: type(raw).__name__


ERR_PACK_HOOK_IN_PLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot be "
    "modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you "
    "need to perform in-place operations on the input to a pack hook.")

ERR_REGISTER_HOOKS_FREED = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the graph "
    "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved variables after calling backward.")


def _register_hooks_type_error(saved, *args) -> str:
    """pybind11's text when an argument is not callable."""
    given = ", ".join(repr(a) for a in (saved, *args))
    return ("register_hooks(): incompatible function arguments. The following argument types are supported:\n"
            "    1. (self: torch._C._autograd.SavedTensor, arg0: collections.abc.Callable, arg1: "
            f"collections.abc.Callable) -> None\n\nInvoked with: {given}")


ANOMALY_HINT_OFF = (" Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                    "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
ANOMALY_HINT_ON = (" Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                   "The variable in question was changed in there or anywhere later. Good luck!")


def _with_anomaly_hint(message: str) -> str:
    """In anomaly mode the in-place error points at the warning printed above it instead."""
    if AnomalyMode.enabled and message.endswith(ANOMALY_HINT_OFF):
        return message[: -len(ANOMALY_HINT_OFF)] + ANOMALY_HINT_ON
    return message


ERR_DETACHED_IN_PLACE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not "
    "supported, please use out-of-place `.detach()` instead")


def version_error(data, current: int, expected: int, output_nr: int, grad_fn) -> str:
    """The in-place error: which tensor, which node produced it (named after its forward op).

    ``[torch.FloatTensor [2, 3]], which is output 0 of Mul, is at version 1; expected version 0``:
    the saved tensor's legacy type string and sizes, the output of the node that made it (the
    ``which is …`` part only when there is such a node; ``forward_name`` below turns
    ``MulBackward0`` into ``Mul``), then the two versions. Worked example of the same kind of
    message: ``ERR_BACKWARD_TWICE`` above, and ``error_type_string`` for the type.
    """
    # BEGIN SOLUTION 2.3: the in-place error: type and sizes, which output of which forward op, both versions
    sizes = ", ".join(str(int(n)) for n in data._data.shape)
    where = f", which is output {output_nr} of {forward_name(grad_fn)}," if grad_fn is not None else ""
    return ("one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [{error_type_string(data)} [{sizes}]]{where} is at version {current}; expected "
            f"version {expected} instead. Hint: enable anomaly detection to find the operation that "
            "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    # END SOLUTION


def forward_name(node) -> str:
    """``MulBackward0`` -> ``Mul``, ``MinBackward1`` -> ``Min1``: PyTorch names the forward op in this message
    (PR 180383), keeping an overload's number other than 0."""
    return re.sub(r"Backward0$", "", node.name()).replace("Backward", "")


def tensor_data(t):
    """``Tensor::tensor_data()``: the same data and version counter, with no autograd history."""
    return new_tensor(t._data, t._dtype, t._device, version=t._version_counter)


def throw_error_out_requires_grad(fn_name: str, *tensors) -> None:
    """An out= overload records no graph: with grad mode on, no input and no ``out`` may require grad
    (``throw_error_out_requires_grad`` in VariableTypeUtils.h). Under ``no_grad`` anything goes."""
    if is_grad_enabled() and any_requires_grad(*tensors):
        raise RuntimeError(f"{fn_name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")


def check_no_requires_grad(tensor, name: str, fn_name: str) -> None:
    """An input an op has no derivative for must not require grad (``check_no_requires_grad`` in
    ``torch/csrc/autograd/FunctionsManual.cpp``), rather than silently getting no gradient."""
    if tensor is not None and requires_grad(tensor):
        raise RuntimeError(f"The function '{fn_name}' is not differentiable with respect to argument '{name}'. "
                           "This input cannot have requires_grad True.")
