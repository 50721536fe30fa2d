"""``torch.autograd.Function``: an operation whose forward and backward the user writes.

Models ``torch/autograd/function.py`` (``FunctionCtx``, ``BackwardCFunction``, ``FunctionMeta``,
``Function``, ``once_differentiable``) and, for the node ``once_differentiable`` leaves behind,
``torch/csrc/autograd/functions/basic_ops.h`` (``DelayedError``, ``Error``). What ``apply`` does,
and the node that runs ``backward``, are in ``python_function.py``.

A custom Function in use::

    class MyFn(Function):
        @staticmethod
        def forward(ctx, x, k):            # runs with grad mode off
            ctx.save_for_backward(x)
            ctx.k = k                      # anything that is not a tensor goes on ctx directly
            return x * k

        @staticmethod
        def backward(ctx, grad):           # one gradient per output of forward
            (x,) = ctx.saved_tensors
            return grad * ctx.k, None      # one per input of forward: None for k

    y = MyFn.apply(x, 3.0)                 # y.grad_fn is the ctx: <MyFnBackward>

Defining ``MyFn`` also defines ``MyFnBackward`` (``FunctionMeta``): the class of the ``ctx`` objects,
one per call of ``apply``, each of which is the node of the graph for that call.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import warnings

from ..native.tensor_impl import TensorImpl
from .grad_mode import is_grad_enabled, no_grad
from .graph import Node
from .python_function import PyNode, function_apply
from .variable import any_requires_grad, collect_next_edges, set_history, tensor_data

__all__ = ["FunctionCtx", "BackwardCFunction", "FunctionMeta", "Function", "once_differentiable", "InplaceFunction"]

AUTOGRAD_FUNCTION_COUNTER = itertools.count()  # a unique id per Function class


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) may tell ``ctx``; each call records its arguments for later."""

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors for ``backward`` (``ctx.saved_tensors``), with a check that nobody changes them in place."""
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        for tensor in tensors:
            if not (isinstance(tensor, TensorImpl) or tensor is None):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you should save "
                                     "non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """These inputs were modified in place by forward: they get a new version and a new grad_fn."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs) -> None:
        warnings.warn("`mark_shared_storage` is deprecated. Tensors with shared storages are automatically "
                      "tracked. Note that calls to `set_()` are not tracked", FutureWarning, stacklevel=2)

    def mark_non_differentiable(self, *args) -> None:
        """These outputs do not require grad; backward still receives a (zero) gradient for each."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """``False``: backward receives None, not zeros, for an output that got no gradient."""
        self.materialize_grads = value


class BackwardCFunction(PyNode, FunctionCtx):
    """The class of a custom Function's ``ctx``, which is its node: ``MyFnBackward`` derives from it."""

    _forward_cls: type

    def _get_user_fn(self):
        backward_fn = self._forward_cls.backward
        vjp_fn = self._forward_cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                               "You should only implement one of them.")
        return vjp_fn if vjp_fn is not Function.vjp else backward_fn

    def apply(self, *args):
        """Call the user's backward on ``ctx``.

        Two callers share this name: the engine passes one list of gradients and gets the checked
        list of input gradients back (``PyNode.apply``, which calls this method again with the
        gradients as arguments); Python code (``y.grad_fn.apply(g)``) gets backward's raw result.
        """
        if _is_engine_call(args):
            return PyNode.apply(self, args[0])
        if self._forward_cls.boxed_grads_call:
            args = (list(args),)
        return self._get_user_fn()(self, *args)

    def apply_boxed(self, grads: list):
        """``boxed_grads_call``: backward receives the gradients as one list it may empty to free memory."""
        return self._get_user_fn()(self, grads)

    def apply_jvp(self, *args):
        return self._forward_cls.jvp(self, *args)


def _is_engine_call(args: tuple) -> bool:
    """The engine (and CopySlices) call a node's ``apply`` with one list; Python code passes gradients."""
    return len(args) == 1 and type(args[0]) is list


