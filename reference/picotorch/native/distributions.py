"""The random in-place fills ``normal_`` and ``uniform_``.

Models ``aten/src/ATen/native/Distributions.cpp`` (the argument checks) with NumPy's generator in
place of PyTorch's Philox/MT19937: the values differ from PyTorch's, the shapes, dtypes, checks
and version bumps do not. The default generator is the one ``torch.manual_seed`` reseeds: the
factories (``_C/_factories.py``, a layer above) register it here.
"""

from __future__ import annotations

import numpy as np

from .helpers import shape_of, xp_dtype, xp_of

_default = {"rng": np.random.default_rng()}


def set_default_generator(rng) -> None:
    _default["rng"] = rng


def default_generator():
    return _default["rng"]


def normal_(self, mean=0, std=1, generator=None):
    _check_floating(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    _fill_from(self, _rng(generator).normal(mean, std, shape_of(self)))
    return self


def uniform_(self, from_=0, to=1, generator=None):
    _check_floating(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_:g} > to={to:g}")
    _fill_from(self, _rng(generator).uniform(from_, to, shape_of(self)))
    return self


def _check_floating(self, kernel: str) -> None:
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")


def _rng(generator):
    """A ``torch.Generator``-like object's NumPy generator (its ``_rng``), a NumPy generator, or the default."""
    if generator is None:
        return _default["rng"]
    return getattr(generator, "_rng", generator)


def _fill_from(self, values: np.ndarray) -> None:
    xp = xp_of(self)
    self._data[...] = xp.asarray(values.astype(np.dtype(self._dtype.name)), dtype=xp_dtype(xp, self._dtype),
                                 device=self._data.device)
