"""Course updates into a learner's edited copy (three-way merge over solution blocks), reset, progress."""

from picotorch_course import update
from picotorch_course.__main__ import main

STUB_11 = '    raise NotImplementedError("Exercise 1.1: return twice x")\n'
STUB_12 = '        raise NotImplementedError("Exercise 1.2: return three times x")\n'
MINE_11 = "    return x * 2  # mine\n"

NEW_EXERCISE = '''

def halve(x):
    # BEGIN SOLUTION 1.3: return half of x
    return x / 2
    # END SOLUTION
'''


def generated(project):
    assert main(["exercises"]) == 0
    return project / "exercises/picotorch/ops.py"


def solve_11(ops):
    ops.write_text(ops.read_text().replace(STUB_11, MINE_11))


def add_exercise_13(project):
    ref = project / "reference/picotorch/ops.py"
    ref.write_text(ref.read_text() + NEW_EXERCISE)


def test_update_merges_new_stubs_into_an_edited_file(project, capsys):
    ops = generated(project)
    solve_11(ops)
    edited = ops.read_text()
    add_exercise_13(project)
    capsys.readouterr()
    assert main(["update"]) == 0
    text = ops.read_text()
    assert MINE_11 in text and STUB_11 not in text  # the learner's solution is kept
    assert 'raise NotImplementedError("Exercise 1.3: return half of x")' in text  # the new stub arrived
    assert STUB_12 in text
    out = capsys.readouterr().out
    assert "1 merged" in out and "your solutions are kept" in out
    backups = list((project / "exercises/.backup").rglob("ops.py"))
    assert [b.read_text() for b in backups] == [edited]
    assert (project / "exercises/.base/picotorch/ops.py").read_text() == text.replace(MINE_11, STUB_11)
    assert main(["update"]) == 0 and ops.read_text() == text  # a second run changes nothing


def test_update_leaves_a_file_edited_outside_the_exercises_and_writes_the_new_one_beside(project, capsys):
    ops = generated(project)
    solve_11(ops)
    ops.write_text("import math  # mine too\n" + ops.read_text())
    edited = ops.read_text()
    add_exercise_13(project)
    capsys.readouterr()
    assert main(["update"]) == 0  # the normal outcome, not an error
    assert ops.read_text() == edited
    beside = ops.with_name("ops.py.new")
    assert "Exercise 1.3" in beside.read_text() and MINE_11 not in beside.read_text()
    out = capsys.readouterr().out
    assert f"{ops}  ->  new version: {beside}" in out and "copy your solutions into the .new file" in out

    # the learner resolves it by hand: their solution in the new version
    ops.write_text(beside.read_text().replace(STUB_11, MINE_11))
    capsys.readouterr()
    assert main(["update"]) == 0
    assert not beside.exists() and MINE_11 in ops.read_text()
    assert "1 kept as you edited them" in capsys.readouterr().out


def test_an_exercise_removed_from_the_course_is_reported_and_backed_up(project, capsys):
    ops = generated(project)
    solve_11(ops)
    ref = project / "reference/picotorch/ops.py"
    text = ref.read_text()
    start, end = text.index("    # BEGIN SOLUTION 1.1"), text.index("    return y\n    # END SOLUTION\n")
    ref.write_text(text[:start] + "    return x + x\n" + text[end + len("    return y\n    # END SOLUTION\n"):])
    capsys.readouterr()
    assert main(["update"]) == 0
    assert "return x + x" in ops.read_text() and MINE_11 not in ops.read_text()
    assert "exercise(s) 1.1 are no longer in the course" in capsys.readouterr().out
    assert MINE_11 in next((project / "exercises/.backup").rglob("ops.py")).read_text()


def test_reset_restores_one_stub_after_a_backup(project, capsys):
    ops = generated(project)
    solve_11(ops)
    ops.write_text(ops.read_text().replace(STUB_12, "        return 3 * x  # mine\n"))
    edited = ops.read_text()
    capsys.readouterr()
    assert main(["reset", "1.1"]) == 0
    text = ops.read_text()
    assert STUB_11 in text and "return 3 * x  # mine" in text
    out = capsys.readouterr().out
    backup = next((project / "exercises/.backup").rglob("ops.py"))
    assert backup.read_text() == edited and str(backup) in out
    assert main(["reset", "1.1"]) == 0
    assert "nothing to reset" in capsys.readouterr().out


def test_reset_keeps_edits_outside_the_exercises(project):
    ops = generated(project)
    solve_11(ops)
    ops.write_text("import math  # mine too\n" + ops.read_text())
    assert main(["reset", "1.1"]) == 0
    assert ops.read_text().startswith("import math  # mine too\n") and STUB_11 in ops.read_text()


def test_reset_of_an_unknown_exercise_names_the_known_ones(project, capsys):
    generated(project)
    assert main(["reset", "9.9"]) == 2
    assert "known exercises: 1.1, 1.2" in capsys.readouterr().err


def test_progress_counts_exercises_whose_stub_line_is_gone(project):
    reference, out = project / "reference", project / "exercises"
    assert not update.progress(reference, out).generated
    ops = generated(project)
    assert update.progress(reference, out).line() == "solved 0 of 2"
    ops.write_text(ops.read_text().replace(STUB_12, "        return 3 * x\n"))
    assert update.progress(reference, out).line() == "solved 1 of 2: 1.2"
    solve_11(ops)
    assert update.progress(reference, out).line() == "solved 2 of 2: 1.1 1.2"


def test_two_resets_in_the_same_second_keep_both_backups(project):
    ops = generated(project)
    solve_11(ops)
    first = ops.read_text()
    main(["reset", "1.1"])
    solve_11(ops)
    ops.write_text(ops.read_text().replace(MINE_11, "    return x + x  # second try\n"))
    second = ops.read_text()
    main(["reset", "1.1"])
    backups = sorted(b.read_text() for b in (project / "exercises/.backup").rglob("ops.py"))
    assert backups == sorted([first, second])
