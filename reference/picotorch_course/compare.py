"""picotorch's output beside PyTorch's, in a notebook: live when torch is installed, else recorded.

A *program* is a function of one argument, the library: ``program(picotorch)`` and
``program(torch)`` run the same code on both. ``side_by_side(program)`` shows the two results as two
columns and says under them whether they are the same (✅) or not (❌, with the differing lines
marked ``≠``). Nothing is asserted silently: a difference is printed where the learner looks.

In a notebook::

    from picotorch_course import compare
    compare.notebook("02_grad_fn_and_the_graph")   # once; prints where PyTorch's side comes from
    compare.side_by_side(detach_and_data)          # key: the program's __name__
    compare.side_by_side(lambda t: t.ones(2) * 2, key="ones times two")   # a lambda needs a key

What a result looks like as text: a ``str`` as it is; a ``list`` one element a line (each a ``str``
as it is, anything else by ``repr``); anything else by ``repr``; an exception as ``Type: message``.

Where PyTorch's side comes from (``PICOTORCH_COMPARE``):

- ``auto`` (default): live if ``import torch`` works, otherwise the recording;
- ``recorded``: always the recording, even where torch is installed (what a learner without torch
  sees; the tests use it to prove both give the same notebook outputs);
- ``record``: live, and every result is written into the recording.

Recordings are ``notebooks/recorded/<notebook>.json`` (``PICOTORCH_RECORDED_DIR`` moves the folder):
PyTorch's text per key, and the torch version that produced it. The display is the same text in
every mode, so nbval compares the same outputs with or without torch. Live, a result that differs
from a recording of the same torch version is reported as a stale recording (❌) as well.

(Re)recording, with torch installed (the notebook runs on the reference, check cells skipped)::

    python -m picotorch_course.compare record notebooks/02_grad_fn_and_the_graph.ipynb [more.ipynb ...]

``tests/course/test_recorded_torch.py`` re-records every notebook into a temporary folder and checks
that live torch still gives exactly what is committed.
"""

from __future__ import annotations

import html
import importlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from picotorch_course import _paths

MODES = ("auto", "recorded", "record")
CHECK_CALL = "picotorch_course.check("  # cells that run a check are skipped when recording
RECORD_HINT = "python -m picotorch_course.compare record notebooks/{notebook}.ipynb"


def recorded_dir() -> Path:
    env = os.environ.get("PICOTORCH_RECORDED_DIR")
    return Path(env).resolve() if env else _paths.notebooks_dir() / "recorded"


def recording_path(notebook: str) -> Path:
    return recorded_dir() / f"{notebook}.json"


def mode() -> str:
    """``PICOTORCH_COMPARE``, checked: one of MODES."""
    value = os.environ.get("PICOTORCH_COMPARE", "auto") or "auto"
    if value not in MODES:
        raise ValueError(f"PICOTORCH_COMPARE={value!r}: use one of {', '.join(MODES)}")
    return value


def live_torch() -> Any | None:
    """The torch module when this process may and can use it, else None."""
    if mode() == "recorded":
        return None
    try:
        return importlib.import_module("torch")
    except ImportError:
        if mode() == "record":
            raise RuntimeError("PICOTORCH_COMPARE=record needs torch: pip install -e '.[compare]'") from None
        return None


def status() -> str:
    """One line for the doctor and the tour: where PyTorch's side of a comparison comes from."""
    torch = live_torch()
    if torch is not None:
        return f"live: torch {torch.__version__} is installed here"
    why = "PICOTORCH_COMPARE=recorded" if mode() == "recorded" else "torch is not installed here"
    return f"recorded: PyTorch's outputs committed in {_shown(recorded_dir())}/ ({why})"


# ---- the text of a result ----------------------------------------------------------------------


