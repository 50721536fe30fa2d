"""The implementation switch: ``PICOTORCH_IMPL=reference|exercises`` selects what ``import picotorch`` finds.

Importing this module applies the switch. A one-line ``.pth`` file in the virtual environment's
site-packages (written by ``python -m picotorch_course install-switch``, which ``make`` runs) imports
it at interpreter start-up, so the choice holds in a plain ``python``, in pytest, in notebook kernels
and in every subprocess that inherits the environment.

How: the reference is found through the editable install (``reference/`` is on ``sys.path``). For
``exercises`` we put the exercises folder *in front* of ``sys.path``, so its ``picotorch`` wins.
For an unknown value we install a finder that refuses to import ``picotorch`` with a clear message
(an exception raised while a ``.pth`` runs would only be printed and then ignored).

picotorch itself never imports this module: the arrow points from the course to the package.
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib.machinery import PathFinder

from picotorch_course import _paths

IMPLS = ("reference", "exercises")
ENV = "PICOTORCH_IMPL"


class ImplementationError(ValueError):
    """PICOTORCH_IMPL has a value that names no implementation."""


def requested() -> str:
    """The implementation named by ``PICOTORCH_IMPL`` (default ``reference``); raises if unknown."""
    value = os.environ.get(ENV, "").strip() or "reference"
    if value not in IMPLS:
        raise ImplementationError(
            f"{ENV}={value!r} is not a picotorch implementation; use one of: {', '.join(IMPLS)}"
        )
    return value


def package_parent(impl: str) -> str:
    """The folder that must be on ``sys.path`` for ``impl``'s ``picotorch`` to be imported."""
    folder = _paths.exercises_dir() if impl == "exercises" else _paths.reference_dir()
    return str(folder)


# The two finders below are plain classes with a ``find_spec`` method, all ``sys.meta_path`` asks of them:
# subclassing importlib.abc.MetaPathFinder would import importlib.resources, tempfile, shutil ... at every
# interpreter start-up (this module runs from a .pth file), a third of this hook's cost.


class _Refuse:
    """Makes ``import picotorch`` fail with the reason, instead of silently using the reference."""

    def __init__(self, message: str) -> None:
        self.message = message

    def find_spec(self, name, path=None, target=None):
        if name == "picotorch" or name.startswith("picotorch."):
            raise ImportError(self.message)
        return None


class _RecordImports:
    """Notes the file and contents hash of every ``picotorch`` module when it is first imported.

    ``check()`` compares them with the files on disk to tell a notebook kernel that it still runs
    an older copy of the learner's code. It returns the spec of the path-based finder (which would
    import the module anyway), so the folders are searched once, not twice.
    """

    def find_spec(self, name, path=None, target=None):
        if name == "picotorch" or name.startswith("picotorch."):  # first import, or a reload
            spec = PathFinder.find_spec(name, path, target)
            if spec is not None and spec.origin and os.path.isfile(spec.origin):
                with open(spec.origin, "rb") as source:
                    imported_files[name] = (spec.origin, hashlib.sha1(source.read()).hexdigest())
            return spec
        return None


imported_files: dict[str, tuple[str, str]] = {}  # module name -> (file, sha1 at import)


def apply() -> str | None:
    """Put the chosen implementation first on ``sys.path``; return its name (None when refused)."""
    try:
        impl = requested()
    except ImplementationError as err:
        _refuse(str(err))
        return None
    parent = package_parent(impl)
    if impl == "exercises" and not os.path.isdir(os.path.join(parent, "picotorch")):
        _refuse(
            f"{ENV}=exercises but there is no picotorch package in {parent}; "
            "generate it with: python -m picotorch_course exercises"
        )
        return None
    if not any(isinstance(f, _RecordImports) for f in sys.meta_path):
        sys.meta_path.insert(0, _RecordImports())
    if impl == "exercises" or parent not in sys.path:
        if parent in sys.path:
            sys.path.remove(parent)
        sys.path.insert(0, parent)
    return impl


def _refuse(message: str) -> None:
    """Install (once) the finder that makes ``import picotorch`` raise ``message``."""
    if not any(isinstance(f, _Refuse) for f in sys.meta_path):
        sys.meta_path.insert(0, _Refuse(message))


def subprocess_env(impl: str | None = None, base: dict | None = None) -> dict:
    """An environment for a child process that selects ``impl`` even without the ``.pth`` hook."""
    env = dict(os.environ if base is None else base)
    if impl is not None:
        env[ENV] = impl
    chosen = env.get(ENV, "").strip() or "reference"
    if chosen == "exercises":
        parent = env.get("PICOTORCH_EXERCISES_DIR") or package_parent("exercises")
        old = env.get("PYTHONPATH")
        env["PYTHONPATH"] = parent + (os.pathsep + old if old else "")
    return env


apply()
