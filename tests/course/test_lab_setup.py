"""The learner's setup is enough: a venv built the way the README's `make lab` builds it checks exercises.

``make lab`` runs ``pip install -e '.[lab]'`` (no test extras, no torch) and ``install-switch``. The
slow tests below do exactly that in a fresh ``python -m venv`` and runs ``python -m picotorch_course
check`` there on a solved exercise (✅) and an unsolved one (❌ with its own NotImplementedError),
and validates every notebook with nbval there (no torch: PyTorch's side comes from the recording).

Building the venv takes about a minute, so it is kept in ``.venv-lab-test/<hash>`` (gitignored),
keyed by a hash of ``pyproject.toml`` and of this recipe: it is rebuilt only when they change.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from picotorch_course import _paths, blocks, generate, markers

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".venv-lab-test"
RECIPE = "venv; pip install -e .[lab]; python -m picotorch_course install-switch"
SOLVED, UNSOLVED = "0.1", "3.1"


def _requirement_names(lines: list[str]) -> set[str]:
    return {line.split(";")[0].split("=")[0].split(">")[0].split("<")[0].strip().lower() for line in lines}


def test_binder_installs_what_the_lab_extra_installs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    # Binder adds the mpi extra to the lab's, so chapter 07 can launch real MPI processes from a cell
    wanted = _requirement_names(project["dependencies"] + extras["lab"] + extras["mpi"])
    lines = (ROOT / "binder/requirements.txt").read_text().splitlines()
    listed = _requirement_names([line for line in lines if line.strip() and not line.startswith("#")])
    assert listed == wanted
    assert "torch" not in wanted  # several GB from PyPI: the notebooks show recorded PyTorch output
    post_build = (ROOT / "binder/postBuild").read_text()
    assert "-e \".[lab,mpi]\"" in post_build and "install-switch" in post_build
    assert "picotorch_course exercises" in post_build


def _key() -> str:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + RECIPE.encode())
    return digest.hexdigest()[:16]


def _build(venv: Path) -> float:
    """Create the learner's venv at ``venv`` the way `make lab` does; returns the seconds it took."""
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin/python")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PICOTORCH_", "VIRTUAL_ENV"))}
    subprocess.run([python, "-m", "pip", "install", "-q", "-e", ".[lab]"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "-m", "picotorch_course", "install-switch"], cwd=ROOT, env=env, check=True)
    return time.monotonic() - start


@pytest.fixture(scope="session")
def lab_python() -> Path:
    """The python of a cached learner venv (built on first use, under a lock)."""
    venv = CACHE / _key()
    CACHE.mkdir(exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".complete").exists():
            for old in CACHE.iterdir():
                if old.is_dir():
                    shutil.rmtree(old)
            seconds = _build(venv)
            (venv / ".complete").write_text(f"built in {seconds:.0f}s\n")
    return venv / "bin/python"


def _learner_tree(dest: Path) -> Path:
    """A generated exercises folder in which exactly ``SOLVED`` holds the reference solution."""
    reference = _paths.reference_dir()
    generate.write_tree(generate.expected_files(reference), dest)
    exercise = markers.discover(reference / "picotorch")[SOLVED]
    target = dest / exercise.path.relative_to(reference)
    solution = exercise.path.read_text(encoding="utf-8").splitlines(keepends=True)[exercise.begin : exercise.end - 1]
    target.write_text(blocks.put_bodies(target.read_text(encoding="utf-8"), {SOLVED: solution}), encoding="utf-8")
    return dest


def _check(python: Path, exercise_id: str, tree: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PICOTORCH_", "VIRTUAL_ENV"))}
    env.update(PICOTORCH_IMPL="exercises", PICOTORCH_EXERCISES_DIR=str(tree))
    return subprocess.run(
        [str(python), "-m", "picotorch_course", "check", exercise_id],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )


def test_check_works_in_the_learners_own_environment(lab_python, tmp_path):
    torch_found = subprocess.run([str(lab_python), "-c", "import torch"], capture_output=True).returncode == 0
    assert not torch_found, "the lab extra must not pull in torch"
    tree = _learner_tree(tmp_path / "exercises")

    solved = _check(lab_python, SOLVED, tree)
    assert solved.returncode == 0, solved.stdout + solved.stderr
    assert solved.stdout.startswith(f"✅ Exercise {SOLVED} ")

    unsolved = _check(lab_python, UNSOLVED, tree)
    assert unsolved.returncode == 1, unsolved.stdout + unsolved.stderr
    assert unsolved.stdout.startswith(f"❌ Exercise {UNSOLVED} ")
    assert "NotImplementedError" in unsolved.stdout and f"Exercise {UNSOLVED}:" in unsolved.stdout


def test_notebooks_validate_in_the_learners_environment(lab_python):
    """Every notebook gives its committed outputs without torch (PyTorch's side is the recording)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PICOTORCH_", "VIRTUAL_ENV"))}
    env["PICOTORCH_IMPL"] = "reference"
    notebooks = sorted(str(p) for p in (ROOT / "notebooks").glob("*.ipynb"))
    done = subprocess.run(
        [str(lab_python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-sanitize-with", str(ROOT / "tests/nbval_sanitize.cfg"), *notebooks],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200,
    )
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert done.returncode == 0, "\n".join(failed) or done.stdout[-3000:] + done.stderr[-3000:]
