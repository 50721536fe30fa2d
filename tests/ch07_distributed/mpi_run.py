"""Run a Python script under ``mpiexec -n N`` (the venv's, beside ``sys.executable``) for the MPI tests.

The tests skip, saying why, when mpi4py or ``mpiexec`` are missing (``pip install "picotorch[mpi]"``).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import picotorch

MPIEXEC = Path(sys.executable).parent / "mpiexec"
SRC = str(Path(picotorch.__file__).resolve().parents[1])  # the picotorch this test runs (reference or exercises)


def require_mpi() -> None:
    if importlib.util.find_spec("mpi4py") is None:
        pytest.skip('MPI tests need mpi4py: pip install "picotorch[mpi]" (make test installs it)')
    if not MPIEXEC.exists():
        pytest.skip(f"MPI tests need mpiexec beside the interpreter ({MPIEXEC} is missing): "
                    'pip install "picotorch[mpi]" puts the mpich wheel\'s there')


def mpiexec(script: Path, *args: str, ranks: int = 2, timeout: float = 30.0, env: dict | None = None):
    """``mpiexec -n ranks python script args...``; returns the CompletedProcess (text, both streams)."""
    require_mpi()
    environment = {**os.environ, **(env or {})}
    environment["PYTHONPATH"] = SRC + os.pathsep + environment.get("PYTHONPATH", "")
    command = [str(MPIEXEC), "-n", str(ranks), sys.executable, str(script), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=environment)
