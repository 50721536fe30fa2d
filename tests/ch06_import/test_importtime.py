"""``picotorch_course.importtime``: ``python -X importtime`` read back, on one real subprocess and on fixed text.

Also what the import leaves out on purpose: NumPy's deferred submodules (``native/numpy_namespace.py``),
ml_dtypes (until bfloat16 is used) and the lazy ``picotorch.viz`` are not imported by ``import picotorch``.
"""

import numpy as np

from picotorch_course import importtime

SAMPLE = """\
import time: self [us] | cumulative | imported package
import time:       100 |        100 | site
import time:        30 |         30 |     b.inner
import time:        20 |         50 |   b
import time:         5 |          5 |   c
import time:        10 |         65 | a
"""


def test_parse_reads_self_cumulative_and_depth():
    modules = importtime.parse(SAMPLE)
    assert [(m.name, m.self_us, m.cumulative_us, m.depth) for m in modules] == [
        ("site", 100, 100, 0), ("b.inner", 30, 30, 2), ("b", 20, 50, 1), ("c", 5, 5, 1), ("a", 10, 65, 0)]


def test_subtree_keeps_only_the_imported_module_and_groups_it():
    times = importtime.subtree(importtime.parse(SAMPLE), "a")
    assert times.root == "a" and times.total_us == 65
    assert [m.name for m in times.modules] == ["b.inner", "b", "c", "a"]
    assert dict(times.groups) == {"b": 50, "c": 5, "a": 10}


def test_group_of():
    assert importtime.group_of("picotorch._generated.nodes") == "picotorch._generated"
    assert importtime.group_of("picotorch") == "picotorch"
    assert importtime.group_of("numpy._core.multiarray") == "numpy"
    assert importtime.group_of("json.decoder") == "stdlib" and importtime.group_of("_json") == "stdlib"


def test_breakdown_of_a_real_import_picotorch():
    times = importtime.breakdown("picotorch")
    names = [m.name for m in times.modules]
    assert times.root == "picotorch" and names[-1] == "picotorch" and times.total_us > 0
    assert abs(sum(m.self_us for m in times.modules) - times.total_us) <= 0.05 * times.total_us
    groups = dict(times.groups)
    assert {"numpy", "picotorch._C", "picotorch._generated", "picotorch.native"} <= set(groups)
    assert "picotorch.native.numpy_namespace" in names and "picotorch._generated.variable_type" in names
    deferred = {"numpy.f2py", "numpy.testing", "numpy.ma", "numpy.polynomial", "picotorch.viz", "ml_dtypes"}
    assert [n for n in names if ".".join(n.split(".")[:2]) in deferred or n.split(".")[0] in deferred] == []


def test_deferred_numpy_submodules_still_work():
    assert np.ctypeslib.as_array(np.ones(2)).tolist() == [1.0, 1.0]
    assert callable(np.testing.assert_allclose) and np.ma.masked_array([1, 2]).sum() == 3
