"""Central differences, for the finite-difference checks of the op tests (independent of autograd)."""

from __future__ import annotations

import numpy as np

import picotorch


def numeric_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d f / d x by central differences: ``f`` maps an array shaped like ``x`` to a Python number."""
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        grad[idx] = (f(hi) - f(lo)) / (2 * eps)
    return grad


def backward_and_numeric(fn, base: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
    """``fn``'s float64 gradient at ``base`` from picotorch's backward and from central differences, both
    against one random upstream gradient (``fn`` maps a picotorch tensor to a tensor)."""
    x = picotorch.tensor(base, dtype=picotorch.float64, requires_grad=True)
    out = fn(x)
    upstream = rng.standard_normal(tuple(out.shape))
    out.backward(picotorch.tensor(upstream, dtype=picotorch.float64))

    def total(shifted):
        with picotorch.no_grad():
            return (fn(picotorch.tensor(shifted, dtype=picotorch.float64)).numpy() * upstream).sum()
    return x.grad.numpy(), numeric_grad(total, base)
