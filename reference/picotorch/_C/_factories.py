"""Making tensors from Python data and from nothing: ``tensor``, ``zeros``, ``ones``, ``arange``,
``linspace``, ``rand``, ``randn``, ``randint``, ``full``, ``empty``, ``from_numpy``.

Models ``torch/csrc/utils/tensor_new.cpp`` (``torch.tensor``: infer the dtype and shape of nested
sequences, with PyTorch's errors) and ``aten/src/ATen/native/TensorFactories.cpp``. A random factory
is an ``empty`` tensor filled by a kernel of ``native/distributions.py`` from ``generator=`` or the
default generator: PyTorch's values, draw for draw.
"""

from __future__ import annotations

import math
import warnings
from builtins import range as builtins_range  # this module defines torch.range

import numpy as np

from ..c10 import scalar_type as st
from ..c10.device import CPU
from ..c10.device import device as Device
from ..c10.size import Size
from ..native import distributions
from ..native.checks import check_size_nonnegative
from ..native.device import backend, normalize, to_numpy
from ..native.dispatcher import ops
from ..native.helpers import check_scalar_fits, convert, is_reduced_float, np_xp, numpy_storage_view, xp_dtype
from ..native.tensor_impl import TensorImpl, new_tensor
from .invalid_arguments import format_invalid_args, tp_name
from .python_arg_parser import check_requires_grad


def _sizes(name: str, size) -> tuple:
    """The ``*size`` of a factory: ints, or one tuple/list/Size of ints (python_arg_parser's IntArrayRef)."""
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    elif len(size) == 1 and not _is_int(size[0]):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size[0]).__name__}")
    for pos, s in enumerate(size):
        if not _is_int(s):
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {pos + 1} with "
                            f"error \"type must be tuple of ints,but got {type(s).__name__}\"")
    return tuple(int(s) for s in size)


def _is_int(value) -> bool:
    return (isinstance(value, (int, np.integer)) and not isinstance(value, bool)) or (
        isinstance(value, TensorImpl) and value._data.ndim == 0 and not value._dtype.is_floating_point)


def _check_sizes(name: str, shape) -> None:
    """``zeros`` checks its sizes itself; every other factory goes through ``check_size_nonnegative``."""
    if name == "zeros" and any(s < 0 for s in shape):
        raise RuntimeError(f"{name}: Dimension size must be non-negative.")
    check_size_nonnegative(shape)


def _dtype_argument(name: str, value, invalid_combination=None):
    """A factory's ``dtype``: None, a dtype, or Python's ``float``/``int``/``bool`` (float64, int64, bool); anything
    else is the argument parser's TypeError (``invalid_combination``: the message of a factory that has several
    signatures, which PyTorch prints instead)."""
    if value is None:
        return None
    found = st.as_dtype(value)
    if found is None:
        raise TypeError(invalid_combination() if invalid_combination is not None else
                        f"{name}(): argument 'dtype' must be torch.dtype, not {tp_name(value)}")
    return found


