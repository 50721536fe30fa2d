"""The exercise loop end to end on a tiny project: plugin, proof, grader, check()."""

import json
import xml.etree.ElementTree as ET

import pytest

from picotorch_course import checker, grader, prove, runner
from picotorch_course.__main__ import main

HANG = "import time\n        time.sleep(60)\n        return 3 * x"


@pytest.fixture
def generated(project):
    assert main(["exercises"]) == 0
    return project


def solve(project, old: str, new: str) -> None:
    ops = project / "exercises/picotorch/ops.py"
    ops.write_text(ops.read_text().replace(old, new))


def test_report_records_exercise_ids_and_exception_chain(generated):
    run = runner.run_pytest(["-q", str(generated / "tests")], "exercises", 120)
    by_name = {t["nodeid"].split("::")[-1]: t for t in run.tests}
    assert by_name["test_plain"]["outcome"] == "passed"
    assert by_name["test_double"]["exercise"] == "1.1"
    assert by_name["test_double"]["exceptions"][0] == {
        "type": "NotImplementedError", "message": "Exercise 1.1: return twice x"}
    assert prove.stub_error_id(by_name["test_triple"]) == "1.2"


def test_exercise_id_option_selects_tests(generated):
    run = runner.run_pytest(["-q", "--exercise-id", "1.2", str(generated / "tests")], "reference", 120)
    assert [t["exercise"] for t in run.tests] == ["1.2"]
    assert run.returncode == 0


def test_unknown_exercise_id_fails_collection(generated):
    test = generated / "tests/ch01_ops/test_unknown.py"
    test.write_text('import pytest\n\n@pytest.mark.exercise("9.9")\ndef test_x():\n    pass\n')
    run = runner.run_pytest(["-q", str(generated / "tests")], "reference", 120)
    assert run.returncode == 4
    assert "test_unknown.py::test_x: 9.9" in run.output and "known ids: 1.1, 1.2" in run.output


def test_proof_passes_on_a_good_project(generated, capsys):
    assert main(["prove"]) == 0
    out = capsys.readouterr().out
    assert "exercise proof: OK (2 exercises)" in out
    assert "1.1" in out and "raises" in out


def test_proof_isolates_tests_blocked_by_another_exercise(generated):
    test = generated / "tests/ch01_ops/test_ops.py"
    test.write_text(test.read_text() + (
        '\n\n@pytest.mark.exercise("1.2")\n'
        'def test_triple_of_double():\n    assert ops.Box().triple(ops.double(1)) == 6\n'))
    ok, rows, problems = prove.prove(timeout=120)
    assert ok, prove.table(rows) + str(problems)
    assert rows[1].tests == 2 and rows[1].isolated == 1


def test_proof_fails_when_a_test_passes_on_the_stub_or_an_exercise_has_none(generated, capsys):
    test = generated / "tests/ch01_ops/test_ops.py"
    test.write_text(test.read_text().replace('@pytest.mark.exercise("1.2")\n', "")
                    .replace("def test_plain", '@pytest.mark.exercise("1.1")\ndef test_plain'))
    assert main(["prove"]) == 1
    out = capsys.readouterr().out
    assert "test_plain: passes on the stub" in out
    assert "1.2: no test is marked" in out


def test_grader_scores_each_exercise_and_survives_a_hang(generated, tmp_path):
    solve(generated, 'raise NotImplementedError("Exercise 1.2: return three times x")', HANG)
    items = grader.grade(1, "exercises", timeout=5)
    status = {i.name: i.status for i in items}
    assert status == {"exercise 1.1: return twice x": "fail", "exercise 1.2: return three times x": "error",
                      "chapter 01 tests": "pass"}
    assert "NotImplementedError: Exercise 1.1" in items[0].message
    assert "timed out" in items[1].message
    grader.write_reports(items, "exercises", 1, str(tmp_path / "g.json"), str(tmp_path / "g.xml"))
    body = json.loads((tmp_path / "g.json").read_text())
    assert (body["score"], body["max_score"]) == (1, 3)
    suite = ET.parse(tmp_path / "g.xml").getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")


def test_grade_cli_passes_on_the_reference(generated, tmp_path, capsys):
    out = tmp_path / "grade.json"
    assert main(["grade", "--impl", "reference", "--json", str(out), "--no-notebooks"]) == 0
    assert json.loads(out.read_text())["score"] == 3
    assert "score: 3/3" in capsys.readouterr().out


def test_check_prints_a_verdict(generated, monkeypatch, capsys):
    monkeypatch.setenv("PICOTORCH_IMPL", "exercises")
    solve(generated, 'raise NotImplementedError("Exercise 1.1: return twice x")', "return 2 * x")
    assert checker.check("1.1") is True
    assert checker.check("1.2") is False
    out = capsys.readouterr().out
    assert "✅ Exercise 1.1 (return twice x) [exercises]: 1/1 tests pass" in out
    assert "❌ Exercise 1.2" in out and "NotImplementedError: Exercise 1.2: return three times x" in out
    with pytest.raises(ValueError, match="known exercises: 1.1, 1.2"):
        checker.check("7.7")
