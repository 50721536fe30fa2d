"""Exercises in the operator YAML files: markers, stubs, the stubbed ``_generated/``, update, reset, grading.

An op's entry (``native_functions.yaml``) and formula (``derivatives.yaml``) are one exercise with a
block in each file; the stub is a comment; ``_generated/`` follows the YAML files the learner has.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import write
from picotorch_course import _switch, blocks, generate, isolate, markers, update
from picotorch_course.__main__ import main
from picotorchgen import gen

NATIVE = """\
- func: neg(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU, CUDA: neg

# BEGIN SOLUTION 5.3: declare log10
- func: log10(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU, CUDA: log10
# END SOLUTION
"""
DERIVATIVES = """\
- name: neg(Tensor self) -> Tensor
  self: ops.neg(grad)

# BEGIN SOLUTION 5.3: give log10's formula
- name: log10(Tensor self) -> Tensor
  self: ops.div(grad, ops.mul(self, 2.3025850929940456))
# END SOLUTION
"""
ENTRY = "- func: log10(Tensor self) -> Tensor\n  variants: function, method\n  dispatch:\n    CPU, CUDA: log10\n"
FORMULA = "- name: log10(Tensor self) -> Tensor\n  self: ops.div(grad, ops.mul(self, 2.3025850929940456))\n"
STUB_NATIVE = "# Exercise 5.3: declare log10\n"
STUB_DERIVATIVES = "# Exercise 5.3: give log10's formula\n"
KERNEL = "def log10(x):\n    # BEGIN SOLUTION 5.3: the kernel\n    return x\n    # END SOLUTION\n"
KERNEL_STUB = 'def log10(x):\n    raise NotImplementedError("Exercise 5.3: the kernel")\n'
EXP = "\n- func: exp(Tensor self) -> Tensor\n  variants: function, method\n  dispatch:\n    CPU, CUDA: exp\n"


def regenerate_reference(project):
    """What `python -m picotorchgen` leaves in the reference: _generated/ from its YAML files."""
    package = project / "reference/picotorch"
    for name, text in gen.generate(package).items():
        write(package / "_generated" / name, text)


@pytest.fixture
def ops_project(project):
    write(project / "reference/picotorch/native_functions.yaml", NATIVE)
    write(project / "reference/picotorch/derivatives.yaml", DERIVATIVES)
    # what the generator checks the YAML against: the kernels' names, the formulas' helpers
    write(project / "reference/picotorch/native/__init__.py", "neg = log10 = exp = None\n")
    write(project / "reference/picotorch/autograd/functions_manual.py", "__all__ = []\n")
    regenerate_reference(project)
    return project


def learner(project):
    return project / "exercises/picotorch"


def solve(project, below_the_comment=True):
    """Write the entry and the formula as a learner does: under the stub comment, or in its place."""
    for name, stub, body in (("native_functions.yaml", STUB_NATIVE, ENTRY), ("derivatives.yaml", STUB_DERIVATIVES,
                                                                                FORMULA)):
        path = learner(project) / name
        path.write_text(path.read_text().replace(stub, stub + body if below_the_comment else body))


def has_log10(package):
    return "'log10'" in (package / "_generated/python_bindings.py").read_text()


def test_one_exercise_has_a_block_in_each_yaml_file_and_a_comment_stub(ops_project):
    ex = markers.discover(ops_project / "reference/picotorch")["5.3"]
    assert [b.path.name for b in ex.blocks] == ["native_functions.yaml", "derivatives.yaml"]
    assert [b.stub for b in ex.blocks] == [STUB_NATIVE, STUB_DERIVATIVES]
    assert ex.task == "declare log10" and ex.in_data


@pytest.mark.parametrize("where", ["ops.py", "native_functions.yaml"])
def test_a_second_block_in_python_or_in_the_same_yaml_file_is_an_error(ops_project, where):
    write(ops_project / "reference/picotorch/kernel.py", KERNEL)
    assert [b.path.name for b in markers.discover(ops_project / "reference/picotorch")["5.3"].blocks] == [
        "kernel.py", "native_functions.yaml", "derivatives.yaml"]
    path = ops_project / "reference/picotorch" / where
    path.write_text(path.read_text() + "# BEGIN SOLUTION 5.3: again\nx = 1\n# END SOLUTION\n")
    with pytest.raises(markers.MarkerError, match=r"duplicate exercise id 5.3 \(first used at .*"):
        markers.discover(ops_project / "reference/picotorch")


def test_a_kernel_block_keeps_its_raise_stub_beside_the_yaml_comments(ops_project):
    write(ops_project / "reference/picotorch/kernel.py", KERNEL)
    files = generate.expected_files(ops_project / "reference")
    assert files["picotorch/kernel.py"].decode() == KERNEL_STUB
    assert STUB_NATIVE.encode() in files["picotorch/native_functions.yaml"]


def test_the_learner_tree_has_the_stubs_and_code_generated_without_the_op(ops_project):
    assert main(["exercises"]) == 0
    package = learner(ops_project)
    assert STUB_NATIVE in (package / "native_functions.yaml").read_text()
    assert "log10" not in (package / "native_functions.yaml").read_text().replace(STUB_NATIVE, "")
    assert STUB_DERIVATIVES in (package / "derivatives.yaml").read_text()
    assert not has_log10(package) and "'neg'" in (package / "_generated/python_bindings.py").read_text()
    assert has_log10(ops_project / "reference/picotorch")


def test_solved_trees_keep_the_reference_generated_code(ops_project):
    files = generate.expected_files(ops_project / "reference", keep=frozenset({"5.3", "1.1", "1.2"}))
    reference = ops_project / "reference/picotorch/_generated/variable_type.py"
    assert files["picotorch/_generated/variable_type.py"] == reference.read_bytes()


def test_check_finds_no_leak_in_the_yaml_stubs(ops_project, capsys):
    assert main(["exercises", "--check"]) == 0
    assert "exercise generator: OK (3 exercises" in capsys.readouterr().out


def picotorchgen(project, *args):
    """``python -m picotorchgen`` as the learner runs it, in exercises mode."""
    env = _switch.subprocess_env("exercises", {**os.environ, "PICOTORCH_EXERCISES_DIR": str(project / "exercises")})
    return subprocess.run([sys.executable, "-m", "picotorchgen", *args], env=env, capture_output=True, text=True)


def test_picotorchgen_in_exercises_mode_regenerates_the_learners_tree(ops_project):
    assert main(["exercises"]) == 0
    checked = picotorchgen(ops_project, "--check")
    assert checked.returncode == 0 and str(learner(ops_project) / "_generated") in checked.stdout
    solve(ops_project)
    assert picotorchgen(ops_project, "--check").returncode == 1  # the YAML changed, _generated/ did not
    done = picotorchgen(ops_project)
    assert done.returncode == 0, done.stderr
    assert str(learner(ops_project) / "_generated") in done.stdout
    assert has_log10(learner(ops_project)) and not has_log10_in_base(ops_project)


def has_log10_in_base(project):
    return "'log10'" in (project / "exercises/.base/picotorch/_generated/python_bindings.py").read_text()


def test_the_generator_imports_in_exercises_mode_before_the_learners_copy_exists(tmp_path):
    env = {**os.environ, "PICOTORCH_IMPL": "exercises", "PICOTORCH_EXERCISES_DIR": str(tmp_path / "none")}
    code = "import picotorch_course._switch, picotorchgen.gen"  # the switch refuses `import picotorch` here
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_progress_counts_an_entry_written_under_the_comment(ops_project):
    assert main(["exercises"]) == 0
    reference, out = ops_project / "reference", ops_project / "exercises"
    assert "5.3" not in update.progress(reference, out).solved
    solve(ops_project)
    assert "5.3" in update.progress(reference, out).solved


def test_body_beside_a_comment_stub_is_the_exercise_and_merges_back():
    base = "a: 1\n\n# Exercise 5.3: do it\n\nb: 2\n"
    mine = "a: 1\n\n# Exercise 5.3: do it\nc: 3\n\nb: 2\n"
    found = blocks.learner_bodies(base, mine)
    assert found.outside == [] and found.bodies == {"5.3": ["# Exercise 5.3: do it\n", "c: 3\n"]}
    assert blocks.put_bodies(base, found.bodies) == mine
    raise_stub = '    raise NotImplementedError("Exercise 1.1: x")\n'
    assert blocks.learner_bodies(raise_stub, raise_stub + "    return 1\n").outside == [2]


def test_update_regenerates_a_learners_generated_code_from_their_merged_yaml(ops_project, capsys):
    assert main(["exercises"]) == 0
    solve(ops_project)
    generate.regenerate(learner(ops_project))  # the learner ran python -m picotorchgen
    native = ops_project / "reference/picotorch/native_functions.yaml"
    native.write_text(native.read_text() + EXP)  # the course adds an op
    regenerate_reference(ops_project)
    capsys.readouterr()
    assert main(["update"]) == 0
    out = capsys.readouterr().out
    text = (learner(ops_project) / "native_functions.yaml").read_text()
    assert ENTRY in text and "- func: exp(" in text
    bindings = (learner(ops_project) / "_generated/python_bindings.py").read_text()
    assert "'log10'" in bindings and "'exp'" in bindings
    assert "regenerated" in out and ".new" not in out
    assert not has_log10_in_base(ops_project)


def test_update_writes_the_course_code_when_the_learner_did_not_regenerate(ops_project):
    assert main(["exercises"]) == 0
    solve(ops_project)
    native = ops_project / "reference/picotorch/native_functions.yaml"
    native.write_text(native.read_text() + EXP)
    regenerate_reference(ops_project)
    assert main(["update"]) == 0
    bindings = (learner(ops_project) / "_generated/python_bindings.py").read_text()
    assert "'exp'" in bindings and "'log10'" not in bindings


def test_update_keeps_generated_code_when_the_learners_yaml_does_not_generate(ops_project, capsys):
    assert main(["exercises"]) == 0
    solve(ops_project)
    generate.regenerate(learner(ops_project))
    mine = learner(ops_project) / "_generated/python_bindings.py"
    before = mine.read_text()
    derivatives = learner(ops_project) / "derivatives.yaml"
    derivatives.write_text(derivatives.read_text().replace("- name: log10(Tensor self)", "- name: log10(Tensor self"))
    capsys.readouterr()
    assert main(["update"]) == 0
    out = capsys.readouterr().out
    assert mine.read_text() == before
    assert "do not generate" in out and "derivatives.yaml" in out and "python -m picotorchgen" in out


def test_reset_puts_both_stubs_back_and_regenerates(ops_project, capsys):
    assert main(["exercises"]) == 0
    solve(ops_project, below_the_comment=False)
    generate.regenerate(learner(ops_project))
    assert has_log10(learner(ops_project))
    capsys.readouterr()
    assert main(["reset", "5.3"]) == 0
    out = capsys.readouterr().out
    assert (learner(ops_project) / "native_functions.yaml").read_text().count(STUB_NATIVE) == 1
    assert ENTRY not in (learner(ops_project) / "native_functions.yaml").read_text()
    assert FORMULA not in (learner(ops_project) / "derivatives.yaml").read_text()
    assert not has_log10(learner(ops_project))
    assert out.count("your file as it was") == 2 and "regenerated" in out
    backups = sorted(p.name for p in (ops_project / "exercises/.backup").rglob("*.yaml"))
    assert backups == ["derivatives.yaml", "native_functions.yaml"]


def test_grading_other_chapters_fills_the_yaml_and_regenerates(ops_project):
    assert main(["exercises"]) == 0
    with isolate.learner_tree(lambda ex: ex.chapter == 1) as tree:
        assert ENTRY in (tree / "picotorch/native_functions.yaml").read_text()
        assert has_log10(tree / "picotorch")


def test_grading_a_failed_yaml_exercise_puts_its_stubs_back_and_regenerates(ops_project):
    assert main(["exercises"]) == 0
    solve(ops_project)
    generate.regenerate(learner(ops_project))
    with isolate.learner_tree(lambda ex: ex.chapter == 5, stubbed=["5.3"]) as tree:
        assert ENTRY not in (tree / "picotorch/native_functions.yaml").read_text()
        assert not has_log10(tree / "picotorch")
