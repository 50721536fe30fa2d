"""Grading one exercise (or one chapter) at a time, against a temporary copy of the learner's tree.

Exercises are parts of picotorch itself, so an unsolved exercise in chapter 2 breaks tests of
chapter 0 that happen to run a backward pass. To grade only what is being graded, the checker and
the grader run against a copy of the learner's ``exercises/picotorch`` prepared in three steps:

1. **Files that cannot be used.** A learner file that does not compile (a syntax error), or that
   failed to import (named in ``replace``), is replaced by its *generated* version, unless it holds
   an exercise being judged: an exercise is not judged against a file it could not have broken, and
   the exercise whose file it is gets the error itself ("SyntaxError in exercises/picotorch/…").
   This is sound because the file is unusable as it stands: nothing the learner wrote in it can run.
2. **Failed exercises** (``stubbed``, for the chapter's tests and notebook after an exercise failed,
   hung or crashed): the learner's body is replaced by the exercise's stub, so whatever reaches it
   fails at once with that exercise's ``NotImplementedError`` ("needs 2.2 first") instead of hanging.
   The learner's other edits in the file stay (see :func:`stub_back`).
3. **Other unsolved exercises** (``learner_keeps`` rejects them and their stub line is still there)
   get the reference solution (the reference ships with the course anyway). Exercises the learner
   has written are left exactly as they are.

An exercise in the YAML files (an op's entry and formula, 5.3) is put back or filled in there, and
then ``_generated/`` is regenerated from the prepared YAML files, as the learner would with
``python -m picotorchgen``.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from picotorch_course import _paths, blocks, generate, markers, runner


def _solution_lines(ex: markers.Exercise) -> list[str]:
    """The reference lines between the BEGIN and END markers of ``ex``."""
    lines = ex.path.read_text(encoding="utf-8").splitlines(keepends=True)
    return lines[ex.begin : ex.end - 1]


def reference_exercises() -> dict[str, markers.Exercise]:
    return markers.discover(_paths.reference_dir() / "picotorch")


def file_of(ex: markers.Exercise) -> str:
    """The exercise's file relative to the package folder (``autograd/variable.py``)."""
    return ex.path.relative_to(_paths.reference_dir() / "picotorch").as_posix()


def fill_stubs(package: Path, learner_keeps: Callable[[markers.Exercise], bool]) -> list[str]:
    """Replace, in ``package``, each stub whose exercise ``learner_keeps`` rejects; returns their ids.

    A stub filled in a YAML file regenerates ``_generated/`` from the YAML files (:func:`regenerate`).
    """
    exercises = reference_exercises()
    stubs = {block.stub: block for ex in exercises.values() if not learner_keeps(ex) for block in ex.blocks}
    filled, yaml_filled = [], False
    for path in markers.exercise_files(package):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        out, here = [], []
        for line in lines:
            ex = stubs.get(line if line.endswith("\n") else line + "\n")
            if ex is None:
                out.append(line)
            else:
                out.extend(_solution_lines(ex))
                here.append(ex.id)
        if here:
            path.write_text("".join(out), encoding="utf-8")
            filled += here
            yaml_filled = yaml_filled or path.suffix in markers.DATA_SUFFIXES
    if yaml_filled:
        regenerate(package)
    return sorted(set(filled), key=markers.id_key)


def regenerate(package: Path) -> None:
    """``_generated/`` from the prepared YAML files; left as it is when they do not generate (the
    exercise's own test then says what is wrong)."""
    try:
        generate.regenerate(package)
    except ValueError:
        pass


def generated_files() -> dict[str, bytes]:
    """The package's files as generated from the current reference, relative to the package folder."""
    return {
        rel.removeprefix("picotorch/"): data
        for rel, data in generate.expected_files(_paths.reference_dir()).items()
    }


def compiles(text: str, filename: str) -> bool:
    try:
        compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def unusable_files(package: Path, generated: dict[str, bytes]) -> list[str]:
    """Files (relative to ``package``) that differ from the generated version and do not compile."""
    found = []
    for rel, data in generated.items():
        path = package / rel
        if not rel.endswith(".py") or not path.is_file():
            continue
        current = path.read_bytes()
        if current != data and not compiles(current.decode("utf-8", errors="replace"), str(path)):
            found.append(rel)
    return found


