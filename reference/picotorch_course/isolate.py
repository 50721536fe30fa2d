"""Grading one exercise (or one chapter) at a time.

Exercises are parts of picotorch itself, so an unsolved exercise in chapter 2 breaks tests of
chapter 0 that happen to run a backward pass. To grade only what is being graded, the checker and
the grader run against a copy of the learner's tree in which every *other* exercise that still has
its stub line gets the reference solution (the reference ships with the course anyway). Exercises
the learner has already written are left exactly as they are.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from picotorch_course import _paths, markers


def _solution_lines(ex: markers.Exercise) -> list[str]:
    """The reference lines between the BEGIN and END markers of ``ex``."""
    lines = ex.path.read_text(encoding="utf-8").splitlines(keepends=True)
    return lines[ex.begin : ex.end - 1]


def fill_stubs(package: Path, learner_keeps: Callable[[markers.Exercise], bool]) -> list[str]:
    """Replace, in ``package``, each stub whose exercise ``learner_keeps`` rejects; returns their ids."""
    exercises = markers.discover(_paths.reference_dir() / "picotorch")
    stubs = {ex.stub: ex for ex in exercises.values() if not learner_keeps(ex)}
    filled = []
    for path in sorted(package.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        out = []
        for line in lines:
            ex = stubs.get(line if line.endswith("\n") else line + "\n")
            if ex is None:
                out.append(line)
            else:
                out.extend(_solution_lines(ex))
                filled.append(ex.id)
        if len(out) != len(lines) or filled:
            path.write_text("".join(out), encoding="utf-8")
    return sorted(filled, key=markers.id_key)


@contextlib.contextmanager
def learner_tree(learner_keeps: Callable[[markers.Exercise], bool]) -> Iterator[Path]:
    """A temporary copy of ``exercises/`` with the other exercises filled in; yields its folder."""
    source = _paths.exercises_dir() / "picotorch"
    with tempfile.TemporaryDirectory(prefix="picotorch-grade-") as tmp:
        shutil.copytree(source, Path(tmp) / "picotorch", ignore=shutil.ignore_patterns("__pycache__"))
        fill_stubs(Path(tmp) / "picotorch", learner_keeps)
        yield Path(tmp)


def env_for(tree: Path) -> dict[str, str]:
    return {"PICOTORCH_EXERCISES_DIR": str(tree)}
