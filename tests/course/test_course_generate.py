"""The exercise generator: copies, stubs, base and manifest, learner-edit protection, --force, --check."""

import json

from picotorch_course import generate
from picotorch_course.__main__ import main

STUB_11 = 'raise NotImplementedError("Exercise 1.1: return twice x")'


def run_cli(*args: str) -> int:
    return main(["exercises", *args])


def test_writes_stubbed_copy_base_and_manifest(project):
    assert run_cli() == 0
    pkg = project / "exercises/picotorch"
    assert (pkg / "data/ops.yaml").read_text() == "- func: double(Tensor x) -> Tensor\n"
    assert STUB_11 in (pkg / "ops.py").read_text()
    assert (project / "exercises/.base/picotorch/ops.py").read_text() == (pkg / "ops.py").read_text()
    manifest = json.loads((project / "exercises/.manifest.json").read_text())["files"]
    assert set(manifest) == {"picotorch/__init__.py", "picotorch/ops.py", "picotorch/data/ops.yaml"}
    assert manifest["picotorch/ops.py"] == generate.sha256((pkg / "ops.py").read_bytes())


def test_second_run_changes_nothing(project, capsys):
    run_cli()
    capsys.readouterr()
    assert run_cli() == 0
    assert "0 written, 3 unchanged" in capsys.readouterr().out


def test_an_edited_file_is_kept_when_the_course_did_not_change_it(project, capsys):
    run_cli()
    ops = project / "exercises/picotorch/ops.py"
    ops.write_text(ops.read_text().replace(STUB_11, "return 2 * x") + "\n# my note\n")
    edited = ops.read_text()
    capsys.readouterr()
    assert run_cli() == 0  # the normal outcome, not an error
    assert ops.read_text() == edited
    assert "1 kept as you edited them" in capsys.readouterr().out


def test_force_overwrites_after_a_backup(project, capsys):
    run_cli()
    ops = project / "exercises/picotorch/ops.py"
    ops.write_text(ops.read_text().replace(STUB_11, "return 2 * x") + "\n# my note\n")
    edited = ops.read_text()
    assert run_cli("--force") == 0
    assert STUB_11 in ops.read_text()
    backups = list((project / "exercises/.backup").rglob("ops.py"))
    assert [b.read_text() for b in backups] == [edited]
    assert str(backups[0].parents[1]) in capsys.readouterr().out


def test_removed_reference_files_go_unless_edited(project, capsys):
    run_cli()
    (project / "reference/picotorch/data/ops.yaml").unlink()
    assert run_cli() == 0
    assert not (project / "exercises/picotorch/data").exists()
    assert not (project / "exercises/.base/picotorch/data").exists()

    extra = project / "reference/picotorch/extra.py"
    extra.write_text("A = 1\n")
    run_cli()
    extra.unlink()
    (project / "exercises/picotorch/extra.py").write_text("A = 2  # mine\n")
    capsys.readouterr()
    assert run_cli() == 0
    assert (project / "exercises/picotorch/extra.py").read_text() == "A = 2  # mine\n"
    assert "extra.py is no longer part of the course" in capsys.readouterr().out


def test_check_tests_the_generator_in_a_temporary_folder_not_the_learner_copy(project, capsys):
    assert run_cli("--check") == 0  # never generated into exercises/: irrelevant to the check
    assert not (project / "exercises").exists()
    run_cli()
    ops = project / "exercises/picotorch/ops.py"
    ops.write_text(ops.read_text().replace(STUB_11, "return 2 * x") + "import os\n")
    (project / "exercises/picotorch/stray.py").write_text("")
    assert run_cli("--check") == 0  # a learner's edits never make it fail
    assert "exercise generator: OK (2 exercises" in capsys.readouterr().out


def test_check_reports_a_generator_that_leaks_or_breaks_the_import(project, capsys):
    ops = project / "reference/picotorch/ops.py"
    ops.write_text(ops.read_text() + '\nNOTE = """\n    y = x + x\n    return y\n"""\n')
    (project / "reference/picotorch/__init__.py").write_text("from picotorch.ops import double\ndouble(1)\n")
    assert run_cli("--check") == 1
    err = capsys.readouterr().err
    assert "ops.py: contains the solution of exercise 1.1" in err
    assert "does not import with every exercise stubbed" in err and "Exercise 1.1" in err


def test_malformed_marker_is_a_clear_cli_error(project, capsys):
    bad = project / "reference/picotorch/bad.py"
    bad.write_text("# BEGIN SOLUTION 3.1: open\n")
    assert run_cli() == 2
    assert "bad.py:1:" in capsys.readouterr().err
    assert not (project / "exercises").exists()


def test_make_tests_generator_step_stays_green_with_a_broken_learner_copy(tmp_path, monkeypatch, capsys):
    """`make test` runs `exercises --check` on the real course; a learner's edits must not fail it."""
    from picotorch_course import _paths

    for var in ("PICOTORCH_ROOT", "PICOTORCH_REFERENCE_DIR", "PICOTORCH_IMPL"):
        monkeypatch.delenv(var, raising=False)
    learner = tmp_path / "exercises"
    generate.write_tree(generate.expected_files(_paths.reference_dir()), learner)
    (learner / "picotorch/native/checks.py").write_text("def broadcast_shapes(a, b:\n")  # mid-edit
    (learner / "picotorch/mine.py").write_text("")
    monkeypatch.setenv("PICOTORCH_EXERCISES_DIR", str(learner))
    assert run_cli("--check") == 0
    assert "exercise generator: OK" in capsys.readouterr().out
