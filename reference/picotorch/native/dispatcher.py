"""The operator registry: ``ops.<name>`` and the kernel table behind it.

Models ``aten/src/ATen/core/dispatch/Dispatcher.h`` and ``torch.ops.aten``. Generated code registers
each operator here when ``picotorch._generated`` is imported; anyone below that layer (the autograd
engine, backward formulas) calls operators by name through :data:`ops` instead of importing upward.

NOTE [Why backward formulas and the engine call ops through the dispatcher]
Backward formulas must be recorded when ``create_graph=True``, and the engine's input buffers add
gradients with an op, exactly like PyTorch's formulas (ATen calls) and ``InputBuffer::accumulate``
(``at::add``). Both live below the generated layer, so they cannot import it; they look the operator
up by name at call time, which is what PyTorch's dispatcher is: a table filled in by registration.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np

try:  # NumPy's error-state context variable (numpy >= 2); see _quiet
    from numpy._core import _ufunc_config
except ImportError:
    _ufunc_config = None

from ..c10.device import CPU
from ..c10.dispatch_key import DispatchKey, backend_key_name
from ..c10.layout import layout, memory_format
from ..c10.scalar_type import as_dtype
from ..c10.scalar_type import dtype as DType
from .memory_overlap import INTERNAL_OVERLAP_MESSAGE
from .operator_entry import OperatorEntry, register_fallthrough
from .tensor_impl import TensorImpl

_OPS: dict[str, object] = {}
_KERNELS: dict[str, dict[str, object]] = {}  # the backend slots kernel_for reads: {"mul.Tensor": {"CPU": k}}
ENTRIES: dict[str, OperatorEntry] = {}  # "aten::mul.Tensor" -> its whole table (native/operator_entry.py)
OPERATOR_OF_CODE: dict[object, OperatorEntry] = {}  # the function Python calls, by its code: for the trace
FUNCTION_OF_ENTRY: dict[str, object] = {}  # "aten::mul.Tensor" -> the function Python calls for it (torch.ops)


class _OpNamespace:
    """``ops.mul(a, b)`` calls the registered (autograd-aware) operator ``mul``."""

    def __getattr__(self, name: str):
        try:
            op = _OPS[name]
        except KeyError:
            raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{name}'") from None
        self.__dict__[name] = op  # the next ``ops.<name>`` is an attribute read, not a call of this method
        return op

    def __dir__(self):
        return sorted(_OPS)


ops = _OpNamespace()


def register_op(name: str, fn) -> None:
    _OPS[name] = fn
    ops.__dict__.pop(name, None)


def register_kernels(schema: str, kernels: dict[str, object], function, computes: bool = True) -> None:
    """Register one overload: the kernels of its ``dispatch:`` keys and ``function``, what Python calls
    (its autograd kernel, or for a CompositeImplicitAutograd op the function calling that kernel).

    ``computes=False``: a view (``Tensor(a)``), no arithmetic, so no floating-point warning to silence.
    """
    overload = schema.split("(", 1)[0]
    debug = _registered_at(sys._getframe(1))
    entry = OperatorEntry(f"aten::{overload}", f"aten::{schema}", debug)
    for key, kernel in kernels.items():
        entry.register_kernel(DispatchKey[key], kernel, debug)
    if "CompositeImplicitAutograd" not in kernels:
        entry.register_kernel(DispatchKey.Autograd, function, debug)
        if _writes_or_views(schema):  # the autograd kernel does ADInplaceOrView's work too (bump_version, as_view)
            entry.register_kernel(DispatchKey.ADInplaceOrView, function, debug)
        _KERNELS[overload] = {key: _quiet(kernel) if computes else kernel for key, kernel in kernels.items()}
    ENTRIES[entry.name] = entry
    FUNCTION_OF_ENTRY[entry.name] = function
    OPERATOR_OF_CODE[getattr(function, "__code__", None)] = entry


def _writes_or_views(schema: str) -> bool:
    """An in-place or out= op (``Tensor(a!)``) or a view (returns ``Tensor(a)``): PyTorch gives these an
    ``ADInplaceOrView`` kernel (``gen_inplace_or_view_type.py``); every other op falls through that key."""
    returns = schema.rsplit(" -> ", 1)[1]
    return "!)" in schema or "Tensor(" in returns


def _registered_at(frame) -> str:
    """``registered at picotorch/_generated/variable_type.py:2896``: the line that registered a kernel."""
    return f"registered at {_short_path(frame.f_code.co_filename)}:{frame.f_lineno}"


@functools.cache
def _short_path(filename: str) -> str:
    return "/".join(Path(filename).parts[-3:])


# NOTE [Backend fallbacks] (native/operator_entry.py): the fallthrough keys every tensor carries
register_fallthrough(DispatchKey.ADInplaceOrView, _registered_at(sys._getframe()))
for _backend in ("CPU", "MTIA", "MAIA", "XPU", "MPS", "CUDA"):  # those PyTorch registers a fallthrough for
    register_fallthrough(DispatchKey["Autocast" + _backend], _registered_at(sys._getframe()))


def _quiet(kernel):
    """Run a kernel without NumPy's floating-point warnings: PyTorch gives inf/nan silently."""
    if _ERRSTATE is None:  # a NumPy without the context variable: the public (slower) context manager
        @functools.wraps(kernel)
        def run(*args, **kwargs):
            with np.errstate(all="ignore"):
                try:
                    return kernel(*args, **kwargs)
                except ValueError as error:
                    raise_if_overlapping(error)
                    raise
        return run

    @functools.wraps(kernel)
    def run(*args, **kwargs):
        # What ``np.errstate(all="ignore")`` does, with the quiet state looked up instead of rebuilt:
        # a fifth of its cost (about 1 us per kernel call, more than a small kernel itself).
        current = _ERRSTATE.get()
        quiet = _QUIET_STATES.get(current)
        if quiet is None:
            quiet = _quiet_state(current)
        token = _ERRSTATE.set(quiet)
        try:
            return kernel(*args, **kwargs)
        except ValueError as error:
            raise_if_overlapping(error)
            raise
        finally:
            _ERRSTATE.reset(token)
    return run


