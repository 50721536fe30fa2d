"""``picotorch._C``: the stand-in for PyTorch's C extension module ``torch._C``.

Models ``torch/csrc/Module.cpp`` (``initModule``). PyTorch builds ``torch._C`` with one list of calls,
run top to bottom: the module's own functions, then the basic types (``Generator``, ``Size``,
``dtype``, ``device``, ...), the tensor base type with its generated methods and the generated
functions (``THPVariable_initModule``), the autograd engine, and the bindings of each subsystem
(dispatcher, ``torch._C._nn``, ``torch._C._linalg``, ...). This file follows the same list in the same
order: each call is either a step below (a function returning the names it adds, registered by
``@step``) or a ``left_out(...)`` line saying why picotorch has nothing for it. The module is built by
running the steps (``_init_module.run``), so ``_init_steps()`` lists exactly what built it::

    >>> import picotorch
    >>> [s.pytorch for s in picotorch._C._init_steps() if not s.left_out][:4]
    ['TorchMethods', 'torch::autograd::python_functions', 'THPGenerator_init', 'THPSize_init']

``torch/__init__.py`` (``picotorch/__init__.py``) then exports every name here that does not start
with ``_`` nor end with ``Base``. To add a name to ``_C``: return it from the step of the PyTorch call
that adds it in ``initModule`` (``tests/ch06_import/test_import_steps.py`` fails for a name that no
step added).
"""

import builtins as _builtins
import types as _types

from .._generated import python_bindings as _python_bindings
from ..autograd import anomaly_mode as _anomaly_mode
from ..autograd import grad_mode as _grad_mode
from ..autograd import set_torch_function as _set_autograd_torch_function
from ..autograd.engine import get_default_engine as _get_default_engine
from ..autograd.saved_variable_hooks import pop_hooks as _pop_hooks
from ..autograd.saved_variable_hooks import push_hooks as _push_hooks
from ..autograd.variable import SavedVariable as _SavedVariable
from ..c10 import layout as _layout
from ..c10 import scalar_type as _st
from ..c10.device import device as _Device
from ..c10.size import Size as _Size
from ..native import tensor_impl as _tensor_impl
from ..native.tensor_impl import TensorImpl as _TensorImpl
from . import (
    _dispatch,
    _factories,
    _generator,
    _global_context,
    _indexing,
    _nonzero,
    _tensor_types,
    _torch_function,
    _type_info,
    _type_properties,
)
from . import _return_types as _named_tuples
from . import python_arg_parser as _python_arg_parser
from ._init_module import left_out, run, step
from ._tensor_base import TensorBase as _TensorBase_type
from ._torch_function import STATE as _TORCH_FUNCTION

# the submodules' public names would leak into dir(_C) and picotorch.__all__
del invalid_arguments, python_arg_parser  # noqa: F821


# ----------------------------------------------------------------------------- the module's own functions

@step("TorchMethods", "the module's own functions (Module.cpp's TorchMethods table)")
def _torch_methods() -> dict:
    # set_default_dtype is Python-level in torch/__init__.py (over _C._set_default_dtype); picotorch keeps it here
    return {"get_default_dtype": _st.get_default_dtype, "set_default_dtype": _st.set_default_dtype,
            "_get_default_dtype": _st.get_default_dtype, "_initExtension": _init_extension,
            "_set_tensor_class": _set_tensor_class,
            **{name: getattr(_global_context, name) for name in (
                "get_num_threads", "set_num_threads", "_set_deterministic_algorithms",
                "_get_deterministic_algorithms", "_get_deterministic_algorithms_warn_only")},
            # the __torch_function__ checks PyTorch lists in the same table
            **{name: getattr(_torch_function, name) for name in (
                "_has_torch_function", "_has_torch_function_unary", "_has_torch_function_variadic",
                "_is_torch_function_enabled", "_disabled_torch_function_impl")}}


def _set_tensor_class(cls) -> None:
    """Called by ``picotorch/_tensor.py``: new tensors are instances of ``Tensor``."""
    _tensor_impl.set_tensor_class(cls)
    _torch_function.set_tensor_type(cls)


def _init_extension(module) -> None:
    """``THPModule_initExtension``: called by ``picotorch/__init__.py`` once ``Tensor`` exists.

    Like ``torch::utils::initializeDtypes`` (and ``initializeLayouts``, ``initializeMemoryFormats``), it puts the
    dtype objects on the ``picotorch`` module itself (``torch.float32`` is not a name of ``torch._C``), under both
    their names (``float32``, ``float``), and the layouts and memory formats (``torch.strided``,
    ``torch.contiguous_format``); then the legacy tensor types (``torch.FloatTensor``: ``_tensor_types.py``).
    """
    for name, value in {**_DTYPE_NAMES, **_layout.LAYOUTS, **_layout.MEMORY_FORMATS}.items():
        setattr(module, name, value)
    for name, value in _tensor_types.LEGACY_TENSOR_TYPES.items():  # initialize_python_bindings
        setattr(module, name, value)


