"""How long ``import picotorch`` takes in a fresh interpreter, beside ``import numpy`` and ``import torch``, same run.

    .venv/bin/python bench/bench_import.py [--repeats N] [--modules picotorch,numpy,torch] [--compare-tree DIR]

``--compare-tree DIR`` adds a row for the picotorch of another checkout (``DIR/reference``), e.g. a
copy of main, to measure a change before and after in the same run.

Models nothing: it measures chapter 06's question, what ``import picotorch`` costs. Each round starts
one fresh ``python -c "import X"`` per module, taking turns (an empty ``python -c pass`` first: the
interpreter's own start-up, ``site`` and its ``.pth`` files), so a neighbour's burst on this shared
machine lands on every library alike. Two clocks per run: the subprocess's wall time (what a user
waits for) and the import statement alone, timed inside the child with ``time.perf_counter``; and the
same two as CPU time (the child's user + system time from ``getrusage``, and ``time.process_time``
around the import), which a loaded machine disturbs much less than the wall clock.
Medians of ``--repeats`` rounds after one warm-up round; compiled ``.pyc`` files are written and
used (``PYTHONDONTWRITEBYTECODE`` is dropped for the children), as on a learner's machine.
Where the time goes: ``picotorch_course.importtime.breakdown()`` (``python -X importtime``).
Not a test: nothing fails when it is slow.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

CHILD = ("import time; s, c = time.perf_counter(), time.process_time(); import {module}; "
         "print(time.perf_counter() - s, time.process_time() - c)")


def run_once(module: str | None, env: dict) -> tuple[float, float, float, float]:
    """Seconds: (subprocess wall, import statement wall, subprocess CPU, import statement CPU)."""
    code = "pass" if module is None else CHILD.format(module=module)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    inside_wall, inside_cpu = (float(x) for x in done.stdout.split()) if module is not None else (0.0, 0.0)
    return wall, inside_wall, cpu, inside_cpu


def available(module: str, env: dict) -> bool:
    return subprocess.run([sys.executable, "-c", f"import {module}"], env=env, capture_output=True).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--modules", default="picotorch,numpy,torch")
    parser.add_argument("--compare-tree", help="another checkout whose reference/picotorch gets a row too")
    args = parser.parse_args()
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    rows = {"python -c pass": (None, env)}
    for module in args.modules.split(","):
        if available(module, env):  # also the warm-up: .pyc written
            rows[f"import {module}"] = (module, env)
    if args.compare_tree:
        root = os.path.abspath(args.compare_tree)
        other = {**env, "PYTHONPATH": os.path.join(root, "reference"), "PICOTORCH_ROOT": root}
        available("picotorch", other)
        rows[f"import picotorch ({os.path.basename(root)})"] = ("picotorch", other)
    runs: dict[str, list[tuple[float, ...]]] = {label: [] for label in rows}
    for _ in range(args.repeats):
        for label, (module, module_env) in rows.items():
            runs[label].append(run_once(module, module_env))
    print(f"python {sys.version.split()[0]}, {args.repeats} rounds, medians (ms); "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'':<30} {'subprocess':>10} {'import':>8} | {'subprocess':>10} {'import':>8}")
    print(f"{'':<30} {'wall':>10} {'wall':>8} | {'CPU':>10} {'CPU':>8}")
    for label, times in runs.items():
        medians = [statistics.median(t[i] for t in times) * 1e3 for i in range(4)]
        print(f"{label:<30} {medians[0]:10.1f} {medians[1]:8.1f} | {medians[2]:10.1f} {medians[3]:8.1f}")


if __name__ == "__main__":
    main()