# NOTE [Writing into a tensor that overlaps itself]
# An expanded tensor repeats elements (a stride of 0): PyTorch's TensorIterator refuses to write into such an
# output (``assert_no_internal_overlap``), as do ``copy_`` and the in-place ops. picotorch keeps such views
# read-only (NOTE [expand's strides]), so the write NumPy refuses is the one PyTorch refuses; the kernel wrapper
# gives PyTorch's error in its place. ``fill_`` and ``zero_``, which PyTorch allows there, write through a writeable
# alias (``helpers.writable_data``). (``masked_fill_``, ``index_put_`` and ``index_fill_``, which PyTorch lets
# through with a deprecation warning, are refused.)
_READ_ONLY = ("assignment destination is read-only", "output array is read-only")


def raise_if_overlapping(error: ValueError) -> None:
    """PyTorch's error in place of NumPy's refusal to write into a read-only (self-overlapping) array."""
    if str(error) in _READ_ONLY:
        raise RuntimeError(INTERNAL_OVERLAP_MESSAGE) from None


# NumPy keeps its error state (np.seterr / np.errstate) in a context variable; each state object
# maps to the same state with every warning ignored, built once by np.errstate itself so the buffer
# size and error callback the user set are kept. The user's state is never changed.
_ERRSTATE = getattr(_ufunc_config, "_extobj_contextvar", None)
_QUIET_STATES: dict = {}


def _quiet_state(current):
    with np.errstate(all="ignore"):
        quiet = _ERRSTATE.get()
    if len(_QUIET_STATES) > 64:  # each np.errstate block the user enters makes a new state object
        _QUIET_STATES.clear()
    _QUIET_STATES[current] = quiet
    _QUIET_STATES[quiet] = quiet  # a kernel called from a kernel: already quiet
    return quiet


_DISPATCH_KEYS = {"cpu": "CPU", "cuda": "CUDA"}  # the common devices' backend keys, one dict lookup: every op asks


def kernel_for(overload: str, device_type: str):
    """The kernel of ``overload`` ("mul.Tensor") for tensors on ``device_type``: the autograd kernel's
    redispatch to the backend key. The backend slots are read directly (one dict lookup per call);
    the whole table, for dumps and errors, is ``ENTRIES`` (NOTE [Why backward formulas ...] above)."""
    table = _KERNELS[overload]
    key = _DISPATCH_KEYS.get(device_type) or backend_key_name(device_type)
    if key not in table:
        raise NotImplementedError(ENTRIES[f"aten::{overload}"].report_error(key))
    return table[key]


