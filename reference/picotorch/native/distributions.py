"""The random in-place fills ``normal_``, ``uniform_`` and ``bernoulli_``, and ``bernoulli``.

Models ``aten/src/ATen/native/Distributions.cpp`` (the argument checks) with NumPy's generator in
place of PyTorch's Philox/MT19937: the values differ from PyTorch's, the shapes, dtypes, checks
and version bumps do not. The default generator is the one ``torch.manual_seed`` reseeds: the
factories (``_C/_factories.py``, a layer above) register it here.
"""

from __future__ import annotations

import numpy as np

from .device import to_numpy
from .helpers import shape_of, xp_dtype, xp_of
from .tensor_impl import TensorImpl, new_tensor

_default = {"rng": None}  # made on first use: numpy.random is a good share of import time (chapter 06)


def set_default_generator(rng) -> None:
    _default["rng"] = rng


def default_generator():
    rng = _default["rng"]
    if rng is None:
        rng = _default["rng"] = np.random.default_rng()
    return rng


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
        return default_generator()
    return getattr(generator, "_rng", generator)


def _fill_from(self, values: np.ndarray) -> None:
    xp = xp_of(self)
    self._data[...] = xp.asarray(values.astype(np.dtype(self._dtype.name)), dtype=xp_dtype(xp, self._dtype),
                                 device=self._data.device)


# ----------------------------------------------------------------------------- bernoulli (dropout's mask)


def bernoulli(self, generator=None):
    """A new tensor of ``self``'s dtype: 1 with probability ``self[i]``, else 0."""
    p = _probabilities(self)
    if ((p < 0) | (p > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    xp = xp_of(self)
    values = (_rng(generator).random(p.shape) < p).astype(np.dtype(self._dtype.name))
    data = xp.asarray(values, dtype=xp_dtype(xp, self._dtype), device=self._data.device)
    return new_tensor(data, self._dtype, self._device)


def bernoulli_(self, p=0.5, generator=None):
    """In place: each element becomes 1 with probability ``p`` (a number, or a tensor broadcast to ``self``)."""
    if isinstance(p, TensorImpl):
        probabilities = np.broadcast_to(_probabilities(p), shape_of(self))
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        probabilities = p
    _fill_from(self, _rng(generator).random(shape_of(self)) < probabilities)
    return self


def _probabilities(t) -> np.ndarray:
    return np.asarray(to_numpy(t._data), dtype=np.float64)
