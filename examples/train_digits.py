"""Train an MLP on the handwritten digits with picotorch — or, unchanged, with PyTorch.

    python examples/train_digits.py                    # picotorch, Adam, 10 epochs
    python examples/train_digits.py --torch            # the very same program on PyTorch
    python examples/train_digits.py --optimizer sgd    # SGD with momentum 0.9
    python examples/train_digits.py --plot curves.png  # the loss and accuracy curves as a picture

The data are the 1,797 8x8 images scikit-learn ships (no download; ``pip install "picotorch[data]"``).
Everything below ``train`` is an ordinary PyTorch training loop: ``DataLoader`` → model → ``cross_entropy``
→ ``backward`` → ``optimizer.step()``. It receives the library as ``torch``, so the same lines run on both.

Both libraries start from the same weights and see the batches in the same order: the weights and the
shuffled order come from NumPy (seeded), not from each library's own random streams, which differ. With
that, picotorch's loss follows PyTorch's step for step (``tests/ch08_training/test_training_parity_vs_torch.py``
asserts it to float32 tolerance).
"""

from __future__ import annotations

import argparse
import importlib
import time
from dataclasses import dataclass, field

import numpy as np

HIDDEN = 128
CLASSES = 10


@dataclass
class History:
    """What one run measured: the loss of every step, and per epoch the mean loss and test accuracy."""

    step_loss: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=list)
    test_accuracy: list[float] = field(default_factory=list)
    seconds: float = 0.0


def digits(seed: int = 0, test_fraction: float = 0.2) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(x_train, y_train, x_test, y_test)`` as NumPy arrays: float32 pixels in [0, 1], int64 labels."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as error:
        raise SystemExit('this example needs scikit-learn, which ships the digits: pip install "picotorch[data]"') \
            from error
    data = load_digits()
    x, y = (data.data / 16.0).astype(np.float32), data.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]


def initial_weights(seed: int = 0, sizes: tuple[int, ...] = (64, HIDDEN, CLASSES)) -> dict[str, np.ndarray]:
    """The MLP's first weights as a ``state_dict`` of NumPy arrays, drawn as ``nn.Linear`` draws them:
    uniform in ±1/sqrt(fan_in) (PyTorch's default, ``kaiming_uniform_`` with a=sqrt(5))."""
    rng = np.random.default_rng(seed)
    weights = {}
    for i, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
        bound = 1 / np.sqrt(fan_in)
        weights[f"{2 * i}.weight"] = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        weights[f"{2 * i}.bias"] = rng.uniform(-bound, bound, fan_out).astype(np.float32)
    return weights


class NumpyShuffle:
    """A sampler whose order each epoch is a NumPy permutation: the same on picotorch and PyTorch.

    (``DataLoader(shuffle=True, generator=torch.Generator().manual_seed(s))`` would give both the same order
    too, picotorch's generator being PyTorch's; this sampler keeps the order independent of the libraries.)"""

    def __init__(self, n: int, seed: int) -> None:
        self.n, self.rng = n, np.random.default_rng(seed)

    def __iter__(self):
        return iter(self.rng.permutation(self.n).tolist())

    def __len__(self) -> int:
        return self.n


def make_model(torch):
    return torch.nn.Sequential(
        torch.nn.Linear(64, HIDDEN),
        torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, CLASSES),
    )


def make_optimizer(torch, parameters, name: str, lr: float | None = None):
    if name == "adam":
        return torch.optim.Adam(parameters, lr=lr or 1e-3)
    if name == "sgd":
        return torch.optim.SGD(parameters, lr=lr or 0.05, momentum=0.9)
    raise SystemExit(f"--optimizer must be adam or sgd, not {name!r}")


def accuracy(torch, model, x, y) -> float:
    with torch.no_grad():
        predicted = model(x).argmax(dim=1)
    return (predicted == y).float().mean().item()


def train(torch, *, optimizer: str = "adam", epochs: int = 10, steps: int | None = None, batch_size: int = 32,
          lr: float | None = None, seed: int = 0) -> tuple[object, History]:
    """Train the MLP with ``torch`` (picotorch or PyTorch); returns the model and its ``History``.

    ``steps`` stops after that many optimizer steps (the parity test's short runs)."""
    x_train, y_train, x_test, y_test = digits(seed)
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, sampler=NumpyShuffle(len(dataset), seed))
    model = make_model(torch)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in initial_weights(seed).items()})
    opt = make_optimizer(torch, model.parameters(), optimizer, lr)
    history, start = History(), time.perf_counter()
    for _ in range(epochs):
        total, seen = 0.0, 0
        for images, labels in loader:
            loss = torch.nn.functional.cross_entropy(model(images), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            value = loss.item()
            history.step_loss.append(value)
            total, seen = total + value * len(labels), seen + len(labels)
            if len(history.step_loss) == steps:
                break
        history.epoch_loss.append(total / seen)
        history.test_accuracy.append(accuracy(torch, model, torch.from_numpy(x_test), torch.from_numpy(y_test)))
        if len(history.step_loss) == steps:
            break
    history.seconds = time.perf_counter() - start
    return model, history


def plot(histories: dict[str, History], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
    for name, h in histories.items():
        left.plot(h.step_loss, label=name, alpha=0.8)
        right.plot(range(1, len(h.test_accuracy) + 1), h.test_accuracy, marker="o", label=name)
    left.set(xlabel="step", ylabel="cross-entropy loss", title="training loss per step")
    right.set(xlabel="epoch", ylabel="test accuracy", title="accuracy on the held-out fifth of the digits")
    for ax in (left, right):
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", action="store_true", help="run on PyTorch instead of picotorch")
    parser.add_argument("--optimizer", default="adam", choices=["adam", "sgd"])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=None, help="default: 1e-3 for Adam, 0.05 for SGD")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", metavar="PNG", help="write the loss and accuracy curves to this file")
    args = parser.parse_args(argv)
    library = importlib.import_module("torch" if args.torch else "picotorch")
    print(f"training a 64-{HIDDEN}-{CLASSES} MLP on the digits with {library.__name__} {library.__version__}, "
          f"{args.optimizer}, batch {args.batch_size}")
    _, history = train(library, optimizer=args.optimizer, epochs=args.epochs, batch_size=args.batch_size,
                       lr=args.lr, seed=args.seed)
    for epoch, (loss, acc) in enumerate(zip(history.epoch_loss, history.test_accuracy), 1):
        print(f"epoch {epoch:2d}  loss {loss:.4f}  test accuracy {acc:.1%}")
    print(f"{len(history.step_loss)} steps in {history.seconds:.1f}s")
    if args.plot:
        plot({library.__name__: history}, args.plot)


if __name__ == "__main__":
    main()