def device_of(*args) -> str:
    """The device type a call dispatches on: the first non-CPU tensor's, else ``cpu``."""
    for a in args:
        if not isinstance(a, TensorImpl):
            break
        if a._device is not CPU and a._device.type != "cpu" and not a._is_wrapped_number:
            break
    else:
        return "cpu"  # only CPU tensors (most calls): answered without the general walk below
    for a in args:
        for t in (a if isinstance(a, (list, tuple)) else (a,)):
            if isinstance(t, TensorImpl) and not t._is_wrapped_number and t._device.type != "cpu":
                return t._device.type
    return "cpu"


# ----------------------------------------------------------------------------- overload resolution


def _is_number(value) -> bool:
    return (isinstance(value, (int, float, bool, complex))
            or type(value).__module__ == "numpy" and hasattr(value, "item"))


def _is_int(v) -> bool:
    return ((isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, np.integer)  # NumPy's too, as PyTorch
            or (isinstance(v, TensorImpl) and v._data.ndim == 0 and not v._dtype.is_floating_point))


def accepts(kind: str, value, numbers_as_tensors: bool = False) -> bool:
    """Whether ``value`` can be passed for a parameter of schema type ``kind``."""
    if kind == "Tensor" and isinstance(value, TensorImpl):
        return True  # the most common case, answered before any string work
    if kind.endswith("?") and value is None:
        return True
    base = kind.rstrip("?")
    if base == "Tensor":
        return isinstance(value, TensorImpl) or (numbers_as_tensors and _is_number(value))
    if base == "Scalar":  # a number, or a zero-dim tensor that needs no gradient (python_arg_parser.cpp)
        return _is_number(value) or (isinstance(value, TensorImpl) and value._data.ndim == 0
                                     and not value._requires_grad and value._grad_fn is None)
    if base == "Scalar[]":  # a list or tuple of numbers (gradient's spacing)
        return isinstance(value, (list, tuple)) and all(_is_number(v) for v in value)
    if base in ("Tensor[]", "Tensor?[]"):
        return isinstance(value, (list, tuple)) and all(
            isinstance(v, TensorImpl) or (v is None and base == "Tensor?[]") for v in value)
    if base == "int":
        return _is_int(value)
    if base == "bool":  # a Python bool only: no int, no string, no NumPy bool (python_arg_parser.cpp's PyBool_Check)
        return isinstance(value, bool)
    if base == "ScalarType":  # a torch.dtype, or float / int / bool (what the binding turns into one)
        return as_dtype(value) is not None
    if base == "MemoryFormat":  # torch.contiguous_format..., never its name as a plain string
        return type(value) is memory_format
    if base == "Layout":
        return type(value) is layout
    if base.startswith("int["):  # after the first, an element may be a bool (PyTorch's unpacking takes it)
        return _is_int(value) or (isinstance(value, (list, tuple)) and all(
            _is_int(v) or (i and isinstance(v, bool)) for i, v in enumerate(value)))
    return True


def _normalize(kind: str, value):
    """An ``int[]`` parameter given one int (or a 0-dim int tensor) receives a one-element tuple; an ``int[2]``
    one two of them."""
    if kind == "Tensor":
        return value  # nothing to normalize, and these are most arguments: no string work
    if kind.startswith("Scalar") and isinstance(value, TensorImpl):
        return value.item()  # a zero-dim tensor passed for a Scalar becomes its number
    if kind.startswith("int[") and value is not None:
        if isinstance(value, (int, np.integer)):
            return (int(value),) * _list_size(kind)
        if isinstance(value, TensorImpl):  # a zero-dim integer tensor, as one dim
            return (int(value.item()),) * _list_size(kind)
        return tuple(int(v) for v in value)
    if kind.startswith("int") and isinstance(value, (TensorImpl, np.integer)):
        return int(value.item())
    if kind.startswith("ScalarType") and value is not None:
        return as_dtype(value)  # ``dtype=float`` is float64
    return value


def _list_size(kind: str) -> int:
    """How many ints one int stands for: ``int[]`` 1, ``int[2]`` 2."""
    return 1 if kind[4] == "]" else int(kind[4:kind.index("]")])


def bind(params, args, kwargs, numbers_as_tensors: bool = False):
    """Match a call against ``(positional, kwarg_only)`` param specs; a dict of values or None."""
    positional, kwarg_only = params
    if len(args) > len(positional):
        return None
    values = {}
    for (name, kind, _), value in zip(positional, args):
        if kind == "Tensor" and isinstance(value, TensorImpl):
            values[name] = value  # most arguments: accepted and normalized as they are, without two calls
            continue
        if not accepts(kind, value, numbers_as_tensors):
            return None
        values[name] = _normalize(kind, value)
    kinds, required, leading = _param_table(params)
    if not kwargs:  # the common call: enough positional arguments is the whole check
        return values if len(args) >= leading else None
    for name, value in kwargs.items():
        kind = kinds.get(name)
        if kind is None and name in _NUMPY_NAMES:  # ``sum(x, axis=0)``: NumPy's name for ``dim``
            name = _NUMPY_NAMES[name]
            kind = kinds.get(name)
        if kind is None or name in values:
            return None
        if not accepts(kind, value, numbers_as_tensors):
            return None
        values[name] = _normalize(kind, value)
    if len(values) < len(required) or not required.issubset(values):
        return None
    return values


