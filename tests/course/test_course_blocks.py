"""Finding a learner's bodies by diffing against the generated file, and putting them back."""

from picotorch_course import blocks

BASE = '''\
import math


def double(x):
    """Twice x."""
    raise NotImplementedError("Exercise 1.1: return twice x")


def triple(x):
    raise NotImplementedError("Exercise 1.2: return three times x")
'''


def test_untouched_file_has_only_stub_bodies():
    found = blocks.learner_bodies(BASE, BASE)
    assert found.outside == []
    assert found.bodies == {
        "1.1": ['    raise NotImplementedError("Exercise 1.1: return twice x")\n'],
        "1.2": ['    raise NotImplementedError("Exercise 1.2: return three times x")\n'],
    }
    stubs = {k: v[0] for k, v in found.bodies.items()}
    assert found.solved(stubs) == []


def test_a_solved_block_is_found_and_moves_into_a_new_version():
    learner = BASE.replace('    raise NotImplementedError("Exercise 1.1: return twice x")\n',
                           "    y = x + x\n    return y\n")
    found = blocks.learner_bodies(BASE, learner)
    assert found.outside == []
    assert found.bodies["1.1"] == ["    y = x + x\n", "    return y\n"]
    new = BASE.replace("import math\n", "import math\nimport os\n") + (
        '\n\ndef half(x):\n    raise NotImplementedError("Exercise 1.3: return half of x")\n')
    merged = blocks.put_bodies(new, found.bodies)
    assert "import os\n" in merged and "    y = x + x\n    return y\n" in merged
    assert 'Exercise 1.2: return three times x' in merged and "Exercise 1.3" in merged
    assert "Exercise 1.1" not in merged


def test_edits_outside_the_stubs_are_reported_by_learner_line():
    learner = BASE.replace("import math\n", "import math\nimport functools\n")
    found = blocks.learner_bodies(BASE, learner)
    assert found.outside == [2]
    assert blocks.stub_ids(BASE) == {"1.1": 5, "1.2": 9}


def test_putting_a_stub_back_over_a_learner_body():
    learner = BASE.replace('    raise NotImplementedError("Exercise 1.2: return three times x")\n',
                           "    while True:\n        pass\n")
    found = blocks.learner_bodies(BASE, learner)
    keep = {k: v for k, v in found.bodies.items() if k != "1.2"}
    restored = blocks.put_bodies(BASE, keep)
    assert restored == BASE
