"""Chapter 05: where each generated line comes from (``CodeTemplate.substitute_traced``, ``recording``) and
``python -m picotorchgen --explain OP``, which prints it for one op. Expected lines are written out by hand."""

import subprocess
import sys

import pytest

from picotorchgen import code_template
from picotorchgen.code_template import CodeTemplate
from picotorchgen.gen import main

TEMPLATES = [
    ("def $name(${args}):\n    ${body}\n    return ${,rest}\n", {"name": "f", "args": ["a", "b"],
                                                                  "body": ["x = 1", "", "y = 2\nz = 3"], "rest": []}),
    ("a\n    ${optional}\nb", {"optional": []}),
    ("f(${first,}out)\n  $x\n", {"first": ["p"], "x": "one\ntwo"}),
]


@pytest.mark.parametrize(("pattern", "values"), TEMPLATES)
def test_traced_substitution_gives_the_same_text(pattern, values):
    t = CodeTemplate(pattern)
    assert t.substitute_traced(values).text == t.substitute(values)


def test_each_output_line_knows_its_template_line_and_holes():
    e = CodeTemplate("def $name(${args}):\n    ${body}\n    return 0\n").substitute_traced(
        name="f", args=["a"], body=["x = 1", "y = 2"])
    assert [(o.output, o.template_line, o.holes) for o in e.lines] == [
        ("def f(a):", 1, ("name", "args")),
        ("    x = 1", 2, ("body",)),
        ("    y = 2", 2, ("body",)),
        ("    return 0", 3, ()),
    ]
    assert e.lines[1].source == "    ${body}" and e.lines[1].items == ("x = 1", "y = 2")


def test_an_empty_block_is_recorded_as_producing_nothing():
    e = CodeTemplate("a\n    ${optional}\nb\n").substitute_traced(optional=[])
    assert [o.output for o in e.lines] == ["a", "b"]
    assert [(o.template_line, o.source) for o in e.empty] == [(2, "    ${optional}")]


def test_recording_keeps_every_substitution_made_inside_it_and_only_inside():
    inner, outer = CodeTemplate("x = $v"), CodeTemplate("if c:\n    ${body}\n")
    inner.substitute(v=0)
    with code_template.recording() as recorded:
        text = outer.substitute(body=[inner.substitute(v=1)])
    inner.substitute(v=2)
    assert text == "if c:\n    x = 1\n"
    assert [e.template for e in recorded] == [inner, outer]
    assert recorded[1].lines[1].items[0] is recorded[0].text, "a nested output is the very string recorded"


def test_explain_mul_tensor_pairs_template_lines_with_generated_lines(capsys):
    assert main(["--explain", "mul.Tensor"]) == 0
    out = capsys.readouterr().out
    expected_pairs = [  # (a template line, the generated line printed right below it)
        ('    1| def ${py_name}(${formals}):    <- ${py_name}, ${formals}', '     |   def mul_Tensor(self, other):'),
        ('    1| class ${op_name}(Node):    <- ${op_name}', '     |   class MulBackward0(Node):'),
        ('    5|     result = kernel_for("${overload}", device_of(${tensor_arguments}))(${arguments})    '
         '<- ${overload}, ${tensor_arguments}, ${arguments}',
         '     |       result = kernel_for("mul.Tensor", device_of(self, other))(self, other)'),
        ('            4|     grad_fn = nodes.${op_name}()    <- ${op_name}',
         '             |       grad_fn = nodes.MulBackward0()'),
        ('            3|     grad_inputs[${edges}] = ${formula}    <- ${edges}, ${formula}',
         '             |       grad_inputs[1] = mul_tensor_backward(grad, self, other_scalar_type)'),
        ("    1| register_kernels(\"${schema}\", {${kernels}}, ${py_name}${view})    <- ${schema}, "
         "${kernels}, ${py_name}, ${view}",
         '     |   register_kernels("mul.Tensor(Tensor self, Tensor other) -> Tensor", {"CPU": native.mul,'
         ' "CUDA": native.mul_cuda}, mul_Tensor)'),
    ]
    lines = out.splitlines()
    for template_line, generated in expected_pairs:
        assert template_line in lines, template_line
        assert lines[lines.index(template_line) + 1] == generated
    for header in ("=== _generated/nodes.py ===", "=== _generated/variable_type.py ===",
                   "=== _generated/python_bindings.py ===", "RECORD_GRAD_FN (gen_variable_type.py)",
                   "PYTHON_NAME (gen_python_functions.py), placed by PYTHON_BINDINGS_PY line 28: ${tensor_methods}"):
        assert header in out
    assert "mul__Tensor" not in out and "mul_Scalar(" not in out, "only mul.Tensor is explained"


def test_explain_by_name_covers_every_overload_of_that_name(capsys):
    assert main(["--explain", "mul"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == ("--explain mul: mul.Tensor (mul.Tensor(Tensor self, Tensor other) -> Tensor), "
                                   "mul.out (mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)), "
                                   "mul.Scalar (mul.Scalar(Tensor self, Scalar other) -> Tensor)")
    assert "     |   def mul_Scalar(self, other):" in out.splitlines()


def test_explain_of_an_unknown_op_is_an_error_not_a_traceback():
    done = subprocess.run([sys.executable, "-m", "picotorchgen", "--explain", "mull.Tensor"],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr == ("python -m picotorchgen: error: --explain mull.Tensor: no op of native_functions.yaml is "
                           "called 'mull.Tensor'; expected an overload such as 'mul.Tensor' or a name such as 'mul'\n")
