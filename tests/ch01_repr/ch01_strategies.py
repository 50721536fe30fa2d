"""Hypothesis strategies shared by the chapter 01 tests: arrays worth printing, and print options.

Arrays are built from a NumPy generator seeded by hypothesis (cheap even for > 1000 elements), from
a *family* of values that stresses one rule of the formatter (tiny, huge, whole numbers stored as
floats, the NumPy sci-mode boundaries...), then sprinkled with special values (nan, +-inf, -0.).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

FLOAT_DTYPES = ("float16", "float32", "float64")
INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
REAL_DTYPES = FLOAT_DTYPES + INT_DTYPES + ("bool",)
COMPLEX_DTYPES = ("complex64", "complex128")

SPECIAL = (
    0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, -1.0, 0.5, 1e-4, 9.9999e-5, 1e-5, 1e-8, 1e8, 1.0000001e8,
    1e12, 3.14159, 9.99995, 0.99995, 99999.5, 999.0, 1000.0, 1001.0, 123456.0, -2.5, 2.0**-20, 65504.0,
    1e300, -1e-300, 5e-324, 1e100, 1e-100,
)

SMALL_SHAPES = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)
BIG_SHAPES = st.sampled_from(
    [(1001,), (1500,), (2, 501), (40, 30), (11, 10, 10), (3, 4, 5, 20), (7, 200), (1001, 1), (1, 1, 1001), (0, 2000)]
)
SHAPES = st.one_of(SMALL_SHAPES, SMALL_SHAPES, SMALL_SHAPES, BIG_SHAPES)


def _family_values(family: str, rng: np.random.Generator, n: int) -> np.ndarray:
    if family == "uniform":
        return rng.uniform(-1, 1, n)
    if family == "scaled":
        return rng.standard_normal(n) * 10.0 ** rng.integers(-12, 14)
    if family == "wide":
        return rng.standard_normal(n) * 10.0 ** rng.integers(-12, 14, n)
    if family == "whole":
        return rng.integers(-2000, 2000, n).astype(np.float64)
    if family == "whole_big":
        return rng.integers(-(10**12), 10**12, n).astype(np.float64)
    if family == "tiny":
        return rng.uniform(-1e-4, 1e-4, n)
    if family == "boundary":  # around the sci-mode thresholds
        return rng.choice([1.0, 999.0, 1000.0, 1000.5, 1001.0, 1e-4, 1.0001e-4, 9.9e-5, 1e8, 1.0000001e8], n)
    return rng.choice(np.array(SPECIAL), n)  # "special"


FAMILIES = ("uniform", "scaled", "wide", "whole", "whole_big", "tiny", "boundary", "special")


def _float_array(draw, dtype: str, n: int, rng: np.random.Generator) -> np.ndarray:
    values = _family_values(draw(st.sampled_from(FAMILIES)), rng, n)
    sprinkles = draw(st.lists(st.sampled_from(SPECIAL), max_size=3)) if n else []
    for value in sprinkles:
        values[rng.integers(0, n)] = value
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        return values.astype(dtype)


def _int_array(draw, dtype: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    info = np.iinfo(dtype)
    scale = draw(st.sampled_from([9, 100, 10**5, int(info.max)]))
    low, high = max(int(info.min), -scale), min(int(info.max), scale)
    values = rng.integers(low, high, n, endpoint=True, dtype=dtype)
    if n and draw(st.booleans()):  # the extremes have the widest strings
        values[rng.integers(0, n)] = info.min
    return values


@st.composite
def arrays(draw, dtypes=REAL_DTYPES, shapes=SHAPES) -> np.ndarray:
    """A NumPy array of one of ``dtypes``, 0-d to 4-d, possibly empty or above the threshold."""
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shapes)
    n = math.prod(shape)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype in COMPLEX_DTYPES:
        real_dtype = "float32" if dtype == "complex64" else "float64"
        real, imag = _float_array(draw, real_dtype, n, rng), _float_array(draw, real_dtype, n, rng)
        values = np.empty(n, dtype=dtype)
        values.real, values.imag = real, imag
        return values.reshape(shape)
    if dtype in FLOAT_DTYPES:
        return _float_array(draw, dtype, n, rng).reshape(shape)
    return _int_array(draw, dtype, n, rng).reshape(shape)


@st.composite
def print_options(draw) -> dict:
    """Keyword arguments for ``set_printoptions``, defaults often, odd values sometimes."""

    def maybe(default, strategy):
        return draw(st.one_of(st.just(default), strategy))

    return {
        "precision": maybe(4, st.integers(0, 10)),
        "threshold": maybe(1000, st.one_of(st.integers(0, 80), st.sampled_from([math.inf, 1e9]))),
        "edgeitems": maybe(3, st.integers(0, 5)),
        "linewidth": maybe(80, st.integers(1, 160)),
        "sci_mode": draw(st.sampled_from([None, None, True, False])),
    }