class FunctionMeta(type):
    """Defining ``class MyFn(Function)`` also defines ``MyFnBackward``, the class of its nodes."""

    def __init__(cls, name, bases, attrs):
        backward_fn = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_fn._autograd_function_id = next(AUTOGRAD_FUNCTION_COUNTER)
        cls._backward_cls = backward_fn
        super().__init__(name, bases, attrs)


class _SingleLevelFunction(FunctionCtx, metaclass=FunctionMeta):
    @staticmethod
    def forward(*args, **kwargs):
        """``forward(ctx, *args)``, or ``forward(*args)`` with a ``setup_context(ctx, inputs, output)``."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs: tuple, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """One gradient per output of forward in, one gradient per input of forward out."""
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    # After one access, ``ctx.saved_tensors`` forgets the tensors (they may be freed as soon as backward
    # drops them); a second access is an error.
    clear_saved_tensors_on_access = False
    # backward(ctx, grads) receives one list instead of one argument per gradient.
    boxed_grads_call = False

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")


class Function(_SingleLevelFunction):
    """Base class of custom Functions: subclass it, write ``forward`` and ``backward``, call ``apply``."""

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
                      "static, so you should invoke them on the class itself. Instantiating an autograd function "
                      "will raise an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward and, when some input requires grad, record one node for this call."""
        is_setup_ctx_defined = _is_setup_context_defined(cls.setup_context)
        if is_setup_ctx_defined:
            bound = _forward_signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        return function_apply(cls, args, kwargs, is_setup_ctx_defined)


@functools.cache
def _forward_signature(forward) -> inspect.Signature:
    """``inspect.signature`` takes tens of microseconds: read it once per ``forward``, not per ``apply``."""
    return inspect.signature(forward)


def _is_setup_context_defined(fn) -> bool:
    return fn != _SingleLevelFunction.setup_context


class InplaceFunction(Function):
    """Kept for backward compatibility only (as in PyTorch)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


# ----------------------------------------------------------------------------- once_differentiable


def once_differentiable(fn):
    """Run backward with grad mode off; under ``create_graph`` its results lead to an ``Error`` node.

    Differentiating such a backward again would silently give wrong answers (nothing of it was
    recorded), so its outputs are made to require grad through a node that raises when reached.
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not is_grad_enabled():
            return outputs
        if not any_requires_grad(*args):
            return outputs
        outputs_ = outputs if isinstance(outputs, tuple) else (outputs,)
        err_fn = DelayedError(b"trying to differentiate twice a function that was marked with @once_differentiable",
                              len(outputs_))
        return err_fn(*[_fake_requires_grad(v) for v in outputs_])

    return wrapper


def _fake_requires_grad(var):
    if var is not None:
        var = var.detach()  # a method call, as PyTorch: a float returned by backward raises AttributeError here
        var.requires_grad = True
    return var


class DelayedError(Node):
    """Called in forward, gives its inputs back as outputs whose grad_fn is an ``Error`` node."""

    def __init__(self, msg, num_inputs: int) -> None:
        super().__init__()
        self.msg = msg.decode() if isinstance(msg, bytes) else msg
        self.num_inputs_expected = num_inputs

    def name(self) -> str:
        return "torch::autograd::DelayedError"

    def __call__(self, *inputs):
        outputs = [tensor_data(v) if v is not None else None for v in inputs]
        if any_requires_grad(*inputs):
            grad_fn = Error(self.msg, collect_next_edges(*inputs) if is_grad_enabled() else [])
            for out in outputs:
                if out is not None:
                    set_history(out, grad_fn)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


class Error(Node):
    """A node that raises when the engine reaches it."""

    def __init__(self, msg: str, next_edges) -> None:
        super().__init__(next_edges)
        self.msg = msg

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grads: list) -> list:
        raise RuntimeError(self.msg)
