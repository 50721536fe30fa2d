"""``check("4.2")``: run one exercise's tests from a notebook cell and print a short verdict.

The tests run in a child process against the implementation this kernel uses (``PICOTORCH_IMPL``),
so a learner's edits to ``exercises/picotorch`` are picked up without restarting the kernel, and a
hanging solution only costs the time limit.
"""

from __future__ import annotations

from pathlib import Path

from picotorch_course import _paths, _switch, isolate, markers, runner


def chapter_test_dirs(chapter: int) -> list[Path]:
    """``tests/chNN_*`` folders of one chapter (``ch04_engine`` for 4)."""
    tests = _paths.tests_dir()
    return sorted(p for p in tests.glob(f"ch{chapter:02d}_*") if p.is_dir())


def test_paths_for(exercise_id: str) -> list[str]:
    """Where to look for an exercise's tests: its chapter's folders, else all of ``tests/``."""
    dirs = chapter_test_dirs(markers.id_key(exercise_id)[0])
    return [str(d) for d in dirs] or [str(_paths.tests_dir())]


def known(exercise_id: str) -> markers.Exercise:
    """The reference's exercise with this id; ValueError with the known ids otherwise."""
    exercises = markers.discover(_paths.reference_dir() / "picotorch")
    if exercise_id not in exercises:
        ids = ", ".join(sorted(exercises, key=markers.id_key)) or "(none)"
        raise ValueError(f"no exercise {exercise_id!r}; known exercises: {ids}")
    return exercises[exercise_id]


def run_exercise(exercise_id: str, impl: str | None = None, timeout: float = 120.0) -> runner.Run:
    """Run the tests marked with ``exercise_id`` under ``impl`` (default: the active one).

    Against the learner's exercises, every other unsolved exercise is filled in first
    (:mod:`picotorch_course.isolate`), so only this exercise's own work is judged.
    """
    known(exercise_id)
    impl = impl or _switch.requested()
    args = ["-q", "--exercise-id", exercise_id, *test_paths_for(exercise_id)]
    if impl != "exercises":
        return runner.run_pytest(args, impl, timeout)
    with isolate.learner_tree(lambda ex: ex.id == exercise_id) as tree:
        return runner.run_pytest(args, impl, timeout, isolate.env_for(tree))


def verdict(exercise: markers.Exercise, run: runner.Run, impl: str) -> tuple[bool, str]:
    """Whether the exercise passed, and the lines to print."""
    head = f"Exercise {exercise.id} ({exercise.task}) [{impl}]"
    passed, total = run.count("passed"), len(run.tests)
    if run.returncode == 5:
        return False, f"❌ {head}: no test is marked @pytest.mark.exercise({exercise.id!r}) yet"
    if run.problem and not (run.returncode == 1 and run.tests):
        return False, f"❌ {head}: {run.problem}"
    if run.returncode == 0 and passed:
        return True, f"✅ {head}: {passed}/{total} tests pass"
    return (
        False,
        f"❌ {head}: {total - passed} of {total} tests fail\n   {runner.first_failure(run.tests)}",
    )


def check(exercise_id: str, timeout: float = 120.0) -> bool:
    """Run and print; returns whether every test of the exercise passed."""
    exercise = known(exercise_id)
    impl = _switch.requested()
    ok, text = verdict(exercise, run_exercise(exercise_id, impl, timeout), impl)
    print(text)
    return ok
