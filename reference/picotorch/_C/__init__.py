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
from . import _factories, _generator, _indexing, _return_types, _type_properties
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
from .python_arg_parser import NOT_SIMPLE, PythonArgParser

_TensorBase = TensorBase  # the old name, kept as an alias as PyTorch does
# torch._C._autograd (torch/csrc/autograd/init.cpp): what Python sees of saved tensors and their hooks
_autograd = types.SimpleNamespace(SavedTensor=SavedVariable, _push_saved_tensors_default_hooks=push_hooks,
                                  _pop_saved_tensors_default_hooks=pop_hooks)
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64


# ----------------------------------------------------------------------------- generated functions


def _make_function(name: str, signatures, method: bool):
    signatures = [(_with_return_type(impl), sig, params) for impl, sig, params in signatures]
    parser = PythonArgParser(name, signatures, name in python_bindings.NUMBERS_AS_TENSORS, method)
    fewest, most, call_simply = parser.simple_fewest, len(parser.simple_kinds), parser.call_simply

    def function(*args, **kwargs):
        if not kwargs and fewest <= len(args) <= most:
            result = call_simply(args)
            if result is not NOT_SIMPLE:
                return result
        return parser(args, kwargs)

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
    name: _make_function(name, sigs, method=False) for name, sigs in python_bindings.TORCH_NN_FUNCTIONS.items()
})

_linalg = types.SimpleNamespace(**{  # torch._C._linalg: the ``python_module: linalg`` ops torch.linalg exposes
    name: _make_function(name, sigs, method=False) for name, sigs in python_bindings.TORCH_LINALG_FUNCTIONS.items()
})

for _name, _sigs in python_bindings.TENSOR_METHODS.items():
    setattr(TensorBase, _name, _make_function(_name, _sigs, method=True))

_return_types = _return_types.namespace()  # torch._C._return_types: the types made above


# ----------------------------------------------------------------------------- Python operators


def _binary(name: str):
    method = getattr(TensorBase, name)

    def op(self, other):
        if not isinstance(other, _OPERANDS):  # _is_operand, inlined: every a * b asks
            return NotImplemented
        return method(self, other)
    op.__name__ = f"__{name}__"
    return op


_OPERANDS = (_TensorImpl, _builtins.int, _builtins.float)


def _is_operand(value) -> bool:
    """What the binary operators accept; anything else lets Python raise its own TypeError."""
    return isinstance(value, _OPERANDS)


TensorBase.__add__ = TensorBase.__radd__ = _binary("add")
TensorBase.__sub__ = _binary("sub")
TensorBase.__mul__ = TensorBase.__rmul__ = _binary("mul")
TensorBase.__truediv__ = _binary("div")
TensorBase.__matmul__ = _binary("matmul")
TensorBase.__neg__ = TensorBase.neg
TensorBase.__eq__, TensorBase.__ne__ = _binary("eq"), _binary("ne")
TensorBase.__lt__, TensorBase.__le__ = _binary("lt"), _binary("le")
TensorBase.__gt__, TensorBase.__ge__ = _binary("gt"), _binary("ge")
TensorBase.__getitem__ = _indexing.getitem
TensorBase.__setitem__ = _indexing.setitem


def _iadd(self, other):
    return self.add_(other)


def _imul(self, other):
    return self.mul_(other)


TensorBase.__iadd__ = _iadd
TensorBase.__imul__ = _imul

# ---- the other arithmetic and bitwise operators, and their in-place forms. Each
# in-place operator calls the method behind it and returns ``self`` (``w -= lr * g`` keeps ``w``).
# ``@=`` has none, as in PyTorch: Python falls back to ``w = w @ m``, a new tensor.
TensorBase.__floordiv__ = _binary("floor_divide")
TensorBase.__mod__ = _binary("remainder")
TensorBase.__and__ = TensorBase.__rand__ = _binary("bitwise_and")
TensorBase.__or__ = TensorBase.__ror__ = _binary("bitwise_or")


def _inplace(dunder: str, method_name: str):
    def op(self, other):
        return getattr(self, method_name)(other)
    op.__name__ = dunder
    setattr(TensorBase, dunder, op)


for _dunder, _method in [("__isub__", "sub_"), ("__itruediv__", "div_"), ("__idiv__", "div_"), ("__ipow__", "pow_"),
                         ("__ifloordiv__", "floor_divide_"), ("__imod__", "remainder_"),
                         ("__iand__", "bitwise_and_"), ("__ior__", "bitwise_or_")]:
    _inplace(_dunder, _method)


# ----------------------------------------------------------------------------- the rest of _C

_ImperativeEngine = type(get_default_engine())
_engine = get_default_engine()


def _set_tensor_class(cls) -> None:
    """Called by ``picotorch/_tensor.py``: new tensors are instances of ``Tensor``."""
    _tensor_impl.set_tensor_class(cls)


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
