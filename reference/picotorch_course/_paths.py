"""Where the course's folders are: the project root, the reference, the exercises, the tests.

Every path can be overridden by an environment variable, which is how the tooling's own tests point
it at small temporary trees:

- ``PICOTORCH_ROOT``           the project root (default: two levels above this package)
- ``PICOTORCH_REFERENCE_DIR``  the folder that holds the reference ``picotorch`` package
- ``PICOTORCH_EXERCISES_DIR``  the folder that holds the generated ``picotorch`` package
"""

from __future__ import annotations

import os
from pathlib import Path


def root() -> Path:
    """The project root (the folder holding ``reference/``, ``exercises/``, ``tests/``)."""
    env = os.environ.get("PICOTORCH_ROOT")
    return Path(env).resolve() if env else Path(__file__).resolve().parents[2]


def reference_dir() -> Path:
    """The folder on ``sys.path`` that contains the reference ``picotorch`` package."""
    env = os.environ.get("PICOTORCH_REFERENCE_DIR")
    return Path(env).resolve() if env else root() / "reference"


def exercises_dir() -> Path:
    """The folder on ``sys.path`` that contains the learner's ``picotorch`` package."""
    env = os.environ.get("PICOTORCH_EXERCISES_DIR")
    return Path(env).resolve() if env else root() / "exercises"


def tests_dir() -> Path:
    """The folder with one sub-folder of tests per chapter."""
    return root() / "tests"


def notebooks_dir() -> Path:
    """The folder with the chapter notebooks."""
    return root() / "notebooks"


def sanitize_file() -> Path:
    """The nbval sanitize file (regexes for addresses, timings, versions, temp paths)."""
    return tests_dir() / "nbval_sanitize.cfg"
