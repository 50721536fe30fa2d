"""The one timing rule of the benchmarks: warm up once, then the median of ``repeats`` runs."""

from __future__ import annotations

import statistics
import time


def median_seconds(fn, repeats: int, setup=None) -> float:
    """With ``setup``, each run first calls ``setup()``, untimed, and times ``fn(what setup returned)``."""

    def run() -> float:
        argument = setup() if setup is not None else None
        start = time.perf_counter()
        fn(argument) if setup is not None else fn()
        return time.perf_counter() - start

    run()  # warm up (imports, caches)
    return statistics.median(run() for _ in range(repeats))
