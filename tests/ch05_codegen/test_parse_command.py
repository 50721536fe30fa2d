"""Chapter 05: ``python -m picotorchgen parse PATH`` and ``picotorchgen.parse_file`` on picotorch's YAML files,
on PyTorch's real ones (``../shared/pytorch``, skipped when absent), and on files with bad entries.

Every expected count is computed here another way: a regular expression over the text, or plain
``yaml.safe_load`` and a few lines of Python, never picotorchgen's parser.
"""

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from picotorchgen import parse_file
from picotorchgen.gen import PACKAGE, main

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "pytorch"
NATIVE = UPSTREAM / "native_functions.yaml"
DERIVATIVES = UPSTREAM / "derivatives.yaml"
needs_upstream = pytest.mark.skipif(
    not (NATIVE.exists() and DERIVATIVES.exists()),
    reason=f"PyTorch's native_functions.yaml and derivatives.yaml are test data kept outside the repository, in "
    f"{UPSTREAM}; not found (torch wheels do not ship them)",
)


def count_lines(path: Path, pattern: str) -> int:
    return len(re.findall(pattern, path.read_text(), re.MULTILINE))


# ------------------------------------------------------------------------------ picotorch's files


def test_picotorch_native_functions_all_parse():
    path = PACKAGE / "native_functions.yaml"
    report = parse_file(path)
    entries = count_lines(path, r"^- func:")
    assert (report.kind, report.parsed, report.total, report.failures) == ("native_functions", entries, entries, [])
    assert str(report).splitlines()[-1] == f"parsed {entries} of {entries} entries"


def test_picotorch_derivatives_all_parse_and_pair_with_the_native_file():
    path = PACKAGE / "derivatives.yaml"
    report = parse_file(path)
    entries = count_lines(path, r"^- name:")
    assert (report.kind, report.parsed, report.total) == ("derivatives", entries, entries)
    assert report.paired_with == str(PACKAGE / "native_functions.yaml")


def test_entries_carry_what_the_notebook_charts():
    report = parse_file(PACKAGE / "native_functions.yaml")
    mul = next(e for e in report.entries if (e.name, e.overload) == ("mul", "Tensor"))
    assert mul.dispatch_keys == ("CPU", "CUDA") and mul.derivative == "exact" and mul.node == "MulBackward0"
    in_place = next(e for e in report.entries if (e.name, e.overload) == ("mul_", "Tensor"))
    assert (in_place.kind, in_place.derivative, in_place.node) == ("inplace", "functional", "MulBackward0")
    matmul = next(e for e in report.entries if e.name == "matmul")
    assert matmul.dispatch_keys == ("CompositeImplicitAutograd",) and not matmul.has_derivative


# ------------------------------------------------------------------------------ PyTorch's real files


@pytest.fixture(scope="module")
def upstream_entries() -> list[dict]:
    return yaml.load(NATIVE.read_text(), Loader=yaml.CSafeLoader)  # plain YAML, not picotorchgen


@pytest.fixture(scope="module")
def upstream_report():
    return parse_file(NATIVE)


@needs_upstream
def test_every_real_native_function_parses(upstream_report):
    entries = count_lines(NATIVE, r"^- func:")
    assert entries == 2267
    assert (upstream_report.parsed, upstream_report.total, upstream_report.failures) == (entries, entries, [])


@needs_upstream
def test_every_real_derivative_parses():
    entries = count_lines(DERIVATIVES, r"^- name:")
    report = parse_file(DERIVATIVES)
    assert entries == 577
    assert (report.kind, report.parsed, report.total, report.failures) == ("derivatives", entries, entries, [])
    nodes = sum(1 for e in report.entries if e.node)
    assert report.summary().derivatives == Counter({"backward node": nodes, "no node": entries - nodes})


