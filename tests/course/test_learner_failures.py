"""A learner tree that goes wrong in every way at once: each failure costs only its own exercise,
quickly, and says where in the learner's code.

One tiny project (tests/course/conftest.py's ``OPS`` plus three more files), generated once; the
learner's copy then holds: 1.1 wrong, 1.2 right, 1.3 ``while True: pass``, 1.4 ``os.abort()``,
1.5 ``sys.exit(3)``, 1.6 a syntax error. The package's ``__init__`` imports every file, so without
isolation the syntax error would break every test.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conftest import OPS, TESTS, write
from picotorch_course import checker, grader, runner
from picotorch_course.__main__ import main

TEST_TIMEOUT = 2.0

LOOPS = '''\
"""Three exercises a learner can get badly wrong."""


def spin(n):
    # BEGIN SOLUTION 1.3: count down from n to 0 and return the number of steps
    steps = 0
    while n > 0:
        n -= 1
        steps += 1
    return steps
    # END SOLUTION


def boom(x):
    # BEGIN SOLUTION 1.4: return x unchanged
    return x
    # END SOLUTION


def leave(x):
    # BEGIN SOLUTION 1.5: return x plus one
    return x + 1
    # END SOLUTION
'''

BROKEN = '''\
"""One exercise in a file of its own."""


def negate(x):
    # BEGIN SOLUTION 1.6: return minus x
    return -x
    # END SOLUTION
'''

MORE_TESTS = '''\
import pytest

from picotorch import broken, loops


@pytest.mark.exercise("1.3")
def test_spin():
    """spin(n) counts n steps down to zero."""
    assert loops.spin(3) == 3


@pytest.mark.exercise("1.4")
def test_boom():
    """boom returns its argument."""
    assert loops.boom(5) == 5


@pytest.mark.exercise("1.5")
def test_leave():
    """leave adds one."""
    assert loops.leave(1) == 2


@pytest.mark.exercise("1.6")
def test_negate():
    """negate flips the sign."""
    assert broken.negate(2) == -2


def test_chapter_uses_spin():
    assert loops.spin(0) == 0
'''

LEARNER = {  # file -> (stub text to replace, the learner's lines)
    "ops.py": [("Exercise 1.1", "return x + x + 1"), ("Exercise 1.2", "return 3 * x")],
    "loops.py": [
        ("Exercise 1.3", "while True:\n        pass"),
        ("Exercise 1.4", "import os\n    os.abort()"),
        ("Exercise 1.5", "import sys\n    sys.exit(3)"),
    ],
    "broken.py": [("Exercise 1.6", "return -x +")],
}


def _solve(package: Path) -> None:
    for name, edits in LEARNER.items():
        path = package / name
        lines = path.read_text().splitlines(keepends=True)
        for marker, body in edits:
            index = next(i for i, line in enumerate(lines) if marker in line)
            indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
            lines[index] = indent + body + "\n"
        path.write_text("".join(lines))


def line_of(project: Path, name: str, text: str) -> str:
    """``exercises/picotorch/<name>:<line>`` of the first line containing ``text``."""
    lines = (project / "exercises/picotorch" / name).read_text().splitlines()
    return f"exercises/picotorch/{name}:{next(i for i, line in enumerate(lines, 1) if text in line)}"


def next_line(where: str) -> str:
    path, line = where.rsplit(":", 1)
    return f"{path}:{int(line) + 1}"


@pytest.fixture(scope="module")
def learner(tmp_path_factory):
    """The project with the learner's tree described in the module docstring, and the environment set."""
    root = tmp_path_factory.mktemp("learner") / "proj"
    write(root / "reference/picotorch/__init__.py", '"""tiny picotorch"""\nfrom picotorch import broken, loops, ops\n')
    write(root / "reference/picotorch/ops.py", OPS)
    write(root / "reference/picotorch/loops.py", LOOPS)
    write(root / "reference/picotorch/broken.py", BROKEN)
    write(root / "tests/conftest.py", 'pytest_plugins = ["picotorch_course.pytest_plugin"]\n')
    write(root / "tests/ch01_ops/test_ops.py", TESTS)
    write(root / "tests/ch01_ops/test_more.py", MORE_TESTS)
    with pytest.MonkeyPatch.context() as mp:
        for var in ("PICOTORCH_REFERENCE_DIR", "PICOTORCH_EXERCISES_DIR"):
            mp.delenv(var, raising=False)
        mp.setenv("PICOTORCH_ROOT", str(root))
        mp.setenv("PICOTORCH_IMPL", "exercises")
        assert main(["exercises"]) == 0
        _solve(root / "exercises/picotorch")
        yield root


@pytest.fixture(scope="module")
def graded(learner):
    start = time.monotonic()
    items = grader.grade(1, "exercises", timeout=TEST_TIMEOUT)
    return {item.name.split(":")[0]: item for item in items}, time.monotonic() - start


def test_each_failure_costs_only_its_own_exercise_and_grading_is_quick(graded):
    items, seconds = graded
    assert {name: item.status for name, item in items.items()} == {
        "exercise 1.1": "fail",
        "exercise 1.2": "pass",
        "exercise 1.3": "error",
        "exercise 1.4": "error",
        "exercise 1.5": "fail",
        "exercise 1.6": "fail",
        "chapter 01 tests": "fail",
    }
    assert seconds < 60, f"grading took {seconds:.0f}s"


def test_a_hang_names_the_test_and_the_learners_line(learner, graded):
    item = graded[0]["exercise 1.3"]
    loop = line_of(learner, "loops.py", "while True")  # the dump catches the loop at either of its lines
    stuck = {f"{at} (spin)" for at in (loop, next_line(loop))}
    assert item.message.startswith("test_spin: timed out after 2s, stuck in ")
    assert item.message.removeprefix("test_spin: timed out after 2s, stuck in ") in stuck
    assert item.hint == "spin(n) counts n steps down to zero."
    assert item.seconds < 30


