"""An op's schema as Python sees it: parameter lists, signatures for messages, parameter tables.

Models ``torchgen/api/python.py`` (``PythonSignature``, how a schema argument appears in Python and
in the argument parser). Both ``variable_type.py`` (``ops.<name>`` chooses an overload) and
``python_bindings.py`` (``picotorch.<name>``, ``Tensor.<name>``) print an op's :func:`parameter_table`;
it is built here, once.
"""

from __future__ import annotations

import keyword
import re

from ..model import Argument, FunctionSchema

__all__ = ["argument_kind", "call_arguments", "formals", "parameter_table", "python_signature"]

_NUMBER = re.compile(r"-?\d+(\.\d*)?(e-?\d+)?")


def formals(schema: FunctionSchema) -> str:
    """The parameters of the generated Python function: ``self, other, *, alpha=1``."""
    positional = [_formal(a) for a in schema.arguments.positional]
    kwarg_only = [_formal(a) for a in schema.arguments.kwarg_only]
    return ", ".join(positional + (["*", *kwarg_only] if kwarg_only else []))


def call_arguments(schema: FunctionSchema) -> list[str]:
    """The names a generated function passes on to its kernel, in schema order (no ``out=``)."""
    return [python_name(a) for a in schema.arguments.flat_non_out()]


def python_name(a: Argument) -> str:
    """An argument's name in generated Python: a keyword gets a trailing ``_`` (``uniform_``'s ``from``)."""
    return a.name + "_" if keyword.iskeyword(a.name) else a.name


def python_signature(schema: FunctionSchema, method: bool) -> str:
    """``add(Tensor input, Tensor other, *, Scalar alpha=1)`` as torch's docs and errors print it.

    A method leaves ``self`` out; elsewhere ``self`` is called ``input``.
    """
    positional = [_signature_argument(a) for a in schema.arguments.positional if not (method and a.name == "self")]
    kwarg_only = [_signature_argument(a) for a in schema.arguments.kwarg_only]
    arguments = positional + (["*", *kwarg_only] if kwarg_only else [])
    return f"{schema.name.name}({', '.join(arguments)})"


def parameter_table(schema: FunctionSchema) -> str:
    """What the argument parser matches: ``((positional...), (keyword-only...))``.

    Each parameter is ``(name, kind, has_default)``, ``kind`` as :func:`argument_kind` gives it.
    """
    return f"({_row(schema.arguments.positional)}, {_row(schema.arguments.kwarg_only)})"


def _row(arguments: tuple[Argument, ...]) -> str:
    entries = "".join(f"({python_name(a)!r}, {argument_kind(a)!r}, {a.default is not None}), " for a in arguments)
    return f"({entries[:-1]})" if entries else "()"


def argument_kind(a: Argument) -> str:
    """The kinds of argument the Python argument parser tells apart; ``any`` for the rest."""
    t = a.type
    if t.base == "Tensor":
        if t.is_list:
            return "Tensor?[]" if t.elem_optional else "Tensor[]"
        return "Tensor?" if t.optional else "Tensor"
    if t.base == "Scalar":
        return "Scalar?" if t.optional else "Scalar"
    if t.base in ("int", "SymInt") and t.is_list:
        return "int[]?" if t.optional else "int[]"
    if t.base in ("int", "SymInt"):
        return "int?" if t.optional else "int"
    if t.base == "bool" and not t.is_list:
        return "bool?" if t.optional else "bool"
    return "any"


def _formal(a: Argument) -> str:
    name = python_name(a)
    return name if a.default is None else f"{name}={python_default(a.default)}"


def python_default(text: str) -> str:
    """A schema default as Python source: ``[]`` -> ``()``, ``[0,1]`` -> ``(0,1,)``, ``mean`` -> ``'mean'``,
    ``'none'`` stays ``'none'``, and ``Mean`` (``int reduction=Mean``) -> ``0``.

    ``0``, not ``at::Reduction::Mean`` (1): PyTorch's Python argument parser reads an int default with
    ``atol``, which gives 0 for ``Mean``, so ``torch._C._nn.mse_loss(x, y)`` does not reduce (``F.mse_loss``
    always passes the reduction).
    """
    if text in ("None", "True", "False"):
        return text
    if text == "Mean":
        return "0"
    if text[:1] in "'\"":
        return text
    if text == "[]":
        return "()"
    if text.startswith("[") and text.endswith("]"):
        return "(" + text[1:-1] + ",)"
    if _NUMBER.fullmatch(text):
        return text
    return repr(text)


def _signature_argument(a: Argument) -> str:
    name = "input" if a.name == "self" else a.name
    text = f"{a.type} {name}"
    return text if a.default is None else f"{text}={a.default}"
