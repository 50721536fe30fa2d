"""``check("4.2")``: run one exercise's tests from a notebook cell and print a short verdict.

The tests run in a child process against the implementation this kernel uses (``PICOTORCH_IMPL``),
so a learner's edits to ``exercises/picotorch`` are judged as they are on disk. Time limits: each
test gets ``timeout`` seconds (default 10), the whole exercise ``exercise_limit(timeout)``
(max(60 s, 6 × timeout)); a hang or a crash costs only that exercise, and the verdict says which
test and where in the learner's code.

Against the learner's exercises the tests see a prepared copy (:mod:`picotorch_course.isolate`):
other unsolved exercises filled in from the reference, and a learner file that does not compile or
import replaced by its generated version when it does not hold the exercise being checked — so a
syntax error in ``variable.py`` fails the exercises in ``variable.py`` with "SyntaxError in …", not
every exercise of the course.

A notebook kernel keeps the modules it imported. When the learner's file on disk is newer than
what this kernel imported, the verdict says to restart the kernel (``stale_modules``).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from picotorch_course import _paths, _switch, blocks, isolate, markers, runner

DEFAULT_TIMEOUT = 10.0
RESTART = "restart the kernel to use your edit in this notebook: Kernel → Restart"
IMPORT_RETRIES = 3


def exercise_limit(test_timeout: float) -> float:
    """The time limit of one exercise's whole run, for a given per-test limit."""
    return max(60.0, 6.0 * test_timeout)


def chapter_test_dirs(chapter: int) -> list[Path]:
    """``tests/chNN_*`` folders of one chapter (``ch04_engine`` for 4)."""
    tests = _paths.tests_dir()
    return sorted(p for p in tests.glob(f"ch{chapter:02d}_*") if p.is_dir())


def test_paths_for(exercise_id: str) -> list[str]:
    """Where to look for an exercise's tests: the files of its chapter's folders that name it
    (collecting only those keeps a check quick: other test files may import torch), else the
    chapter's folders, else all of ``tests/``."""
    dirs = chapter_test_dirs(markers.id_key(exercise_id)[0])
    marks = (f'exercise("{exercise_id}")', f"exercise('{exercise_id}')")
    files = [
        str(path)
        for folder in dirs
        for path in sorted(folder.rglob("test_*.py"))
        if any(mark in path.read_text(encoding="utf-8", errors="replace") for mark in marks)
    ]
    return files or [str(d) for d in dirs] or [str(_paths.tests_dir())]


def known(exercise_id: str) -> markers.Exercise:
    """The reference's exercise with this id; ValueError with the known ids otherwise."""
    exercises = markers.discover(_paths.reference_dir() / "picotorch")
    if exercise_id not in exercises:
        ids = ", ".join(sorted(exercises, key=markers.id_key)) or "(none)"
        raise ValueError(f"no exercise {exercise_id!r}; known exercises: {ids}")
    return exercises[exercise_id]


