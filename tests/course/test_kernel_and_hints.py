"""A notebook kernel that still runs an older copy of the learner's code is told to restart; every
exercise test says in its docstring what it checks (the hint a learner sees when it fails)."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

from picotorch_course import _switch, checker
from picotorch_course.__main__ import main

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture
def fresh_picotorch(project, monkeypatch):
    """The tiny project's exercises imported into this process as a notebook kernel would; undone after."""
    assert main(["exercises"]) == 0
    monkeypatch.setenv("PICOTORCH_IMPL", "exercises")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    saved = {name: sys.modules.pop(name) for name in list(sys.modules) if name.split(".")[0] == "picotorch"}
    _switch.apply()
    try:
        yield importlib.import_module("picotorch.ops")
    finally:
        for name in [n for n in sys.modules if n.split(".")[0] == "picotorch"]:
            del sys.modules[name]
        sys.modules.update(saved)


def test_check_says_to_restart_the_kernel_after_an_edit(project, fresh_picotorch, capsys):
    ops = project / "exercises/picotorch/ops.py"
    assert Path(fresh_picotorch.__file__).resolve() == ops.resolve()
    assert checker.stale_modules() == []
    ops.write_text(ops.read_text().replace('raise NotImplementedError("Exercise 1.1: return twice x")', "return 2 * x"))
    assert checker.stale_modules() == ["picotorch.ops"]
    assert checker.check("1.1", timeout=5) is True
    assert checker.RESTART in capsys.readouterr().out
    importlib.reload(fresh_picotorch)
    assert checker.stale_modules() == []


def exercise_tests_without_docstring(folder: Path) -> list[str]:
    """``file::test`` for every test marked ``@pytest.mark.exercise`` whose function has no docstring."""
    missing = []
    for path in sorted(folder.glob("ch*/test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _marked(node):
                if not (ast.get_docstring(node) or "").strip():
                    missing.append(f"{path.relative_to(folder).as_posix()}::{node.name}")
    return missing


def _marked(node: ast.FunctionDef) -> bool:
    return any("mark.exercise" in ast.unparse(d) for d in node.decorator_list)


def test_every_exercise_test_has_a_hint():
    missing = exercise_tests_without_docstring(TESTS)
    assert not missing, "exercise tests need a docstring (its first line is the learner's hint):\n" + "\n".join(
        missing
    )