_DTYPE_NAMES = {"float32": _st.float32, "float": _st.float32, "float64": _st.float64, "double": _st.float64,
                "float16": _st.float16, "half": _st.float16, "bfloat16": _st.bfloat16,
                "uint8": _st.uint8, "int8": _st.int8, "int16": _st.int16, "short": _st.int16,
                "int32": _st.int32, "int": _st.int32, "int64": _st.int64, "long": _st.int64, "bool": _st.bool_,
                "complex32": _st.complex32, "chalf": _st.complex32, "complex64": _st.complex64,
                "cfloat": _st.complex64, "complex128": _st.complex128, "cdouble": _st.complex128}


@step("torch::autograd::python_functions", "grad mode and anomaly mode switches; _C._autograd (autograd/init.cpp)")
def _autograd_functions() -> dict:
    # torch._C._autograd is made later, by _autograd_init (called from torch/autograd/__init__.py): here at once
    autograd = _types.SimpleNamespace(SavedTensor=_SavedVariable, _push_saved_tensors_default_hooks=_push_hooks,
                                      _pop_saved_tensors_default_hooks=_pop_hooks)
    return {"is_grad_enabled": _grad_mode.grad_mode_enabled,
            "is_inference_mode_enabled": _grad_mode.is_inference_mode_enabled,
            "is_anomaly_enabled": _anomaly_mode.is_anomaly_enabled,
            "set_anomaly_enabled": _anomaly_mode.set_anomaly_enabled,
            "is_anomaly_check_nan_enabled": _anomaly_mode.is_anomaly_check_nan_enabled, "_autograd": autograd}


left_out("DataLoaderMethods", "DataLoader worker signal handling: picotorch's DataLoader loads in the main process")
left_out("torch::multiprocessing::python_functions", "no shared-memory tensors between processes")
left_out("torch::mps::python_functions", "no Apple GPU backend")


# ----------------------------------------------------------------------------- the basic types

@step("THPGenerator_init", "Generator, around PyTorch's CPU generator (a Mersenne Twister: native/cpu_generator.py)")
def _generator_type() -> dict:
    return {"Generator": _generator.Generator}


left_out("THPException_init", "picotorch raises Python's own exception types (no _LinAlgError, OutOfMemoryError)")


@step("THPSize_init", "Size, the tuple subclass of tensor.shape (c10/size.py)")
def _size_type() -> dict:
    return {"Size": _Size}


@step("THPDtype_init", "dtype (c10/scalar_type.py); the dtype objects go on picotorch itself in _initExtension")
def _dtype_type() -> dict:
    return {"dtype": _st.dtype}


@step("THPDTypeInfo_init", "finfo and iinfo, the limits of a dtype (_type_info.py)")
def _type_info_types() -> dict:
    return {"finfo": _type_info.finfo, "iinfo": _type_info.iinfo}


@step("THPLayout_init", "layout (c10/layout.py: every tensor is strided); its objects go on picotorch too")
def _layout_type() -> dict:
    return {"layout": _layout.layout}


@step("THPMemoryFormat_init", "memory_format (c10/layout.py); its objects go on picotorch too")
def _memory_format_type() -> dict:
    return {"memory_format": _layout.memory_format}


left_out("THPQScheme_init", "no quantization")


@step("THPDevice_init", "device (c10/device.py)")
def _device_type() -> dict:
    return {"device": _Device}


left_out("THPStream_init", "no streams: a GPU runs on CuPy's default stream")
left_out("THPEvent_init", "no events (they time and order streams)")
left_out("NodeBase_init", "torch.fx's graph nodes: picotorch has no fx")
left_out("NodeIter_init", "torch.fx's node iterator: picotorch has no fx")


# ----------------------------------------------------------------------------- the tensor type and the generated code

@step("THPVariable_initModule", "TensorBase with the generated variable_methods table and the Python operators")
def _variable_module() -> dict:
    for name, signatures in _python_bindings.TENSOR_METHODS.items():
        setattr(_TensorBase_type, name, _make_function(name, signatures, True, "torch.Tensor"))
    _TensorBase_type.nonzero = _make_function("nonzero", _nonzero.METHOD_SIGNATURES, True, "torch.Tensor")
    _install_operators(_TensorBase_type)
    # _TensorBase: the old name, kept as an alias as PyTorch does; _is_operand: what Tensor's operators accept
    _TensorBase_type.__module__ = "picotorch._C"  # where PyTorch's type says it lives: torch._C.TensorBase
    return {"TensorBase": _TensorBase_type, "_TensorBase": _TensorBase_type, "_is_operand": _is_operand}


