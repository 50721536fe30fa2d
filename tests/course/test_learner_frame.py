"""Where a failure is reported in the learner's code: the deepest frame of their package, or of the
exercise's own file when the error was raised deeper, by the package's machinery (chapter 07: a ring
that deadlocks fails inside the channel's timeout, and the report points at the learner's ``recv``)."""

import importlib.util
import sys

from picotorch_course.pytest_plugin import learner_frame


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_exercise_files_frame_wins_over_deeper_machinery(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "machinery.py").write_text("def wait():\n    raise TimeoutError('nobody sent')\n")
    (package / "ring.py").write_text("import machinery_for_test\n\n\ndef allreduce():\n"
                                     "    machinery_for_test.wait()  # the learner's line\n")
    _load(package / "machinery.py", "machinery_for_test")
    ring = _load(package / "ring.py", "ring_for_test")
    try:
        ring.allreduce()
    except TimeoutError as error:
        caught = error
    finally:
        sys.modules.pop("machinery_for_test"), sys.modules.pop("ring_for_test")
    resolved = package.resolve()
    assert learner_frame(caught, resolved) == {"file": "machinery.py", "line": 2, "function": "wait"}
    assert learner_frame(caught, resolved, prefer="ring.py") == {"file": "ring.py", "line": 5,
                                                                "function": "allreduce"}
    assert learner_frame(caught, resolved, prefer="other.py")["file"] == "machinery.py"