def run_exercise(exercise_id: str, impl: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> runner.Run:
    """Run the tests marked with ``exercise_id`` under ``impl`` (default: the active one).

    ``timeout`` is the per-test limit. Against the learner's exercises, the run sees a prepared
    copy (see the module docstring); when a test module fails to import because of another file
    of the learner's, that file is replaced by its generated version and the run repeated.
    """
    exercise = known(exercise_id)
    impl = impl or _switch.requested()
    args = ["-q", "--exercise-id", exercise_id, *test_paths_for(exercise_id)]
    limit = exercise_limit(timeout)
    if impl != "exercises":
        return runner.run_pytest(args, impl, limit, test_timeout=timeout)
    replace: set[str] = set()
    for _ in range(IMPORT_RETRIES + 1):
        with isolate.learner_tree(lambda ex: ex.id == exercise_id, replace=replace) as tree:
            run = runner.run_pytest(args, impl, limit, isolate.env_for(tree), test_timeout=timeout)
        broken = import_error_file(run)
        if broken is None or broken in replace or broken == isolate.file_of(exercise):
            return run
        replace.add(broken)
    return run


def import_error_file(run: runner.Run) -> str | None:
    """The learner's file (relative to the package) that made a test module fail to import."""
    for test in run.tests:
        if test.get("collection") and test.get("where"):
            return test["where"]["file"]
    return None


def exercise_location(exercise: markers.Exercise) -> str:
    """Where the learner's code for ``exercise`` starts (``exercises/picotorch/ops.py:7``), or ""."""
    rel = isolate.file_of(exercise)
    path = _paths.exercises_dir() / "picotorch" / rel
    generated = isolate.generated_files().get(rel)
    if generated is None or not path.is_file():
        return ""
    learner = path.read_text(encoding="utf-8")
    body = blocks.learner_bodies(generated.decode("utf-8"), learner).bodies.get(exercise.id) or []
    lines = learner.splitlines(keepends=True)
    starts = [i for i in range(len(lines) - len(body) + 1) if body and lines[i : i + len(body)] == body]
    if len(starts) != 1:
        return ""
    return f"{runner.shown_package('exercises')}/{rel}:{starts[0] + 1} (your code for {exercise.id})"


def failure_of(exercise: markers.Exercise, run: runner.Run) -> runner.Failure | None:
    """The run's first failure; when no frame of it is in the learner's package (a wrong value is
    returned, then asserted in the test), it points at the learner's code for the exercise."""
    failure = run.failure()
    if failure is not None and not failure.where and run.impl == "exercises" and run.collection_error() is None:
        failure.where = exercise_location(exercise)
    return failure


def verdict(exercise: markers.Exercise, run: runner.Run, impl: str) -> tuple[bool, str]:
    """Whether the exercise passed, and the lines to print."""
    head = f"Exercise {exercise.id} ({exercise.task}) [{impl}]"
    passed, total = run.count("passed"), run.total
    if run.returncode == 5 and run.skipped_modules:
        return False, f"❌ {head}: its test files were skipped: {'; '.join(run.skipped_modules)}"
    if run.returncode == 5:
        return False, f"❌ {head}: no test is marked @pytest.mark.exercise({exercise.id!r}) yet"
    if run.returncode == 0 and passed and not run.died:
        return True, f"✅ {head}: {passed}/{total} tests pass"
    failure = failure_of(exercise, run)
    if run.died or run.collection_error() is not None or not run.tests:
        summary = f"{passed} of {total} tests pass" if run.died and total else ""
        lines = failure.lines() if failure else [run.problem or "failed"]
        if failure and failure.test and lines[0].startswith(failure.test + ": "):
            lines[0] = lines[0][len(failure.test) + 2 :]
        text = f"❌ {head}: {lines[0]}" + (f" ({summary})" if summary else "")
        return False, "\n".join([text, *[f"   {line}" for line in lines[1:]]])
    lines = failure.lines() if failure else []
    return False, "\n".join([f"❌ {head}: {total - passed} of {total} tests fail", *[f"   {line}" for line in lines]])


def check(exercise_id: str, timeout: float = DEFAULT_TIMEOUT) -> bool:
    """Run and print; returns whether every test of the exercise passed."""
    exercise = known(exercise_id)
    impl = _switch.requested()
    ok, text = verdict(exercise, run_exercise(exercise_id, impl, timeout), impl)
    if impl == "exercises" and stale_modules():
        text += f"\n   {RESTART}"
    print(text)
    return ok


def stale_modules() -> list[str]:
    """Loaded ``picotorch`` modules of the learner's package whose file changed since this process imported it."""
    package = (_paths.exercises_dir() / "picotorch").resolve()
    stale = []
    for name, module in list(sys.modules.items()):
        if not (name == "picotorch" or name.startswith("picotorch.")):
            continue
        recorded = _switch.imported_files.get(name)
        filename = getattr(module, "__file__", None)
        if recorded is None or not filename:
            continue
        path = Path(filename).resolve()
        if not path.is_relative_to(package) or Path(recorded[0]).resolve() != path:
            continue
        current = hashlib.sha1(path.read_bytes()).hexdigest() if path.is_file() else None
        if current != recorded[1]:
            stale.append(name)
    return sorted(stale)
