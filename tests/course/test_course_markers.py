"""Exercise markers: parsing, stubs at the block's indentation, clear errors with file:line."""

from pathlib import Path

import pytest

from picotorch_course import markers


def parse(text: str):
    return markers.parse_lines(text.splitlines(keepends=True), Path("m.py"))


def test_parses_id_task_and_span(project):
    found = markers.discover(project / "reference/picotorch")
    assert sorted(found) == ["1.1", "1.2"]
    ex = found["1.2"]
    assert (ex.task, ex.indent, ex.chapter) == ("return three times x", " " * 8, 1)
    assert ex.stub == '        raise NotImplementedError("Exercise 1.2: return three times x")\n'


def test_strip_replaces_blocks_and_keeps_the_rest(project):
    path = project / "reference/picotorch/ops.py"
    out = markers.strip_solutions(path.read_text(), path)
    assert "y = x + x" not in out and "SOLUTION" not in out
    assert '    raise NotImplementedError("Exercise 1.1: return twice x")\n' in out
    assert '"""Twice x."""' in out
    compile(out, "ops.py", "exec")


def test_keep_leaves_chosen_solutions_without_markers(project):
    path = project / "reference/picotorch/ops.py"
    out = markers.strip_solutions(path.read_text(), path, keep=frozenset({"1.2"}))
    assert "return 3 * x" in out and "Exercise 1.1" in out and "SOLUTION" not in out


def test_quotes_in_task_make_valid_python():
    (ex,) = parse('# BEGIN SOLUTION 2.1: say "hi" \\ bye\npass\n# END SOLUTION\n')
    assert eval(ex.stub.replace("raise NotImplementedError", "str")) == 'Exercise 2.1: say "hi" \\ bye'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "# BEGIN SOLUTION 1.1: a\n# BEGIN SOLUTION 1.2: b\n# END SOLUTION\n",
            "m.py:2: .*inside the block opened at line 1",
        ),
        ("x = 1\n# BEGIN SOLUTION 1.1: a\npass\n", "m.py:2: .*never closed"),
        ("# END SOLUTION\n", "m.py:1: .*without a matching"),
        ("# BEGIN SOLUTION: no id\n# END SOLUTION\n", "m.py:1: malformed marker"),
        ("# BEGIN SOLUTION 1.1\n# END SOLUTION\n", "m.py:1: malformed marker"),
        ("# BEGIN SOLUTION 1.1:   \n# END SOLUTION\n", "m.py:1: malformed marker"),
        ("# BEGIN SOLUTION x.y: task\n# END SOLUTION\n", "m.py:1: malformed marker"),
    ],
)
def test_malformed_markers_name_file_and_line(text, expected):
    with pytest.raises(markers.MarkerError, match=expected):
        parse(text)


def test_duplicate_ids_across_files(project):
    other = project / "reference/picotorch/zz_more.py"
    other.write_text("def f():\n    # BEGIN SOLUTION 1.1: again\n    pass\n    # END SOLUTION\n")
    expected = r"zz_more.py:2: duplicate exercise id 1.1 \(first used at .*ops.py:6\)"
    with pytest.raises(markers.MarkerError, match=expected):
        markers.discover(project / "reference/picotorch")


def test_ids_sort_numerically():
    assert sorted(["4.10", "4.9", "10.1", "4.2"], key=markers.id_key) == ["4.2", "4.9", "4.10", "10.1"]
