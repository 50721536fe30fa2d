"""picotorch: a small, faithful model of PyTorch's internals, usable as ``import picotorch as torch``.

Models ``torch/__init__.py``, in its order: a sorted ``__all__`` of the names defined here in Python;
import the extension module ``_C`` (built step by step as ``torch/csrc/Module.cpp``'s ``initModule``:
see ``_C._init_steps()``) and export every ``_C`` name that does not start with ``_`` nor end with
``Base``, renaming its functions and classes into this module (``__module__ = "picotorch"``); define
``Tensor`` in Python; ``_C._initExtension`` adds the dtype objects; copy the generated functions of
``_C._VariableFunctions`` into this namespace (exporting those not starting with ``_``) and export the
dtypes; then the Python submodules, and a module ``__getattr__`` that imports the rarely used heavy
ones on first access (PEP 562, torch's ``_lazy_modules``).
"""

import importlib as _importlib
import sys as _sys

__all__ = ["BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor",  # noqa: F405  (_C._initExtension)
           "IntTensor", "LongTensor", "ShortTensor",  # noqa: F405
           "Tensor", "TypedStorage", "UntypedStorage", "are_deterministic_algorithms_enabled", "autograd", "cuda",
           "e", "enable_grad", "get_rng_state", "inf", "inference_mode", "initial_seed",
           "is_deterministic_algorithms_warn_only_enabled", "is_storage", "is_tensor", "linalg", "load",
           "manual_seed", "nan", "newaxis", "nn", "no_grad", "norm", "numel", "optim", "pi", "return_types", "save",
           "seed", "set_grad_enabled", "set_printoptions", "set_rng_state", "typename",
           "use_deterministic_algorithms", "utils"]

from math import e, inf, nan, pi  # noqa: E402, F401  (as torch/__init__.py: torch.pi is math.pi)

from . import _C  # noqa: E402

newaxis = None  # torch.newaxis, NumPy's spelling of None in an index
from ._C import *  # noqa: E402, F403

__version__ = "0.1.0"  # the course's version (pyproject.toml); torch.__version__ names PyTorch's release

# __module__ stays as it is for these, as in torch/__init__.py
_KEEP_MODULE = frozenset({"DisableTorchFunctionSubclass", "DisableTorchFunction", "Generator"})
PRIVATE_OPS = ("unique_dim",)  # generated functions not copied into the namespace (torch's PRIVATE_OPS)


def _c_exports(c_module) -> list[str]:
    """The names of ``_C`` that ``torch/__init__.py`` exports: not starting with ``_``, not ending in ``Base``."""
    return [name for name in dir(c_module) if name[0] != "_" and not name.endswith("Base")]


def _variable_function_names(functions) -> list[tuple[str, str, bool]]:
    """``(name here, name in _VariableFunctions, exported in __all__)`` for each generated function torch copies.

    Dunders and ``PRIVATE_OPS`` are skipped; a name not starting with ``_`` is exported, except
    ``segment_reduce``, copied under both its name and ``_segment_reduce`` and exported under neither.
    """
    names = []
    for source in dir(functions):
        if source.startswith("__") or source in PRIVATE_OPS:
            continue
        if source == "segment_reduce":
            names += [(source, source, False), ("_" + source, source, False)]
        else:
            names.append((source, source, not source.startswith("_")))
    return names


def _export_c() -> None:
    for name in _c_exports(_C):
        __all__.append(name)
        obj = getattr(_C, name)
        if (callable(obj) or isinstance(obj, type)) and obj.__module__ != __name__ and name not in _KEEP_MODULE:
            obj.__module__ = __name__
    globals().pop("TensorBase", None)  # torch keeps TensorBase out of its namespace (issue 109438)


_export_c()

from . import storage  # noqa: E402, F401  (torch.storage)
from ._tensor import Tensor, norm  # noqa: E402
from ._tensor_str import set_printoptions  # noqa: E402
from .autograd import enable_grad, no_grad, set_grad_enabled  # noqa: E402, F401
from .c10.scalar_type import dtype as _dtype  # noqa: E402
from .storage import TypedStorage, UntypedStorage  # noqa: E402

_C._initExtension(_sys.modules[__name__])


def _copy_variable_functions() -> None:
    for name, source, exported in _variable_function_names(_C._VariableFunctions):
        function = getattr(_C._VariableFunctions, source)
        function.__module__ = __name__
        globals()[name] = function
        if exported:
            __all__.append(name)


_copy_variable_functions()
from ._tensor import norm  # noqa: E402, F811  (torch.functional's norm: imported after the ops, as torch does)

__all__.extend(name for name in dir(_sys.modules[__name__]) if isinstance(globals()[name], _dtype))


return_types = _C._return_types  # torch.return_types: the named tuples of max(dim=...) and friends


def split(tensor, split_size_or_sections, dim=0):
    """``torch.functional.split``: ``tensor.split``, which picks ``split`` or ``split_with_sizes``."""
    return tensor.split(split_size_or_sections, dim)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_storage(obj) -> bool:
    """Whether ``obj`` is a storage: an ``UntypedStorage`` or a ``TypedStorage`` (not a subclass)."""
    return type(obj) in _storage_classes


_storage_classes = {UntypedStorage, TypedStorage}


def numel(input) -> int:
    return input.numel()


def typename(obj) -> str:
    """A tensor's legacy type (``torch.FloatTensor``); else the object's (or its class's) module and qualified name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms only (``_C._set_deterministic_algorithms``)."""
    _C._set_deterministic_algorithms(mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _C._get_deterministic_algorithms()


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _C._get_deterministic_algorithms_warn_only()


from . import autograd, cuda, linalg, nn, optim, overrides, random, special, testing, utils  # noqa: E402, F401
from ._ops import ops  # noqa: E402, F401
from .autograd import inference_mode  # noqa: E402

# after the generated functions, which it wraps; as in torch, its names do not join __all__ (broadcast_shapes is
# not in torch.__all__; atleast_1d is, once, as a _VariableFunctions name)
from .functional import *  # noqa: E402, F403, I001
from .random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: E402
from .utils import checkpoint as _utils_checkpoint  # noqa: E402, F401  (loads picotorch.utils.checkpoint, as torch does)
from .utils import data as _utils_data  # noqa: E402, F401  (loads picotorch.utils.data, as torch does)
from .utils.serialization import load, save  # noqa: E402

# submodules imported on first access, as torch's _dynamo, _inductor, onnx: nothing at import needs them
_lazy_modules = frozenset({"distributed", "viz"})


def __getattr__(name: str):
    """PEP 562: ``picotorch.viz`` works without ``import picotorch.viz``, at no cost to ``import picotorch``."""
    if name in _lazy_modules:
        return _importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
