"""How much a Python reference implementation costs: one MLP training step and a deep backward.

Run: ``.venv/bin/python bench/bench_ops.py``. Prints medians over repeats and ratios to real PyTorch
(CPU) and to a hand-written NumPy version of the same step, all measured in this run. This is a
benchmark, not a test: nothing fails when it is slow.
"""

from __future__ import annotations

import numpy as np
from _timing import median_seconds

import picotorch

try:
    import torch
except ImportError:  # the comparison is optional
    torch = None

BATCH, IN, HIDDEN, OUT = 64, 32, 64, 1
REPEATS = 30


def mlp_step(T):
    rng = np.random.default_rng(0)
    model = T.nn.Sequential(T.nn.Linear(IN, HIDDEN), T.nn.ReLU(), T.nn.Linear(HIDDEN, OUT))
    opt = T.optim.SGD(model.parameters(), lr=1e-3)
    x = T.tensor(rng.standard_normal((BATCH, IN)), dtype=T.float32)
    y = T.tensor(rng.standard_normal((BATCH, OUT)), dtype=T.float32)

    def step():
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    return step


def numpy_mlp_step():
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((HIDDEN, IN)) / np.sqrt(IN)).astype(np.float32)
    w2 = (rng.standard_normal((OUT, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32)
    b1, b2 = np.zeros(HIDDEN, np.float32), np.zeros(OUT, np.float32)
    x = rng.standard_normal((BATCH, IN)).astype(np.float32)
    y = rng.standard_normal((BATCH, OUT)).astype(np.float32)

    def step():
        h = x @ w1.T + b1
        a = np.maximum(h, 0)
        out = a @ w2.T + b2
        g_out = 2 * (out - y) / out.size
        g_w2, g_b2 = g_out.T @ a, g_out.sum(0)
        g_h = (g_out @ w2) * (h > 0)
        g_w1, g_b1 = g_h.T @ x, g_h.sum(0)
        for p, g in ((w1, g_w1), (b1, g_b1), (w2, g_w2), (b2, g_b2)):
            p -= 1e-3 * g
    return step


def deep_chain(T, length: int = 2000):
    def run():
        x = T.ones(3, requires_grad=True)
        y = x
        for _ in range(length):
            y = y * 1.0001
        y.sum().backward()
    return run


def report(name: str, ours: float, theirs: float | None, numpy_time: float | None) -> None:
    line = f"{name:<28} picotorch {ours * 1e3:8.3f} ms"
    if theirs is not None:
        line += f" | torch {theirs * 1e3:8.3f} ms | picotorch/torch {ours / theirs:6.1f}x"
    if numpy_time is not None:
        line += f" | numpy {numpy_time * 1e3:7.3f} ms | picotorch/numpy {ours / numpy_time:6.1f}x"
    print(line)


def main() -> None:
    print(f"medians of {REPEATS} runs; torch {'absent' if torch is None else torch.__version__}")
    ours = median_seconds(mlp_step(picotorch), REPEATS)
    theirs = median_seconds(mlp_step(torch), REPEATS) if torch else None
    report(f"MLP step {BATCH}x{IN}-{HIDDEN}-{OUT}", ours, theirs, median_seconds(numpy_mlp_step(), REPEATS))
    ours = median_seconds(deep_chain(picotorch), 5)
    theirs = median_seconds(deep_chain(torch), 5) if torch else None
    report("2000-op chain fwd+bwd", ours, theirs, None)


if __name__ == "__main__":
    main()