# NumPy's names for some parameters, accepted as keywords too (``numpy_compatibility_arg_names``)
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}

_PARAM_TABLES: dict = {}


def _param_table(params) -> tuple[dict, frozenset, int]:
    """Each parameter's kind by name, the names without a default, and how many positional arguments
    cover every one of those (more than there are if a keyword-only one has no default): computed once
    per signature, which spares every call two list copies and a set. Keyed by identity, checked: a
    signature lives as long as its op, and hashing its nested tuples on every call cost as much."""
    entry = _PARAM_TABLES.get(id(params))
    if entry is not None and entry[0] is params:
        return entry[1]
    positional, kwarg_only = params
    every = list(positional) + list(kwarg_only)
    required = [i for i, (_, _, opt) in enumerate(positional) if not opt]
    leading = required[-1] + 1 if required else 0
    if any(not opt for _, _, opt in kwarg_only):
        leading = len(positional) + 1
    table = ({name: kind for name, kind, _ in every}, frozenset(name for name, _, opt in every if not opt), leading)
    _PARAM_TABLES[id(params)] = (params, table)
    return table


# NOTE [Binding without the dict]
# Most calls pass, positionally, plain values to a signature's leading parameters: tensors, ints, numbers
# (``ops.mul(grad, other)``, ``ops.select(grad, 0, i)``, ``y * 0.5``). For those, binding (one dict of
# values, a check per parameter, normalizing) always picks the first overload and passes the values as
# they are; the exact-type test below proves that in a few comparisons, and the call goes straight to
# the overload. Anything else (keywords, lists, None, NumPy scalars, bools for ints...) takes the full
# path, which gives the same answer more slowly. In a small op, binding was a third of the cost.
_SIMPLE_KINDS = ("Tensor", "int", "int?", "int[]", "int[]?", "bool", "Scalar", "ScalarType", "ScalarType?", "any")


def simple_signature(params) -> tuple | None:
    """``(fewest, kinds)``: the kinds of the leading parameters of ``params`` that take plain values, and
    how many of them have no default; None when a parameter after those (or a keyword-only one) has none."""
    positional, kwarg_only = params
    kinds = []
    fewest = 0
    for _, kind, optional in positional:
        if kind not in _SIMPLE_KINDS:
            break
        kinds.append(kind)
        if not optional:
            fewest = len(kinds)
    if not all(opt for _, _, opt in positional[len(kinds):]) or not all(opt for _, _, opt in kwarg_only):
        return None
    return (fewest, tuple(kinds)) if kinds else None


def _simple_overloads_by_count(candidates) -> dict:
    """For each number of positional arguments, the overloads binding would try, in its order, as long as
    each has a simple signature taking that many (``[(function, kinds), ...]``). An overload with fewer
    positional parameters is left out: binding rejects it on the count alone (``sum(self, *, dtype)``
    before ``sum.dim_IntList(self, dim, keepdim)``), and so is one with a required keyword (``div.out``):
    these calls pass no keywords."""
    by_count: dict = {}
    closed = set()  # counts whose run of simple overloads has ended
    for fn, params in candidates:
        if any(not optional for _, _, optional in params[1]):
            continue
        simple = simple_signature(params)
        for count in range(len(params[0]) + 1):
            if count in closed:
                continue
            if simple is not None and simple[0] <= count <= len(simple[1]):
                by_count.setdefault(count, []).append((fn, simple[1]))
            else:
                closed.add(count)
    return by_count


def _refuses_a_tensor(kinds: tuple, args) -> bool:
    """Whether binding would refuse these arguments for sure: one given for a ``Tensor`` is no tensor
    (``ops.div(grad, 4096)`` is ``div.Scalar``, not ``div.Tensor``)."""
    return any(kind == "Tensor" and not isinstance(value, TensorImpl) for kind, value in zip(kinds, args))