def _finish(data_np: np.ndarray, dtype, device, requires_grad: bool):
    if requires_grad:
        check_requires_grad(dtype)
    dev = normalize(device) if device is not None else CPU
    target = backend(dev)
    xp_dtype(target.xp, dtype)  # a device whose array library lacks the dtype (bfloat16) says so here
    data = target.xp.asarray(data_np, device=target.array_device(dev.index))
    t = new_tensor(data, dtype, dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _filled(name, size, value, dtype, device, requires_grad):
    dtype = _dtype_argument(name, dtype)
    shape = _sizes(name, size)
    _check_sizes(name, shape)
    dtype = dtype or st.get_default_dtype()
    return _finish(_host_convert(np.full(shape, value), dtype), dtype, device, requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False,
          **named):
    return _filled("zeros", _size_argument("zeros", size, named), 0, dtype, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False, **named):
    return _filled("ones", _size_argument("ones", size, named), 1, dtype, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False,
          memory_format=None, **named):
    return _filled("empty", _size_argument("empty", size, named), 0, dtype, device, requires_grad)


def _size_argument(name: str, args: tuple, named: dict) -> tuple:
    """A factory's ``size``: ints, one sequence of ints, or ``size=`` (the binding's checks and texts, for the
    factories with one visible signature)."""
    unexpected = [key for key in named if key != "size"]
    if unexpected:
        raise TypeError(f"{name}() got an unexpected keyword argument '{unexpected[0]}'")
    if "size" in named:
        if args:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        args = (named["size"],)
    if not args:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if len(args) > 1 and isinstance(args[0], (list, tuple)):
        raise TypeError(f"{name}() takes 1 positional argument but {len(args)} were given")
    return args


def full(*args, **kwargs):
    size, fill_value, options = _bind_full(args, kwargs)
    if not isinstance(size, (list, tuple)):  # one sequence of ints: full's size has no ``*size`` form
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    dtype = _dtype_argument("full", options.get("dtype"))
    if dtype is None:
        dtype = st.scalar_dtype(fill_value)
    if not (math.prod(size) == 1 and is_reduced_float(dtype)):  # full is empty + fill_: one CPU element of
        check_scalar_fits(fill_value, dtype)                     # float16/bfloat16 takes scalar_fill, unchecked
    elif isinstance(fill_value, complex):
        check_scalar_fits(fill_value, st.float64)  # (which reads the number as a double, checked)
    if isinstance(fill_value, complex) and not dtype.is_complex:
        fill_value = fill_value.real
    return _filled("full", (tuple(size),), fill_value, dtype, options.get("device"),
                   options.get("requires_grad", False))


_FULL_OPTIONS = ("dtype", "device", "requires_grad", "out", "layout", "pin_memory")


def _bind_full(args, kwargs):
    """``full(size, fill_value, *, ...)`` bound as PyTorch's parser binds it, with its texts."""
    if len(args) > 2:
        raise TypeError(f"full() takes 2 positional arguments but {len(args)} were given")
    values = dict(zip(("size", "fill_value"), args))
    for key, value in kwargs.items():
        if key in values:
            raise TypeError(f"full() got multiple values for argument '{key}'")
        if key not in ("size", "fill_value") and key not in _FULL_OPTIONS:
            raise TypeError(f"full() got an unexpected keyword argument '{key}'")
        values[key] = value
    params = ["size", "fill_value"]
    missing = [name for name in params if name not in values]
    if missing:  # from the first one missing on, every positional parameter (a keyword one too), as PyTorch
        names = params[params.index(missing[0]):]
        plural = "s" if len(names) == 1 else ""  # PyTorch's plural is the wrong way round
        raise TypeError(f"full() missing {len(names)} required positional argument{plural}: "
                        f"{', '.join(f'{chr(34)}{n}{chr(34)}' for n in names)}")
    return values["size"], _fill_number(values["fill_value"], "fill_value" in kwargs), values


def _fill_number(value, by_keyword: bool):
    """A ``Number`` parameter also takes a zero-dim tensor that does not require grad: its value, as a number."""
    if isinstance(value, TensorImpl) and not value._data.ndim and not value.requires_grad:
        return value.item()
    if isinstance(value, np.bool_):
        return float(value)  # a NumPy bool is a double to PyTorch's parser
    if isinstance(value, np.number):
        return value.item()  # (np.int64(3) fills an int64 tensor)
    if isinstance(value, (int, float, complex)):
        return value
    where = "" if by_keyword else " (position 2)"
    raise TypeError(f"full(): argument 'fill_value'{where} must be Number, not {tp_name(value)}")


# The largest finite value of each float dtype below float64, and its C++ name in the error.
_FLOAT_LIMITS = {st.float16: (65504.0, "c10::Half"), st.bfloat16: (3.3895313892515355e38, "c10::BFloat16"),
                 st.float32: (3.4028234663852886e38, "float")}


def _check_float_fits(value, dtype) -> None:
    """``c10::checked_convert``: a finite number beyond the dtype's range is an error, not an inf."""
    limit = _FLOAT_LIMITS.get(dtype)
    if limit is not None and isinstance(value, (int, float)) and math.isfinite(value) and abs(value) > limit[0]:
        raise RuntimeError(f"value cannot be converted to type {limit[1]} without overflow")


def rand(*size, **options):
    """``empty(size).uniform_(0, 1)``."""
    return _random("rand", size, options, distributions.uniform_)


def randn(*size, **options):
    """``empty(size).normal_(0, 1)``."""
    return _random("randn", size, options, distributions.normal_)


def _random(name, size, options, fill):
    given = size
    size = _random_size(name, size, options)
    dtype = _dtype_argument(name, options.get("dtype"),
                            lambda: format_invalid_args(given, options, f"{name}()", _RANDOM_SIGNATURES))
    shape = _sizes(name, size)
    _check_sizes(name, shape)
    dtype = dtype or st.get_default_dtype()
    _check_float(name, dtype)
    result = _finish(np.empty(shape, st.to_numpy_dtype(dtype)), dtype, options.get("device"),
                     options.get("requires_grad", False))
    fill(result, generator=options.get("generator"))  # below autograd: _version stays 0
    return result


def randint(*args, **options):
    """``randint(high, size)`` / ``randint(low, high, size)``: integers drawn uniformly from ``[low, high)``, int64
    unless ``dtype`` says otherwise (``random_(from, to)`` on an empty tensor, with its checks and texts)."""
    low, high, size = _bind_randint(args, options)
    dtype = _dtype_argument("randint", options.get("dtype"),
                            lambda: format_invalid_args(args, options, "randint()", _RANDINT_SIGNATURES))
    shape = _sizes("randint", (size,))
    _check_sizes("randint", shape)
    dtype = dtype or st.int64
    low, high = distributions.check_from_to(low, high, dtype)
    generator = distributions.generator_impl(options.get("generator"))
    with generator.mutex:
        values = distributions.random_from_to_values(generator, math.prod(shape), low, high, dtype).reshape(shape)
    return _finish(_host_convert(values, dtype), dtype, options.get("device"), options.get("requires_grad", False))


_RANDINT_SIGNATURES = [f"({ints}tuple of ints size, *, {generator}Tensor out = None, torch.dtype dtype = None, "
                       "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
                       "bool requires_grad = False)"
                       for ints in ("int high, ", "int low, int high, ")
                       for generator in ("torch.Generator generator, ", "")]


def _bind_randint(args, options):
    """The two forms, checked as PyTorch's parser checks them: a wrong type in ``randint(high, size)`` names the
    argument; in the three-argument form, or with an argument missing, it is the invalid combination of all four
    signatures."""
    given = len(args) + sum(name in options for name in ("low", "high", "size"))
    names = ("low", "high", "size") if given >= 3 or "low" in options else ("high", "size")
    invalid = TypeError(format_invalid_args(args, options, "randint()", _RANDINT_SIGNATURES))
    if len(args) > len(names):
        raise invalid
    values = dict(zip(names, args))
    for key, value in options.items():
        if key in values or (key not in names and key not in _RANDOM_OPTIONS):
            raise invalid
        values[key] = value
    if any(name not in values for name in names):
        raise invalid
    for position, name in enumerate(names, 1):
        value = values[name]
        expected = "tuple of ints" if name == "size" else "int"
        if (name == "size" and not isinstance(value, (list, tuple))) or (
                name != "size" and (not isinstance(value, int) or isinstance(value, bool))):
            if len(names) == 3:
                raise invalid
            where = f" (position {position})" if position <= len(args) else ""
            raise TypeError(f"randint(): argument '{name}'{where} must be {expected}, not {type(value).__name__}")
        if name != "size" and not -2**63 <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
    return values.get("low", 0), values["high"], values["size"]


_RANDOM_OPTIONS = ("generator", "dtype", "device", "requires_grad", "out", "layout", "pin_memory")
_RANDOM_SIGNATURES = [
    "(tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, torch.layout "
    "layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)",
    "(tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False)"]


def _random_size(name: str, args: tuple, options: dict) -> tuple:
    """``rand``'s and ``randn``'s ``size``. With two visible signatures PyTorch's parser names the one missing
    argument only when one signature is plausible, i.e. when exactly one keyword was given; otherwise (none,
    several, or ``size`` twice) it prints the invalid combination."""
    unknown = any(key not in _RANDOM_OPTIONS and key != "size" for key in options)  # fits no signature
    if "size" in options and not args and not unknown:
        return (options["size"],)
    if args and "size" not in options and not unknown:
        return args
    if not args and len(options) == 1:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    raise TypeError(format_invalid_args(args, options, f"{name}()", _RANDOM_SIGNATURES))


def _check_float(name: str, dtype) -> None:
    if not (dtype.is_floating_point or dtype.is_complex):
        kernel = "check_uniform_bounds" if name == "rand" else "normal_kernel_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype.c10_name}\'')


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None, layout=None,
           pin_memory=False):
    given = (start,) if end is None else (start, end) if step == 1 else (start, end, step)  # as most likely passed
    dtype = _dtype_argument("arange", dtype, lambda: _invalid_range_call("arange", given, dtype, _ARANGE_SIGNATURES))
    if end is None:
        start, end = 0, start
    values = (start, end, step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if any(isinstance(_num(v), complex) for v in values):  # the bounds are read as doubles, checked
        start, end, step = (_real_number(v) for v in values)
    if not (math.isfinite(_num(start)) and math.isfinite(_num(end))):
        raise RuntimeError(f"unsupported range: {_num(start):g} -> {_num(end):g}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        is_float = any(isinstance(v, (float, complex)) or (hasattr(v, "_dtype") and v._dtype.is_floating_point)
                       for v in values)
        dtype = st.get_default_dtype() if is_float else st.int64
    if dtype is st.bool_ or dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype.c10_name}'")
    data = _host_convert(np.arange(_num(start), _num(end), _num(step)), dtype)
    return _finish(data, dtype, device, requires_grad)


