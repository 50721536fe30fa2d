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

__all__ = ["argument_kind", "call_arguments", "formals", "out_parameter", "parameter_table", "python_default",
           "python_name", "python_signature", "sort_signature"]

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


def python_signature(schema: FunctionSchema, method: bool, out: FunctionSchema | None = None) -> str:
    """``add(Tensor input, Tensor other, *, Scalar alpha=1)`` as torch's docs and errors print it.

    A method leaves ``self`` out; elsewhere a ``Tensor self`` is called ``input``. With the op's ``out``
    overload (``add.out``) the one signature of both ends in ``Tensor out=None`` (``PythonSignatureGroup``).
    """
    positional = [_signature_argument(a) for a in schema.arguments.positional if not (method and a.name == "self")]
    kwarg_only = list(schema.arguments.kwarg_only)
    options = _factory_options(kwarg_only)
    kwarg_only = [_signature_argument(a) for a in kwarg_only if a.name not in options] + _out_argument(out)
    if options:  # a factory: its TensorOptions come last, as torch prints them, with requires_grad
        kwarg_only += ["ScalarType? dtype=None", "Layout? layout=None", "Device? device=None", "bool pin_memory=False",
                       "bool requires_grad=False"]
    arguments = positional + (["*", *kwarg_only] if kwarg_only else [])
    return f"{schema.name.name}({', '.join(arguments)})"


def grouping_signature(schema: FunctionSchema) -> str:
    """The text that pairs a functional overload with its out= overload: the Python signature without outputs
    and without a factory's TensorOptions (``normal.float_float`` with ``normal.float_float_out``)."""
    kept = [a for a in schema.arguments.kwarg_only if a.name not in _factory_options(schema.arguments.kwarg_only)]
    positional = [_signature_argument(a) for a in schema.arguments.positional]
    keywords = [_signature_argument(a) for a in kept if a not in schema.arguments.out]
    return f"{schema.name.name}({', '.join(positional + (['*', *keywords] if keywords else []))})"


def _factory_options(kwarg_only) -> set[str]:
    """The names of the TensorOptions group (dtype, layout, device, pin_memory) when all four are there."""
    names = {a.name for a in kwarg_only}
    return {"dtype", "layout", "device", "pin_memory"} if {"dtype", "layout", "device", "pin_memory"} <= names \
        else set()


def _out_argument(out: FunctionSchema | None) -> list[str]:
    """``PythonOutArgument``: one output keeps its name (``Tensor out=None``); several become one
    ``Tensor[N] out=None``, a tuple (``sort(..., out=(values, indices))``)."""
    if out is None:
        return []
    outputs = out.arguments.out
    if len(outputs) == 1:
        return [f"Tensor {outputs[0].name}=None"]
    return [f"Tensor[{len(outputs)}] out=None"]


def out_parameter(out: FunctionSchema) -> str:
    """The ``out`` row the parser matches for a grouped signature: optional, so the functional call binds too."""
    return "('out', 'Tensor?', True)" if len(out.arguments.out) == 1 else "('out', 'Tensor[]?', True)"


def parameter_table(schema: FunctionSchema) -> str:
    """What the argument parser matches: ``((positional...), (keyword-only...))``.

    Each parameter is ``(name, kind, has_default)``, ``kind`` as :func:`argument_kind` gives it.
    """
    return f"({_row(schema.arguments.positional)}, {_row(schema.arguments.kwarg_only + schema.arguments.out)})"


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
    if t.base == "Scalar" and t.is_list:
        return "Scalar[]"
    if t.base == "Scalar":
        return "Scalar?" if t.optional else "Scalar"
    if t.base in ("int", "SymInt") and t.is_list:
        # ``int[2]``: one int stands for two (``IntArrayRef`` of a size); ``int[1]`` is ``int[]``
        kind = f"int[{t.list_size}]" if t.list_size and t.list_size > 1 else "int[]"
        return kind + "?" if t.optional else kind
    if t.base in ("int", "SymInt"):
        return "int?" if t.optional else "int"
    if t.base == "bool" and not t.is_list:
        return "bool?" if t.optional else "bool"
    if t.base == "ScalarType" and not t.is_list:
        return "ScalarType?" if t.optional else "ScalarType"
    if t.base in ("MemoryFormat", "Layout") and not t.is_list:
        return f"{t.base}?" if t.optional else t.base
    return "any"