def test_an_abort_and_an_exit_are_reported_in_plain_words(learner, graded):
    abort, exit_ = graded[0]["exercise 1.4"], graded[0]["exercise 1.5"]
    where = line_of(learner, "loops.py", "os.abort()")
    assert abort.message == f"the Python process crashed (SIGABRT) while running test_boom, in {where} (boom)"
    assert abort.hint == "boom returns its argument."
    assert exit_.message == "test_leave: your code called sys.exit(3)"
    assert exit_.where == f"{line_of(learner, 'loops.py', 'sys.exit(3)')} (leave)"
    assert exit_.hint == "leave adds one."


def test_a_syntax_error_is_named_with_its_file_and_line(learner, graded):
    item = graded[0]["exercise 1.6"]
    assert item.message == f"SyntaxError in {line_of(learner, 'broken.py', 'return -x +')}: invalid syntax"


def test_a_wrong_value_shows_expected_and_got(learner, graded):
    item = graded[0]["exercise 1.1"]
    assert item.message.startswith("test_double: AssertionError: assert 5 == 4")
    assert "0x" not in item.message and "Use -v" not in item.message
    assert item.where == f"{line_of(learner, 'ops.py', 'return x + x + 1')} (your code for 1.1)"


def test_chapter_tests_need_the_failed_exercise_first(graded):
    item = graded[0]["chapter 01 tests"]
    assert item.needs == ["1.3"]
    assert item.message.startswith("needs 1.3 first: 1 of 2 tests reach the code of exercise 1.3")
    assert (item.passed, item.total) == (1, 2)


def test_check_of_another_file_is_not_broken_by_the_syntax_error(learner, capsys):
    assert checker.check("1.2", timeout=TEST_TIMEOUT) is True
    assert checker.check("1.6", timeout=TEST_TIMEOUT) is False
    out = capsys.readouterr().out
    assert "✅ Exercise 1.2 (return three times x) [exercises]: 1/1 tests pass" in out
    where = line_of(learner, "broken.py", "-x +")
    assert f"❌ Exercise 1.6 (return minus x) [exercises]: SyntaxError in {where}: invalid syntax" in out


def test_a_failing_notebook_cell_names_its_first_line_and_the_exception(project):
    import nbformat

    assert main(["exercises"]) == 0
    cell = nbformat.v4.new_code_cell("from picotorch import ops\nops.double(2)", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "4"}, execution_count=1)]
    notebook = project / "notebooks/01_ops.ipynb"
    notebook.parent.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), notebook)
    run = runner.run_pytest(["-q", "--nbval", str(notebook)], "exercises", 120, test_timeout=TEST_TIMEOUT)
    failure = run.failure()
    assert failure.summary() == [
        "Cell 0: `from picotorch import ops`: NotImplementedError: Exercise 1.1: return twice x"]
    assert failure.where == f"{line_of(project, 'ops.py', 'Exercise 1.1')} (double)"


def test_lines_are_the_learners_although_other_stubs_above_were_filled(project, monkeypatch, capsys):
    assert main(["exercises"]) == 0
    monkeypatch.setenv("PICOTORCH_IMPL", "exercises")
    ops = project / "exercises/picotorch/ops.py"  # 1.1 stays a stub: filled with two reference lines
    ops.write_text(ops.read_text().replace('raise NotImplementedError("Exercise 1.2: return three times x")',
                                           "import sys\n        sys.exit(4)"))
    assert checker.check("1.2", timeout=TEST_TIMEOUT) is False
    out = capsys.readouterr().out
    assert "test_triple: your code called sys.exit(4)" in out
    assert f"at {line_of(project, 'ops.py', 'sys.exit(4)')} (triple)" in out


def test_object_addresses_never_reach_a_message():
    from picotorch_course.pytest_plugin import sanitize

    text = "assert (<AccumulateGrad object at 0x7f3e1a2b>, (...c3935750>, 0)) is <function f at 0x7f00>"
    assert sanitize(text) == "assert (<AccumulateGrad object>, (...>, 0)) is <function f>"


def test_the_whole_run_limit_still_says_where_the_code_was(project):
    assert main(["exercises"]) == 0
    ops = project / "exercises/picotorch/ops.py"
    ops.write_text(ops.read_text().replace('raise NotImplementedError("Exercise 1.2: return three times x")',
                                           "import time\n        time.sleep(60)"))
    run = runner.run_pytest(["-q", "--exercise-id", "1.2", str(project / "tests")], "exercises", timeout=4)
    assert run.timed_out and run.running.endswith("::test_triple")
    where = line_of(project, "ops.py", "time.sleep(60)")
    assert str(run.failure()).startswith(f"test_triple: the whole run timed out after 4s, stuck in {where} (triple)")


def test_a_loop_at_import_time_is_caught_while_collecting(project, monkeypatch, capsys):
    assert main(["exercises"]) == 0
    monkeypatch.setenv("PICOTORCH_IMPL", "exercises")
    ops = project / "exercises/picotorch/ops.py"
    ops.write_text(ops.read_text() + "\nwhile True:\n    pass\n")
    assert checker.check("1.1", timeout=1) is False
    out = capsys.readouterr().out
    assert "timed out after 3s before any test ran (importing the tests and picotorch), stuck in " in out
    loop = line_of(project, "ops.py", "while True")  # the dump catches the loop at either of its lines
    assert f"{loop} (<module>)" in out or f"{next_line(loop)} (<module>)" in out
    assert "your code for" not in out