_ARANGE_SIGNATURES = [
    "(Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
    "None, bool pin_memory = False, bool requires_grad = False)",
    "(Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False)",
    "(Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout "
    "= None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)"]


def _invalid_range_call(name, values, dtype, signatures) -> str:
    """The invalid-combination message of ``arange`` / ``linspace`` given a bad ``dtype``: the positional
    ``values``, then ``dtype``."""
    return format_invalid_args(values, {"dtype": dtype}, f"{name}()", signatures)


def _num(v):
    return v.item() if hasattr(v, "item") else v


def _real_number(v):
    """A complex number read as a double (``c10::checked_convert``): only without an imaginary part."""
    v = _num(v)
    if isinstance(v, complex):
        if v.imag != 0:
            raise RuntimeError("value cannot be converted to type double without overflow")
        return v.real
    return v


# ----------------------------------------------------------------------------- linspace
# ``aten/src/ATen/native/RangeFactories.cpp`` and ``cpu/RangeFactoriesKernel.cpp``: the first half of the
# values counts up from ``start``, the second half down from ``end`` (so both ends are exact), with a step
# computed in the dtype (in double for integer dtypes, whose values are then truncated). PyTorch's CPU build
# fuses ``start + step * i`` into one fused multiply-add, rounded once: computed here exactly and rounded
# once to the dtype. float16 and bfloat16 round after every operation, as their C++ operators do.


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None, layout=None,
             pin_memory=False):
    dtype = _dtype_argument("linspace", dtype, lambda: _invalid_range_call(
        "linspace", (start, end, steps), dtype, _LINSPACE_SIGNATURES))
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = _num(start), _num(end)
    if isinstance(start, complex) or isinstance(end, complex):
        dtype = _complex_linspace_dtype(dtype)
    dtype = dtype or st.get_default_dtype()
    if dtype is st.bool_:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if dtype.is_complex:
        return _finish(_complex_linspace_values(complex(start), complex(end), steps, dtype), dtype, device,
                       requires_grad)
    for value in (start, end):
        _check_float_fits(value, dtype)
        _check_int_fits(value, dtype)
    return _finish(_linspace_values(start, end, steps, dtype), dtype, device, requires_grad)


