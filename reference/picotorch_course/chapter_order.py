"""The chapter-order proof: notebooks come to life in chapter order, as a learner solves exercises.

A learner works in ``exercises`` mode in JupyterLab, where nothing fills in the exercises they have
not reached yet. So the course promises: with the exercises of chapters ≤ N solved and every later
one still a stub, notebooks 00 … N run top to bottom without an error, and every check cell in them
shows ✅. This holds only if each exercise sits on the path of its own chapter's feature (the rule
in ``docs/CONTRIBUTING_INTERNALS.md``); this module proves it:

1. write a learner tree with the exercises of chapters ≤ N solved (the reference's lines) and the
   later ones as stubs — exactly what the generator writes, minus the solved stubs;
2. execute notebook N in it, in a fresh kernel, with ``PICOTORCH_IMPL=exercises``: the learner's first
   run of that notebook, with every later exercise still a stub; and execute every notebook once more
   in the tree with everything solved;
3. a cell that raised, or an output with ❌, fails that (notebook, N) pair.

Between the two, a notebook P runs in trees where some exercises of chapters after P are solved too:
those differ from its first run only by blocks holding the reference's own lines, which the run with
everything solved (and nbval, on the reference) executes. So each notebook runs twice, not once per
later chapter: with eight chapters that is 15 runs instead of 36, which keeps ``make test`` inside CI's
budget.

Runs go two at a time (the machine has two cores; each run is mostly a waiting kernel).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from picotorch_course import _paths, _switch, generate, markers, runner


@dataclass
class NotebookRun:
    """One notebook executed in a learner tree solved up to chapter ``solved_upto``."""

    notebook: str
    solved_upto: int
    problem: str | None  # None when every cell ran and no check cell showed ❌
    seconds: float


def chapters_with_notebooks() -> list[int]:
    """Chapter numbers that have a notebook (``NN_name.ipynb``), in order."""
    found = {int(m[1]) for p in _paths.notebooks_dir().glob("*.ipynb") if (m := re.match(r"(\d+)_", p.name))}
    return sorted(found)


def write_learner_tree(folder: Path, solved_upto: int) -> list[str]:
    """Write ``folder/picotorch`` with chapters ≤ ``solved_upto`` solved; returns the stubbed ids."""
    reference = _paths.reference_dir()
    exercises = markers.discover(reference / "picotorch")
    solved = frozenset(ex_id for ex_id, ex in exercises.items() if ex.chapter <= solved_upto)
    generate.write_tree(generate.expected_files(reference, solved), folder)
    return sorted(set(exercises) - solved, key=markers.id_key)


def execute(notebook: Path, tree: Path, solved_upto: int, out_dir: Path, timeout: float) -> NotebookRun:
    """Execute ``notebook`` in exercises mode against ``tree``; judge its outputs."""
    output = out_dir / f"{notebook.stem}.upto{solved_upto}.ipynb"
    cmd = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
           f"--ExecutePreprocessor.timeout={int(timeout)}", "--output", str(output), str(notebook)]
    env = _switch.subprocess_env("exercises", {**os.environ, "PICOTORCH_EXERCISES_DIR": str(tree)})
    start = time.monotonic()
    log = out_dir / f"{notebook.stem}.upto{solved_upto}.log"
    returncode, text, timed_out = runner.run_process(cmd, env, timeout * 4, log)
    seconds = time.monotonic() - start
    if timed_out:
        problem = f"timed out after {seconds:.0f}s"
    elif returncode != 0:
        problem = _cell_error(text)
    else:
        problem = _failed_checks(output)
    return NotebookRun(notebook.name, solved_upto, problem, seconds)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b")


def _cell_error(nbconvert_output: str) -> str:
    """The failing cell's first line of code and the exception, from nbconvert's error report."""
    lines = _ANSI.sub("", nbconvert_output).splitlines()
    error = next((ln.strip() for ln in reversed(lines) if _EXCEPTION.match(ln.strip())), "an error")
    source = ""
    if "-" * 18 in lines:
        cell = lines[lines.index("-" * 18) + 1:]
        source = next((ln.strip() for ln in cell if ln.strip() and not ln.startswith("# NBVAL")), "")
    return f"cell `{source}` raised {error}"


def _failed_checks(executed: Path) -> str | None:
    """The first output line with ❌ in an executed notebook, if any."""
    notebook = json.loads(executed.read_text(encoding="utf-8"))
    for cell in notebook.get("cells", []):
        for out in cell.get("outputs", []):
            text = "".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", ""))
            for line in text.splitlines():
                if "❌" in line:
                    return f"check cell shows: {line.strip()}"
    return None


def prove(timeout: float = 300.0, workers: int = 2) -> list[NotebookRun]:
    """Execute each chapter's notebooks with that chapter solved and every later one a stub, then every
    notebook with all chapters solved (the module docstring says why these two suffice)."""
    chapters = chapters_with_notebooks()
    notebooks = {ch: sorted(_paths.notebooks_dir().glob(f"{ch:02d}_*.ipynb")) for ch in chapters}
    with tempfile.TemporaryDirectory(prefix="picotorch-order-") as tmp:
        jobs = []
        for n in chapters:
            tree = Path(tmp) / f"upto{n}"
            write_learner_tree(tree, n)
            last = n == chapters[-1]
            jobs += [(nb, tree, n) for p in chapters if (p <= n if last else p == n) for nb in notebooks[p]]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(execute, nb, tree, n, Path(tmp), timeout) for nb, tree, n in jobs]
            return [f.result() for f in futures]


def table(runs: list[NotebookRun]) -> str:
    """One line per chapter N: each notebook's mark; then the problems."""
    lines = []
    for n in sorted({r.solved_upto for r in runs}):
        row = [r for r in runs if r.solved_upto == n]
        marks = "  ".join(f"{r.notebook[:2]} {'✅' if r.problem is None else '❌'}" for r in row)
        lines.append(f"chapters ≤ {n} solved: {marks}")
    for r in runs:
        if r.problem:
            lines.append(f"  {r.notebook} with chapters ≤ {r.solved_upto} solved: {r.problem}")
    return "\n".join(lines)
