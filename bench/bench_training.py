"""How fast a training loop runs: cross_entropy on a big batch, and an epoch on the digits, against torch and NumPy.

    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_training.py [--case loss,epoch] [--repeats N] [--profile]

Models nothing: it measures the two performance targets of issue 10, in the same run as real PyTorch (CPU)
and a hand-written NumPy version, one thread everywhere:

- **loss**: ``F.cross_entropy`` forward and backward on a 4096x1000 float32 batch (``log_softmax`` then
  ``nll_loss`` mean; the gradient of the logits), against NumPy written by hand (shift by the max, ``exp``,
  sum, ``log``; ``softmax - onehot`` over N): kernels dominate, so the ratio is the framework's overhead
  and the kernels' extra passes.
- **epoch**: one epoch over scikit-learn's digits (1797 images of 64 pixels): an MLP 64-128-10 with ReLU,
  batch 32, ``DataLoader(shuffle=True)`` over a ``TensorDataset``, ``cross_entropy``, ``Adam(lr=1e-3)``,
  ``zero_grad`` every step (57 steps): here the per-step overhead dominates.

The machine these run on is shared, so the libraries take turns: one warm-up of each, then ``--repeats``
rounds of one picotorch run, one torch run (and NumPy's): the median of each, and of the rounds'
ratios (runs seconds apart share the machine's load, so their ratio drifts less); the clock is the
process's CPU time (``time.process_time``: a busy neighbour stretches the wall clock of whichever library
runs at that moment, far less its CPU time; ``--wall`` for ``perf_counter``). ``--profile`` prints
cProfile's top functions of one picotorch run of each case (call counts are what to compare across
versions). Not a test: nothing fails when it is slow.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before NumPy loads its BLAS

import numpy as np  # noqa: E402

import picotorch  # noqa: E402

try:
    import torch
    torch.set_num_threads(1)
except ImportError:  # the comparison is optional
    torch = None

LOSS_SHAPE = (4096, 1000)
CLOCK = time.process_time


def interleaved_times(fns: dict, repeats: int) -> dict:
    """One warm-up of each, then ``repeats`` rounds running each once in turn: the seconds of each, by round."""
    for fn in fns.values():
        fn()
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = CLOCK()
            fn()
            times[name].append(CLOCK() - start)
    return times


def ratio(ours: list, theirs: list) -> float:
    """The median of the rounds' ratios: a round's runs are seconds apart, so they share the machine's load."""
    return statistics.median(a / b for a, b in zip(ours, theirs))


def _line(name: str, times: dict) -> None:
    """Medians, and the ratios of picotorch to the others (each the median of the rounds' ratios)."""
    ours = times["picotorch"]
    text = f"{name:<36} picotorch {statistics.median(ours) * 1e3:9.2f} ms"
    for other in ("torch", "numpy"):
        if other in times:
            text += (f" | {other} {statistics.median(times[other]) * 1e3:9.2f} ms"
                     f" | ratio {ratio(ours, times[other]):5.2f}x")
    print(text, flush=True)


# ----------------------------------------------------------------------------- loss


def _loss_data():
    rng = np.random.default_rng(0)
    logits = (rng.standard_normal(LOSS_SHAPE) * 3).astype(np.float32)
    return logits, rng.integers(0, LOSS_SHAPE[1], LOSS_SHAPE[0])


def loss_step(T):
    """``cross_entropy`` forward and backward; the gradient dropped after each step."""
    logits, targets = _loss_data()
    x = T.tensor(logits, requires_grad=True)
    t = T.tensor(targets)
    cross_entropy = T.nn.functional.cross_entropy

    def step():
        cross_entropy(x, t).backward()
        x.grad = None
    return step


def numpy_loss_step():
    """The same by hand: ``log_softmax``, the mean of the picked ``-log p``, then ``(softmax - onehot) / N``."""
    x, t = _loss_data()
    rows = np.arange(len(t))

    def step():
        shifted = x - x.max(axis=1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -log_p[rows, t].mean()
        grad = np.exp(log_p)
        grad[rows, t] -= 1
        grad /= len(t)
        return loss, grad
    return step


def bench_loss(repeats: int) -> None:
    fns = {"picotorch": loss_step(picotorch), "numpy": numpy_loss_step()}
    if torch:
        fns["torch"] = loss_step(torch)
    _line(f"cross_entropy fwd+bwd {LOSS_SHAPE[0]}x{LOSS_SHAPE[1]}", interleaved_times(fns, repeats))


# ----------------------------------------------------------------------------- epoch


def _digits():
    from sklearn import datasets  # lazy: an optional third-party package
    digits = datasets.load_digits()
    return (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int64)


def digits_epoch(T, images, labels):
    """One epoch of the issue's loop; the model, optimizer and loader are made once, as in a real run."""
    T.manual_seed(0)
    nn = T.nn
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = T.optim.Adam(model.parameters(), lr=1e-3)
    dataset = T.utils.data.TensorDataset(T.tensor(images), T.tensor(labels))
    loader = T.utils.data.DataLoader(dataset, batch_size=32, shuffle=True)
    cross_entropy = nn.functional.cross_entropy

    def epoch():
        for x, y in loader:
            optimizer.zero_grad()
            loss = cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        return loss
    return epoch


def bench_epoch(repeats: int) -> None:
    images, labels = _digits()
    fns = {"picotorch": digits_epoch(picotorch, images, labels)}
    if torch:
        fns["torch"] = digits_epoch(torch, images, labels)
    _line("digits epoch (57 steps of 32)", interleaved_times(fns, repeats))


# ----------------------------------------------------------------------------- profile


def profile(name: str, fn, top: int = 25) -> None:
    fn()  # warm up
    profiler = cProfile.Profile()
    profiler.runcall(fn)
    stats = pstats.Stats(profiler)
    print(f"\n--- cProfile of one picotorch {name}: {stats.total_calls} calls ---")
    stats.sort_stats("tottime").print_stats(top)


# ----------------------------------------------------------------------------- main


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="loss,epoch", help="comma-separated subset")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--profile", action="store_true", help="cProfile one picotorch run of each case")
    parser.add_argument("--wall", action="store_true", help="wall-clock time (perf_counter), not CPU time")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.perf_counter if args.wall else time.process_time
    cases = set(args.case.split(","))
    print(f"medians of {args.repeats} interleaved runs, {'wall' if args.wall else 'CPU'} time; "
          f"torch {'absent' if torch is None else torch.__version__}; numpy {np.__version__}; "
          f"python {sys.version.split()[0]}; OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}")
    if "loss" in cases:
        bench_loss(args.repeats)
    if "epoch" in cases:
        bench_epoch(args.repeats)
    if args.profile:
        if "loss" in cases:
            profile("cross_entropy step", loss_step(picotorch))
        if "epoch" in cases:
            profile("digits epoch", digits_epoch(picotorch, *_digits()))


if __name__ == "__main__":
    main()