_LINSPACE_SIGNATURES = [
    f"({start} start, {end} end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = "
    "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
    for start, end in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"), ("Number", "Number"))]


def _complex_linspace_dtype(dtype):
    """A complex bound makes linspace complex: the default complex dtype, which a dtype asked for must hold."""
    inferred = st.get_default_complex_dtype()
    if dtype is None:
        return inferred
    if not st.can_cast(inferred, dtype):
        cpp = "c10::complex<double>" if inferred is st.complex128 else "c10::complex<float>"
        raise RuntimeError(f"torch.linspace(): inferred dtype {cpp} can't be safely cast to passed dtype "
                           f"{dtype.c10_name}")
    return dtype


def _complex_linspace_values(start, end, steps, dtype) -> np.ndarray:
    """Each part its own real linspace: the step is a complex number, and ``start + step * i`` with a real ``i``
    multiplies and adds the parts apart."""
    real = dtype.to_real()
    values = np.empty(steps, dtype=st.to_numpy_dtype(dtype))
    values.real = _linspace_values(start.real, end.real, steps, real)
    values.imag = _linspace_values(start.imag, end.imag, steps, real)
    return values


def _linspace_values(start, end, steps, dtype) -> np.ndarray:
    if steps <= 1:
        return _host_convert(np.full((steps,), start), dtype)
    if is_reduced_float(dtype):
        return _linspace_rounding_each_op(start, end, steps, st.to_numpy_dtype(dtype).type)
    work = np.float64 if not dtype.is_floating_point else st.to_numpy_dtype(dtype).type
    first, last = work(_host_convert(np.asarray(start), dtype)), work(_host_convert(np.asarray(end), dtype))
    step = (last - first) / work(steps - 1)
    half = steps // 2
    up, down = np.arange(half), np.arange(steps - half - 1, -1, -1)  # i, then steps - 1 - i
    if work is np.float32:
        return np.concatenate([_fma_floats(step, up, first), _fma_floats(-step, down, last)])
    values = np.asarray(_fma_doubles(float(step), up, float(first)) + _fma_doubles(-float(step), down, float(last)))
    if dtype.is_floating_point:
        return values
    return _host_convert(np.trunc(values), dtype)


_CPP_INT_NAMES = {st.uint8: "uint8_t", st.int8: "int8_t", st.int16: "int16_t", st.int32: "int", st.int64: "int64_t"}


def _check_int_fits(value, dtype) -> None:
    """``Scalar::to<T>``'s checked conversion: the error names the C++ type (``int``, ``uint8_t``)."""
    if dtype not in _CPP_INT_NAMES:
        return
    try:
        _check_overflow([value], dtype)
    except RuntimeError:
        raise RuntimeError(f"value cannot be converted to type {_CPP_INT_NAMES[dtype]} without overflow") from None


def _fma_doubles(a: float, counts, c: float) -> list:
    """``a * k + c`` for each int ``k``, each rounded once to a double: Python's int / int rounds correctly."""
    if not (math.isfinite(a) and math.isfinite(c)):
        return [a * k + c for k in counts.tolist()]
    a_num, a_den = a.as_integer_ratio()
    c_num, c_den = c.as_integer_ratio()
    den = max(a_den, c_den)  # both powers of two
    a_num, c_num = a_num * (den // a_den), c_num * (den // c_den)
    return [_divide(a_num * k + c_num, den) if a_num * k + c_num else a * k + c for k in counts.tolist()]


def _divide(num: int, den: int) -> float:
    try:
        return num / den
    except OverflowError:  # beyond the largest double: the fused result is an infinity
        return math.copysign(math.inf, num)


def _fma_floats(a, counts, c) -> np.ndarray:
    """``a * k + c`` for each ``k``, rounded once to float32. In float64 the product is exact (24 bits times
    fewer than 29) and only the sum rounds; rounding that to float32 again differs from one rounding only when
    the double lands exactly halfway between two floats, where the sum's exact error (two-sum) decides."""
    with np.errstate(invalid="ignore", over="ignore"):  # NaN and infinite ends give NaN and infinities, quietly
        product, addend = np.float64(a) * counts.astype(np.float64), np.float64(c)
        total = product + addend
        part = total - addend
        error = (addend - (total - part)) + (product - part)
        result = total.astype(np.float32)
        wide = result.astype(np.float64)
        neighbour = np.nextafter(result, np.where(total > wide, np.float32(np.inf), np.float32(-np.inf)))
        halfway = (total != wide) & (2 * total == wide + neighbour.astype(np.float64)) & (error != 0)
        corrected = np.where(error > 0, np.maximum(result, neighbour), np.minimum(result, neighbour))
        return np.where(halfway, corrected, result).astype(np.float32)


def _linspace_rounding_each_op(start, end, steps, kind) -> np.ndarray:
    first, last = kind(start), kind(end)
    step = (last - first) / kind(steps - 1)
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf is NaN there too, without a warning
        values = [first + step * kind(i) if i < steps // 2 else last - step * kind(steps - i - 1)
                  for i in builtins_range(steps)]
    return np.asarray(values, dtype=kind)


# ----------------------------------------------------------------------------- torch.tensor


def _infer(data):
    """(shape, dtype) of nested Python data, with ``tensor_new.cpp``'s errors."""
    if isinstance(data, TensorImpl):
        return tuple(data.shape), data._dtype
    if isinstance(data, np.ndarray):
        return data.shape, st.from_numpy_dtype(data.dtype)
    if isinstance(data, np.generic):  # a NumPy scalar keeps its own dtype
        return (), st.from_numpy_dtype(data.dtype)
    if isinstance(data, bool):
        return (), st.bool_
    if isinstance(data, int):
        return (), st.int64
    if isinstance(data, float):
        return (), st.get_default_dtype()
    if isinstance(data, complex):
        return (), st.get_default_complex_dtype()
    if isinstance(data, (list, tuple)):
        return _infer_sequence(data)
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _infer_sequence(seq):
    if len(seq) == 0:
        return (0,), st.get_default_dtype()
    shapes, dtypes = zip(*[_infer(item) for item in seq])
    first = shapes[0]
    for depth_shape in shapes[1:]:
        if depth_shape != first:
            raise ValueError(f"expected sequence of length {first[0] if first else 0} at dim 1 "
                             f"(got {depth_shape[0] if depth_shape else 0})")
    dtype = dtypes[0]
    for d in dtypes[1:]:
        dtype = _combine(dtype, d)
    return (len(seq),) + first, dtype


def _combine(a, b):
    """Python data: bool < int < float < complex, the widest kind decides."""
    if a.category != b.category:
        return a if a.category > b.category else b
    return st.promote_types(a, b)


def _check_ragged(data, shape, depth=0) -> None:
    if isinstance(data, (list, tuple)):
        if len(data) != shape[depth]:
            raise ValueError(f"expected sequence of length {shape[depth]} at dim {depth} (got {len(data)})")
        for item in data:
            _check_ragged(item, shape, depth + 1)


def _to_numpy_data(data):
    if isinstance(data, TensorImpl):
        return to_numpy(data._data)
    if isinstance(data, (list, tuple)):
        return [_to_numpy_data(d) for d in data]
    return data


def _python_numbers(data):
    """Every Python number in nested lists/tuples, iteratively."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, (int, float, complex)) and not isinstance(item, bool):
            yield item


def _check_overflow(data, dtype) -> None:
    """``c10::checked_convert``: a Python number must fit an integer dtype (unsigned ones wrap negatives), and a
    Python complex number becomes no real number at all (the text is CPython's, from ``PyFloat_AsDouble`` or
    ``PyLong_AsLong``, which ``store_scalar`` calls)."""
    if dtype.is_complex or dtype is st.bool_:
        return
    numbers = list(_python_numbers(data))
    if any(isinstance(value, complex) for value in numbers):
        kind = "must be real number, not complex" if dtype.is_floating_point else \
            "'complex' object cannot be interpreted as an integer"
        raise TypeError(kind)
    if dtype.is_floating_point:
        return
    info = np.iinfo(st.to_numpy_dtype(dtype))
    for value in numbers:
        if isinstance(value, float):
            fits = value == value and info.min <= value <= info.max
        elif info.min == 0:
            fits = value <= info.max and -value <= info.max
        else:
            fits = info.min <= value <= info.max
        if not fits:
            raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")


_COPY_CONSTRUCT_WARNING = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                           "or sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor).")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    dtype = _dtype_argument("tensor", dtype)
    if isinstance(data, TensorImpl):  # ``internal_new_from_data`` in tensor_new.cpp
        warnings.warn(_COPY_CONSTRUCT_WARNING.format("torch.tensor"), UserWarning, stacklevel=3)
    return _from_data(data, dtype, device, requires_grad)


def new_tensor_method(self, *args, **kwargs):
    """``Tensor.new_tensor`` (``torch::utils::new_tensor``): ``torch.tensor`` in ``self``'s dtype and on its
    device unless given; the data's own dtype is never inferred, so ``int_t.new_tensor([1.5])`` is int64."""
    data, dtype, device, requires_grad = _new_tensor_arguments(args, kwargs)
    if isinstance(data, TensorImpl):
        warnings.warn(_COPY_CONSTRUCT_WARNING.format("tensor.new_tensor"), UserWarning, stacklevel=3)
    return _from_data(data, dtype or self._dtype, self._device if device is None else device, requires_grad)


_NEW_TENSOR_OPTIONS = {"dtype": (st.dtype, "torch.dtype"), "device": ((Device, str, int), "torch.device"),
                       "requires_grad": (bool, "bool")}


def _new_tensor_arguments(args: tuple, kwargs: dict) -> tuple:
    """Binds ``new_tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None, bool requires_grad=False)``
    with PyTorch's parser texts."""
    if len(args) > 1:
        raise TypeError(f"new_tensor() takes 1 positional argument but {len(args)} were given")
    for key in kwargs:
        if key not in _NEW_TENSOR_OPTIONS and key != "data":
            raise TypeError(f"new_tensor() got an unexpected keyword argument '{key}'")
    if args and "data" in kwargs:
        raise TypeError("new_tensor() got multiple values for argument 'data'")
    if not args and "data" not in kwargs:
        raise TypeError('new_tensor() missing 1 required positional arguments: "data"')
    for key, (types, shown) in _NEW_TENSOR_OPTIONS.items():
        value = kwargs.get(key)
        if value is not None and (not isinstance(value, types) or (key == "device" and isinstance(value, bool))):
            raise TypeError(f"new_tensor(): argument '{key}' must be {shown}, not {type(value).__name__}")
    return (args[0] if args else kwargs["data"], kwargs.get("dtype"), kwargs.get("device"),
            bool(kwargs.get("requires_grad")))


def _from_data(data, dtype, device, requires_grad: bool):
    """``internal_new_from_data``: a copy of ``data`` in ``dtype`` (inferred from the data when None)."""
    if dtype is not None and isinstance(data, (list, tuple)):
        _check_elements(data, dtype, len(_first_sizes(data)))
    shape, inferred = _infer(data)
    dtype = dtype or inferred
    _check_overflow(data, dtype)
    if requires_grad:
        check_requires_grad(dtype)
    with np.errstate(all="ignore"):
        array = _to_array(_to_numpy_data(data), dtype).reshape(shape)
    return _finish(array, dtype, device, requires_grad)


def _first_sizes(data) -> list[int]:
    """``compute_sizes``: the length at each depth, read along the first elements."""
    sizes = []
    while isinstance(data, (list, tuple)):
        sizes.append(len(data))
        if not data:
            break
        data = data[0]
    return sizes


def _check_elements(data, dtype, depth: int) -> None:
    """With a dtype given nothing is inferred: each element is converted to it (``store_scalar``), in order, and
    the first that cannot be raises Python's own conversion error (a ragged list is ``_infer``'s to report)."""
    for item in data:
        if depth > 1 and isinstance(item, (list, tuple)):
            _check_elements(item, dtype, depth - 1)
        elif depth == 1:
            _check_scalar(item, dtype)


def _check_scalar(item, dtype) -> None:
    if isinstance(item, (TensorImpl, np.ndarray, bool, int, float, np.bool_, np.integer, np.floating)):
        return
    if isinstance(item, (complex, np.complexfloating)) and (dtype.is_complex or dtype is st.bool_):
        return
    if dtype.is_floating_point or dtype.is_complex:  # PyFloat_AsDouble's words
        raise TypeError(f"must be real number, not {type(item).__name__}")
    raise TypeError(f"'{type(item).__name__}' object cannot be interpreted as an integer")  # PyLong_AsLongLong's


def _to_array(data, dtype) -> np.ndarray:
    """NumPy refuses out-of-range Python ints for unsigned types; wrap them as C++ does (-1 -> 255)."""
    np_dtype = st.to_numpy_dtype(dtype)
    if is_reduced_float(dtype):
        return _host_convert(np.array(data, dtype=np.float64), dtype)
    if dtype.is_floating_point or dtype.is_complex or dtype is st.bool_:
        return np.array(data, dtype=np_dtype)
    return np.array(data).astype(np.int64).astype(np_dtype)  # floats truncate, negatives wrap


def _host_convert(array: np.ndarray, dtype) -> np.ndarray:
    """A host array in ``dtype``, converted as C++ converts (float16 / bfloat16 through float32); a value the
    dtype cannot hold, where PyTorch lets it through (one float16 element of ``full``), becomes inf silently."""
    with np.errstate(over="ignore", invalid="ignore"):
        return convert(np_xp, array, dtype)


_NOT_WRITABLE = ("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This "
                 "means writing to this tensor will result in undefined behavior. You may want to copy the array to "
                 "protect its data or make it writable before converting it to a tensor. This type of warning will be "
                 "suppressed for the rest of this program. (Triggered internally at "
                 "/__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:213.)")
_not_writable_warned = []  # TORCH_WARN_ONCE


def from_numpy(array: np.ndarray, *, _stacklevel: int = 2):
    """A tensor over ``array``'s memory, in a storage of its own that starts at its first element."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtype = st.from_numpy_dtype(array.dtype)
    if any(s < 0 for s in array.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative strides "
                         "are not currently supported. (You can probably work around this by making a copy of your "
                         "array  with array.copy().) ")
    if not array.flags.writeable and not _not_writable_warned:
        _not_writable_warned.append(True)
        warnings.warn(_NOT_WRITABLE, UserWarning, stacklevel=_stacklevel)
    return new_tensor(numpy_storage_view(array), dtype, CPU)


def as_tensor(data, dtype=None, device=None):
    """``torch.as_tensor``: no copy where none is needed. A tensor is returned as it is, or ``to`` the dtype and
    device asked for; a NumPy array's memory is shared (``from_numpy``) unless a conversion is asked for; other data
    is copied, as ``torch.tensor`` copies it."""
    if isinstance(data, TensorImpl):
        return data.to(device=device, dtype=dtype)
    if isinstance(data, np.ndarray):
        return from_numpy(data, _stacklevel=3).to(device=device, dtype=dtype)
    return tensor(data, dtype=dtype, device=device)


def rand_like(input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    """``empty_like(input).uniform_()``: drawn in the order of ``empty_like``'s layout (``input``'s strides when
    it is dense and non-overlapping); written below autograd, so ``_version`` stays 0."""
    return _drawn_like(input, dtype, device, requires_grad, memory_format, "rand", distributions.uniform_)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    """``empty_like(input).normal_()``, as ``rand_like``."""
    return _drawn_like(input, dtype, device, requires_grad, memory_format, "randn", distributions.normal_)


def _drawn_like(input, dtype, device, requires_grad: bool, memory_format, name: str, fill):
    dtype = dtype or input.dtype
    _check_float(name, dtype)
    if requires_grad:
        check_requires_grad(dtype)
    result = ops.empty_like(input, dtype=dtype, device=device or input.device, memory_format=memory_format)
    fill(result)
    return result.requires_grad_(True) if requires_grad else result



def randint_like(*args, **options):
    """``empty_like(input).random_(low, high)`` (TensorFactories.cpp): the values ``randint`` would draw, in
    ``empty_like``'s layout, of ``input``'s dtype unless ``dtype`` says otherwise; ``high`` may be a tensor."""
    input, low, high = _bind_randint_like(args, options)
    result = ops.empty_like(input, dtype=options.get("dtype"), device=options.get("device") or input.device,
                            memory_format=options.get("memory_format"))
    distributions.random_(result, low, high, options.get("generator"))
    if options.get("requires_grad", False):
        check_requires_grad(result.dtype)
        result.requires_grad_(True)
    return result


_RANDINT_LIKE_SIGNATURES = [
    f"(Tensor input, {bounds}, *, {generator}torch.memory_format memory_format = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
    for bounds in ("int low, int high", "Tensor high", "int high")
    for generator in ("torch.Generator generator, ", "")]
_RANDINT_LIKE_OPTIONS = ("generator", "memory_format", "dtype", "layout", "device", "pin_memory", "requires_grad")


def _bind_randint_like(args, options):
    """The three forms: ``(input, high)``, ``(input, low, high)``, ``(input, Tensor high)``; anything else is the
    invalid combination of all six signatures."""
    invalid = TypeError(format_invalid_args(args, options, "randint_like()", _RANDINT_LIKE_SIGNATURES))
    given = len(args) + sum(name in options for name in ("input", "low", "high"))
    names = ("input", "low", "high") if given >= 3 or "low" in options else ("input", "high")
    if len(args) > len(names):
        raise invalid
    values = dict(zip(names, args))
    for key, value in options.items():
        if key in values or (key not in names and key not in _RANDINT_LIKE_OPTIONS):
            raise invalid
        values[key] = value
    if any(name not in values for name in names) or not isinstance(values["input"], TensorImpl):
        raise invalid
    high = values["high"]
    if len(names) == 2 and isinstance(high, TensorImpl):
        high = int(high.item())
    bounds = (values.get("low", 0), high)
    if any(not isinstance(b, int) or isinstance(b, bool) for b in bounds):
        raise invalid
    return values["input"], *bounds


# ----------------------------------------------------------------------------- empty_strided, Tensor.new


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of ``size`` laid out with ``stride`` (in elements) over storage of its own; zeros, as ``empty``."""
    dtype = _dtype_argument("empty_strided", dtype) or st.get_default_dtype()
    size, stride = _sizes("empty_strided", (size,)), _sizes("empty_strided", (stride,))
    result = ops.new_empty_strided(_finish(np.zeros((0,)), dtype, device, False), list(size), list(stride))
    if requires_grad:
        check_requires_grad(dtype)
        result.requires_grad_(True)
    return result


_LEGACY_NEW_SIGNATURES = ["(*, torch.device device = None)", "(torch.Storage storage)", "(Tensor other)",
                          "(tuple of ints size, *, torch.device device = None)",
                          "(object data, *, torch.device device = None)"]


def legacy_new(self, *args, **kwargs):
    """``Tensor.new`` (``legacy_tensor_generic_ctor_new``): a new tensor of ``self``'s dtype and device."""
    return legacy_construct(self._dtype, self._device, True, args, kwargs)


def legacy_construct(dtype, device, same_dtype: bool, args: tuple, kwargs: dict):
    """``legacy_tensor_generic_ctor_new``, behind ``Tensor.new``, ``torch.Tensor(...)`` and ``torch.FloatTensor(...)``.

    Nothing gives an empty tensor; ints or a ``Size`` an uninitialised one of that size (zeros here); a tensor an
    alias of it (which must have ``dtype`` when ``same_dtype``: ``torch.Tensor(t)`` takes any); other data a copy
    in ``dtype``. Only ``device=`` may be named.
    """
    if any(key != "device" for key in kwargs) or (args and all(isinstance(a, (list, tuple)) for a in args)
                                                  and len(args) > 1):
        raise TypeError(format_invalid_args(args, kwargs, "new()", _LEGACY_NEW_SIGNATURES))
    device = kwargs.get("device") or device
    if not args:
        return _filled("new", ((0,),), 0, dtype, device, False)
    if len(args) == 1 and isinstance(args[0], TensorImpl):
        other = args[0]
        if same_dtype and other._dtype is not dtype:
            raise TypeError(f"expected {_options_text(dtype)} (got {_options_text(other._dtype)})")
        return ops.alias(other)
    if all(_is_int(a) for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
        return _filled("new", args, 0, dtype, device, False)
    if len(args) > 1 and _is_int(args[0]):  # sizes given one by one: the binding unpacks them as an int list
        position, bad = next((i, a) for i, a in enumerate(args, 1) if not _is_int(a))
        raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {position} with error "
                        f"\"type must be tuple of ints,but got {type(bad).__name__}\"")
    if len(args) == 1:
        data = args[0]
        if isinstance(data, (str, bytes)):  # a sequence to Python, but no data
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        if isinstance(data, builtins_range):
            data = list(data)
        if not isinstance(data, (list, tuple)) and not hasattr(data, "__array__"):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return _from_data(data, dtype, device, False)
    raise TypeError(format_invalid_args(args, kwargs, "new()", _LEGACY_NEW_SIGNATURES))


_CPP_TYPE_NAMES = {"Float": "float", "Double": "double", "Half": "c10::Half", "BFloat16": "c10::BFloat16",
                   "Long": "long int", "Int": "int", "Short": "short int", "Char": "signed char",
                   "Byte": "unsigned char", "Bool": "bool", "ComplexFloat": "c10::complex<float>",
                   "ComplexDouble": "c10::complex<double>"}


def _options_text(dtype) -> str:
    name = _CPP_TYPE_NAMES.get(dtype.c10_name, dtype.c10_name)
    return (f"TensorOptions(dtype={name}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


# ----------------------------------------------------------------------------- scalar_tensor, range, logspace

_RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).")


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False, out=None):
    """A zero-dim tensor of ``s``, in the default float dtype unless given (a bool or int too)."""
    if isinstance(s, TensorImpl) and s._data.ndim == 0:
        s = s.item()
    if not isinstance(s, (int, float, bool, np.number)):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not {tp_name(s)}")
    dtype = _dtype_argument("scalar_tensor", dtype) or st.get_default_dtype()
    return _finish(_host_convert(np.asarray(s), dtype), dtype, device, requires_grad)


