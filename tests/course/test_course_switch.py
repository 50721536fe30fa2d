"""PICOTORCH_IMPL selects the package `import picotorch` finds: plain python, pytest, subprocesses."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from picotorch_course import _switch, doctor, implementation
from picotorch_course.__main__ import main

WHERE = "import picotorch, picotorch_course; print(picotorch.__file__); print(picotorch_course.implementation().name)"


def python(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
def generated(project):
    assert main(["exercises"]) == 0
    return project


@pytest.mark.parametrize("impl", ["reference", "exercises"])
def test_subprocess_env_selects_the_package(generated, impl):
    out = python(WHERE, _switch.subprocess_env(impl))
    assert out.returncode == 0, out.stderr
    path, name = out.stdout.split()
    assert Path(path) == generated / impl / "picotorch/__init__.py"
    assert name == impl


@pytest.mark.skipif(not doctor.switch_hook().exists(), reason="start-up hook not installed (run make)")
def test_plain_python_honours_the_variable_through_the_pth(generated):
    env = {**os.environ, "PICOTORCH_IMPL": "exercises"}
    env.pop("PYTHONPATH", None)
    out = python(WHERE, env)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.split()[0]) == generated / "exercises/picotorch/__init__.py"


@pytest.mark.skipif(not doctor.switch_hook().exists(), reason="start-up hook not installed (run make)")
def test_bad_value_is_a_clear_import_error(generated):
    out = python("import picotorch", {**os.environ, "PICOTORCH_IMPL": "solutions"})
    assert out.returncode == 1
    expected = "PICOTORCH_IMPL='solutions' is not a picotorch implementation; use one of: reference, exercises"
    assert expected in out.stderr


@pytest.mark.skipif(not doctor.switch_hook().exists(), reason="start-up hook not installed (run make)")
def test_missing_exercises_tree_says_how_to_make_it(project):
    out = python("import picotorch", _switch.subprocess_env("exercises"))
    assert out.returncode == 1
    assert "generate it with: python -m picotorch_course exercises" in out.stderr


def test_implementation_in_process(monkeypatch):
    monkeypatch.setenv("PICOTORCH_IMPL", "bogus")
    with pytest.raises(_switch.ImplementationError, match="bogus"):
        implementation()
    monkeypatch.setenv("PICOTORCH_IMPL", "exercises")
    assert implementation().name == "exercises"


def test_pytest_refuses_a_bad_value(project):
    env = {**os.environ, "PICOTORCH_IMPL": "nope"}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", str(project / "tests")], env=env,
                         capture_output=True, text=True, timeout=120, cwd=project)
    assert out.returncode == 4
    assert "PICOTORCH_IMPL='nope'" in out.stderr + out.stdout