@step("initTorchFunctions", "_VariableFunctions, the generated functions torch/__init__.py copies into picotorch "
      "(called from THPVariable_initModule); beside it the hand-written ones (python_torch_functions_manual.cpp)")
def _torch_functions() -> dict:
    functions = _namespace_of(_python_bindings.TORCH_FUNCTIONS, "torch")
    # PyTorch generates torch.detach from detach's schema; picotorch's is the hand-written method, bound alike
    functions.detach = _make_function("detach", [(lambda input: _TensorBase_type.detach(input), "detach(Tensor input)",
                                                  ((("input", "Tensor", False),), ()))], False, "torch")
    functions.nonzero = _make_function("nonzero", _nonzero.FUNCTION_SIGNATURES, False, "torch")
    is_complex = (lambda input: _TensorBase_type.is_complex(input), "is_complex(Tensor input)",
                  ((("input", "Tensor", False),), ()))
    functions.is_complex = _make_function("is_complex", [is_complex], False, "torch")
    is_inference = (lambda input: _TensorBase_type.is_inference(input), "is_inference(Tensor input)",
                    ((("input", "Tensor", False),), ()))
    functions.is_inference = _make_function("is_inference", [is_inference], False, "torch")
    manual = {name: getattr(_factories, name) for name in (
        "tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "linspace", "rand_like",
        "randn_like", "randint_like", "from_numpy", "as_tensor", "empty_strided", "scalar_tensor", "range", "logspace")}
    # PyTorch generates these from native_functions.yaml; picotorch writes them by hand
    manual.update(randperm=_generator.randperm, promote_types=_st.promote_types,
                  result_type=_type_properties.result_type, can_cast=_st.can_cast)
    return {"_VariableFunctions": functions, **manual}


left_out("THPFunction_initModule", "autograd.Function is pure Python in picotorch (autograd/function.py)")


@step("THPEngine_initModule", "the autograd engine's type and the one engine (autograd/engine.py)")
def _engine_module() -> dict:
    engine = _get_default_engine()
    return {"_ImperativeEngine": type(engine), "_engine": engine}


left_out("torch::onnx::initONNXBindings", "no ONNX export")
left_out("torch::autograd::initEnumTag", "no torch.Tag: native_functions.yaml's tags are read by the generator only")
left_out("torch::jit::initJITBindings", "no TorchScript")
left_out("torch::monitor::initMonitorBindings", "no monitoring counters")


@step("torch::impl::dispatch::initDispatchBindings", "the dispatcher's Python view: the _dispatch_* functions")
def _dispatch_bindings() -> dict:
    # picotorch's own _dispatch_trace stands in for a debug build's TORCH_SHOW_DISPATCH_TRACE
    return {name: getattr(_dispatch, name) for name in (
        "DispatchKey", "DispatchKeySet", "_dispatch_dump", "_dispatch_dump_table",
        "_dispatch_has_kernel_for_dispatch_key", "_dispatch_keys", "_dispatch_tls_is_dispatch_key_excluded",
        "_dispatch_tls_local_exclude_set", "_dispatch_trace")}


left_out("torch::dynamo::initDynamoBindings", "no torch.compile")
left_out("torch::functorch::impl::initFuncTorchBindings", "no functorch transforms (vmap, grad)")
left_out("torch::throughput_benchmark::initThroughputBenchmarkBindings", "no TorchScript benchmark")


@step("torch::autograd::initReturnTypes", "_return_types: the named tuples of max(dim=...) and friends")
def _return_types_module() -> dict:
    for name, fields in _python_bindings.RETURN_TYPES.values():
        _named_tuples.return_type(name, fields)
    return {"_return_types": _named_tuples.namespace()}


@step("torch::autograd::initNNFunctions", "_nn: the generated python_module: nn functions torch.nn.functional calls")
def _nn_functions() -> dict:
    return {"_nn": _namespace_of(_python_bindings.TORCH_NN_FUNCTIONS, "torch.nn")}


left_out("torch::autograd::initFFTFunctions", "no torch.fft ops in picotorch's native_functions.yaml")


@step("torch::autograd::initLinalgFunctions", "_linalg: the generated python_module: linalg functions")
def _linalg_functions() -> dict:
    return {"_linalg": _namespace_of(_python_bindings.TORCH_LINALG_FUNCTIONS, "torch.linalg")}


