"""How long ``repr(t)`` takes in picotorch, in PyTorch and in NumPy, in the same run.

    .venv/bin/python bench/bench_repr.py [--repeats N]

Models nothing: it measures ``picotorch/_tensor_str.py`` (chapter 01). Printing a big tensor should
cost about what PyTorch's costs, because both format only the summarised edge elements (NOTE
[Summarise before formatting]). Reports the median of N timings per case and the ratios
picotorch / torch and picotorch / numpy (``numpy.array_repr``; NumPy also summarises). Not a test:
timings depend on the machine, so nothing here fails.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import median_seconds

import picotorch

try:
    import torch
except ImportError:  # the comparison is optional
    torch = None

CASES = {
    "1-D float32, 10**7": lambda: np.random.default_rng(0).standard_normal(10**7).astype(np.float32),
    "1000x1000 float32": lambda: np.random.default_rng(1).standard_normal((1000, 1000)).astype(np.float32),
    "1000x1000 int64": lambda: np.arange(10**6, dtype=np.int64).reshape(1000, 1000),
    "100x100x100 float64": lambda: np.random.default_rng(2).uniform(0, 1e5, (100, 100, 100)),
    "3x4 float32 (small)": lambda: np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32),
    "30x30 float32 (900 shown)": lambda: np.random.default_rng(4).standard_normal((30, 30)).astype(np.float32),
}


def bench_case(array: np.ndarray, repeats: int) -> dict[str, float]:
    ours = picotorch.tensor(array)
    results = {"picotorch": median_seconds(lambda: repr(ours), repeats)}
    results["numpy"] = median_seconds(lambda: np.array_repr(array), repeats)
    if torch is not None:
        theirs = torch.from_numpy(array)
        assert repr(ours) == repr(theirs), "picotorch and torch print differently"
        results["torch"] = median_seconds(lambda: repr(theirs), repeats)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=51)
    args = parser.parse_args()
    print(f"median of {args.repeats} runs; torch: {torch.__version__ if torch else 'not installed'}")
    print(f"{'case':28} {'picotorch':>11} {'torch':>11} {'numpy':>11} {'/torch':>7} {'/numpy':>7}")
    for name, make in CASES.items():
        r = bench_case(make(), args.repeats)
        t = r.get("torch", float("nan"))
        print(
            f"{name:28} {r['picotorch'] * 1e6:9.1f}us {t * 1e6:9.1f}us {r['numpy'] * 1e6:9.1f}us "
            f"{r['picotorch'] / t:6.2f}x {r['picotorch'] / r['numpy']:6.2f}x"
        )


if __name__ == "__main__":
    main()
