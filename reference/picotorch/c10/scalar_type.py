"""dtypes and type promotion.

Models ``c10/core/ScalarType.h`` (the dtype list and ``promoteTypes``' table) and the category rules of
``aten/src/ATen/native/TypeProperties.cpp`` (``result_type``: dimensioned tensors beat zero-dim
tensors, which beat Python numbers, unless a lower priority operand is of a higher *category*:
bool < integer < floating point < complex).

The complex dtypes are pairs of floats: ``complex64`` holds two float32 (its ``to_real()``), ``complex128`` two
float64. ``complex32`` (``chalf``, two float16) exists as a dtype, for promotion and for its name, but NumPy has
no such type, so a picotorch tensor cannot hold it (``to_numpy_dtype`` says so).
"""

from __future__ import annotations

import numpy as np

# The dtypes whose NumPy type is missing or not what they are: bfloat16 (ml_dtypes, NumPy kind "V", found on
# first use) and complex32 (no NumPy type at all).
_KINDS = {"bfloat16": "f", "complex32": "c"}
_ITEMSIZES = {"bfloat16": 2, "complex32": 4}


class dtype:
    """One scalar type. Prints as ``torch.float32`` because picotorch is used as ``torch``."""

    __slots__ = ("name", "c10_name", "itemsize", "is_floating_point", "is_complex", "is_signed",
                 "_numpy", "_rank")

    def __init__(self, name: str, numpy_dtype, rank: int, c10_name: str):
        self.name = name
        self.c10_name = c10_name  # the ScalarType name C++ error messages use: Float, Long, ...
        if numpy_dtype is not None:  # bfloat16's is found on first use: see __getattr__
            self._numpy = np.dtype(numpy_dtype)
        kind = _KINDS.get(name) or self._numpy.kind  # ml_dtypes' bfloat16 has NumPy kind "V"
        self.itemsize = _ITEMSIZES.get(name) or self._numpy.itemsize
        self.is_floating_point = kind == "f"
        self.is_complex = kind == "c"
        self.is_signed = kind != "u" and kind != "b"
        self._rank = rank

    def __getattr__(self, name: str):
        """Only for an attribute not set: bfloat16's NumPy dtype, looked up on its first use (complex32 has none)."""
        if name == "_numpy" and self.name == "bfloat16":
            self._numpy = _ml_dtypes_bfloat16()
            return self._numpy
        if name == "_numpy" and self.name == "complex32":
            return None
        raise AttributeError(f"'torch.{type(self).__name__}' object has no attribute '{name}'")  # torch's words

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name

    @property
    def category(self) -> int:
        """0 bool, 1 integer, 2 floating point, 3 complex — the order used by type promotion."""
        if self is bool_:
            return 0
        if self.is_complex:
            return 3
        return 2 if self.is_floating_point else 1

    def to_real(self) -> dtype:
        """The dtype of one part of a complex number (``complex64`` -> ``float32``); others are themselves."""
        return _REAL_OF.get(self, self)

    def to_complex(self) -> dtype:
        """The complex dtype made of two of these floats (``float32`` -> ``complex64``); complex dtypes are
        themselves, and an integer or bool has none (``toComplexType``'s error)."""
        if self.is_complex:
            return self
        if self not in _COMPLEX_OF:
            raise RuntimeError(f"Unknown Complex ScalarType for {self.c10_name}")
        return _COMPLEX_OF[self]


uint8 = dtype("uint8", np.uint8, 0, "Byte")
int8 = dtype("int8", np.int8, 1, "Char")
int16 = dtype("int16", np.int16, 2, "Short")
int32 = dtype("int32", np.int32, 3, "Int")
int64 = dtype("int64", np.int64, 4, "Long")
float16 = dtype("float16", np.float16, 5, "Half")
bfloat16 = dtype("bfloat16", None, 5, "BFloat16")
float32 = dtype("float32", np.float32, 6, "Float")
float64 = dtype("float64", np.float64, 7, "Double")
bool_ = dtype("bool", np.bool_, -1, "Bool")
complex32 = dtype("complex32", None, 8, "ComplexHalf")
complex64 = dtype("complex64", np.complex64, 9, "ComplexFloat")
complex128 = dtype("complex128", np.complex128, 10, "ComplexDouble")

_REAL_OF = {complex32: float16, complex64: float32, complex128: float64}
_COMPLEX_OF = {float16: complex32, bfloat16: complex64, float32: complex64, float64: complex128}  # bfloat16 has
# float32's range, so ``toComplexType`` maps it to ComplexFloat

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex32, complex64,
              complex128)
# What ``torch.from_numpy`` accepts: NumPy's own dtypes (PyTorch refuses ml_dtypes' bfloat16 there too).
_BY_NUMPY = {d._numpy: d for d in ALL_DTYPES if d is not bfloat16 and d is not complex32}
# The names torch also accepts for these dtypes (torch.half, torch.long, ...).
ALIASES = {"half": float16, "float": float32, "double": float64, "short": int16,
           "int": int32, "long": int64, "chalf": complex32, "cfloat": complex64, "cdouble": complex128}

_default_dtype = float32


def is_differentiable_type(d: dtype) -> bool:
    """``isDifferentiableType``: only floating point and complex tensors may require gradients."""
    return d.is_floating_point or d.is_complex


def get_default_dtype() -> dtype:
    return _default_dtype