def range(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False,
          out=None):
    """``[start, start + step, ..., end]``, ``end`` included (deprecated, with its warning): the default float dtype
    unless given."""
    warnings.warn(_RANGE_WARNING, UserWarning, stacklevel=2)
    dtype = _dtype_argument("range", dtype) or st.get_default_dtype()
    start, end, step = _num(start), _num(end), _num(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    values = np.asarray([start + i * step for i in builtins_range(count)], dtype=np.float64)
    return _finish(_host_convert(values, dtype), dtype, device, requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, pin_memory=None,
             requires_grad=False, out=None):
    """``base ** linspace(start, end, steps)``, computed in double as RangeFactories.cpp does: the first half counts
    up from ``start``, the second down from ``end``."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = _dtype_argument("logspace", dtype) or st.get_default_dtype()
    first, last = (float(_host_convert(np.asarray(_num(v)), dtype.to_real())) for v in (start, end))
    if steps == 1:
        exponents = [first]
    else:
        step = (last - first) / (steps - 1)
        half = steps // 2
        exponents = [first + step * i if i < half else last - step * (steps - i - 1) for i in builtins_range(steps)]
    values = np.asarray([math.pow(base, e) for e in exponents], dtype=np.float64)
    if not (dtype.is_floating_point or dtype.is_complex):
        values = np.trunc(values)
    return _finish(_host_convert(values, dtype), dtype, device, requires_grad)
