"""The doctor: what the learner's machine has, their progress, and a one-line fix for each missing part."""

from picotorch_course import doctor
from picotorch_course.__main__ import main


def test_doctor_shows_progress_and_the_fix_for_missing_exercises(project, capsys):
    report = doctor.report()
    assert "exercises/" in report and "not generated yet" in report
    assert "  exercises/: make exercises" in report.split("to fix:")[1]

    assert main(["exercises"]) == 0
    ops = project / "exercises/picotorch/ops.py"
    ops.write_text(ops.read_text().replace('raise NotImplementedError("Exercise 1.2: return three times x")',
                                           "return 3 * x"))
    report = doctor.report()
    assert "solved 1 of 2: 1.2" in report
    assert "exercises/:" not in report.split("to fix:")[-1]


def test_doctor_names_pytest_nbval_and_where_torch_output_comes_from():
    facts = doctor.facts()
    assert facts["pytest (check, grade)"] != "missing" and facts["nbval (notebook checks)"] != "missing"
    torch = facts["torch (for comparisons)"]
    assert torch.startswith("live (torch ") or torch.startswith("recorded: the notebooks show PyTorch 2.13.0")
    assert set(doctor.FIXES) <= set(doctor.facts(stable=True))
