"""The exercise generator: ``reference/picotorch`` → a ``picotorch`` package with the solutions removed.

Every file of the reference package is copied (Python sources, YAML, ``_generated/``...); in the
Python files each solution block becomes ``raise NotImplementedError("Exercise <id>: <task>")``, in
the YAML files a comment ``# Exercise <id>: <task>``. Code generated from the YAML files must agree
with them: when a YAML block is stubbed, ``_generated/`` is what ``python -m picotorchgen`` writes
from the stubbed YAML files (so the op of the exercise is absent until the learner declares it and
runs the generator in their own tree, where ``picotorchgen`` finds their package).

This module says *what* the generator produces (:func:`expected_files`) and checks it
(:func:`self_check`, which ``make test`` runs on a temporary folder). Bringing a learner's copy in
``exercises/`` up to date without touching their work is :mod:`picotorch_course.update`'s job; it
keeps, next to the learner's package, what it last generated:

- ``exercises/.base/picotorch/...``  the files exactly as generated (the base of a three-way merge)
- ``exercises/.manifest.json``       the sha256 of each of those files
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from yaml import YAMLError

from picotorch_course import markers
from picotorchgen import gen

MANIFEST = ".manifest.json"
BASE = ".base"
PACKAGE = "picotorch"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _skipped(path: Path) -> bool:
    return "__pycache__" in path.parts or path.suffix in {".pyc", ".pyo"}


def expected_files(reference: Path, keep: frozenset[str] | None = None) -> dict[str, bytes]:
    """What the exercises tree must hold: relative path (``picotorch/...``) → content."""
    package = reference / PACKAGE
    markers.discover(package)  # validates every marker (and duplicate ids) before writing anything
    files: dict[str, bytes] = {}
    yaml_changed = False
    for path in sorted(package.rglob("*")):
        if not path.is_file() or _skipped(path.relative_to(reference)):
            continue
        data = path.read_bytes()
        if path.suffix == ".py" or path.suffix in markers.DATA_SUFFIXES:
            stripped = markers.strip_solutions(data.decode("utf-8"), path, keep).encode("utf-8")
            yaml_changed |= path.suffix in markers.DATA_SUFFIXES and stripped != data
            data = stripped
        files[path.relative_to(reference).as_posix()] = data
    if yaml_changed:
        files.update(generated_from(files))
    return files


YAML_FILES = ("native_functions.yaml", "derivatives.yaml")
GENERATED = "_generated"


def generated_from(files: dict[str, bytes]) -> dict[str, bytes]:
    """``picotorch/_generated/...`` → content, as ``python -m picotorchgen`` writes it for the package in ``files``.

    ``files`` is a tree as :func:`expected_files` gives it: the generator reads its YAML files, and
    checks the kernels and formula helpers they name against its Python files.
    """
    sources = {rel: data for rel, data in files.items() if not rel.startswith(f"{PACKAGE}/{GENERATED}/")}
    key = sha256(b"".join(rel.encode("utf-8") + b"\0" + data + b"\0" for rel, data in sorted(sources.items())))
    if key not in _generated_cache:
        with tempfile.TemporaryDirectory(prefix="picotorch-yaml-") as tmp:
            write_tree(sources, Path(tmp))
            _generated_cache.clear()  # one entry: the stubbed tree of the current reference
            _generated_cache[key] = _generate(Path(tmp) / PACKAGE)
    return dict(_generated_cache[key])


_generated_cache: dict[str, dict[str, bytes]] = {}


def regenerate(package: Path) -> list[str]:
    """Rewrite ``package/_generated/`` from ``package``'s own YAML files; returns the files that changed.

    What ``python -m picotorchgen`` does in a learner's tree. Raises ``ValueError`` with the
    generator's message (naming the learner's file and line) when the YAML files do not generate;
    nothing is written then.
    """
    changed = []
    for rel, data in _generate(package).items():
        target = package.parent / rel
        if not target.is_file() or target.read_bytes() != data:
            write_tree({rel: data}, package.parent)
            changed.append(rel)
    return changed


def _generate(package: Path) -> dict[str, bytes]:
    try:
        texts = gen.generate(package)
    except YAMLError as err:  # a syntax error the generator does not word itself
        raise ValueError(f"{package} has a YAML file that is not valid YAML: {err}") from None
    return {f"{PACKAGE}/{GENERATED}/{name}": text.encode("utf-8") for name, text in texts.items()}


def write_tree(files: dict[str, bytes], dest: Path) -> None:
    """Write ``files`` (relative path → content) under ``dest``."""
    for rel, data in files.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def load_manifest(out: Path) -> dict[str, str]:
    path = out / MANIFEST
    if not path.exists():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8")).get("files", {}))


def save_manifest(out: Path, files: dict[str, str]) -> None:
    body = {
        "note": "written by `python -m picotorch_course exercises`; sha256 of each file as generated "
        f"(the files themselves are in {BASE}/)",
        "files": dict(sorted(files.items())),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")


def self_check(reference: Path) -> list[str]:
    """Generate into a temporary folder and report what is wrong with the result; empty when sound.

    Sound means: every exercise's stub line is in its file exactly once, no solution marker and no
    whole solution block is left in any file, and the stubbed package imports. The learner's
    ``exercises/`` is never looked at.
    """
    files = expected_files(reference)
    exercises = markers.discover(reference / PACKAGE)
    problems = []
    for block in (block for ex in exercises.values() for block in ex.blocks):
        rel = block.path.relative_to(reference).as_posix()
        count = files[rel].decode("utf-8").count(block.stub)
        if count != 1:
            problems.append(f"{rel}: the stub of exercise {block.id} appears {count} times")
    texts = {rel: data.decode("utf-8") for rel, data in files.items() if rel.endswith((".py", *YAML_FILES))}
    problems += _leaks(reference, texts)
    with tempfile.TemporaryDirectory(prefix="picotorch-generate-") as tmp:
        write_tree(files, Path(tmp))
        problems += _import_problems(Path(tmp))
    return problems


def _import_problems(tree: Path) -> list[str]:
    """``import picotorch`` from a generated tree, in a child process (every exercise still a stub)."""
    env = {**os.environ, "PICOTORCH_IMPL": "exercises", "PICOTORCH_EXERCISES_DIR": str(tree)}
    code = "import picotorch, sys; sys.exit(0 if picotorch.__file__.startswith(sys.argv[1]) else 3)"
    done = subprocess.run(
        [sys.executable, "-c", code, str(tree)], env=env, capture_output=True, text=True, timeout=120
    )
    if done.returncode == 0:
        return []
    if done.returncode == 3:
        return ["the generated package was not the one imported (is the switch installed?)"]
    tail = " | ".join(done.stderr.strip().splitlines()[-3:])
    return [f"the generated package does not import with every exercise stubbed: {tail}"]


def _leaks(reference: Path, texts: dict[str, str]) -> list[str]:
    """Solution markers or whole solution blocks found in ``texts`` (relative path → file text)."""
    found = []
    blocks = [block for ex in markers.discover(reference / PACKAGE).values() for block in ex.blocks]
    for rel, text in texts.items():
        if markers.BEGIN in text or markers.END in text:
            found.append(f"{rel}: contains a solution marker")
        found += [
            f"{rel}: contains the solution of exercise {ex.id}"
            for ex in blocks
            if (body := _block_body(ex)) and body in text
        ]
    return found


def _block_body(ex: markers.Exercise) -> str:
    lines = ex.path.read_text(encoding="utf-8").splitlines(keepends=True)[ex.begin : ex.end - 1]
    return "".join(lines).strip()