left_out("torch::autograd::initNestedFunctions", "no nested tensors")
left_out("torch::autograd::initSparseFunctions", "no sparse tensors")
left_out("torch::autograd::initSpecialFunctions", "no torch.special ops")
left_out("torch::autograd::init_legacy_variable", "no legacy torch.autograd.Variable constructor")
left_out("torch::profiler::initPythonBindings", "the profiler is Python-level (autograd/profiler.py)")
left_out("torch::python::init_bindings", "no C++ frontend modules")
left_out("torch::lazy::initLazyBindings", "no lazy tensors")
left_out("torch::_export::initExportBindings", "no torch.export")
left_out("torch::inductor::initAOTIRunnerBindings", "no AOTInductor")
left_out("torch::inductor::initAOTIPackageBindings", "no AOTInductor")
left_out("torch::cuda::initModule", "only in a CUDA build; picotorch.cuda is Python over CuPy, initialised lazily")
left_out("torch::mps::initModule / torch::xpu::initModule", "only in an MPS or XPU build")
left_out("torch::mtia::initModule", "no MTIA accelerators")
left_out("torch::cpu::initModule", "no CPU capability queries (_cpu)")
left_out("torch::accelerator::initModule", "no torch.accelerator: cuda is the only accelerator")
left_out("torch::instruction_counter::initModule", "no instruction counter")
left_out("torch::initVerboseBindings", "no MKL / oneDNN verbose switches")
left_out("THPStorage_init", "no storages: a tensor's data is an array (TensorImpl._data)")
left_out("THCPStream_init, THCPEvent_init, THCPGraph_init, THCPMemPool_init", "only in a CUDA build")
left_out("set_module_attr(has_cudnn, has_spectral, has_mkl, ...) and the module's pybind11 functions",
         "build flags and diagnostics of the C++ library")
@step("THPGenerator_initDefaultGenerator", "default_generator, the Generator every random function draws from "
      "when given none")
def _default_generator() -> dict:
    return {"default_generator": _generator.default_generator}


@step("DisableTorchFunctionSubclass, DisableTorchFunction, _TorchFunctionState",
      "the __torch_function__ switches (utils/disable_torch_function.cpp)")
def _torch_function_switches() -> dict:
    _set_autograd_torch_function(_torch_function)  # torch.autograd.backward/grad honour __torch_function__
    return {"DisableTorchFunctionSubclass": _torch_function.DisableTorchFunctionSubclass,
            "DisableTorchFunction": _torch_function.DisableTorchFunction}


left_out("_nativert", "no native runtime for exported programs")


# ----------------------------------------------------------------------------- generated functions


def _namespace_of(bindings: dict, module: str) -> _types.SimpleNamespace:
    """A namespace such as ``torch._C._VariableFunctions``: one parsed Python function per generated entry."""
    return _types.SimpleNamespace(**{name: _make_function(name, signatures, False, module)
                                     for name, signatures in bindings.items()})


def _make_function(name: str, signatures, method: bool, module: str):
    """The binding of one Python name. ``module`` names it in ``__torch_function__`` errors: ``torch``,
    ``torch.Tensor``, ``torch.nn``, ``torch.linalg``."""
    signatures = [(_with_return_type(impl), sig, params, *[(_with_return_type(fn), names) for fn, names in out])
                  for impl, sig, params, *out in signatures]
    parser = _python_arg_parser.PythonArgParser(name, signatures, name in _python_bindings.NUMBERS_AS_TENSORS, method)
    fewest, most, call_simply = parser.simple_fewest, len(parser.simple_kinds), parser.call_simply
    not_simple = _python_arg_parser.NOT_SIMPLE
    qualified_name = f"{module}.{name}"

    def function(*args, **kwargs):
        if _TORCH_FUNCTION.active:  # False until a Tensor subclass with a __torch_function__ exists
            overloaded = _torch_function.overloaded_args(args, kwargs)
            if overloaded is not None:
                return _torch_function.handle_binding(parser, function, overloaded, args, kwargs, qualified_name)
        if not kwargs and fewest <= len(args) <= most:
            result = call_simply(args)
            if result is not not_simple:
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
    function.__doc__ = "\n".join(sig for _, sig, *_ in signatures)
    return function


def _with_return_type(impl):
    """An overload whose results have names returns them as ``torch.return_types.<name>``."""
    named = _python_bindings.RETURN_TYPES.get(impl.__name__)
    if named is None:
        return impl
    return_type = _named_tuples.return_type(*named)

    def with_names(*args, **kwargs):
        return return_type(impl(*args, **kwargs))
    with_names.__name__ = impl.__name__
    return with_names


