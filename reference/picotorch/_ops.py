"""``torch.ops``: every registered operator as a Python object, by namespace, name and overload.

Models ``torch/_ops.py``. ``torch.ops.aten.mul`` is an ``OpOverloadPacket`` (all of ``mul``'s overloads;
calling it picks one by the arguments, as ``torch.mul`` does) and ``torch.ops.aten.mul.Tensor`` an
``OpOverload``: one schema, one entry of the dispatcher (``native/dispatcher.py``'s ``ENTRIES``), called with
exactly that schema's arguments. An overload without a name is ``.default``. This is the level chapter 05 reads
``native_functions.yaml`` at: each ``- func:`` line is one ``OpOverload``.
"""

from __future__ import annotations

import ast
import types

from ._generated import variable_type
from .native import dispatcher
from .native.helpers import scalar_tensor
from .native.tensor_impl import TensorImpl

__all__ = ["OpOverload", "OpOverloadPacket", "ops"]

_NOT_BOUND = object()


class OpOverload:
    """One overload: ``aten::mul.Tensor(Tensor self, Tensor other) -> Tensor``."""

    def __init__(self, packet: OpOverloadPacket, overload_name: str, entry_name: str):
        self.overloadpacket = packet
        self._overloadname = overload_name
        self._entry_name = entry_name
        self._schema = FunctionSchema(dispatcher.ENTRIES[entry_name].schema)
        self.namespace = packet._qualified_op_name.split("::")[0]
        self.__name__ = f"{packet.__name__}.{overload_name}"

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self.namespace}.{self.overloadpacket.__name__}', overload='{self._overloadname}')>"

    def name(self) -> str:
        return self._entry_name

    def __call__(*args, **kwargs):  # no named ``self``: ``mul.Tensor(self=x, other=y)`` is a call torch takes
        op, args = args[0], args[1:]
        result = op._call_if_bound(args, kwargs)
        if result is _NOT_BOUND:
            raise RuntimeError(op._binding_error(args, kwargs))
        return result

    def _call_if_bound(self, args, kwargs):
        """The call, if the arguments fit this schema (a Python number may stand for a Tensor); else ``_NOT_BOUND``."""
        function = dispatcher.FUNCTION_OF_ENTRY[self._entry_name]
        parameters = variable_type.PARAMETERS[function.__name__]
        values = dispatcher.bind(parameters, args, kwargs, numbers_as_tensors=True)
        if values is None:
            return _NOT_BOUND
        for name, kind, _ in parameters[0] + parameters[1]:
            if kind == "Tensor" and name in values and not isinstance(values[name], TensorImpl):
                values[name] = scalar_tensor(values[name])  # a number for a Tensor: wrapped, as the JIT's matching
        return function(**values)

    def _binding_error(self, args, kwargs) -> str:
        """What the JIT's schema matching says, for the two mistakes it names: too many, or one missing."""
        schema = self._schema
        short = schema.name
        positional = [a for a in schema.arguments if not a.kwarg_only]
        if len(args) > len(positional):
            return (f"{short}() expected at most {len(positional)} argument(s) but received {len(args)} argument(s). "
                    f"Declaration: {schema}")
        given = {a.name for a in positional[:len(args)]} | set(kwargs)
        for argument in schema.arguments:
            if argument.name not in given and not argument.has_default:
                return f"{short}() is missing value for argument '{argument.name}'. Declaration: {schema}"
        return f"{short}() got arguments it cannot take: {args!r}, {kwargs!r}. Declaration: {schema}"


class OpOverloadPacket:
    """Every overload of one operator name; ``.Tensor``, ``.Scalar``, ``.default`` pick one."""

    def __init__(self, qualified_op_name: str, op_name: str, overload_entries: dict[str, str]):
        self._qualified_op_name = qualified_op_name
        self.__name__ = op_name
        self._overload_entries = overload_entries  # overload name -> "aten::mul.Tensor"
        self._dir = list(overload_entries)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._qualified_op_name.replace('::', '.')}')>"

    def overloads(self) -> list[str]:
        return list(self._dir)

    def __getattr__(self, key: str):
        if key.startswith("__"):
            raise AttributeError(key)
        entry = self._overload_entries.get(key)
        if entry is None:
            raise AttributeError(f"The underlying op of '{self._qualified_op_name.replace('::', '.')}' has no overload "
                                 f"name '{key}'")
        overload = OpOverload(self, key, entry)
        setattr(self, key, overload)
        return overload

    def __call__(*args, **kwargs):
        """The first overload, in ``native_functions.yaml``'s order, whose schema takes the arguments."""
        packet, args = args[0], args[1:]
        for overload_name in packet._dir:
            result = getattr(packet, overload_name)._call_if_bound(args, kwargs)
            if result is not _NOT_BOUND:
                return result
        raise RuntimeError(f"{packet._qualified_op_name}() Expected a value of type matching one of its overloads "
                           f"({', '.join(packet._dir)}) for the arguments given")


class _OpNamespace(types.ModuleType):
    """``torch.ops.aten``: an operator name gives its packet, made on first use."""

    def __init__(self, name: str):
        super().__init__(f"torch.ops.{name}")
        self.__file__ = "torch.ops"  # what torch's namespace modules report, and so print
        self.name = name

    def __getattr__(self, op_name: str):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        entries = _overloads_of(self.name, op_name)
        if not entries:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        packet = OpOverloadPacket(f"{self.name}::{op_name}", op_name, entries)
        setattr(self, op_name, packet)
        return packet


class _Ops(types.ModuleType):
    def __init__(self):
        super().__init__("torch.ops")
        self.__file__ = "_ops.py"
        self.aten = _OpNamespace("aten")


def _overloads_of(namespace: str, op_name: str) -> dict[str, str]:
    prefix = f"{namespace}::{op_name}"
    found = {}
    for name in dispatcher.ENTRIES:
        if name == prefix:
            found["default"] = name
        elif name.startswith(prefix + "."):
            found[name[len(prefix) + 1:]] = name
    return found


# ----------------------------------------------------------------------------- the schema, as torch._C.FunctionSchema


class Argument:
    def __init__(self, text: str, kwarg_only: bool):
        declaration, _, default = text.partition("=")
        self.type, _, self.name = declaration.rpartition(" ")
        self.default_value = _python_value(default) if default else None
        self.has_default = bool(default)
        self.kwarg_only = kwarg_only

    def __repr__(self) -> str:
        return f"{self.type} {self.name}" + (f"={self.default_value}" if self.has_default else "")


class FunctionSchema:
    """A parsed ``native_functions.yaml`` signature; prints as the whole declaration."""

    def __init__(self, text: str):
        self._text = text
        head, _, rest = text.partition("(")
        self.name, _, self.overload_name = head.partition(".")
        inside = rest.rsplit(") -> ", 1)[0]
        self.arguments, kwarg_only = [], False
        for part in _split_arguments(inside):
            if part == "*":
                kwarg_only = True
                continue
            self.arguments.append(Argument(part, kwarg_only))

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return self._text


def _python_value(text: str):
    """A schema default as Python reads it (``1``, ``False``, ``None``, ``"mean"``); C++ spellings stay text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _split_arguments(inside: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in inside:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


ops = _Ops()