def get_default_complex_dtype() -> dtype:
    """The dtype of a Python complex number as a tensor: the default float dtype's complex pair (float64 ->
    complex128, else complex64), as ``c10::get_default_complex_dtype`` follows ``set_default_dtype``."""
    return complex128 if _default_dtype is float64 else complex64


def set_default_dtype(d: dtype) -> None:
    global _default_dtype
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d


def to_numpy_dtype(d: dtype) -> np.dtype:
    if d._numpy is None:
        if d is complex32:
            require_complex32()
        require_bfloat16()
    return d._numpy


def _ml_dtypes_bfloat16() -> np.dtype | None:
    """NumPy has no bfloat16 of its own; ml_dtypes (a core dependency) registers one. None without it."""
    try:  # lazy: importing ml_dtypes costs a few ms of ``import picotorch`` that few programs need (chapter 06)
        import ml_dtypes
    except ImportError:  # picotorch still works without it, minus bfloat16 (see ``require_bfloat16``)
        return None
    return np.dtype(ml_dtypes.bfloat16)


def require_bfloat16() -> None:
    """Without ml_dtypes NumPy cannot hold bfloat16 values: say how to get it."""
    if bfloat16._numpy is None:
        raise RuntimeError("bfloat16 needs the ml_dtypes package (NumPy has no bfloat16 of its own): "
                           "pip install ml_dtypes")


def require_complex32() -> None:
    raise RuntimeError("picotorch has no complex32 (chalf) tensors: NumPy has no complex type of two float16. "
                       "Use torch.complex64 (torch.cfloat).")


def from_numpy_dtype(np_dtype) -> dtype:
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(
            f"can't convert np.ndarray of type {_numpy_type_name(np_dtype)}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, "
            "uint8, and bool."
        ) from None


def _numpy_type_name(np_dtype) -> str:
    """How PyTorch names a NumPy scalar type: its module and class (``numpy.str_``, ``ml_dtypes.bfloat16``)."""
    scalar = np.dtype(np_dtype).type
    return f"{scalar.__module__}.{scalar.__name__}"


def can_cast(from_: dtype, to: dtype) -> bool:
    """``c10::canCast``: the casts an in-place op may do to its result (a category never goes down).

    Float into an integer and anything but bool into bool are refused; within a category any size works
    (float64 into float32 is allowed).
    """
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    return from_ is bool_ or to is not bool_


def promote_types(a: dtype, b: dtype) -> dtype:
    """The promotion table of ``c10::promoteTypes`` for the dtypes picotorch has."""
    if a is b:
        return a
    if a.is_complex or b.is_complex:
        return _promote_complex(a, b)
    if {a, b} == {float16, bfloat16}:
        return float32  # neither holds the other: float16 has the precision, bfloat16 the range
    if a is bool_:
        return b
    if b is bool_:
        return a
    if a.is_floating_point != b.is_floating_point:
        return a if a.is_floating_point else b
    if {a, b} == {uint8, int8}:
        return int16
    if uint8 in (a, b):
        return b if a is uint8 else a
    return a if a._rank > b._rank else b


def _promote_complex(a: dtype, b: dtype) -> dtype:
    """With a complex operand the result is complex, and its parts are the promotion of both operands' floats:
    float64 and complex64 give complex128, bfloat16 and complex32 give complex64. Integers and bool add nothing."""
    if not (a.is_complex or a.is_floating_point):
        return b
    if not (b.is_complex or b.is_floating_point):
        return a
    return promote_types(a.to_real(), b.to_real()).to_complex()


# Python's own number types stand for a dtype wherever one is asked (``dtype=float`` is float64), as the
# argument parser's ``scalartype`` reads them.
_PYTHON_TYPE_DTYPES = {float: float64, int: int64, bool: bool_, complex: complex128}


def as_dtype(value) -> dtype | None:
    """``value`` as a dtype: itself, or the dtype Python's ``float``/``int``/``bool`` stand for; else None."""
    if isinstance(value, dtype):
        return value
    if type(value) is type:
        return _PYTHON_TYPE_DTYPES.get(value)
    return None


def scalar_dtype(value) -> dtype:
    """The dtype a Python number would get as a tensor."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, complex):
        return get_default_complex_dtype()
    return get_default_dtype()


# NOTE [Type promotion categories]
# An operand takes part in promotion at one of three priorities: a tensor with dimensions, a zero-dim
# tensor, a Python number ("wrapped number"). The result is the promotion of the highest-priority
# operands, unless a lower-priority operand has a higher category (bool < int < float < complex): then
# its dtype (for a Python float: the default dtype) wins that category. A complex operand over a
# floating one keeps the floating one's precision: float64 and a Python complex give complex128.
def result_type(*operands) -> dtype:
    """``operands`` are ``(dtype, priority)`` pairs; priority 2 dimensioned, 1 zero-dim, 0 number."""
    state = {}
    for d, priority in operands:
        state[priority] = d if priority not in state else promote_types(state[priority], d)
    result = None
    for priority in (2, 1, 0):
        if priority not in state:
            continue
        d = state[priority]
        if result is None:
            result = d
        elif d.category > result.category:
            result = _widen_category(result, d, priority)
    return result


def _widen_category(current: dtype, other: dtype, priority: int) -> dtype:
    if other.is_complex:
        if current.is_floating_point:
            return current.to_complex()
        return get_default_complex_dtype() if priority == 0 else other
    if priority == 0 and other.is_floating_point:
        return get_default_dtype()
    if priority == 0 and other is int64:
        return int64
    return other
