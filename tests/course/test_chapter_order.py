"""The chapter-order proof on a tiny project: a notebook that reaches a later chapter's stub fails."""

import nbformat

from picotorch_course import chapter_order

OPS = '''\
def double(x):
    # BEGIN SOLUTION 1.1: return twice x
    return x + x
    # END SOLUTION


def triple(x):
    # BEGIN SOLUTION 2.1: return three times x
    return 3 * x
    # END SOLUTION
'''


def notebook(path, *cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def test_notebooks_run_in_exercises_mode_in_chapter_order(project):
    (project / "reference/picotorch/ops.py").write_text(OPS)
    notebook(project / "notebooks/01_double.ipynb",
             "# NBVAL_IGNORE_OUTPUT\nfrom picotorch import ops\nprint(ops.double(2))")
    notebook(project / "notebooks/02_triple.ipynb", "from picotorch import ops\nprint(ops.triple(2))")
    notebook(project / "notebooks/01_too_early.ipynb", "from picotorch import ops\n\nprint(ops.triple(2))")
    notebook(project / "notebooks/01_cross.ipynb", "print('❌ Exercise 1.1 [exercises]: 1 of 1 tests fail')")
    notebook(project / "notebooks/03_no_exercises.ipynb", "from picotorch import ops\nprint(ops.triple(3))")

    runs = {(r.notebook, r.solved_upto): r.problem for r in chapter_order.prove(timeout=60)}

    assert runs[("01_double.ipynb", 1)] is None and runs[("01_double.ipynb", 3)] is None
    assert runs[("02_triple.ipynb", 2)] is None
    assert runs[("01_too_early.ipynb", 1)] == (
        "cell `from picotorch import ops` raised NotImplementedError: Exercise 2.1: return three times x")
    assert runs[("01_too_early.ipynb", 3)] is None
    assert runs[("01_cross.ipynb", 1)] == "check cell shows: ❌ Exercise 1.1 [exercises]: 1 of 1 tests fail"
    assert runs[("03_no_exercises.ipynb", 3)] is None
    # each notebook at its own chapter (later ones stubbed), then all of them with everything solved
    assert sorted(runs) == sorted([(nb, 1) for nb in ("01_cross.ipynb", "01_double.ipynb", "01_too_early.ipynb")]
                                  + [("02_triple.ipynb", 2)] + [(nb, 3) for nb in (
                                      "01_cross.ipynb", "01_double.ipynb", "01_too_early.ipynb", "02_triple.ipynb",
                                      "03_no_exercises.ipynb")])
    table = chapter_order.table(list(chapter_order.NotebookRun(nb, n, p, 0) for (nb, n), p in runs.items()))
    assert "chapters ≤ 1 solved:" in table and "01_too_early.ipynb with chapters ≤ 1 solved" in table
