"""Shared pytest set-up: the course plugin (``exercise`` marker, implementation switch, reports).

Mark a test that checks an exercise with its id; the id must exist in the reference::

    @pytest.mark.exercise("4.2")
    def test_engine_counts_dependencies(): ...

``PICOTORCH_IMPL=exercises pytest tests/`` runs everything against ``exercises/picotorch``.
"""

import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("picotorch_course") is None:  # not installed: use the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

pytest_plugins = ["picotorch_course.pytest_plugin"]

# Hypothesis explores new random examples on every local run (to find new mismatches with PyTorch),
# but CI must be repeatable: there the examples are derived from each test's name.
import os  # noqa: E402

from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
