"""How fast the autograd engine and graph construction are, against PyTorch (CPU) and NumPy in the same run.

    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_engine.py [--quick] [--case chain,depth,wide,mlp] [--repeats N]

Models nothing: it measures chapter 04's engine (``autograd/engine.py``) and what builds the graph
(generated ``variable_type`` kernels, ``variable.set_history``, ``graph.Node``). The cases are those of
issue 9: a long chain of ``y = y * 1.0001 + 0.0001`` (per-op forward, per-node backward), depth (per-node
cost flat from 10**3 to 10**5 nodes; 10**6 completes with no recursion), a wide graph (1000 leaves each
used in 10 ops), and an MLP step (512x512 float32 against hand-written NumPy; 64x32-64-1 against torch).
Medians of ``--repeats`` runs (``_timing.median_seconds``), one thread everywhere. ``--quick`` runs
small sizes only. Not a test: nothing fails when it is slow.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before NumPy loads its BLAS

import numpy as np  # noqa: E402
from _timing import median_seconds  # noqa: E402

import picotorch  # noqa: E402

try:
    import torch
    torch.set_num_threads(1)
except ImportError:  # the comparison is optional
    torch = None


def _line(name: str, ours: float, theirs: float | None, unit: str = "us", scale: float = 1e6,
          other: tuple[str, float] | None = None) -> None:
    text = f"{name:<40} picotorch {ours * scale:10.3f} {unit}"
    if theirs is not None:
        text += f" | torch {theirs * scale:10.3f} {unit} | ratio {ours / theirs:5.2f}x"
    if other is not None:
        text += f" | {other[0]} {other[1] * scale:10.3f} {unit} | ratio {ours / other[1]:5.2f}x"
    print(text, flush=True)


# ----------------------------------------------------------------------------- chain


def _chain_forward(T, n: int):
    y = T.ones(1, requires_grad=True)
    for _ in range(n):
        y = y * 1.0001 + 0.0001
    return y


def chain_times(T, n: int, repeats: int) -> tuple[float, float]:
    """Median forward time per op and backward time per node (2n ops and nodes) of the chain."""
    forward, backward = [], []
    _chain_forward(T, min(n, 1000)).backward()  # warm up
    for _ in range(repeats):
        start = time.perf_counter()
        y = _chain_forward(T, n)
        middle = time.perf_counter()
        y.backward()
        end = time.perf_counter()
        del y
        forward.append((middle - start) / (2 * n))
        backward.append((end - middle) / (2 * n))
    return statistics.median(forward), statistics.median(backward)


def bench_chain(sizes, repeats: int) -> None:
    for n in sizes:
        reps = max(1, repeats if n <= 10**4 else repeats // 3)
        ours = chain_times(picotorch, n, reps)
        theirs = chain_times(torch, n, reps) if torch else (None, None)
        _line(f"chain N={n:.0e} forward per op", ours[0], theirs[0])
        _line(f"chain N={n:.0e} backward per node", ours[1], theirs[1])


# ----------------------------------------------------------------------------- depth


def depth_time(T, n: int) -> float:
    """Forward, backward and freeing the graph of a chain of n steps: seconds per step."""
    start = time.perf_counter()
    y = _chain_forward(T, n)
    y.backward()
    del y  # frees the whole graph: must not recurse
    return (time.perf_counter() - start) / n


def bench_depth(sizes, repeats: int) -> None:
    per_node = {}
    for n in sizes:
        reps = max(1, repeats if n <= 10**4 else (3 if n <= 10**5 else 1))
        per_node[n] = statistics.median(depth_time(picotorch, n) for _ in range(reps))
        theirs = statistics.median(depth_time(torch, n) for _ in range(reps)) if torch else None
        _line(f"depth N={n:.0e} fwd+bwd+free per step", per_node[n], theirs)
    small, large = min(per_node), max(per_node)
    if large != small:
        print(f"{'depth per-step cost N=' + format(large, '.0e') + ' / N=' + format(small, '.0e'):<40} "
              f"{per_node[large] / per_node[small]:5.2f}x", flush=True)
    print(f"{'gc collections (gen0, gen1, gen2)':<40} {[s['collections'] for s in gc.get_stats()]}")


# ----------------------------------------------------------------------------- wide


def wide_graph(T, leaves: int = 1000, uses: int = 10):
    xs = [T.full((1,), float(i + 1), requires_grad=True) for i in range(leaves)]

    def build():
        return T.stack([x * float(k + 1) for x in xs for k in range(uses)]).sum()
    return build


def bench_wide(repeats: int) -> None:
    results = []
    for T in (picotorch, torch) if torch else (picotorch,):
        build = wide_graph(T)
        fwd = median_seconds(build, repeats)
        bwd = median_seconds_of_backward(build, repeats)
        results.append((fwd, bwd))
    theirs = results[1] if torch else (None, None)
    _line("wide 1000x10 forward", results[0][0], theirs[0], "ms", 1e3)
    _line("wide 1000x10 backward", results[0][1], theirs[1], "ms", 1e3)


def median_seconds_of_backward(build, repeats: int) -> float:
    build().backward()
    times = []
    for _ in range(repeats):
        loss = build()
        start = time.perf_counter()
        loss.backward()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# ----------------------------------------------------------------------------- MLP


def mlp_step(T, batch: int, sizes: tuple[int, ...]):
    """One forward+backward step of Linear-ReLU-Linear, mean of the output (no optimizer)."""
    rng = np.random.default_rng(0)
    model = T.nn.Sequential(T.nn.Linear(sizes[0], sizes[1]), T.nn.ReLU(), T.nn.Linear(sizes[1], sizes[2]))
    x = T.tensor(rng.standard_normal((batch, sizes[0])), dtype=T.float32)

    def step():
        for p in model.parameters():
            p.grad = None
        model(x).mean().backward()
    return step


def numpy_mlp_step(batch: int, sizes: tuple[int, ...]):
    """The same step by hand: forward, then the gradient of every weight and bias."""
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((sizes[1], sizes[0])) / np.sqrt(sizes[0])).astype(np.float32)
    w2 = (rng.standard_normal((sizes[2], sizes[1])) / np.sqrt(sizes[1])).astype(np.float32)
    b1, b2 = np.zeros(sizes[1], np.float32), np.zeros(sizes[2], np.float32)
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)

    def step():
        h = x @ w1.T + b1
        a = np.maximum(h, 0)
        out = a @ w2.T + b2
        g_out = np.full_like(out, 1.0 / out.size)
        g_w2, g_b2 = g_out.T @ a, g_out.sum(0)
        g_h = (g_out @ w2) * (h > 0)
        g_w1, g_b1 = g_h.T @ x, g_h.sum(0)
        return g_w1, g_b1, g_w2, g_b2
    return step


def bench_mlp(repeats: int) -> None:
    """A step is milliseconds or less: many runs, in blocks that take turns (each block warms up first, so
    every step finds its own weights in cache as in a training loop), so a change of the machine's load
    while the case runs reaches all three medians alike: each ratio is of one moment."""
    for batch, sizes, blocks in ((64, (512, 512, 512), 4 * repeats), (64, (32, 64, 1), 20 * repeats)):
        name = f"MLP step {batch}x{sizes[0]}-{sizes[1]}-{sizes[2]}"
        steps = [mlp_step(picotorch, batch, sizes), numpy_mlp_step(batch, sizes)]
        if torch:
            steps.append(mlp_step(torch, batch, sizes))
        medians = medians_in_turns(steps, blocks)
        _line(name, medians[0], medians[2] if torch else None, other=("numpy", medians[1]))


def medians_in_turns(steps, blocks: int, block: int = 20, warm_up: int = 3) -> list[float]:
    """The median time of each step over ``blocks`` rounds; a round runs each step ``warm_up`` times untimed,
    then ``block`` times timed, in turn."""
    times = [[] for _ in steps]
    for _ in range(blocks):
        for step, kept in zip(steps, times):
            for _ in range(warm_up):
                step()
            for _ in range(block):
                start = time.perf_counter()
                step()
                kept.append(time.perf_counter() - start)
    return [statistics.median(kept) for kept in times]


# ----------------------------------------------------------------------------- main


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (about 10 s)")
    parser.add_argument("--case", default="chain,depth,wide,mlp", help="comma-separated subset")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args(argv)
    repeats = args.repeats or (3 if args.quick else 9)
    cases = set(args.case.split(","))
    sys.setrecursionlimit(1000)  # the default: deep graphs must not need more
    print(f"medians of {repeats} runs; torch {'absent' if torch is None else torch.__version__}; "
          f"numpy {np.__version__}; python {sys.version.split()[0]}; OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}")
    if "chain" in cases:
        bench_chain((10**3, 10**4) if args.quick else (10**3, 10**4, 10**5), repeats)
    if "depth" in cases:
        bench_depth((10**3, 10**4) if args.quick else (10**3, 10**5, 10**6), repeats)
    if "wide" in cases:
        bench_wide(repeats)
    if "mlp" in cases:
        bench_mlp(repeats)


if __name__ == "__main__":
    main()
