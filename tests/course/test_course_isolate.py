"""Grading one exercise alone: the other unsolved exercises are filled in from the reference."""

from picotorch_course import _paths, checker, generate, isolate, markers


def _copy_exercises(tmp_path):
    """A fresh learner copy (never the learner's own exercises/, which they may have edited)."""
    generate.write_tree(generate.expected_files(_paths.reference_dir()), tmp_path)
    return tmp_path / "picotorch"


def test_fill_stubs_replaces_only_the_rejected_exercises(tmp_path):
    package = _copy_exercises(tmp_path)
    filled = isolate.fill_stubs(package, lambda ex: ex.id == "0.1")
    exercises = markers.discover(_paths.reference_dir() / "picotorch")
    assert filled == sorted(set(exercises) - {"0.1"}, key=markers.id_key)
    text = (package / "native" / "checks.py").read_text()
    assert exercises["0.1"].stub in text
    assert exercises["0.2"].stub not in (package / "autograd" / "functions_manual.py").read_text()


def test_a_solved_exercise_passes_while_later_chapters_are_unsolved(tmp_path, monkeypatch):
    package = _copy_exercises(tmp_path)
    isolate.fill_stubs(package, lambda ex: ex.id != "0.2")  # the learner solved only 0.2
    monkeypatch.setenv("PICOTORCH_EXERCISES_DIR", str(tmp_path))
    solved = checker.run_exercise("0.2", "exercises", timeout=300)
    assert solved.returncode == 0 and solved.count("passed") > 0
    unsolved = checker.run_exercise("0.1", "exercises", timeout=300)
    assert unsolved.returncode == 1
    messages = [e["message"] for t in unsolved.tests for e in t.get("exceptions") or []]
    assert messages and all(m.startswith("Exercise 0.1:") for m in messages)
