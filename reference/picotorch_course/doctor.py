"""``python -m picotorch_course doctor``: what this machine has, for the course.

Never raises: a missing GPU, driver, ``dot`` or MPI is a line of the report, not an error.
``facts(stable=True)`` gives booleans only (no versions or paths), for notebook output that must
not change between machines.
"""

from __future__ import annotations

import importlib.metadata
import platform
import shutil
import sys
import sysconfig
from pathlib import Path

from picotorch_course import _paths, _switch, generate

PTH_NAME = "zz_picotorch_impl.pth"


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _which(program: str) -> str | None:
    """``program`` on PATH, or in this interpreter's own bin/ (the venv's, for the mpich wheel)."""
    found = shutil.which(program)
    if found is None:
        local = Path(sys.executable).parent / program
        found = str(local) if local.exists() else None
    return found


def gpu_status() -> str:
    """'available', or why not; CuPy without a GPU imports fine but fails on any array op."""
    try:
        import cupy
    except Exception:  # any failure means "no CuPy"
        return "no cupy installed"
    try:
        if not cupy.cuda.is_available():
            return "cupy installed, no CUDA device"
        cupy.zeros(1).sum()
        return f"available ({cupy.cuda.runtime.getDeviceCount()} device(s))"
    except Exception as err:  # driver errors come in many types
        return f"cupy installed, GPU unusable ({type(err).__name__})"


def exercises_status() -> str:
    try:
        problems = generate.check(_paths.reference_dir(), _paths.exercises_dir())
    except Exception as err:  # doctor reports, never raises
        return f"cannot check: {err}"
    return "up to date" if not problems else f"{len(problems)} difference(s), e.g. {problems[0]}"


def implementation_status() -> str:
    try:
        name = _switch.requested()
    except _switch.ImplementationError as err:
        return f"invalid: {err}"
    from picotorch_course import implementation

    return f"{name} ({implementation().path})"


def switch_hook() -> Path:
    """Where the ``.pth`` that applies the switch at start-up lives (or would live)."""
    return Path(sysconfig.get_paths()["purelib"]) / PTH_NAME


def facts(stable: bool = False) -> dict[str, str | bool]:
    """The report as a dict; ``stable`` turns every value into a yes/no that nbval can compare."""
    full = {
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "torch (for comparisons)": _version("torch"),
        "graphviz dot": _which("dot"),
        "mpi4py": _version("mpi4py"),
        "mpiexec": _which("mpiexec"),
        "GPU (cupy)": gpu_status(),
        "implementation": implementation_status(),
        "switch hook (.pth)": str(switch_hook()) if switch_hook().exists() else None,
        "exercises/": exercises_status(),
    }
    if not stable:
        return {k: v if v is not None else "missing" for k, v in full.items()}
    return {k: _yes(k, v) for k, v in full.items() if k not in ("python", "implementation")}


def _yes(key: str, value: str | None) -> bool:
    if key == "GPU (cupy)":
        return value is not None and value.startswith("available")
    if key == "exercises/":
        return value == "up to date"
    return value is not None


def report(stable: bool = False) -> str:
    rows = facts(stable)
    width = max(len(k) for k in rows)
    return "\n".join(f"{k:<{width}}  {_show(v)}" for k, v in rows.items())


def _show(value: str | bool) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def install_switch() -> Path:
    """Write the ``.pth`` that imports ``picotorch_course._switch`` at every start-up."""
    target = switch_hook()
    line = (
        "import sys; exec('try:\\n import picotorch_course._switch\\n"
        "except ImportError:\\n pass')\n"
    )
    target.write_text(line, encoding="utf-8")
    return target
