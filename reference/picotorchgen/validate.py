"""Checks at generation time: every kernel a ``dispatch:`` names exists, every name a formula reads is known.

Models the checks torchgen and the C++ compiler make between them: torchgen asserts that a derivative's
names are the op's inputs or outputs (``tools/autograd/load_derivatives.py``), and a ``dispatch:`` kernel or a
formula naming something undefined fails when the generated ``.cpp`` is compiled or linked. picotorch's
generated code is Python, where the same mistakes would only show at the first call of the op, so the
generator checks them itself and stops with a :class:`~picotorchgen.errors.ParseError` that names the YAML
line.

What exists is read from the source, never imported (``picotorchgen`` does not import ``picotorch``: see
its ``__init__``): the names ``picotorch/native/__init__.py`` binds (the flat ``at::native`` namespace the
generated code reaches as ``native.<kernel>``) and the ``__all__`` of ``autograd/functions_manual.py`` (what
``from functions_manual import *`` gives the generated nodes).
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from .api.autograd import Op, formula_value
from .errors import ParseError
from .load_derivatives import output_names

__all__ = ["check_formulas", "check_kernels", "check_out_overloads", "module_names"]

# Names the generated nodes module binds itself (its imports), besides functions_manual's.
NODES_MODULE_NAMES = frozenset({"Node", "SavedVariable", "ERR_BACKWARD_TWICE", "ops"})
# What a formula may read besides the op's values: the incoming gradient(s), and which inputs need one
# (``grad_input_mask``, bound by the template of a formula for several inputs).
GRADIENT_NAMES = frozenset({"grad", "grads", "grad_input_mask"})


def module_names(path: Path, exported_only: bool = False) -> frozenset[str]:
    """The names a module binds at its top level (imports, functions, classes, assignments), read with ``ast``;
    with ``exported_only``, its ``__all__`` when it has one (what ``import *`` gives)."""
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
            if exported_only and any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                return frozenset(ast.literal_eval(node.value))
    return frozenset(names)


def check_kernels(ops: list[Op], native_init: Path) -> None:
    """Every kernel named in a ``dispatch:`` must be a name of ``picotorch.native``."""
    available = module_names(native_init)
    for op in ops:
        for key, kernel in op.fn.dispatch.items():
            if kernel not in available:
                raise ParseError(*op.fn.loc, f"the {key} kernel {kernel!r} of {op.overload} does not exist in "
                                 "picotorch.native",
                                 "the name of a kernel that picotorch/native/__init__.py imports or defines",
                                 f"func: {op.schema}")


def check_out_overloads(ops: list[Op]) -> None:
    """Every out= overload has a functional overload of the same signature, which its function calls and its
    Python signature is grouped with (PyTorch's ``group_overloads`` refuses an out schema without one too)."""
    functional = {op.schema.signature() for op in ops if op.schema.kind() == "functional"}
    for op in ops:
        if op.schema.is_out_fn() and op.schema.signature() not in functional:
            raise ParseError(*op.fn.loc, f"the out= overload {op.overload} has no functional overload of the same "
                             "signature", f"an entry '{op.schema.signature()}' (any overload name) beside it",
                             f"func: {op.schema}")


def check_formulas(ops: list[Op], functions_manual: Path) -> None:
    """Every name a backward formula reads must be an input or output of its op (or a value derived from an
    input: ``self_sizes``), ``grad``/``grads``, a helper of ``functions_manual`` or a builtin."""
    known = module_names(functions_manual, exported_only=True) | NODES_MODULE_NAMES | GRADIENT_NAMES
    known |= frozenset(dir(builtins))
    seen = set()
    for op in ops:
        if op.info is None or id(op.info) in seen:
            continue
        seen.add(id(op.info))
        for derivative in op.info.derivatives:
            for name in sorted(_free_names(derivative.formula, op)):
                if name not in known and name not in output_names(op.info.func) and formula_value(op, name) is None:
                    raise _unknown_name(op, name, derivative.var_names)


def _unknown_name(op: Op, name: str, var_names: tuple[str, ...]) -> ParseError:
    inputs = ", ".join(a.name for a in op.info.func.arguments.flat_non_out())
    return ParseError(*op.info.loc, f"the formula for {', '.join(var_names)} reads {name!r}, which is not an "
                      f"argument of {op.info.func.name}",
                      f"an argument ({inputs}), a value derived from one (e.g. self_sizes), grad, result, or a "
                      "helper of picotorch/autograd/functions_manual.py", f"name: {op.info.name}")


def _free_names(formula: str, op: Op) -> set[str]:
    """The names a formula (a Python expression) reads and does not bind itself (a comprehension's ``g``)."""
    try:
        tree = ast.parse(formula.strip(), mode="eval")
    except SyntaxError as e:
        raise ParseError(*op.info.loc, f"the formula {formula!r} is not a Python expression ({e.msg})",
                         "a Python expression calling ops.<name> and the helpers of functions_manual.py",
                         f"name: {op.info.name}") from None
    read, bound = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return read - bound