# ----------------------------------------------------------------------------- Python operators


def _binary(base, name: str, dunder: str, public: bool = False):
    """``a <op> b``: the generated method ``name``. As PyTorch's ``TypeError_to_NotImplemented_`` wrapper,
    a ``TypeError`` while the protocol is in play becomes ``NotImplemented`` (Python then raises its own).
    A few operators are their own public function in PyTorch (``__eq__``, ``__and__``...): for those
    (``public``) the operator itself is what ``__torch_function__`` receives."""
    method = getattr(base, name)

    def op(self, other):
        if not isinstance(other, _OPERANDS) and not _torch_function.check_has_torch_function(other):
            return NotImplemented  # _is_operand, inlined: every a * b asks
        if _TORCH_FUNCTION.active:
            try:
                if public and _torch_function._has_torch_function_variadic(self, other):
                    overloaded = _torch_function.overloaded_args((self, other), None)
                    return _torch_function.handle_torch_function_c(overloaded, getattr(base, dunder),
                                                                   (self, other), None, f"torch.Tensor.{dunder}")
                return method(self, other)
            except TypeError:
                return NotImplemented
        return method(self, other)
    op.__name__ = op.__qualname__ = dunder
    setattr(base, dunder, op)


_OPERANDS = (_TensorImpl, _builtins.int, _builtins.float, _builtins.complex)


def _is_operand(value) -> bool:
    """What the binary operators accept; anything else lets Python raise its own TypeError."""
    return isinstance(value, _OPERANDS)


def _inplace(dunder: str, method_name: str):
    def op(self, other):
        return getattr(self, method_name)(other)
    op.__name__ = dunder
    return op


def _invert(self):
    """``THPVariable_invert``: ``~`` refuses a float tensor itself, before ``bitwise_not`` is called."""
    if self._dtype.is_floating_point or self._dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return self.bitwise_not()


_invert.__name__ = "__invert__"


def _install_operators(base) -> None:
    """The operators of ``variable_methods`` (``__add__``, ``__iadd__``, ...), each calling its method."""
    for dunder, name in [("__add__", "add"), ("__radd__", "add"), ("__sub__", "sub"), ("__mul__", "mul"),
                         ("__rmul__", "mul"), ("__truediv__", "div"), ("__matmul__", "matmul"), ("__ne__", "ne"),
                         ("__lt__", "lt"), ("__le__", "le"), ("__gt__", "gt"), ("__ge__", "ge"),
                         ("__mod__", "remainder"), ("__rand__", "bitwise_and"), ("__ror__", "bitwise_or"),
                         ("__rxor__", "bitwise_xor")]:
        _binary(base, name, dunder)
    for dunder, name in [("__eq__", "eq"), ("__floordiv__", "floor_divide"), ("__and__", "bitwise_and"),
                         ("__or__", "bitwise_or"), ("__iand__", "bitwise_and_"), ("__ior__", "bitwise_or_"),
                         ("__xor__", "bitwise_xor"), ("__ixor__", "bitwise_xor_"),
                         ("__lshift__", "bitwise_left_shift"), ("__rshift__", "bitwise_right_shift"),
                         ("__ilshift__", "bitwise_left_shift_"), ("__irshift__", "bitwise_right_shift_")]:
        _binary(base, name, dunder, public=True)
    base.__neg__ = base.neg
    base.__abs__ = base.abs  # python_variable_methods.cpp: abs(x) is x.abs(), +x is x.positive() (x itself)
    base.__pos__ = base.positive
    base.__invert__ = _invert
    base.__getitem__ = _indexing.__getitem__
    base.__setitem__ = _indexing.__setitem__
    # the in-place operators. Each calls the method behind it and returns ``self`` (``w -= lr * g`` keeps ``w``);
    # ``__torch_function__`` sees that method. ``@=`` has none, as in PyTorch: Python falls back to
    # ``w = w @ m``, a new tensor.
    for dunder, method in [("__iadd__", "add_"), ("__imul__", "mul_"), ("__isub__", "sub_"),
                           ("__itruediv__", "div_"), ("__idiv__", "div_"), ("__ipow__", "pow_"),
                           ("__ifloordiv__", "floor_divide_"), ("__imod__", "remainder_")]:
        setattr(base, dunder, _inplace(dunder, method))


# ----------------------------------------------------------------------------- build the module

_STEPS = run(globals())
del left_out, run, step  # the builder's own names are not part of the module it built


def _init_steps():
    """What built this module, in ``initModule``'s order: one ``InitStep`` per call (built or left out)."""
    return _STEPS
