"""Chapter 05: the schema grammar (``torchgen/model.py``) and ``derivatives.yaml`` loading
(``tools/autograd/load_derivatives.py``), as modelled by ``picotorchgen``.

The upstream yaml files are test data kept beside the repository in ``../shared/pytorch``
(never copied into it); the tests that need them skip when that folder is absent.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
try:
    import picotorchgen.model  # noqa: F401
except ImportError:  # not installed: use the implementation the switch selects
    sys.path.insert(0, str(ROOT / os.environ.get("PICOTORCH_IMPL", "reference")))

from picotorchgen.load_derivatives import (  # noqa: E402
    DifferentiabilityInfo,
    backward_node_name,
    parse_derivatives_yaml,
)
from picotorchgen.model import (  # noqa: E402
    Annotation,
    Argument,
    Arguments,
    FunctionSchema,
    NativeFunction,
    OperatorName,
    Return,
    Type,
    parse_native_yaml,
)

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "pytorch"
UPSTREAM_NATIVE = UPSTREAM / "native_functions.yaml"
UPSTREAM_DERIVATIVES = UPSTREAM / "derivatives.yaml"
PACKAGE = ROOT / "reference" / "picotorch"

needs_upstream = pytest.mark.skipif(
    not (UPSTREAM_NATIVE.exists() and UPSTREAM_DERIVATIVES.exists()),
    reason=f"upstream PyTorch yaml test data not found in {UPSTREAM} "
    "(it lives in ../shared/pytorch beside the repository root)",
)


# ------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def upstream_funcs() -> list[str]:
    entries = yaml.load(UPSTREAM_NATIVE.read_text(), Loader=yaml.CSafeLoader)
    return [e["func"] for e in entries]


@pytest.fixture(scope="module")
def native() -> list[NativeFunction]:
    return parse_native_yaml(UPSTREAM_NATIVE)


@pytest.fixture(scope="module")
def infos(native: list[NativeFunction]) -> list[DifferentiabilityInfo]:
    return parse_derivatives_yaml(UPSTREAM_DERIVATIVES, {str(f.func) for f in native})


@pytest.fixture(scope="module")
def node_names(infos: list[DifferentiabilityInfo]) -> dict[str, str | None]:
    """``'mul.Tensor'`` -> ``'MulBackward0'``."""
    return {str(i.func.name): i.op_name for i in infos}


# ------------------------------------------------------------------ the upstream yaml files


@needs_upstream
def test_every_upstream_schema_round_trips(upstream_funcs: list[str]) -> None:
    assert len(upstream_funcs) == 2267
    broken = [s for s in upstream_funcs if str(FunctionSchema.parse(s)) != s]
    assert broken == []


@needs_upstream
def test_parse_native_yaml_reads_every_entry(native: list[NativeFunction]) -> None:
    assert len(native) == 2267
    first = native[0]
    assert str(first.func.name) == "_cast_Byte"
    assert first.loc == (str(UPSTREAM_NATIVE), 9)
    assert first.variants == frozenset({"function"})
    tagged = [f for f in native if f.tags]
    assert tagged and all(isinstance(t, str) for f in tagged for t in f.tags)
    assert "inplace_view" in {t for f in tagged for t in f.tags}


@needs_upstream
def test_native_function_fields(native: list[NativeFunction]) -> None:
    by_name = {str(f.func.name): f for f in native}
    add = by_name["add.Tensor"]
    assert add.variants == frozenset({"function", "method"})
    assert add.structured_delegate == "add.out"
    assert add.device_check == "NoCheck"
    assert add.dispatch["SparseCPU"] == add.dispatch["SparseCUDA"] == "add_sparse"
    add_out = by_name["add.out"]
    assert add_out.structured
    assert add_out.dispatch["SparseCPU"] == "add_out_sparse_cpu"
    assert "ufunc_inner_loop" in add_out.extra
    assert add_out.extra.get("structured_inherits") == "TensorIteratorBase"
    assert add_out.func.kind() == "out"
    abs_out = by_name["abs.out"]
    assert abs_out.dispatch["CPU"] == abs_out.dispatch["CUDA"] == "abs_out"
    assert by_name["add_.Tensor"].func.kind() == "inplace"


@needs_upstream
def test_schema_kinds(native: list[NativeFunction]) -> None:
    kinds = {f.func.kind() for f in native}
    assert {"functional", "inplace", "out", "mutable"} <= kinds


@needs_upstream
def test_parse_all_derivatives(infos: list[DifferentiabilityInfo]) -> None:
    assert len(infos) == 577
    assert all(i.name == str(i.func) for i in infos)


@needs_upstream
def test_every_derivatives_name_is_a_native_schema(
    infos: list[DifferentiabilityInfo], native: list[NativeFunction]
) -> None:
    schemas = {str(f.func) for f in native}
    assert [i.name for i in infos if i.name not in schemas] == []


@needs_upstream
def test_unknown_derivatives_schema_is_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "derivatives.yaml"
    bad.write_text("- name: mul.Tensor(Tensor self, Tensor wrong) -> Tensor\n  self: grad\n")
    with pytest.raises(ValueError, match="no native function has the schema"):
        parse_derivatives_yaml(bad, {"mul.Tensor(Tensor self, Tensor other) -> Tensor"})


# ---------------------------------------------------------------------- autograd node names

EXPECTED_NODES = {
    "mul.Tensor": "MulBackward0",
    "mul.Scalar": "MulBackward1",
    "sub.Tensor": "SubBackward0",
    "sub.Scalar": "SubBackward1",
    "rsub.Scalar": "RsubBackward1",
    "pow.Tensor_Scalar": "PowBackward0",
    "pow.Tensor_Tensor": "PowBackward1",
    "pow.Scalar": "PowBackward2",
    "sum": "SumBackward0",
    "sum.dim_IntList": "SumBackward1",
    "_to_copy": "ToCopyBackward0",
    "squeeze.dim": "SqueezeBackward1",
    "mean.dim": "MeanBackward1",
    "add.Tensor": "AddBackward0",
}


@needs_upstream
@pytest.mark.parametrize(("op", "node"), sorted(EXPECTED_NODES.items()))
def test_node_name(node_names: dict[str, str | None], op: str, node: str) -> None:
    assert node_names[op] == node


@needs_upstream
def test_entries_without_backward_formulas_get_no_node(
    infos: list[DifferentiabilityInfo],
) -> None:
    by_op = {str(i.func.name): i for i in infos}
    any_ = by_op["any"]  # only output_differentiability: [False]
    assert any_.op_name is None
    assert any_.derivatives == ()
    assert any_.output_differentiability == (False,)
    isnan = by_op["isnan"]  # self: non_differentiable
    assert isnan.op_name is None
    assert isnan.non_differentiable == ("self",)


@needs_upstream
def test_node_names_are_unique(infos: list[DifferentiabilityInfo]) -> None:
    names = [i.op_name for i in infos if i.op_name is not None]
    assert len(names) == len(set(names))


@needs_upstream
def test_derivative_entry_fields(infos: list[DifferentiabilityInfo]) -> None:
    by_op = {str(i.func.name): i for i in infos}
    mul = by_op["mul.Tensor"]
    assert [d.var_names for d in mul.derivatives] == [("self",), ("other",)]
    assert mul.result_formula is not None
    assert mul.args_with_derivatives == ("self", "other")
    assert mul.loc[0] == str(UPSTREAM_DERIVATIVES) and mul.loc[1] > 1
    multi = [i for i in infos if any(len(d.var_names) > 1 for d in i.derivatives)]
    assert multi, "some entries share one formula between inputs ('self, other: ...')"
    assert any(i.not_implemented for i in infos)
    assert any(i.output_differentiability == (True, False) for i in infos)


# --------------------------------------------------------------- cross-check with real torch

TORCH_CASES = [
    ("mul.Tensor", lambda torch, x: x * x),
    ("pow.Tensor_Scalar", lambda torch, x: x.pow(2)),
    ("pow.Tensor_Tensor", lambda torch, x: x.pow(x)),
    ("pow.Scalar", lambda torch, x: torch.pow(2.0, x)),
    ("sum", lambda torch, x: x.sum()),
    ("sum.dim_IntList", lambda torch, x: x.sum(0)),
    ("mean.dim", lambda torch, x: x.mean(0)),
    ("_to_copy", lambda torch, x: x.to(torch.float64)),
    ("squeeze.dim", lambda torch, x: x.unsqueeze(0).squeeze(0)),
    ("rsub.Scalar", lambda torch, x: 1 - x),
    ("sub.Tensor", lambda torch, x: x - x),
    ("add.Tensor", lambda torch, x: x + x),
    ("exp", lambda torch, x: x.exp()),
]


@needs_upstream
@pytest.mark.parametrize(("op", "make"), TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_node_names_match_real_torch(node_names: dict[str, str | None], op: str, make) -> None:
    torch = pytest.importorskip("torch")
    x = torch.ones(2, 3, requires_grad=True)
    assert make(torch, x).grad_fn.name() == node_names[op]


def test_node_counter_rule() -> None:
    from collections import Counter

    counter: Counter[str] = Counter()
    assert backward_node_name("mul", counter) == "MulBackward0"
    assert backward_node_name("mul", counter) == "MulBackward1"
    assert backward_node_name("_to_copy", counter) == "ToCopyBackward0"
    assert backward_node_name("conv2d", counter) == "Conv2DBackward0"
    assert backward_node_name("_foo_forward", counter) == "FooBackward0"
    assert backward_node_name("add_", counter) == "AddBackward0"
    assert backward_node_name("f", counter, "AutogradNestedTensor") == ("FBackwardAutogradNestedTensor0")


def test_dispatch_keyed_entries(tmp_path: Path) -> None:
    path = tmp_path / "derivatives.yaml"
    path.write_text(
        "- name: f.a(Tensor self) -> Tensor\n"
        "  dispatch:\n"
        "    Default:\n"
        "      self: grad\n"
        "      result: auto_linear\n"
        "    AutogradNestedTensor:\n"
        "      self: grad * 2\n"
        "- name: f.b(Tensor self, bool b) -> Tensor\n"
        "  dispatch:\n"
        "    AutogradNestedTensor:\n"
        "      self: grad\n"
        "- name: f.c(Tensor self) -> Tensor\n"
        "  self: grad\n"
        "- name: f.d(Tensor self) -> Tensor\n"
        "  self: non_differentiable\n"
        "- name: f.e(Tensor self) -> Tensor\n"
        "  self: grad\n"
    )
    a, b, c, d, e = parse_derivatives_yaml(path)
    assert a.op_name == "FBackward0"
    assert a.result_formula == "auto_linear"
    assert a.dispatch_op_names == (
        ("Default", "FBackward0"),
        ("AutogradNestedTensor", "FBackwardAutogradNestedTensor0"),
    )
    assert b.op_name is None
    assert b.dispatch_op_names == (("AutogradNestedTensor", "FBackwardAutogradNestedTensor1"),)
    assert c.op_name == "FBackward1"
    assert d.op_name is None and d.non_differentiable == ("self",)
    assert e.op_name == "FBackward2", "an entry with no backward formula uses no number"


def test_derivatives_errors(tmp_path: Path) -> None:
    path = tmp_path / "derivatives.yaml"
    path.write_text("- name: f(Tensor self) -> Tensor\n  self: grad\n  self, x: grad\n")
    with pytest.raises(ValueError, match=r"\['x'\] are not arguments"):
        parse_derivatives_yaml(path)
    path.write_text("- self: grad\n")
    with pytest.raises(ValueError, match="no 'name:'"):
        parse_derivatives_yaml(path)


# ------------------------------------------------------------------------- the grammar


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a", Annotation(("a",), False)),
        ("a!", Annotation(("a",), True)),
        ("a -> *", Annotation(("a",), False, ("*",))),
        ("a|b", Annotation(("a", "b"), False)),
        ("a! -> b", Annotation(("a",), True, ("b",))),
    ],
)
def test_annotation(text: str, expected: Annotation) -> None:
    assert Annotation.parse(text) == expected
    assert str(expected) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tensor", Type("Tensor")),
        ("Tensor?", Type("Tensor", optional=True)),
        ("Tensor[]", Type("Tensor", is_list=True)),
        ("Tensor?[]", Type("Tensor", is_list=True, elem_optional=True)),
        ("int[1]", Type("int", is_list=True, list_size=1)),
        ("int[2]?", Type("int", optional=True, is_list=True, list_size=2)),
        ("SymInt[]", Type("SymInt", is_list=True)),
        ("str?", Type("str", optional=True)),
        ("ScalarType?", Type("ScalarType", optional=True)),
    ],
)
def test_type(text: str, expected: Type) -> None:
    assert Type.parse(text) == expected
    assert str(expected) == text


def test_is_tensor_like() -> None:
    for text in ("Tensor", "Tensor?", "Tensor[]", "Tensor?[]"):
        assert Type.parse(text).is_tensor_like()
    for text in ("Scalar", "int[]", "float?"):
        assert not Type.parse(text).is_tensor_like()


@pytest.mark.parametrize(
    "text",
    [
        "Tensor(a!) self",
        "Tensor(a) self",
        "Tensor(a -> *) self",
        "Tensor(a!)[] out",
        "Tensor?[] indices",
        "Scalar alpha=1",
        "int[1] dim=[]",
        "int[2] stride=[1, 1]",
        "str? rounding_mode=None",
        'str padding="valid"',
        "float? eps=None",
        "SymInt[] size",
        "bool keepdim=False",
        "MemoryFormat? memory_format=contiguous_format",
    ],
)
def test_argument_round_trip(text: str) -> None:
    assert str(Argument.parse(text)) == text


def test_argument_fields() -> None:
    arg = Argument.parse("Tensor(a!) self")
    assert arg.name == "self" and arg.default is None
    assert arg.type == Type("Tensor") and arg.annotation == Annotation(("a",), True)
    arg = Argument.parse("int[1] dim=[]")
    assert (arg.type.list_size, arg.default, arg.annotation) == (1, "[]", None)
    assert Argument.parse('str padding="valid"').default == '"valid"'
    assert Argument.parse("str? rounding_mode=None").default == "None"


def test_returns() -> None:
    schema = FunctionSchema.parse(
        "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
    )
    assert [r.name for r in schema.returns] == ["values", "indices"]
    split = FunctionSchema.parse("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]")
    assert split.returns == (Return(None, Type("Tensor", is_list=True), Annotation(("a",), False)),)
    assert FunctionSchema.parse("_foo(Tensor self) -> ()").returns == ()


@pytest.mark.parametrize(
    ("text", "base", "inplace", "dunder", "overload", "unambiguous"),
    [
        ("add", "add", False, False, "", "add"),
        ("add.Tensor", "add", False, False, "Tensor", "add_Tensor"),
        ("add_.Tensor", "add", True, False, "Tensor", "add__Tensor"),
        ("_foo_", "_foo", True, False, "", "_foo_"),
        ("_foreach_add_.List", "_foreach_add", True, False, "List", "_foreach_add__List"),
        ("__and__.Tensor", "and", False, True, "Tensor", "__and___Tensor"),
        ("__iand__.Tensor", "and", True, True, "Tensor", "__iand___Tensor"),
        ("__lshift__.Scalar", "lshift", False, True, "Scalar", "__lshift___Scalar"),
    ],
)
def test_operator_name(text: str, base: str, inplace: bool, dunder: bool, overload: str, unambiguous: str) -> None:
    name = OperatorName.parse(text)
    assert (name.base, name.inplace, name.dunder_method, name.overload_name) == (
        base,
        inplace,
        dunder,
        overload,
    )
    assert str(name) == text
    assert name.unambiguous_name == unambiguous


def test_arguments_groups() -> None:
    args = Arguments.parse("Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out")
    assert [a.name for a in args.positional] == ["self", "other"]
    assert [a.name for a in args.kwarg_only] == ["alpha"]
    assert [a.name for a in args.out] == ["out"]
    assert [a.name for a in args.flat_all()] == ["self", "other", "alpha", "out"]
    assert str(args) == "Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out"
    assert str(Arguments.parse("")) == ""


def test_kind_and_signature() -> None:
    functional = FunctionSchema.parse("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    inplace = FunctionSchema.parse("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
    out = FunctionSchema.parse("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    assert [s.kind() for s in (functional, inplace, out)] == ["functional", "inplace", "out"]
    expected = "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert {s.signature() for s in (functional, inplace, out)} == {expected}
    factory = FunctionSchema.parse(
        "ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None) -> Tensor"
    )
    assert factory.signature() == "ones(SymInt[] size) -> Tensor"
    mutable = FunctionSchema.parse("_amp_update_scale_(Tensor(a!) self, Tensor(b!) g) -> Tensor(a!)")
    assert mutable.kind() == "inplace"
    assert FunctionSchema.parse("_m(Tensor self, Tensor(b!) g) -> Tensor").kind() == "mutable"


@needs_upstream
def test_signature_matches_torchgen(native: list[NativeFunction]) -> None:
    """Where the installed torchgen can read a schema, kinds and signatures agree."""
    tg = pytest.importorskip("torchgen.model")
    compared = 0
    for f in native:
        try:
            theirs = tg.FunctionSchema.parse(str(f.func))
        except Exception:  # e.g. Dimname, which newer torchgen no longer knows
            continue
        compared += 1
        assert f.func.kind() == theirs.kind().name, str(f.func)
        assert f.func.signature() == str(theirs.signature()), str(f.func)
    assert compared > 2000


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ("add.Tensor(Tensor self, Tensor other) Tensor", "' -> '"),
        ("add.Tensor Tensor self -> Tensor", "no '('"),
        ("add.Tensor(Tensor self -> Tensor", "unclosed"),
        ("add.Tensor(Tensor self, Tensor other) -> ", "missing return"),
        ("add.Tensor(Tensr self) -> Tensor", "unknown type 'Tensr'"),
        ("add.Tensor(Tensor) -> Tensor", "no name"),
        ("add.Tensor(Tensor self, Tensor self) -> Tensor", "duplicate argument"),
        ("add.Tensor(Tensor(A!) self) -> Tensor", "bad alias annotation"),
        ("add.Tensor(Tensor self, *) -> Tensor", "'*' is not followed"),
        ("add.Tensor(Tensor self, *, int a, *, int b) -> Tensor", "'*' appears twice"),
        ("add.Tensor(int a=) -> Tensor", "no default value"),
        ("1add(Tensor self) -> Tensor", "not an identifier"),
        ("add.(Tensor self) -> Tensor", "empty overload"),
        ("add.Tensor(Tensor self) -> (Tensor a, Tensor b", "without closing"),
    ],
)
def test_malformed_schema_raises(schema: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace("*", r"\*")):
        FunctionSchema.parse(schema)


def test_malformed_native_yaml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "native_functions.yaml"
    path.write_text("- func: a(Tensor self) -> Tensor\n\n- func: b(Tensr self) -> Tensor\n")
    with pytest.raises(ValueError, match=r"native_functions.yaml:3: unknown type"):
        parse_native_yaml(path)


# ------------------------------------------------------------- picotorch's own yaml files


@pytest.mark.skipif(not (PACKAGE / "native_functions.yaml").exists(), reason="package yaml not written yet")
def test_package_yaml_files_parse() -> None:
    native = parse_native_yaml(PACKAGE / "native_functions.yaml")
    assert native
    for f in native:
        assert str(FunctionSchema.parse(str(f.func))) == str(f.func)
    derivatives = PACKAGE / "derivatives.yaml"
    if derivatives.exists():
        infos = parse_derivatives_yaml(derivatives, {str(f.func) for f in native})
        assert all(i.func for i in infos)
        _check_node_names_exist_in_torch([i.op_name for i in infos if i.op_name])


def _check_node_names_exist_in_torch(names: list[str]) -> None:
    """Node counters are per name and in yaml order, so a subset of upstream's entries
    only reproduces PyTorch's names if it keeps every earlier entry of the same op."""
    try:
        import torch
    except ImportError:
        return
    real = set(dir(torch._C._functions))
    assert [n for n in names if n not in real] == []