def bound_simply(kinds: tuple, args) -> tuple | None:
    """The values as the overload receives them when each is exactly what its parameter takes (an int
    list becomes a tuple, as binding makes it); None for anything else (a bool is no int here)."""
    checks = _EXACT_TYPES_OF.get(kinds)
    if checks is None:
        checks = _exact_types_of(kinds)
    values = args
    for i, value in enumerate(args):
        types = checks[i]
        if type(value) in types:  # one set lookup per argument: the common case
            continue
        if types is _INT_LIST:
            if type(value) is tuple or type(value) is list:
                for v in value:
                    if type(v) is not int:
                        return None
            elif type(value) is int:
                value = (value,)
            elif value is None and kinds[i] == "int[]?":
                continue
            else:
                return None
            if values is args:
                values = list(args)
            values[i] = tuple(value)
        elif types is _TENSOR_TYPES and isinstance(value, TensorImpl):
            _TENSOR_TYPES.add(type(value))  # a subclass seen for the first time (Parameter, a user's own)
        else:
            return None
    return values


# What bound_simply accepts, per kind, by exact type; an int list takes a second look (its items), and a
# tensor of a class not seen yet one isinstance. (float for float64 takes the full path, which turns it
# into the dtype; a bool is no int, a NumPy scalar no Scalar: binding decides those.)
_TENSOR_TYPES = {TensorImpl}
_INT_LIST = frozenset()


class _AnyType:
    def __contains__(self, _type) -> bool:
        return True


_EXACT_TYPES = {"Tensor": _TENSOR_TYPES, "Scalar": frozenset((float, int, complex)), "int": frozenset((int,)),
                "int?": frozenset((int, type(None))), "bool": frozenset((bool,)), "ScalarType": frozenset((DType,)),
                "ScalarType?": frozenset((DType, type(None))), "any": _AnyType()}
_EXACT_TYPES_OF: dict = {}


def _exact_types_of(kinds: tuple) -> tuple:
    checks = tuple(_EXACT_TYPES.get(kind, _INT_LIST) for kind in kinds)
    _EXACT_TYPES_OF[kinds] = checks
    return checks


# NOTE [Binding by the arguments' types]
# Whether bound_simply accepts plain positional values depends on their types alone (a tensor, an int, a float,
# None...), not on the values, except for int lists, which it converts. So once arguments of some types were
# taken as they were by an overload, arguments of the same types are taken by the same one: ``ops.div(grad, 64)``
# no longer tries ``div.Tensor`` first. C++ resolves overloads when it compiles; this is the nearest Python gets
# (a lookup per call instead of a look at each argument of each candidate), where there are candidates to try:
# for a count of arguments that only one overload takes, bound_simply's one pass is as cheap.
def overloaded(name: str, candidates):
    """``ops.<name>``: the first overload whose parameters accept the arguments (C++ overloading)."""
    by_count = _simple_overloads_by_count(candidates)
    # per count of arguments, the overload binding tries first when it takes that many tensors
    takes_tensors = {count: overloads[0][0] for count, overloads in by_count.items()
                     if count and overloads[0][1][:count] == ("Tensor",) * count}
    chosen_by_types: dict = {}  # the arguments' types -> the overload that took them as they were
    several_overloads = {count for count, overloads in by_count.items() if len(overloads) > 1}

    def call(*args, **kwargs):
        if not kwargs:
            first = takes_tensors.get(len(args))
            if first is not None:
                # ``ops.mul(grad, other)``, ``ops.add(old, grad)``, ``ops.t(grad)``: what backward formulas and
                # the input buffer call for every node, bound with one look at each argument
                for a in args:
                    if not isinstance(a, TensorImpl):
                        break
                else:
                    return first(*args)
            types = None
            if len(args) in several_overloads:
                types = tuple(map(type, args))
                chosen = chosen_by_types.get(types)
                if chosen is not None:
                    return chosen(*args)  # NOTE [Binding by the arguments' types]
            for fn, simple_kinds in by_count.get(len(args), ()):
                values = bound_simply(simple_kinds, args)
                if values is not None:
                    if values is args and types is not None:
                        chosen_by_types[types] = fn
                    return fn(*values)  # NOTE [Binding without the dict]
                if not _refuses_a_tensor(simple_kinds, args):
                    break  # binding may still accept it (a NumPy scalar for an int...): the full path decides
        for fn, params in candidates:
            values = bind(params, args, kwargs)
            if values is not None:
                return fn(**values)
        raise TypeError(f"ops.{name}: no overload accepts these arguments")
    call.__name__ = name
    call.__qualname__ = name
    return call
