"""The exercise generator: ``reference/picotorch`` → ``exercises/picotorch`` with the solutions removed.

Every file of the reference package is copied (Python sources, YAML, ``_generated/``...); in the
Python files each solution block becomes ``raise NotImplementedError("Exercise <id>: <task>")``.

A manifest (``exercises/.manifest.json``) records the sha256 of every file the generator wrote. A
file whose current hash differs from the manifest was edited by a learner: it is never overwritten
or deleted unless ``force`` is given, and the run reports it and fails.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from picotorch_course import markers

MANIFEST = ".manifest.json"
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
    for path in sorted(package.rglob("*")):
        if not path.is_file() or _skipped(path.relative_to(reference)):
            continue
        data = path.read_bytes()
        if path.suffix == ".py":
            data = markers.strip_solutions(data.decode("utf-8"), path, keep).encode("utf-8")
        files[path.relative_to(reference).as_posix()] = data
    return files


@dataclass
class Result:
    """What a generator run did, and what it refused to do."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.protected


def load_manifest(out: Path) -> dict[str, str]:
    path = out / MANIFEST
    if not path.exists():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8")).get("files", {}))


def _save_manifest(out: Path, files: dict[str, str]) -> None:
    body = {
        "note": "written by `python -m picotorch_course exercises`; sha256 of each generated file",
        "files": dict(sorted(files.items())),
    }
    (out / MANIFEST).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")


def _current_hash(path: Path) -> str | None:
    return sha256(path.read_bytes()) if path.is_file() else None


def _learner_changed(current: str | None, recorded: str | None) -> bool:
    """True when a file exists and is not what the generator last wrote there."""
    return current is not None and current != recorded


def generate(reference: Path, out: Path, force: bool = False) -> Result:
    """Write ``out/picotorch`` from ``reference/picotorch``, protecting files a learner changed."""
    expected = expected_files(reference)
    manifest = load_manifest(out)
    result = Result()
    new_manifest: dict[str, str] = {}
    for rel, data in expected.items():
        _write_one(out / rel, rel, data, manifest.get(rel), force, result, new_manifest)
    for rel in sorted(set(manifest) - set(expected)):
        _remove_one(out / rel, rel, manifest[rel], force, result, new_manifest)
    out.mkdir(parents=True, exist_ok=True)
    _save_manifest(out, new_manifest)
    _prune_empty_dirs(out / PACKAGE)
    return result


def _write_one(target, rel, data, recorded, force, result, new_manifest) -> None:
    wanted = sha256(data)
    current = _current_hash(target)
    if current == wanted:
        result.unchanged.append(rel)
        new_manifest[rel] = wanted
    elif _learner_changed(current, recorded) and not force:
        result.protected.append(rel)
        if recorded is not None:
            new_manifest[rel] = recorded
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        result.written.append(rel)
        new_manifest[rel] = wanted


def _remove_one(target, rel, recorded, force, result, new_manifest) -> None:
    current = _current_hash(target)
    if _learner_changed(current, recorded) and not force:
        result.protected.append(rel)
        new_manifest[rel] = recorded
        return
    if current is not None:
        target.unlink()
    result.removed.append(rel)


def _prune_empty_dirs(top: Path) -> None:
    if not top.is_dir():
        return
    for folder in sorted((p for p in top.rglob("*") if p.is_dir()), reverse=True):
        if folder.name == "__pycache__":
            continue
        if not any(folder.iterdir()):
            folder.rmdir()


def check(reference: Path, out: Path) -> list[str]:
    """Problems that make ``out`` differ from a fresh generation; empty when up to date."""
    expected = expected_files(reference)
    problems, differing = [], []
    for rel, data in expected.items():
        current = _current_hash(out / rel)
        if current is None:
            problems.append(f"{rel}: missing")
        elif current != sha256(data):
            problems.append(f"{rel}: differs from the generated version")
            differing.append(rel)
    extra = sorted(_actual_files(out) - set(expected))
    problems += [f"{rel}: not in the reference" for rel in extra]
    problems += _leaks(reference, out, differing + extra)
    if load_manifest(out) != {rel: sha256(d) for rel, d in expected.items()}:
        problems.append(f"{MANIFEST}: does not match the generated files")
    return problems


def _actual_files(out: Path) -> set[str]:
    package = out / PACKAGE
    if not package.is_dir():
        return set()
    return {
        p.relative_to(out).as_posix()
        for p in package.rglob("*")
        if p.is_file() and not _skipped(p.relative_to(out))
    }


def _leaks(reference: Path, out: Path, suspects: list[str]) -> list[str]:
    """Solution markers or whole solution blocks found in files that are not as generated."""
    found = []
    blocks = markers.discover(reference / PACKAGE).values()
    for rel in (s for s in suspects if s.endswith(".py")):
        text = (out / rel).read_text(encoding="utf-8", errors="replace")
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
