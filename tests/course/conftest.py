"""A tiny course project in a temporary folder, for testing the tooling without the real chapters."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

OPS = '''\
"""Two ops, each with an exercise."""


def double(x):
    """Twice x."""
    # BEGIN SOLUTION 1.1: return twice x
    y = x + x
    return y
    # END SOLUTION


class Box:
    def triple(self, x):
        # BEGIN SOLUTION 1.2: return three times x
        return 3 * x
        # END SOLUTION
'''

TESTS = '''\
import pytest

from picotorch import ops


@pytest.mark.exercise("1.1")
def test_double():
    assert ops.double(2) == 4


@pytest.mark.exercise("1.2")
def test_triple():
    assert ops.Box().triple(2) == 6


def test_plain():
    assert 1 + 1 == 2
'''


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project root with reference/picotorch (2 exercises), a yaml file and chapter-1 tests."""
    root = tmp_path / "proj"
    write(root / "reference/picotorch/__init__.py", '"""tiny picotorch"""\n')
    write(root / "reference/picotorch/ops.py", OPS)
    write(root / "reference/picotorch/data/ops.yaml", "- func: double(Tensor x) -> Tensor\n")
    write(root / "tests/conftest.py", 'pytest_plugins = ["picotorch_course.pytest_plugin"]\n')
    write(root / "tests/ch01_ops/test_ops.py", TESTS)
    for var in ("PICOTORCH_REFERENCE_DIR", "PICOTORCH_EXERCISES_DIR", "PICOTORCH_IMPL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PICOTORCH_ROOT", str(root))
    return root
