"""Course tooling for picotorch: the implementation switch, exercises, checking, grading, doctor.

- ``implementation()``: which ``picotorch`` (``reference`` or ``exercises``) this process imports.
- ``check("4.2")``: run the tests of one exercise and print a short report (for notebook cells).
- ``python -m picotorch_course --help``: generate exercises, prove them, grade a chapter, doctor.

This package knows picotorch; picotorch never imports it. Importing it stays cheap, because a
``.pth`` file imports ``picotorch_course._switch`` at every interpreter start-up.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import NamedTuple

from picotorch_course._switch import ImplementationError, requested


class Implementation(NamedTuple):
    """The active implementation's name and the folder of the ``picotorch`` package it imports."""

    name: str
    path: Path | None


def implementation() -> Implementation:
    """Which picotorch this process uses; raises ImplementationError for a bad ``PICOTORCH_IMPL``."""
    name = requested()
    module = sys.modules.get("picotorch")
    if module is not None and getattr(module, "__file__", None):
        return Implementation(name, Path(module.__file__).resolve().parent)
    try:
        spec = importlib.util.find_spec("picotorch")
    except ImportError:
        spec = None
    origin = spec.origin if spec is not None else None
    return Implementation(name, Path(origin).resolve().parent if origin else None)


def check(exercise_id: str, *, timeout: float = 10.0) -> None:
    """Run exercise ``exercise_id``'s tests against the active implementation and print ✅ or ❌.

    ``timeout``: seconds per test. In a notebook it also says when the kernel runs an older copy of
    your code than the file on disk (restart the kernel then)."""
    from picotorch_course.checker import check as _check

    _check(exercise_id, timeout=timeout)


__all__ = ["Implementation", "ImplementationError", "check", "implementation"]
