"""What ``import picotorch`` costs, module by module: ``python -X importtime``, read and grouped (chapter 06).

``python -X importtime -c "import picotorch"`` prints one line per module as its import finishes:
the microseconds spent in the module's own code (*self*) and with everything it imported
(*cumulative*), indented by nesting depth; a module is listed after the modules it imported.
:func:`breakdown` runs it in a fresh subprocess and keeps the subtree of the imported module (what
start-up, ``site`` and its ``.pth`` files imported earlier is left out), then sums the self times by
group — ``numpy``, ``array_api_compat``, ``picotorch._generated``, ``picotorch.nn``, ..., ``stdlib``::

    from picotorch_course.importtime import breakdown
    times = breakdown()
    times.total_us     # the imported module's cumulative microseconds
    times.groups[:3]   # e.g. [("numpy", 61234), ("stdlib", 14020), ("array_api_compat", 9120)]

The numbers come from one run on a shared machine: compare groups within a run, not across runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from typing import NamedTuple

_PREFIX = "import time:"


class ModuleTime(NamedTuple):
    """One line of ``-X importtime``."""

    name: str
    self_us: int
    cumulative_us: int
    depth: int  # 0 for a module imported at top level, 1 for one it imported, ...


class ImportTimes(NamedTuple):
    """The subtree of one top-level import: its modules in the order listed, and self times by group."""

    root: str
    total_us: int                       # the root's cumulative time
    modules: list[ModuleTime]           # the root's subtree, the root last
    groups: list[tuple[str, int]]       # (group, summed self microseconds), largest first


def breakdown(module: str = "picotorch", python: str = sys.executable, env: dict | None = None) -> ImportTimes:
    """Import ``module`` in a fresh ``python -X importtime`` subprocess and group what it cost."""
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure what a learner's second import costs: compiled files cached
    done = subprocess.run([python, "-X", "importtime", "-c", f"import {module}"], env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"import {module} failed:\n{done.stderr[-2000:]}")
    return subtree(parse(done.stderr), module)


def parse(text: str) -> list[ModuleTime]:
    """The ``import time:`` lines of ``-X importtime`` output (the header line and anything else skipped)."""
    found = []
    for line in text.splitlines():
        if not line.startswith(_PREFIX):
            continue
        own, cumulative, name = line[len(_PREFIX):].split("|")
        if not own.strip().isdigit():
            continue  # the header: "self [us] | cumulative | imported package"
        indent = len(name) - len(name.lstrip(" "))
        found.append(ModuleTime(name.strip(), int(own), int(cumulative), (indent - 1) // 2))
    return found


def subtree(modules: list[ModuleTime], root: str) -> ImportTimes:
    """The lines of ``root``'s import: back from its own top-level line to the previous top-level one."""
    end = max(i for i, m in enumerate(modules) if m.depth == 0 and m.name == root)
    start = end
    while start > 0 and modules[start - 1].depth > 0:
        start -= 1
    lines = modules[start:end + 1]
    totals: dict[str, int] = defaultdict(int)
    for m in lines:
        totals[group_of(m.name)] += m.self_us
    groups = sorted(totals.items(), key=lambda item: -item[1])
    return ImportTimes(root, modules[end].cumulative_us, lines, groups)


def group_of(name: str) -> str:
    """``picotorch.<part>`` for picotorch's modules, ``stdlib`` for the standard library, else the package."""
    parts = name.split(".")
    if parts[0] == "picotorch":
        return ".".join(parts[:2])
    if parts[0] in sys.stdlib_module_names or parts[0].startswith("_"):
        return "stdlib"
    return parts[0]
