"""The recorded PyTorch outputs beside the notebooks stay true, and look the same as live ones.

``notebooks/recorded/<notebook>.json`` is what a learner without torch sees as PyTorch's side of
every comparison (``picotorch_course.compare``). Here every notebook that has a recording is run
again with live torch into a temporary folder, and the fresh recording must equal the committed one
key for key. The other tests pin the display: live and recorded give the same text, a difference and
a missing recording are shown with ❌, never hidden.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from picotorch_course import _paths, compare

RECORDINGS = sorted((_paths.notebooks_dir() / "recorded").glob("*.json"))


def committed(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def recordings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PICOTORCH_RECORDED_DIR", str(tmp_path))
    return tmp_path


def seed(t):
    x = t.tensor([[0.5, 1.25], [2.0, -3.5]], requires_grad=True)
    return [x, x.to(t.float64)]


def test_every_notebook_with_comparisons_has_a_recording():
    notebooks = sorted(_paths.notebooks_dir().glob("*.ipynb"))
    using = {nb.stem for nb in notebooks if "compare.side_by_side(" in nb.read_text(encoding="utf-8")}
    assert using, "no notebook uses compare.side_by_side"
    missing = using - {r.stem for r in RECORDINGS}
    assert not missing, f"notebooks without a recording: {missing}"


@pytest.mark.parametrize("recording", RECORDINGS, ids=[r.stem for r in RECORDINGS])
def test_recording_equals_live_torch(recording: Path, recordings: Path):
    torch = pytest.importorskip("torch")
    data = committed(recording)
    if torch.__version__.split("+")[0] != data["torch"]:
        pytest.skip(f"recorded with torch {data['torch']}, this is {torch.__version__}")
    notebook = _paths.notebooks_dir() / f"{recording.stem}.ipynb"
    assert notebook.exists(), f"{recording.name} has no notebook {notebook.name}: delete the recording"
    fresh_path, failures = compare.record_notebook(notebook)
    fresh = committed(fresh_path)["outputs"]
    old = data["outputs"]
    hint = f"re-record: python -m picotorch_course.compare record notebooks/{notebook.name}"
    assert sorted(fresh) == sorted(old), f"keys differ: only recorded {set(old) - set(fresh)}, " \
        f"only run now {set(fresh) - set(old)}; {hint}"
    stale = {k: (old[k], fresh[k]) for k in old if old[k] != fresh[k]}
    assert not stale, f"live torch differs from the recording for {sorted(stale)}: {stale}; {hint}"
    assert not failures, f"picotorch differs from PyTorch in {notebook.name}: {failures}"


def test_live_and_recorded_show_the_same(recordings: Path, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("torch")
    monkeypatch.setenv("PICOTORCH_COMPARE", "record")
    compare.notebook("demo")
    recorded_live = compare.comparison(seed)
    monkeypatch.setenv("PICOTORCH_COMPARE", "auto")
    compare.notebook("demo")
    live = compare.comparison(seed)
    monkeypatch.setenv("PICOTORCH_COMPARE", "recorded")
    compare.notebook("demo")
    recorded = compare.comparison(seed)
    assert recorded.text() == live.text() == recorded_live.text()
    assert recorded._repr_html_() == live._repr_html_()
    assert "✅ the same (4 lines)" in recorded.text()
    assert "dtype=torch.float64, grad_fn=<ToCopyBackward0>)" in recorded.text()


def test_recorded_mode_never_imports_torch(recordings: Path):
    compare.write_recording("demo", "2.13.0", {"seed": "tensor([1.])"})
    program = (
        "import sys\n"
        "from picotorch_course import compare\n"
        "compare.notebook('demo')\n"
        "c = compare.comparison(lambda t: t.tensor([1.0]), key='seed')\n"
        "print(c.verdict(), 'torch' in sys.modules)\n"
    )
    env = {"PICOTORCH_COMPARE": "recorded", "PICOTORCH_RECORDED_DIR": str(recordings), "PICOTORCH_IMPL": "reference"}
    out = subprocess.run([sys.executable, "-c", program], env={**os.environ, **env}, capture_output=True, text=True,
                         check=True).stdout
    assert "recorded" in out.splitlines()[0]
    assert out.splitlines()[-1] == "✅ the same (one line) False"


def test_a_difference_is_marked(recordings: Path, monkeypatch: pytest.MonkeyPatch):
    compare.write_recording("demo", "2.13.0", {"seed": "tensor([1.])\ntensor([2.])"})
    monkeypatch.setenv("PICOTORCH_COMPARE", "recorded")
    compare.notebook("demo")
    shown = compare.comparison(lambda t: [t.tensor([1.0]), t.tensor([3.0])], key="seed").text()
    assert shown.splitlines()[2:] == [
        "tensor([1.]) │ tensor([1.])",
        "tensor([3.]) ≠ tensor([2.])",
        "❌ picotorch differs from PyTorch, first at line 2 (marked ≠)",
    ]


def test_a_missing_recording_is_loud(recordings: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PICOTORCH_COMPARE", "recorded")
    compare.notebook("demo")
    shown = compare.comparison(seed).text()
    assert "(no recording)" in shown
    assert "❌ not compared: no recorded PyTorch output for 'seed'" in shown
    assert "python -m picotorch_course.compare record notebooks/demo.ipynb" in shown


def test_live_flags_a_stale_recording(recordings: Path, monkeypatch: pytest.MonkeyPatch):
    torch = pytest.importorskip("torch")
    compare.write_recording("demo", torch.__version__.split("+")[0], {"seed": "something old"})
    monkeypatch.setenv("PICOTORCH_COMPARE", "auto")
    compare.notebook("demo")
    shown = compare.comparison(seed).text()
    assert "✅ the same (4 lines)" in shown
    assert "❌ the recording of 'seed' is missing or stale" in shown


def test_errors_are_results_and_lambdas_need_a_key(recordings: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PICOTORCH_COMPARE", "recorded")
    compare.notebook("demo")
    import picotorch

    assert compare.run(lambda t: t.ones(2) + t.ones(3), picotorch) == (
        "RuntimeError: The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"
    )
    assert compare.as_text([]) == "[]"
    assert compare.as_text(["a", ("b", 1)]) == "a\n('b', 1)"
    with pytest.raises(ValueError, match="key="):
        compare.comparison(lambda t: 1)


def test_a_bad_mode_is_named(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PICOTORCH_COMPARE", "sometimes")
    with pytest.raises(ValueError, match="PICOTORCH_COMPARE='sometimes'"):
        compare.mode()