def _formal(a: Argument) -> str:
    name = python_name(a)
    return name if a.default is None else f"{name}={argument_default(a)}"


def argument_default(a: Argument) -> str:
    """``python_default`` of ``a``'s default; an ``int[2] padding=0`` is ``(0, 0)``, as the parser expands it."""
    t = a.type
    if t.base in ("int", "SymInt") and t.is_list and (t.list_size or 0) > 1 and _NUMBER.fullmatch(a.default):
        return "(" + ", ".join([a.default] * t.list_size) + ")"
    return python_default(a.default)


def python_default(text: str) -> str:
    """A schema default as Python source: ``[]`` -> ``()``, ``[0,1]`` -> ``(0,1,)``, ``mean`` -> ``'mean'``,
    ``'none'`` stays ``'none'``, ``contiguous_format`` -> ``torch.contiguous_format`` (``c10/layout.py``), and
    ``Mean`` (``int reduction=Mean``) -> ``0``.

    ``0``, not ``at::Reduction::Mean`` (1): PyTorch's Python argument parser reads an int default with
    ``atol``, which gives 0 for ``Mean``, so ``torch._C._nn.mse_loss(x, y)`` does not reduce (``F.mse_loss``
    always passes the reduction).
    """
    if text in ("None", "True", "False"):
        return text
    if text == "Mean":
        return "0"
    if text.endswith("_format"):  # ``MemoryFormat memory_format=contiguous_format``: the object, not its name
        return f"MEMORY_FORMATS[{text!r}]"
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
    name = "input" if a.name == "self" and str(a.type) == "Tensor" else a.name  # where's ``Scalar self`` keeps it
    text = f"{a.type} {name}"
    return text if a.default is None else f"{text}={a.default}"


def sort_signature(schema: FunctionSchema, method: bool, out: FunctionSchema | None = None) -> str:
    """The signature text torchgen sorts overloads by (``signature_str``): C++ type names, C++ defaults
    read back as Python values (``IntArrayRef[1] dim=None``, ``int64_t dim=-1``, ``double eps=1e-05``)."""
    def argument(a: Argument) -> str:
        type_text = _cpp_type(a.type)
        name = "input" if a.name == "self" and type_text == "Tensor" else a.name
        return f"{type_text} {name}" if a.default is None else f"{type_text} {name}={_cpp_default(a)}"
    positional = [argument(a) for a in schema.arguments.positional if not (method and a.name == "self")]
    outputs = [text.replace("Tensor[", "TensorList[") for text in _out_argument(out)]
    kwarg_only = [argument(a) for a in schema.arguments.kwarg_only] + outputs
    return f"{schema.name.name}({', '.join(positional + (['*', *kwarg_only] if kwarg_only else []))})"


_CPP_TYPES = {"int": "int64_t", "float": "double", "str": "c10::string_view"}
_CPP_LISTS = {"int": "IntArrayRef", "SymInt": "SymIntArrayRef", "Tensor": "TensorList", "Scalar": "ScalarList"}


def _cpp_type(t) -> str:
    """``argument_type_str``: how torchgen's parser signatures name a schema type."""
    if not t.is_list:
        text = _CPP_TYPES.get(t.base, t.base)
    elif t.base == "Tensor" and t.elem_optional:
        text = "c10::List<::std::optional<Tensor>>"
    elif t.base == "bool":
        text = f"::std::array<bool,{t.list_size}>"
    elif t.base in _CPP_LISTS:
        text = _CPP_LISTS[t.base] + ("" if t.list_size is None else f"[{t.list_size}]")
    else:
        text = f"ArrayRef<{_CPP_TYPES.get(t.base, t.base)}>"
    return text + ("?" if t.optional else "")


def _cpp_default(a: Argument) -> str:
    d = a.default
    if d == "None":
        return "None"
    if a.type.base == "str" and d[:1] == "'":
        return '"' + d[1:-1] + '"'
    if a.type.is_list and d.startswith("["):
        return "None" if d == "[]" else "{" + d[1:-1] + "}"
    d = {"Mean": "at::Reduction::Mean", "contiguous_format": "c10::MemoryFormat::Contiguous"}.get(d, d)
    for parse in (int, float):
        try:
            return str(parse(d))
        except ValueError:
            pass
    return d
