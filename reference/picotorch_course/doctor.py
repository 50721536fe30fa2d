"""``python -m picotorch_course doctor``: what this machine has, for the course, and how far you are.

Each part is a line: what ``check``, ``grade`` and the notebook checks need (pytest, nbval, the
switch hook), what widens what the course can show (torch for live comparisons — without it the
notebooks show PyTorch's recorded output —, graphviz's ``dot``, MPI, a GPU), and the exercises
solved so far. For every part that is missing the report ends with the one line that installs it.

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

from picotorch_course import _paths, _switch, compare, update

PTH_NAME = "zz_picotorch_impl.pth"
RECORDED_TORCH = "2.13.0"
LAB = "pip install -e '.[lab]'   (or: make lab)"

# What to run when a part is missing; optional parts only widen what the course can show.
FIXES = {
    "pytest (check, grade)": LAB,
    "nbval (notebook checks)": LAB,
    "scikit-learn (the digits, chapter 08)": LAB,
    "torch (for comparisons)": "optional, for live comparisons: pip install torch==2.13.0 --index-url "
    "https://download.pytorch.org/whl/cpu   (the CPU build: 190 MB download, 750 MB installed)",
    "graphviz dot": "sudo apt-get install graphviz   (Debian/Ubuntu)   or   brew install graphviz   (macOS)",
    "mpi4py": "optional, for chapter 07: pip install -e '.[mpi]'",
    "mpiexec": "optional, for chapter 07: pip install -e '.[mpi]'",
    "GPU (cupy)": "optional, needs an NVIDIA GPU: pip install -e '.[gpu]'",
    "switch hook (.pth)": "python -m picotorch_course install-switch",
    "exercises/": "make exercises   (python -m picotorch_course exercises)",
}


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
    """The learner's progress: "solved 5 of 14: 0.1 0.2 1.1 ..." (stub lines gone; no test is run)."""
    try:
        return update.progress(_paths.reference_dir(), _paths.exercises_dir()).line()
    except Exception as err:  # doctor reports, never raises
        return f"cannot tell: {err}"


def torch_status() -> str:
    """Whether the notebooks compare with PyTorch live or show its recorded output (``compare`` decides)."""
    try:
        torch = compare.live_torch()
    except Exception as err:  # a bad PICOTORCH_COMPARE: doctor reports, never raises
        return f"cannot tell: {err}"
    if torch is not None:
        return f"live (torch {torch.__version__})"
    return f"recorded: the notebooks show PyTorch {RECORDED_TORCH}'s output saved with the course"


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
        "pytest (check, grade)": _version("pytest"),
        "nbval (notebook checks)": _version("nbval"),
        "scikit-learn (the digits, chapter 08)": _version("scikit-learn"),
        "torch (for comparisons)": torch_status(),
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
        return value is not None and value.startswith("solved")
    if key == "torch (for comparisons)":
        return value is not None and value.startswith("live")
    return value is not None


def report(stable: bool = False) -> str:
    """One line per part; then, unless ``stable``, the one-line fix for each part that is missing."""
    rows = facts(stable)
    width = max(len(k) for k in rows)
    lines = [f"{k:<{width}}  {_show(v)}" for k, v in rows.items()]
    if stable:
        return "\n".join(lines)
    missing = [key for key, ok in facts(stable=True).items() if not ok and key in FIXES]
    if missing:
        lines += ["", "to fix:"] + [f"  {key}: {FIXES[key]}" for key in missing]
    return "\n".join(lines)


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
