"""Chapter 05: what the generator writes for a small YAML fixture, compared with committed files.

``fixtures/small/`` holds a ``native_functions.yaml`` with one op of each kind the generator treats
differently (``mul.Tensor`` with a derivative, its in-place ``mul_.Tensor``, its ``mul.out``, the view ``t``,
the composite ``matmul``) and its ``derivatives.yaml``; ``fixtures/small/expected/*.expected`` are the three generated
files, written once and read by eye. A change to a template shows here as a diff.

To accept an intended change: ``PICOTORCHGEN_UPDATE_EXPECTED=1 pytest tests/ch05_codegen/test_codegen_fixture.py``
rewrites the expected files (the test then fails once, saying so); read ``git diff`` and commit them.
"""

import difflib
import os
from pathlib import Path

import pytest

from picotorchgen.gen import generate, main

SMALL = Path(__file__).parent / "fixtures" / "small"
EXPECTED = SMALL / "expected"
FILES = ("nodes.py", "variable_type.py", "python_bindings.py")
UPDATE = os.environ.get("PICOTORCHGEN_UPDATE_EXPECTED") == "1"


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return generate(yaml_dir=SMALL)


@pytest.mark.parametrize("name", FILES)
def test_generated_file_is_the_committed_one(generated, name):
    path = EXPECTED / f"{name}.expected"
    if UPDATE:
        path.write_text(generated[name])
        pytest.fail(f"rewrote {path}: review `git diff` and commit it, then run without PICOTORCHGEN_UPDATE_EXPECTED")
    diff = "".join(difflib.unified_diff(path.read_text().splitlines(True), generated[name].splitlines(True),
                                        f"expected/{name}", f"generated/{name}"))
    assert not diff, (f"the generator's output for {SMALL.name}/ changed:\n{diff}\nIf intended, run "
                      "PICOTORCHGEN_UPDATE_EXPECTED=1 pytest tests/ch05_codegen/test_codegen_fixture.py and commit "
                      "the rewritten files")


def test_the_fixture_has_one_op_of_each_kind(generated):
    """The fixture keeps covering what it is for (a hand-read fact per kind of op)."""
    kernels = generated["variable_type.py"]
    assert "nodes.MulBackward0()" in kernels, "an op with a derivative"
    assert "rebase_history(self, grad_fn)" in kernels, "an in-place op"
    assert "as_view(self, result)" in kernels, "a view"
    assert "    return native.matmul(self, other)" in kernels, "a composite"


def test_the_command_line_writes_the_same_files(tmp_path, generated):
    assert main(["--yaml", str(SMALL), "--out", str(tmp_path)]) == 0
    assert {name: (tmp_path / name).read_text() for name in FILES} == {name: generated[name] for name in FILES}


def test_yaml_without_out_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["--yaml", str(SMALL)])
    assert "--yaml needs --out" in capsys.readouterr().err
