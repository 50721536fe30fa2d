"""``picotorch._C``: the stand-in for PyTorch's C extension module ``torch._C``.

Models ``torch/csrc/Module.cpp`` (``initModule``): it creates the tensor base type and attaches the
generated methods to it (``THPVariable_initModule`` with the ``variable_methods`` table), builds
``_VariableFunctions`` (the generated functions ``torch/__init__.py`` copies into ``torch``), and
creates the autograd engine object. ``torch/__init__.py`` then exports every name here that does not
start with ``_`` nor end with ``Base``.
"""

from __future__ import annotations

import builtins as _builtins
import types

from .._generated import python_bindings
from ..autograd import set_torch_function as _set_autograd_torch_function
from ..autograd.anomaly_mode import (  # noqa: F401  (torch._C's, exported as torch.is_anomaly_enabled ...)
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from ..autograd.engine import get_default_engine
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.saved_variable_hooks import pop_hooks, push_hooks
from ..autograd.variable import SavedVariable
from ..c10 import scalar_type as _st

# dtypes, devices and sizes live in c10 (the bottom layer); _C re-exports them, as torch._C does
from ..c10.device import device  # noqa: F401
from ..c10.scalar_type import (  # noqa: F401
    bfloat16,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from ..c10.scalar_type import bool_ as bool  # noqa: F401
from ..c10.size import Size  # noqa: F401
from ..native import tensor_impl as _tensor_impl
from ..native.tensor_impl import TensorImpl as _TensorImpl
from . import _factories, _generator, _indexing, _return_types, _torch_function, _type_properties
from ._dispatch import (  # noqa: F401  (the dispatcher's Python face: python_dispatch.cpp)
    DispatchKey,
    DispatchKeySet,
    _dispatch_dump,
    _dispatch_dump_table,
    _dispatch_has_kernel_for_dispatch_key,
    _dispatch_keys,
    _dispatch_tls_is_dispatch_key_excluded,
    _dispatch_tls_local_exclude_set,
    _dispatch_trace,
)
from ._tensor_base import TensorBase
from ._torch_function import STATE as _TORCH_FUNCTION
from ._torch_function import (  # noqa: F401  (torch._C's names for the protocol)
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    _has_torch_function,
    _has_torch_function_unary,
    _has_torch_function_variadic,
    _is_torch_function_enabled,
)
from .python_arg_parser import NOT_SIMPLE, PythonArgParser

_TensorBase = TensorBase  # the old name, kept as an alias as PyTorch does
# torch._C._autograd (torch/csrc/autograd/init.cpp): what Python sees of saved tensors and their hooks
_autograd = types.SimpleNamespace(SavedTensor=SavedVariable, _push_saved_tensors_default_hooks=push_hooks,
                                  _pop_saved_tensors_default_hooks=pop_hooks)
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64


# ----------------------------------------------------------------------------- generated functions


def _make_function(name: str, signatures, method: bool, module: str = "torch"):
    """The binding of one Python name. ``module`` names it in ``__torch_function__`` errors: ``torch``,
    ``torch.Tensor``, ``torch.nn``, ``torch.linalg``."""
    signatures = [(_with_return_type(impl), sig, params) for impl, sig, params in signatures]
    parser = PythonArgParser(name, signatures, name in python_bindings.NUMBERS_AS_TENSORS, method)
    fewest, most, call_simply = parser.simple_fewest, len(parser.simple_kinds), parser.call_simply
    qualified_name = f"{module}.{name}"

    def function(*args, **kwargs):
        if _TORCH_FUNCTION.active:  # False until a Tensor subclass with a __torch_function__ exists
            overloaded = _torch_function.overloaded_args(args, kwargs)
            if overloaded is not None:
                return _torch_function.handle_binding(parser, function, overloaded, args, kwargs, qualified_name)
        if not kwargs and fewest <= len(args) <= most:
            result = call_simply(args)
            if result is not NOT_SIMPLE:
                return result
        try:
            return parser(args, kwargs)
        except TypeError:  # no signature took it: an object that is no tensor may still implement the protocol
            overloaded = _torch_function.overloaded_args(args, kwargs)
            if overloaded is None:
                raise
        return _torch_function.handle_torch_function_c(overloaded, function, args, kwargs or None, qualified_name)

    function.__name__ = name
    function.__qualname__ = f"TensorBase.{name}" if method else name
    function.__doc__ = "\n".join(sig for _, sig, _ in signatures)
    return function


def _with_return_type(impl):
    """An overload whose results have names returns them as ``torch.return_types.<name>``."""
    named = python_bindings.RETURN_TYPES.get(impl.__name__)
    if named is None:
        return impl
    return_type = _return_types.return_type(*named)

    def with_names(*args, **kwargs):
        return return_type(impl(*args, **kwargs))
    with_names.__name__ = impl.__name__
    return with_names


_VariableFunctions = types.SimpleNamespace(**{
    name: _make_function(name, sigs, method=False) for name, sigs in python_bindings.TORCH_FUNCTIONS.items()
})

_nn = types.SimpleNamespace(**{  # torch._C._nn: the ``python_module: nn`` ops torch.nn.functional calls
    name: _make_function(name, sigs, False, "torch.nn") for name, sigs in python_bindings.TORCH_NN_FUNCTIONS.items()
})

_linalg = types.SimpleNamespace(**{  # torch._C._linalg: the ``python_module: linalg`` ops torch.linalg exposes
    name: _make_function(name, sigs, False, "torch.linalg")
    for name, sigs in python_bindings.TORCH_LINALG_FUNCTIONS.items()
})

for _name, _sigs in python_bindings.TENSOR_METHODS.items():
    setattr(TensorBase, _name, _make_function(_name, _sigs, True, "torch.Tensor"))

_return_types = _return_types.namespace()  # torch._C._return_types: the types made above


# ----------------------------------------------------------------------------- Python operators


def _binary(name: str, dunder: str, public: bool = False):
    """``a <op> b``: the generated method ``name``. As PyTorch's ``TypeError_to_NotImplemented_`` wrapper,
    a ``TypeError`` while the protocol is in play becomes ``NotImplemented`` (Python then raises its own).
    A few operators are their own public function in PyTorch (``__eq__``, ``__and__``...): for those
    (``public``) the operator itself is what ``__torch_function__`` receives."""
    method = getattr(TensorBase, name)

    def op(self, other):
        if not isinstance(other, _OPERANDS) and not _torch_function.check_has_torch_function(other):
            return NotImplemented  # _is_operand, inlined: every a * b asks
        if _TORCH_FUNCTION.active:
            try:
                if public and _torch_function._has_torch_function_variadic(self, other):
                    overloaded = _torch_function.overloaded_args((self, other), None)
                    return _torch_function.handle_torch_function_c(overloaded, getattr(TensorBase, dunder),
                                                                   (self, other), None, f"torch.Tensor.{dunder}")
                return method(self, other)
            except TypeError:
                return NotImplemented
        return method(self, other)
    op.__name__ = op.__qualname__ = dunder
    setattr(TensorBase, dunder, op)


_OPERANDS = (_TensorImpl, _builtins.int, _builtins.float)


def _is_operand(value) -> bool:
    """What the binary operators accept; anything else lets Python raise its own TypeError."""
    return isinstance(value, _OPERANDS)


for _dunder, _name in [("__add__", "add"), ("__radd__", "add"), ("__sub__", "sub"), ("__mul__", "mul"),
                       ("__rmul__", "mul"), ("__truediv__", "div"), ("__matmul__", "matmul"), ("__ne__", "ne"),
                       ("__lt__", "lt"), ("__le__", "le"), ("__gt__", "gt"), ("__ge__", "ge"), ("__mod__", "remainder"),
                       ("__rand__", "bitwise_and"), ("__ror__", "bitwise_or")]:
    _binary(_name, _dunder)
for _dunder, _name in [("__eq__", "eq"), ("__floordiv__", "floor_divide"), ("__and__", "bitwise_and"),
                       ("__or__", "bitwise_or"), ("__iand__", "bitwise_and_"), ("__ior__", "bitwise_or_")]:
    _binary(_name, _dunder, public=True)
TensorBase.__neg__ = TensorBase.neg


TensorBase.__getitem__ = _indexing.__getitem__
TensorBase.__setitem__ = _indexing.__setitem__


# ---- the in-place operators. Each calls the method behind it and returns ``self`` (``w -= lr * g`` keeps
# ``w``); ``__torch_function__`` sees that method. ``@=`` has none, as in PyTorch: Python falls back to
# ``w = w @ m``, a new tensor.
def _inplace(dunder: str, method_name: str):
    def op(self, other):
        return getattr(self, method_name)(other)
    op.__name__ = dunder
    setattr(TensorBase, dunder, op)


for _dunder, _method in [("__iadd__", "add_"), ("__imul__", "mul_"), ("__isub__", "sub_"), ("__itruediv__", "div_"),
                         ("__idiv__", "div_"), ("__ipow__", "pow_"), ("__ifloordiv__", "floor_divide_"),
                         ("__imod__", "remainder_")]:
    _inplace(_dunder, _method)


# ----------------------------------------------------------------------------- the rest of _C

_set_autograd_torch_function(_torch_function)  # torch.autograd.backward/grad honour __torch_function__
_ImperativeEngine = type(get_default_engine())
_engine = get_default_engine()


def _set_tensor_class(cls) -> None:
    """Called by ``picotorch/_tensor.py``: new tensors are instances of ``Tensor``."""
    _tensor_impl.set_tensor_class(cls)
    _torch_function.set_tensor_type(cls)


def _get_default_dtype():
    return _st.get_default_dtype()


tensor = _factories.tensor
zeros, ones, empty, full = _factories.zeros, _factories.ones, _factories.empty, _factories.full
rand, randn, arange, linspace = _factories.rand, _factories.randn, _factories.arange, _factories.linspace
rand_like, randn_like = _factories.rand_like, _factories.randn_like
from_numpy, manual_seed = _factories.from_numpy, _factories.manual_seed
Generator, randperm = _generator.Generator, _generator.randperm
is_grad_enabled = is_grad_enabled
promote_types = _st.promote_types
result_type = _type_properties.result_type
can_cast = _st.can_cast

del types
