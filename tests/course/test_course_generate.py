"""The exercise generator: copies, stubs, manifest, learner-edit protection, --force, --check."""

import json

from picotorch_course import generate
from picotorch_course.__main__ import main


def run_cli(*args: str) -> int:
    return main(["exercises", *args])


def test_writes_stubbed_copy_with_all_files(project):
    assert run_cli() == 0
    pkg = project / "exercises/picotorch"
    assert (pkg / "data/ops.yaml").read_text() == "- func: double(Tensor x) -> Tensor\n"
    assert 'raise NotImplementedError("Exercise 1.1: return twice x")' in (pkg / "ops.py").read_text()
    manifest = json.loads((project / "exercises/.manifest.json").read_text())["files"]
    assert set(manifest) == {"picotorch/__init__.py", "picotorch/ops.py", "picotorch/data/ops.yaml"}
    assert run_cli("--check") == 0


def test_second_run_changes_nothing(project):
    run_cli()
    result = generate.generate(project / "reference", project / "exercises")
    assert result.written == [] and result.protected == [] and len(result.unchanged) == 3


def test_learner_edits_are_protected_until_force(project, capsys):
    run_cli()
    ops = project / "exercises/picotorch/ops.py"
    ops.write_text(ops.read_text().replace('raise NotImplementedError("Exercise 1.1: return twice x")', "return 2 * x"))
    edited = ops.read_text()
    (project / "reference/picotorch/ops.py").write_text(
        (project / "reference/picotorch/ops.py").read_text() + "\n\nNEW = 1\n"
    )
    assert run_cli() == 1
    assert "exercises/picotorch/ops.py" in capsys.readouterr().err
    assert ops.read_text() == edited
    assert run_cli() == 1  # still protected on the next run
    assert run_cli("--force") == 0
    assert "NEW = 1" in ops.read_text() and "return 2 * x" not in ops.read_text()


def test_removed_reference_files_go_unless_edited(project):
    run_cli()
    (project / "reference/picotorch/data/ops.yaml").unlink()
    assert run_cli() == 0
    assert not (project / "exercises/picotorch/data").exists()

    extra = project / "reference/picotorch/extra.py"
    extra.write_text("A = 1\n")
    run_cli()
    extra.unlink()
    (project / "exercises/picotorch/extra.py").write_text("A = 2  # mine\n")
    assert run_cli() == 1
    assert (project / "exercises/picotorch/extra.py").exists()


def test_check_reports_differences_and_leaks(project, capsys):
    assert run_cli("--check") == 1  # never generated
    run_cli()
    ops = project / "exercises/picotorch/ops.py"
    ops.write_text(ops.read_text() + "# BEGIN SOLUTION 1.1: x\n        return 3 * x\n# END SOLUTION\n")
    (project / "exercises/picotorch/stray.py").write_text("")
    capsys.readouterr()
    assert run_cli("--check") == 1
    err = capsys.readouterr().err
    assert "ops.py: differs" in err
    assert "ops.py: contains a solution marker" in err
    assert "ops.py: contains the solution of exercise 1.2" in err
    assert "stray.py: not in the reference" in err


def test_malformed_marker_is_a_clear_cli_error(project, capsys):
    bad = project / "reference/picotorch/bad.py"
    bad.write_text("# BEGIN SOLUTION 3.1: open\n")
    assert run_cli() == 2
    assert "bad.py:1:" in capsys.readouterr().err
    assert not (project / "exercises").exists()
