"""Chapter 05: bad input to ``python -m picotorchgen`` stops it with one paragraph naming the file, the line,
the entry and what was expected (``GenerationError``), exit status 1, never a stack trace.

Each case edits a copy of the small fixture (``fixtures/small``) in one place. Expected texts are written out.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from picotorchgen import GenerationError, ParseError
from picotorchgen.gen import load_ops, main

SMALL = Path(__file__).parent / "fixtures" / "small"
MUL = "mul.Tensor(Tensor self, Tensor other) -> Tensor"


@pytest.fixture
def yaml_dir(tmp_path) -> Path:
    folder = tmp_path / "yaml"
    shutil.copytree(SMALL, folder, ignore=shutil.ignore_patterns("expected"))
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def error_of(yaml_dir: Path) -> ParseError:
    with pytest.raises(ParseError) as caught:
        load_ops(yaml_dir=yaml_dir)
    return caught.value


def test_the_errors_are_value_errors_as_before():
    assert issubclass(ParseError, GenerationError) and issubclass(GenerationError, ValueError)


def test_a_malformed_schema(yaml_dir):
    native = yaml_dir / "native_functions.yaml"
    edit(native, "- func: t(Tensor(a) self) -> Tensor(a)", "- func: t(Tensor(a) self) Tensor(a)")
    e = error_of(yaml_dir)
    assert (e.path, e.line, e.entry) == (str(native), 18, "func: t(Tensor(a) self) Tensor(a)")
    assert str(e) == (f"{native}:18: schema 't(Tensor(a) self) Tensor(a)' has no ' -> ' after its arguments; "
                      "expected 'name.overload(Type arg, ..., *, Type kwarg=default) -> Returns', e.g. "
                      "'mul.Tensor(Tensor self, Tensor other) -> Tensor'. The entry: func: t(Tensor(a) self) Tensor(a)")


def test_an_unknown_type(yaml_dir):
    native = yaml_dir / "native_functions.yaml"
    edit(native, f"- func: {MUL}", "- func: mul.Tensor(Tensor self, Tensr other) -> Tensor")
    e = error_of(yaml_dir)
    assert (e.line, e.problem) == (5, "unknown type 'Tensr' in 'Tensr'")
    assert e.expected.startswith("a schema type such as Tensor, Tensor?, Tensor[], Scalar, int")


def test_an_entry_without_func(yaml_dir):
    native = yaml_dir / "native_functions.yaml"
    edit(native, "- func: matmul(", "- fun: matmul(")
    e = error_of(yaml_dir)
    assert (e.line, e.problem) == (24, "the entry has no 'func:' key")
    assert e.entry.startswith("{'fun': 'matmul(Tensor self, Tensor other) -> Tensor'")
    assert "expected a mapping '- func: <schema>'" in str(e)


@pytest.mark.parametrize(("old", "new", "problem", "expected"), [
    ("  variants: method\n", "  variants: methd\n", "unknown variants ['methd']",
     "'function', 'method' or 'function, method'"),
    ("  dispatch:\n    CPU, CUDA: mul_\n", "  dispatch: mul_\n", "'dispatch:' is 'mul_'",
     "a mapping of dispatch keys to kernel names, e.g. 'CPU, CUDA: add'"),
    ("  variants: method\n", "  variants: method\n  tags: {a: b}\n", "'tags:' is {'a': 'b'}",
     "a tag or a list of tags, e.g. 'tags: pointwise'"),
])
def test_bad_keys_of_an_entry(yaml_dir, old, new, problem, expected):
    edit(yaml_dir / "native_functions.yaml", old, new)
    e = error_of(yaml_dir)
    entry = "func: mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"
    assert (e.line, e.problem, e.expected, e.entry) == (12, problem, expected, entry)


def test_an_op_defined_twice(yaml_dir):
    native = yaml_dir / "native_functions.yaml"
    native.write_text(native.read_text() + "\n- func: t(Tensor self) -> Tensor\n")
    e = error_of(yaml_dir)
    assert str(e) == (f"{native}:33: operator t is already defined at line 18; expected one entry per "
                      "'name.overload'. The entry: func: t(Tensor self) -> Tensor")


def test_a_yaml_syntax_error_is_rewrapped_with_file_and_line(yaml_dir):
    native = yaml_dir / "native_functions.yaml"
    edit(native, "  variants: method\n", "  variants: [method\n")
    e = error_of(yaml_dir)
    assert (e.path, e.line) == (str(native), 14)
    assert e.problem.startswith("YAML syntax error: ")
    assert "<unicode string>" not in str(e) and e.expected.startswith("valid YAML")


def test_a_file_that_is_not_a_list(yaml_dir):
    (yaml_dir / "native_functions.yaml").write_text("func: mul.Tensor(Tensor self) -> Tensor\n")
    e = error_of(yaml_dir)
    assert (e.line, e.problem) == (None, "the file holds a dict, not a list of entries")


def test_a_dispatch_kernel_that_picotorch_native_does_not_have(yaml_dir):
    native = yaml_dir / "native_functions.yaml"
    edit(native, "    CUDA: mul_cuda\n", "    CUDA: mul_cudaa\n")
    e = error_of(yaml_dir)
    assert str(e) == (f"{native}:5: the CUDA kernel 'mul_cudaa' of mul.Tensor does not exist in picotorch.native; "
                      "expected the name of a kernel that picotorch/native/__init__.py imports or defines. "
                      f"The entry: func: {MUL}")


def test_a_formula_reading_an_argument_the_schema_does_not_have(yaml_dir):
    derivatives = yaml_dir / "derivatives.yaml"
    edit(derivatives, "  self: mul_tensor_backward(grad, other, self_scalar_type)",
         "  self: mul_tensor_backward(grad, othr, self_scalar_type)")
    e = error_of(yaml_dir)
    assert str(e) == (f"{derivatives}:3: the formula for self reads 'othr', which is not an argument of mul.Tensor; "
                      "expected an argument (self, other), a value derived from one (e.g. self_sizes), grad, result, "
                      f"or a helper of picotorch/autograd/functions_manual.py. The entry: name: {MUL}")


def test_a_formula_for_a_name_that_is_neither_input_nor_output(yaml_dir):
    derivatives = yaml_dir / "derivatives.yaml"
    edit(derivatives, "  other: mul_tensor_backward", "  othr: mul_tensor_backward")
    e = error_of(yaml_dir)
    assert (e.line, e.problem) == (3, "'othr' is neither an argument nor an output of mul.Tensor")
    assert e.expected == ("an argument name (self, other) for a backward formula, or an output name (result) "
                          "for a forward one")


def test_a_formula_that_is_not_python(yaml_dir):
    edit(yaml_dir / "derivatives.yaml", "  self: ops.t(grad)", "  self: ops.t(grad")
    e = error_of(yaml_dir)
    assert (e.line, e.entry) == (7, "name: t(Tensor(a) self) -> Tensor(a)")
    assert e.problem.startswith("the formula 'ops.t(grad' is not a Python expression")


def test_a_derivative_for_a_schema_native_functions_does_not_have(yaml_dir):
    derivatives = yaml_dir / "derivatives.yaml"
    edit(derivatives, "- name: t(Tensor(a) self) -> Tensor(a)", "- name: t(Tensor self) -> Tensor")
    e = error_of(yaml_dir)
    assert (e.path, e.line, e.problem) == (str(derivatives), 7,
                                           "no native function has the schema 't(Tensor self) -> Tensor'")


def test_a_derivatives_entry_without_name(yaml_dir):
    derivatives = yaml_dir / "derivatives.yaml"
    edit(derivatives, "- name: t(Tensor(a) self) -> Tensor(a)", "- nam: t(Tensor(a) self) -> Tensor(a)")
    e = error_of(yaml_dir)
    assert (e.line, e.problem) == (7, "the entry has no 'name:' schema")


def test_the_command_prints_one_paragraph_and_exits_1(yaml_dir, tmp_path):
    edit(yaml_dir / "native_functions.yaml", "    CUDA: mul_cuda\n", "    CUDA: mul_cudaa\n")
    done = subprocess.run([sys.executable, "-m", "picotorchgen", "--yaml", str(yaml_dir), "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 1 and done.stdout == ""
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"python -m picotorchgen: error: {yaml_dir / 'native_functions.yaml'}:5: ")


def test_main_returns_1_on_bad_input(yaml_dir, tmp_path, capsys):
    edit(yaml_dir / "derivatives.yaml", "  self: ops.t(grad)", "  self: ops.t(gradd)")
    assert main(["--yaml", str(yaml_dir), "--out", str(tmp_path)]) == 1
    assert "reads 'gradd'" in capsys.readouterr().err
    assert not (tmp_path / "nodes.py").exists(), "nothing is written"


def test_an_out_overload_without_its_functional_one(yaml_dir):
    native = yaml_dir / "native_functions.yaml"
    native.write_text(native.read_text() + "\n- func: t.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)\n")
    e = error_of(yaml_dir)
    assert str(e) == (f"{native}:33: the out= overload t.out has no functional overload of the same signature; "
                      "expected an entry 't(Tensor self, int dim) -> Tensor' (any overload name) beside it. "
                      "The entry: func: t.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)")