def as_text(value: Any) -> str:
    """A result as the text that is shown and recorded (see the module docstring)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        return "\n".join(v if isinstance(v, str) else repr(v) for v in value)
    return repr(value)


def run(program: Callable[[Any], Any], lib: Any) -> str:
    """``program(lib)`` as text; an exception it raises is its result, as ``Type: message``."""
    try:
        return as_text(program(lib))
    except Exception as err:  # the program's error is what we compare, whatever its type
        return f"{type(err).__name__}: {err}"


# ---- one notebook's recording -------------------------------------------------------------------


@dataclass
class Recording:
    """PyTorch's text per key for one notebook, as committed, and what this run records."""

    notebook: str
    torch_version: str | None = None
    outputs: dict[str, str] = field(default_factory=dict)
    fresh: dict[str, str] = field(default_factory=dict)  # filled in record mode, written as it grows

    @classmethod
    def load(cls, notebook: str) -> Recording:
        path = recording_path(notebook)
        if not path.exists():
            return cls(notebook)
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(notebook, data.get("torch"), dict(data.get("outputs", {})))

    def record(self, key: str, text: str, torch_version: str) -> None:
        if key in self.fresh and self.fresh[key] != text:
            raise ValueError(f"key {key!r} is used twice in {self.notebook} with different outputs: rename one")
        self.fresh[key] = text
        self.torch_version = torch_version
        write_recording(self.notebook, torch_version, self.fresh)


def write_recording(notebook: str, torch_version: str, outputs: dict[str, str]) -> Path:
    path = recording_path(notebook)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"notebook": notebook, "torch": torch_version, "outputs": outputs}
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


_current: Recording | None = None


def notebook(name: str) -> None:
    """Start a notebook's comparisons (``name``: the notebook's file name without ``.ipynb``)."""
    global _current
    _current = Recording.load(name)
    if mode() == "record":
        print(f"PyTorch's side: live, recording into {_shown(recording_path(name))}")
    else:
        print(f"PyTorch's side of every comparison in this notebook: {status()}")


def current() -> Recording:
    if _current is None:
        raise RuntimeError('call compare.notebook("<notebook name>") once before side_by_side()')
    return _current


# ---- the display ---------------------------------------------------------------------------------


@dataclass
class Comparison:
    """Both texts of one program and the verdict; Jupyter shows it as HTML, nbval also reads text."""

    key: str
    ours: str
    theirs: str | None  # None: no live torch and no recording of this key
    stale: str | None = None  # live torch's text when the recording lacks it or differs (same version)

    @property
    def same(self) -> bool:
        return self.theirs is not None and self.ours == self.theirs

    def verdict(self) -> str:
        if self.theirs is None:
            return (f"❌ not compared: no recorded PyTorch output for {self.key!r} "
                    f"(record it with {RECORD_HINT.format(notebook=current().notebook)})")
        if self.same:
            lines = "one line" if "\n" not in self.ours else f"{self.ours.count(chr(10)) + 1} lines"
            return f"✅ the same ({lines})"
        ours, theirs = self.ours.splitlines(), self.theirs.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        return f"❌ picotorch differs from PyTorch, first at line {first + 1} (marked ≠)"

    def notes(self) -> list[str]:
        if self.stale is None:
            return []
        return [f"❌ the recording of {self.key!r} is missing or stale: torch {torch_version()} gives\n"
                f"{self.stale}\n   re-record: {RECORD_HINT.format(notebook=current().notebook)}"]

    def rows(self) -> list[tuple[str, str, bool]]:
        """(picotorch line, PyTorch line, same) for as many lines as the longer side has."""
        ours = self.ours.splitlines() or [""]
        theirs = (self.theirs if self.theirs is not None else "(no recording)").splitlines() or [""]
        size = max(len(ours), len(theirs))
        ours += [""] * (size - len(ours))
        theirs += [""] * (size - len(theirs))
        return [(a, b, a == b or self.theirs is None) for a, b in zip(ours, theirs)]

    def text(self) -> str:
        rows = self.rows()
        width = max(len("picotorch"), *(len(a) for a, _, _ in rows))
        lines = [f"{'picotorch':<{width}} │ PyTorch", f"{'─' * width}─┼─{'─' * 7}"]
        lines += [f"{a:<{width}} {'│' if same else '≠'} {b}".rstrip() for a, b, same in rows]
        return "\n".join([*lines, self.verdict(), *self.notes()])

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        cell = 'style="text-align:left;vertical-align:top;padding:2px 12px 2px 0"'
        pre = 'style="white-space:pre;margin:0;text-align:left"'

        def column(lines: list[str]) -> str:
            return f"<td {cell}><pre {pre}>{html.escape(chr(10).join(lines))}</pre></td>"

        rows = self.rows()
        marks = f"<td {cell}><pre {pre}>{chr(10).join(' ' if same else '≠' for _, _, same in rows)}</pre></td>"
        notes = "".join(f"<tr><td colspan=\"3\" {cell}><pre {pre}>{html.escape(n)}</pre></td></tr>"
                        for n in self.notes())
        return (
            f"<table><tr><th {cell}>picotorch</th><th {cell}></th><th {cell}>PyTorch</th></tr>"
            f"<tr>{column([a for a, _, _ in rows])}{marks}{column([b for _, b, _ in rows])}</tr>"
            f"<tr><td colspan=\"3\" {cell}>{html.escape(self.verdict())}</td></tr>{notes}</table>"
        )