def stub_back(learner: str, generated: str, ex: markers.Exercise) -> str:
    """The learner's file with ``ex``'s body replaced by its stub line.

    Where the learner's body occurs exactly once in their file, only those lines are replaced, so
    their edits outside the exercises (an import, a helper) stay. Otherwise the file is rebuilt
    from the generated one with the learner's other bodies put back (``blocks.put_bodies``).
    """
    bodies = blocks.learner_bodies(generated, learner).bodies
    body = bodies.get(ex.id)
    if body is None or body == [ex.stub]:
        return learner
    lines = learner.splitlines(keepends=True)
    starts = [i for i in range(len(lines) - len(body) + 1) if lines[i : i + len(body)] == body]
    if len(starts) == 1:
        i = starts[0]
        return "".join(lines[:i] + [ex.stub] + lines[i + len(body) :])
    return blocks.put_bodies(generated, {k: v for k, v in bodies.items() if k != ex.id})


def prepare(
    package: Path,
    learner_keeps: Callable[[markers.Exercise], bool],
    stubbed: Iterable[str] = (),
    replace: Iterable[str] = (),
) -> None:
    """Steps 1–3 of the module docstring, in place on a copy of the learner's package."""
    exercises = reference_exercises()
    stubbed = set(stubbed)
    generated = generated_files()
    judged_files = {file_of(ex) for ex in exercises.values() if learner_keeps(ex) and ex.id not in stubbed}
    for rel in set(replace) | set(unusable_files(package, generated)):
        if rel not in judged_files and rel in generated:
            (package / rel).write_bytes(generated[rel])
    yaml_stubbed = False
    for block in (block for ex_id in sorted(stubbed, key=markers.id_key) for block in exercises[ex_id].blocks):
        path = package / file_of(block)
        base = generated[file_of(block)].decode("utf-8")
        text = path.read_text(encoding="utf-8")
        path.write_text(stub_back(text, base, block), encoding="utf-8")
        yaml_stubbed = yaml_stubbed or block.in_data
    if yaml_stubbed:
        regenerate(package)
    fill_stubs(package, learner_keeps)


LINE_MAP = runner.LINE_MAP  # beside the package in a prepared tree; read by the runner


def line_map(learner: str, prepared: str) -> list[int]:
    """For each line of ``prepared`` (1-based, at index n-1), the learner's line it comes from.

    Filling a stub with a reference solution of several lines shifts everything below it; messages
    must still name the line in the learner's own file. Lines that are not the learner's map to
    the learner's line where they were put in (the stub's line).
    """
    old, new = learner.splitlines(), prepared.splitlines()
    mapping = [0] * len(new)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, _, j1, j2 in matcher.get_opcodes():
        for j in range(j1, j2):
            mapping[j] = (i1 + (j - j1) if tag == "equal" else min(i1, max(len(old) - 1, 0))) + 1
    return mapping


def write_line_maps(package: Path, original: dict[str, str]) -> None:
    """Record, beside ``package``, how the lines of every file that preparing changed map back."""
    maps = {}
    for rel, text in original.items():
        now = (package / rel).read_text(encoding="utf-8")
        if now != text:
            maps[rel] = line_map(text, now)
    (package.parent / LINE_MAP).write_text(json.dumps(maps), encoding="utf-8")


@contextlib.contextmanager
def learner_tree(
    learner_keeps: Callable[[markers.Exercise], bool],
    stubbed: Iterable[str] = (),
    replace: Iterable[str] = (),
) -> Iterator[Path]:
    """A temporary copy of ``exercises/`` prepared for grading (see the module docstring); yields its folder."""
    source = _paths.exercises_dir() / "picotorch"
    with tempfile.TemporaryDirectory(prefix="picotorch-grade-") as tmp:
        package = Path(tmp) / "picotorch"
        shutil.copytree(source, package, ignore=shutil.ignore_patterns("__pycache__"))
        original = {
            p.relative_to(package).as_posix(): p.read_text(encoding="utf-8") for p in markers.python_files(package)
        }
        prepare(package, learner_keeps, stubbed, replace)
        write_line_maps(package, original)
        yield Path(tmp)


def env_for(tree: Path) -> dict[str, str]:
    return {"PICOTORCH_EXERCISES_DIR": str(tree)}