@needs_upstream
def test_real_summary_counts_match_a_plain_yaml_count(upstream_report, upstream_entries):
    summary = upstream_report.summary()
    keys = Counter(key.strip() for e in upstream_entries for keys in e.get("dispatch", {}) for key in keys.split(","))
    implied = sum(1 for e in upstream_entries  # torchgen: no dispatch:, not structured nor delegating
                  if "dispatch" not in e and not e.get("structured") and "structured_delegate" not in e)
    assert summary.per_dispatch_key == keys + Counter({"CompositeImplicitAutograd (no dispatch:)": implied})
    assert summary.structured == Counter({
        "structured": count_lines(NATIVE, r"^  structured: True"),
        "structured_delegate": count_lines(NATIVE, r"^  structured_delegate:"),
        "neither": 2267 - count_lines(NATIVE, r"^  structured: True") - count_lines(NATIVE, r"^  structured_delegate:"),
    })
    assert all(isinstance(e["tags"], str) for e in upstream_entries if "tags" in e)
    assert summary.per_tag == Counter(e["tags"] for e in upstream_entries if "tags" in e)
    assert summary.per_kind["out"] == sum(1 for e in upstream_entries if _writes_a_keyword_argument(e["func"]))


def _writes_a_keyword_argument(func: str) -> bool:
    """An out variant: not in place (no ``_`` before the overload) and a ``Tensor(a!)`` after the ``*``."""
    name, _, arguments = func.partition("(")
    return not name.split(".")[0].endswith("_") and re.search(r"\*, .*Tensor\([a-z]!\)", arguments) is not None


@needs_upstream
def test_real_derivative_pairing(upstream_report, upstream_entries):
    """Exact: the 577 ``name:`` schemas all appear as ``func:`` schemas (../shared/pytorch/SOURCE.md)."""
    derivatives = upstream_report.summary().derivatives
    assert derivatives["exact"] == count_lines(DERIVATIVES, r"^- name:")
    assert sum(derivatives.values()) == 2267
    add_ = next(e for e in upstream_report.entries if (e.name, e.overload) == ("add_", "Tensor"))
    assert (add_.derivative, add_.node) == ("functional", "AddBackward0")


@needs_upstream
def test_the_command_on_the_real_file_ends_with_the_count():
    done = subprocess.run([sys.executable, "-m", "picotorchgen", "parse", str(NATIVE), "--summary"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"{NATIVE}: a native_functions.yaml file, paired with {DERIVATIVES}"
    assert lines[-1] == "parsed 2267 of 2267 entries"
    assert "per dispatch key:" in lines and "per tag:" in lines


# ------------------------------------------------------------------------------ files with bad entries


def test_bad_entries_are_listed_with_their_lines_and_the_rest_parse(tmp_path, capsys):
    path = tmp_path / "native_functions.yaml"
    path.write_text("- func: a(Tensor self) -> Tensor\n"
                    "\n"
                    "- func: b(Tensr self) -> Tensor\n"
                    "- func: c(Tensor self) -> Tensor\n"
                    "  variants: funtion\n"
                    "- func: a(Tensor self) -> Tensor\n"
                    "- func: d(Tensor self) -> Tensor\n")
    assert main(["parse", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "parsed 2 of 5 entries"
    assert lines[-5] == "3 failures:"
    assert lines[-4].startswith("  line 3: unknown type 'Tensr' in 'Tensr'; expected a schema type such as Tensor")
    assert lines[-3] == ("  line 4: unknown variants ['funtion']; expected 'function', 'method' or "
                         "'function, method'")
    assert lines[-2] == "  line 6: operator a is already defined at line 1; expected one entry per 'name.overload'"


def test_the_kind_is_told_by_content_not_by_file_name(tmp_path):
    path = tmp_path / "formulas.yaml"
    path.write_text("- name: f(Tensor self) -> Tensor\n  self: grad\n")
    report = parse_file(path)
    assert (report.kind, report.parsed, report.total, report.paired_with) == ("derivatives", 1, 1, None)


def test_a_yaml_syntax_error_fails_the_whole_file_with_its_line(tmp_path, capsys):
    path = tmp_path / "native_functions.yaml"
    path.write_text("- func: a(Tensor self) -> Tensor\n- func: b(Tensor self) -> Tensor\n  variants: [method\n"
                    "- func: c(Tensor self) -> Tensor\n")
    assert main(["parse", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "parsed 0 of 3 entries"
    assert re.fullmatch(r"  line 4: YAML syntax error: .*; expected valid YAML: .*", lines[-2])


def test_a_missing_file_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["parse", str(tmp_path / "nope.yaml")])
    assert exit_.value.code == 2 and "no such file" in capsys.readouterr().err
