"""A real data set with no download: the handwritten digits that scikit-learn ships.

``load_digits()`` reads the 1,797 8x8 images of the UCI optical digits set bundled inside scikit-learn
(``sklearn.datasets.load_digits``) and returns them as picotorch tensors. scikit-learn is an optional
extra: ``pip install "picotorch[data]"`` (or ``pip install scikit-learn``).
"""

from __future__ import annotations

import numpy as np

from ..._C import from_numpy
from .dataset import TensorDataset

MISSING = ("load_digits() needs scikit-learn, which ships the digits data set. "
           'Install it with: pip install "picotorch[data]"  (or: pip install scikit-learn)')


def load_digits(flatten: bool = False):
    """``(images, labels)``: float32 images in [0, 1] of shape (1797, 8, 8) (or (1797, 64) with
    ``flatten=True``) and int64 labels 0-9 of shape (1797,)."""
    try:
        from sklearn import datasets  # lazy: an optional third-party package
    except ImportError as error:
        raise ImportError(MISSING) from error
    digits = datasets.load_digits()
    images = (digits.images / 16.0).astype(np.float32)
    if flatten:
        images = images.reshape(len(images), -1)
    return from_numpy(np.ascontiguousarray(images)), from_numpy(digits.target.astype(np.int64))


def digits_dataset(flatten: bool = True) -> TensorDataset:
    """The digits as a ``TensorDataset`` of ``(image, label)`` pairs, flattened to 64 features by default."""
    return TensorDataset(*load_digits(flatten=flatten))