def torch_version() -> str:
    torch = live_torch()
    return torch.__version__.split("+")[0] if torch is not None else "?"


def key_of(program: Callable[[Any], Any], key: str | None) -> str:
    if key is not None:
        return key
    name = getattr(program, "__name__", "<lambda>")
    if name == "<lambda>":
        raise ValueError("a lambda has no name to record its PyTorch output under: pass key='...'")
    return name


def comparison(program: Callable[[Any], Any], key: str | None = None) -> Comparison:
    """Run ``program`` on picotorch and take PyTorch's side live or from the recording."""
    import picotorch

    key, recording = key_of(program, key), current()
    ours = run(program, picotorch)
    torch = live_torch()
    if torch is None:
        return Comparison(key, ours, recording.outputs.get(key))
    theirs = run(program, torch)
    if mode() == "record":
        recording.record(key, theirs, torch_version())
        return Comparison(key, ours, theirs)
    recorded = recording.outputs.get(key)
    comparable = recording.torch_version in (None, torch_version())  # another torch may print otherwise
    stale = theirs if comparable and recorded != theirs else None
    return Comparison(key, ours, theirs, stale)


def side_by_side(program: Callable[[Any], Any], key: str | None = None) -> None:
    """Show ``program``'s result on picotorch beside PyTorch's, with a ✅ or ❌ verdict."""
    from IPython.display import display

    display(comparison(program, key))


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(_paths.root()))
    except ValueError:
        return str(path)


# ---- recording from the command line --------------------------------------------------------------


def record_notebook(path: Path, timeout: float = 600.0) -> tuple[Path, list[str]]:
    """Run the notebook on the reference with live torch, writing its recording anew.

    Returns the recording's path and the first line of every comparison that showed ❌.
    """
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and CHECK_CALL in cell.source:
            cell.source = "pass  # check cell skipped while recording"
    out = recording_path(path.stem)
    old = out.read_bytes() if out.exists() else None
    out.unlink(missing_ok=True)  # keys the notebook no longer uses must go
    env = {"PICOTORCH_COMPARE": "record", "PICOTORCH_IMPL": "reference"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}}).execute()
    except BaseException:
        if old is not None:  # a failed run leaves the committed recording as it was
            out.write_bytes(old)
        raise
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return out, _failures(nb)


def _failures(nb: Any) -> list[str]:
    found = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            text = output.get("data", {}).get("text/plain", "") or output.get("text", "")
            found += [line for line in text.splitlines() if line.startswith("❌")]
    return found


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2 or args[0] != "record":
        print("usage: python -m picotorch_course.compare record NOTEBOOK.ipynb [...]\n"
              "  runs each notebook on the reference with live torch (check cells skipped) and writes\n"
              f"  its PyTorch outputs anew into {_shown(recorded_dir())}/<notebook>.json", file=sys.stderr)
        return 2
    status_code = 0
    for name in args[1:]:
        out, failures = record_notebook(Path(name).resolve())
        count = len(json.loads(out.read_text(encoding="utf-8"))["outputs"]) if out.exists() else 0
        print(f"{name}: {count} PyTorch outputs recorded in {_shown(out)}")
        for line in failures:
            print(f"  {line}")
        status_code |= bool(failures)
    return status_code


if __name__ == "__main__":
    sys.exit(main())
