"""torch.utils.data against PyTorch: batching, drop_last, len, collate structures, errors, random_split.

picotorch's Generator draws a different stream from PyTorch's, so shuffled orders are compared as rules
(a permutation of the data set, one per epoch, reproducible from a seed), never draw for draw.
"""

from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import picotorch

torch = pytest.importorskip("torch")

Pair = namedtuple("Pair", "x y")


def _plain(obj):
    """A batch as nested Python/NumPy values plus type names, comparable across the two libraries."""
    if hasattr(obj, "numpy") and hasattr(obj, "dtype"):
        return ("tensor", str(obj.dtype), tuple(obj.shape), obj.numpy().tolist())
    if isinstance(obj, dict):
        return (type(obj).__name__, {k: _plain(v) for k, v in obj.items()})
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_plain(v) for v in obj])
    return obj


class Samples:
    """A data set of arbitrary Python samples, built per library."""

    def __init__(self, make, n):
        self.make, self.n = make, n

    def __getitem__(self, i):
        return self.make(i)

    def __len__(self):
        return self.n


SAMPLES = {
    "tensor_tuple": lambda T: lambda i: (T.tensor([float(i), i * 2.0]), T.tensor(i)),
    "numbers": lambda T: lambda i: (float(i) / 3, i, bool(i % 2)),
    "dict": lambda T: lambda i: {"x": T.full((2,), float(i)), "label": i, "name": f"s{i}"},
    "list": lambda T: lambda i: [i, [float(i), T.tensor(i, dtype=T.int32)]],
    "namedtuple": lambda T: lambda i: Pair(T.tensor([i, i], dtype=T.float64), i),
    "numpy": lambda T: lambda i: np.arange(3, dtype=np.float32) + i,
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
@pytest.mark.parametrize("n,batch_size,drop_last", [(7, 3, False), (7, 3, True), (6, 3, True), (2, 5, False)])
def test_batches_match_torch(kind, n, batch_size, drop_last):
    out = []
    for T in (picotorch, torch):
        loader = T.utils.data.DataLoader(Samples(SAMPLES[kind](T), n), batch_size=batch_size, drop_last=drop_last)
        out.append((len(loader), [_plain(b) for b in loader]))
    assert out[0] == out[1]


def test_tensor_dataset_and_unbatched_loader_match_torch():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((5, 3)).astype(np.float32), np.arange(5)
    out = []
    for T in (picotorch, torch):
        ds = T.utils.data.TensorDataset(T.tensor(x), T.tensor(y))
        out.append((len(ds), _plain(ds[2]), [_plain(b) for b in T.utils.data.DataLoader(ds, batch_size=None)],
                    [_plain(b) for b in T.utils.data.DataLoader(ds, batch_size=2)]))
    assert out[0] == out[1]


@settings(max_examples=20, deadline=None)
@given(n=hs.integers(1, 40), batch_size=hs.integers(1, 12), drop_last=hs.booleans(), seed=hs.integers(0, 2**31))
def test_shuffle_is_a_seeded_permutation_with_torchs_batch_sizes(n, batch_size, drop_last, seed):
    sizes = []
    for T in (picotorch, torch):
        ds = T.utils.data.TensorDataset(T.arange(n))
        loader = T.utils.data.DataLoader(ds, batch_size=batch_size, shuffle=True, drop_last=drop_last,
                                         generator=T.Generator().manual_seed(seed))
        epochs = [[b[0].tolist() for b in loader] for _ in range(2)]
        sizes.append((len(loader), [len(b) for b in epochs[0]]))
        for epoch in epochs:
            seen = [i for b in epoch for i in b]
            assert len(set(seen)) == len(seen) and set(seen) <= set(range(n))
            assert len(seen) == (n // batch_size) * batch_size if drop_last else sorted(seen) == list(range(n))
    assert sizes[0] == sizes[1]
    again = picotorch.utils.data.DataLoader(picotorch.utils.data.TensorDataset(picotorch.arange(n)),
                                            batch_size=batch_size, shuffle=True, drop_last=drop_last,
                                            generator=picotorch.Generator().manual_seed(seed))
    first = picotorch.utils.data.DataLoader(picotorch.utils.data.TensorDataset(picotorch.arange(n)),
                                            batch_size=batch_size, shuffle=True, drop_last=drop_last,
                                            generator=picotorch.Generator().manual_seed(seed))
    assert [b[0].tolist() for b in again] == [b[0].tolist() for b in first]


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.5, 0.5, 0.0], [0.34, 0.33, 0.33], [1, 1, 8], [10]])
def test_random_split_sizes_and_disjointness_match_torch(lengths):
    import warnings
    sizes = []
    for T in (picotorch, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parts = T.utils.data.random_split(range(10), lengths, generator=T.Generator().manual_seed(1))
        items = [list(p) for p in parts]
        assert sorted(i for part in items for i in part) == list(range(10))
        sizes.append(([len(p) for p in parts], [type(p).__name__ for p in parts], [str(w.message) for w in caught]))
    assert sizes[0] == sizes[1]


def _error(program, T):
    try:
        program(T)
    except Exception as e:  # noqa: BLE001 - the type is what we compare
        return type(e), str(e)
    return None


@pytest.mark.parametrize("program", [
    lambda T: T.utils.data.DataLoader(T.utils.data.TensorDataset(T.zeros(0, 2)), shuffle=True),
    lambda T: T.utils.data.DataLoader(range(3), batch_size=0),
    lambda T: T.utils.data.DataLoader(range(3), batch_size=-2),
    lambda T: T.utils.data.DataLoader(range(3), batch_size=None, drop_last=True),
    lambda T: T.utils.data.DataLoader(range(3), shuffle=True, sampler=[0, 1]),
    lambda T: T.utils.data.DataLoader(range(3), batch_size=2, batch_sampler=[[0, 1]]),
    lambda T: T.utils.data.DataLoader(range(3), num_workers=-1),
    lambda T: T.utils.data.TensorDataset(T.zeros(3), T.zeros(4)),
    lambda T: T.utils.data.random_split(range(10), [3, 3]),
    lambda T: T.utils.data.random_split(range(10), [1.5, -0.5]),
    lambda T: list(T.utils.data.DataLoader([[1, 2], [3]], batch_size=2)),
    lambda T: list(T.utils.data.DataLoader([object(), object()], batch_size=2)),
])
def test_bad_input_raises_torchs_errors(program):
    errors = [_error(program, T) for T in (picotorch, torch)]
    assert errors[0] is not None
    assert errors[0][0] == errors[1][0]
    assert errors[0][1].split(" at 0x")[0] == errors[1][1].split(" at 0x")[0]


def test_no_grad_and_inference_mode_turn_grad_mode_off_like_torch():
    for T in (picotorch, torch):
        x = T.ones(2, requires_grad=True)
        with T.no_grad():
            assert not (x * 2).requires_grad
        with T.inference_mode():
            assert not T.is_grad_enabled() and not (x * 2).requires_grad
        with T.inference_mode(False):
            assert T.is_grad_enabled()

        @T.inference_mode()
        def f(v):
            return v * 2
        assert not f(x).requires_grad and T.is_grad_enabled()


def test_load_digits_is_the_scikit_learn_set():
    sklearn = pytest.importorskip("sklearn.datasets")
    images, labels = picotorch.utils.data.datasets.load_digits()
    reference = sklearn.load_digits()
    assert tuple(images.shape) == (1797, 8, 8) and images.dtype == picotorch.float32
    assert tuple(labels.shape) == (1797,) and labels.dtype == picotorch.int64
    np.testing.assert_array_equal(images.numpy(), (reference.images / 16).astype(np.float32))
    np.testing.assert_array_equal(labels.numpy(), reference.target)
    flat = picotorch.utils.data.datasets.digits_dataset()
    assert len(flat) == 1797 and tuple(flat[0][0].shape) == (64,)
    assert 0.0 <= images.numpy().min() and images.numpy().max() == 1.0


def test_load_digits_names_the_install_command_when_scikit_learn_is_missing(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(ImportError, match=r'pip install "picotorch\[data\]"'):
        picotorch.utils.data.datasets.load_digits()
