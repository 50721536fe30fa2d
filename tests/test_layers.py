"""The package's layers go one way: every import is checked against the table in CONTRIBUTING_INTERNALS.md.

Each module of ``reference/picotorch`` belongs to the layer of the most specific path in the table
(docs/CONTRIBUTING_INTERNALS.md, "Layout and layers"). An import may go to the same layer or down,
never up; no set of modules may import each other in a circle (counting imports inside functions,
which only hide a circle); an import inside a function carries a comment saying why. The generator
(``reference/picotorchgen``) and the package never import each other; above ``native/``, nothing
imports ATen's kernel files directly.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "reference" / "picotorch"
GENERATOR = ROOT / "reference" / "picotorchgen"
TABLE = ROOT / "docs" / "CONTRIBUTING_INTERNALS.md"
MAX_FUNCTION_LEVEL_IMPORTS = 5


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, e.g. picotorch.autograd.variable
    target: str  # the imported module
    line: int
    in_function: bool
    has_reason: bool  # a comment on the import's line or the line above


# ----------------------------------------------------------------------------- the layer table


@cache
def layer_table() -> dict[str, int]:
    """``{"autograd/": 5, "utils/hooks.py": 7, ...}`` from the markdown table's rows."""
    table = {}
    for number, paths in re.findall(r"^\|\s*(\d+)\s*\|([^|]*)\|", TABLE.read_text(), flags=re.M):
        for path in re.findall(r"`([^`]+)`", paths):
            table[path] = int(number)
    return table


def layer_of(module: str) -> int:
    """The layer of ``picotorch.x.y``: the longest table path that is this module's file or folder."""
    path = _relative_path(module)
    matches = [(len(key), layer) for key, layer in layer_table().items()
               if path == key or (key.endswith("/") and path.startswith(key))]
    if not matches:
        pytest.fail(f"{module} ({path}) is in no layer of {TABLE.name}: add its path to the table")
    return max(matches)[1]


def _relative_path(module: str) -> str:
    parts = module.split(".")[1:]
    file = PACKAGE.joinpath(*parts)
    if file.is_dir():
        return "/".join(parts + ["__init__.py"]) if parts else "__init__.py"
    return "/".join(parts) + ".py"


# ----------------------------------------------------------------------------- reading imports


def module_name(path: Path, package_dir: Path) -> str:
    parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules(package_dir: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(p, package_dir): p for p in sorted(package_dir.rglob("*.py"))}


def imports_of(name: str, path: Path, known: dict[str, Path]) -> list[Import]:
    """Every import in the file, resolved to module names (``from . import x`` names the module x)."""
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    found = []
    for node, in_function in _walk(tree, in_function=False):
        for target in _targets(node, name, path.name == "__init__.py", known):
            above = lines[node.lineno - 2] if node.lineno > 1 else ""
            reason = "#" in lines[node.lineno - 1] or above.strip().startswith("#")
            found.append(Import(name, target, node.lineno, in_function, reason))
    return found


def _walk(node, in_function: bool):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, in_function
        yield from _walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _targets(node, name: str, is_package: bool, known) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        base = node.module
    else:
        parts = name.split(".") if is_package else name.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    return list(dict.fromkeys(targets))


@cache
def package_imports() -> list[Import]:
    known = modules()
    return [imp for name, path in known.items() for imp in imports_of(name, path, known)
            if imp.target.split(".")[0] == "picotorch"]


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively: the groups of modules that import each other in a circle."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


# ----------------------------------------------------------------------------- the rules


def test_every_module_has_a_layer():
    for name in modules():
        layer_of(name)


def test_no_import_goes_up_a_layer():
    upward = [f"{imp.source} (layer {layer_of(imp.source)}) imports {imp.target} (layer {layer_of(imp.target)}) "
              f"at line {imp.line}" for imp in package_imports() if layer_of(imp.target) < layer_of(imp.source)]
    assert not upward, "imports that go up the layers:\n" + "\n".join(upward)


def test_no_import_cycles():
    graph: dict[str, set[str]] = {name: set() for name in modules()}
    for imp in package_imports():
        if imp.target != imp.source and imp.target in graph:
            graph[imp.source].add(imp.target)
    assert strongly_connected(graph) == []


def test_imports_inside_functions_are_few_and_explained():
    inside = [imp for imp in package_imports() if imp.in_function]
    unexplained = [f"{imp.source}:{imp.line} imports {imp.target}" for imp in inside if not imp.has_reason]
    assert not unexplained, "imports inside functions without a comment saying why:\n" + "\n".join(unexplained)
    assert len(inside) <= MAX_FUNCTION_LEVEL_IMPORTS, [f"{imp.source}:{imp.line}" for imp in inside]


# ATen's kernel files: the layers above reach them through the dispatcher (ops.<name>), the flat
# ``picotorch.native`` namespace (generated code) or native/helpers.py, never directly.
KERNEL_FILES = {"activation", "binary_ops", "composite", "indexing", "linear_algebra", "reduce_ops",
                "tensor_factories", "tensor_shape", "unary_ops", "cuda.elementwise", "cuda.raw_kernels"}


def test_kernel_files_are_reached_only_from_native():
    kernels = {f"picotorch.native.{name}" for name in KERNEL_FILES}
    assert kernels <= set(modules()), sorted(kernels - set(modules()))
    reaching = [f"{imp.source}:{imp.line} imports {imp.target}" for imp in package_imports()
                if imp.target in kernels and not imp.source.startswith("picotorch.native")]
    assert reaching == [], "go through ops.<name> or native/helpers.py:\n" + "\n".join(reaching)


def test_generator_and_package_do_not_import_each_other():
    if not GENERATOR.is_dir():
        pytest.skip("no reference/picotorchgen")
    generator = modules(GENERATOR)
    from_generator = [f"{imp.source}:{imp.line}" for name, path in generator.items()
                      for imp in imports_of(name, path, generator) if imp.target.split(".")[0] == "picotorch"]
    from_package = [f"{imp.source}:{imp.line}" for name, path in modules().items()
                    for imp in imports_of(name, path, modules()) if imp.target.split(".")[0] == "picotorchgen"]
    assert from_generator == [] and from_package == []


# ----------------------------------------------------------------------------- the checker itself


def test_the_table_is_read():
    table = layer_table()
    assert table["c10/"] > table["native/"] > table["autograd/"] > table["_generated/"] > table["_C/"]
    assert layer_of("picotorch.utils.hooks") > layer_of("picotorch.utils") == layer_of("picotorch") == 1


def test_cycle_finder_finds_a_circle_and_nothing_else():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert strongly_connected(graph) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_relative_imports_resolve_to_modules(tmp_path):
    package = tmp_path / "picotorch"
    (package / "autograd").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "autograd" / "__init__.py").write_text("from . import graph\n")
    (package / "autograd" / "graph.py").write_text("def f():\n    # why: a reason\n    from ..c10 import size\n")
    (package / "c10").mkdir()
    (package / "c10" / "__init__.py").write_text("")
    (package / "c10" / "size.py").write_text("")
    known = modules(package)
    found = imports_of("picotorch.autograd.graph", package / "autograd" / "graph.py", known)
    assert found == [Import("picotorch.autograd.graph", "picotorch.c10.size", 3, True, True)]
    found = imports_of("picotorch.autograd", package / "autograd" / "__init__.py", known)
    assert [imp.target for imp in found] == ["picotorch.autograd.graph"]
