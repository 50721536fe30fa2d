"""The one timing rule of the benchmarks: warm up once, then the median of ``repeats`` runs."""

from __future__ import annotations

import statistics
import time


def median_seconds(fn, repeats: int) -> float:
    fn()  # warm up (imports, caches)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
