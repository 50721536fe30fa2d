"""Turning a Python call into an operator call: pick the overload, check the arguments.

Models ``torch/csrc/utils/python_arg_parser.cpp``: each Python name has a list of signatures, tried
in order; the first that accepts the arguments wins. A Python number passed where a ``Tensor`` is
expected becomes a zero-dim "wrapped number" tensor, for the arithmetic ops that allow it. When no
signature matches, the error lists what was expected, as PyTorch's does.
"""

from __future__ import annotations

import re

from ..c10.scalar_type import is_differentiable_type
from ..native.dispatcher import accepts, bind, bound_simply, simple_signature
from ..native.helpers import scalar_tensor
from ..native.tensor_impl import TensorImpl


def _type_name(value) -> str:
    if isinstance(value, TensorImpl):
        return "Tensor"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_type_name(v) for v in value)
        return f"{type(value).__name__} of [{inner}]"
    return type(value).__name__


def _wrap_numbers(values: dict, params) -> dict:
    tensor_params = _tensor_params(params)
    for name, value in values.items():
        if name in tensor_params and not isinstance(value, TensorImpl) and value is not None:
            values[name] = scalar_tensor(value)
    return values


def _pack_int_list(args, params, method: bool):
    """``x.view(2, 3)``: a lone ``int[]`` parameter also takes the ints as separate arguments."""
    first = 1 if method else 0
    if len(args) - first < 2 or not _takes_lone_int_list(params, first):
        return None
    rest = args[first:]
    if not all(isinstance(a, int) for a in rest):
        return None
    return tuple(args[:first]) + (tuple(rest),)


# What each signature's parameters allow, computed once per signature: the parser asks on every call,
# and rebuilding lists and dicts each time was a third of its cost. Keyed by the signature's identity
# (checked against the stored signature): hashing its nested tuples on every call cost as much again.
_SIGNATURE_FACTS: dict = {}


def _fact(kind: str, params, first: int, compute):
    entry = _SIGNATURE_FACTS.get((kind, id(params), first))
    if entry is not None and entry[0] is params:
        return entry[1]
    found = compute()
    _SIGNATURE_FACTS[(kind, id(params), first)] = (params, found)
    return found


def _tensor_params(params) -> frozenset:
    """The names of the (single) ``Tensor`` parameters: where a Python number becomes a wrapped tensor."""
    return _fact("tensors", params, 0, lambda: frozenset(
        name for name, kind, _ in list(params[0]) + list(params[1])
        if kind.startswith("Tensor") and not kind.endswith("[]")))


def _takes_lone_int_list(params, first: int) -> bool:
    """The first parameter after ``self`` is an ``int[]`` and the only one without a default."""
    def compute():
        positional = params[0]
        required = [p for p in positional[first:] if not p[2]]
        return (len(required) == 1 and required[0][1].startswith("int[]")
                and len(positional) > first and positional[first] is required[0])
    return _fact("int_list", params, first, compute)


NOT_SIMPLE = object()
_PLAIN_NUMBERS = (int, float)  # exactly these types: a bool, a NumPy scalar... take the general path


def check_requires_grad(dtype) -> None:
    """The check behind every ``requires_grad=True`` argument (factories and ops alike)."""
    if not is_differentiable_type(dtype):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def _self_first(params):
    """``x.where(cond, y)`` binds ``x`` to ``self``, though ``where``'s schema lists ``condition`` first."""
    positional, kwarg_only = params
    selfs = [p for p in positional if p[0] == "self"]
    return (tuple(selfs) + tuple(p for p in positional if p[0] != "self"), kwarg_only)


class PythonArgParser:
    def __init__(self, name: str, signatures, numbers_as_tensors: bool, method: bool) -> None:
        self.name = name
        # (impl, printed signature, params); a method receives the tensor first, whatever the schema's order
        self.signatures = [(impl, sig, _self_first(params)) for impl, sig, params in signatures] if method \
            else signatures
        self.numbers_as_tensors = numbers_as_tensors
        self.method = method
        # ops with TensorOptions arguments (dtype, layout, device, pin_memory) also take requires_grad
        self.tensor_options = any({"layout", "device"} <= {n for n, _, _ in sig[2][1]} for sig in signatures)
        # the direct call passes values in the schema's order: not for a method whose self moved first
        simple = simple_signature(signatures[0][2]) if self.signatures[0][2] == signatures[0][2] else None
        self.simple_impl = signatures[0][0]
        self.simple_fewest, self.simple_kinds = simple or (1, ())  # calls with that many to len(kinds) values

    def __call__(self, args, kwargs):
        requires_grad = kwargs.pop("requires_grad", False) if self.tensor_options else False
        result = self._parse_and_call(args, kwargs)
        if requires_grad:  # what the generated binding of a factory-like op adds (set_requires_grad)
            check_requires_grad(result._dtype)
            result.requires_grad_()
        return result

    def call_simply(self, args):
        """NOTE [Binding without the dict] (``native/dispatcher.py``): plain positional values for the first
        signature's leading parameters go straight to it; for the arithmetic ops a Python number in a
        ``Tensor`` slot becomes its wrapped-number tensor first. Anything else returns ``NOT_SIMPLE`` and
        takes the general path (``__call__``)."""
        kinds = self.simple_kinds
        values = bound_simply(kinds, args)
        if values is not None:
            return self.simple_impl(*values)
        if not self.numbers_as_tensors:
            return NOT_SIMPLE
        operands = [scalar_tensor(a) if kind == "Tensor" and type(a) in _PLAIN_NUMBERS else a
                    for kind, a in zip(kinds, args)]
        values = bound_simply(kinds, operands)
        if values is not None:
            return self.simple_impl(*values)
        return NOT_SIMPLE

    def _parse_and_call(self, args, kwargs):
        for impl, _, params in self.signatures:
            packed = _pack_int_list(args, params, self.method)
            if packed is not None:
                values = bind(params, packed, kwargs, self.numbers_as_tensors)
                if values is not None:
                    return impl(**values)
            values = bind(params, args, kwargs, self.numbers_as_tensors)
            if values is not None:
                if self.numbers_as_tensors:
                    values = _wrap_numbers(values, params)
                return impl(**values)
        raise self._error(args, kwargs)

    def _error(self, args, kwargs) -> TypeError:
        if len(self.signatures) == 1:
            message = self._single_error(args, kwargs)
            if message:
                return TypeError(message)
        given = ", ".join(_type_name(a) for a in args[1 if self.method else 0:])
        if kwargs:  # PyTorch prints each keyword argument followed by ", "
            given += (", " if given else "") + "".join(f"{k}={_type_name(v)}, " for k, v in kwargs.items())
        expected = "\n".join(f" * ({_printed_params(sig, self.method)})" for _, sig, _ in self.signatures)
        return TypeError(f"{self.name}() received an invalid combination of arguments - got ({given}), "
                         f"but expected one of:\n{expected}\n")

    def _single_error(self, args, kwargs) -> str | None:
        _, sig, (positional, kwarg_only) = self.signatures[0]
        offset = 1 if self.method else 0
        for i, ((name, kind, _), value) in enumerate(zip(positional, args)):
            if i < offset:
                continue
            if not accepts(kind, value, self.numbers_as_tensors):
                shown = "input" if name == "self" else name
                return (f"{self.name}(): argument '{shown}' (position {i + 1 - offset}) must be "
                        f"{_kind_text(kind)}, not {type(value).__name__}")
        every = list(positional) + list(kwarg_only)
        names = {n for n, _, _ in every}
        for key in kwargs:
            if key not in names:
                return f"{self.name}() got an unexpected keyword argument '{key}'"
        given = len(args) - offset
        if given > len(positional) - offset:
            return (f"{self.name}() takes {len(positional) - offset} positional argument"
                    f"{'s' if len(positional) - offset != 1 else ''} but {given} were given")
        for name, _, has_default in every:
            if name not in kwargs and name not in [p[0] for p in positional[:len(args)]] and not has_default:
                shown = "input" if name == "self" else name
                return f"{self.name}() missing 1 required positional arguments: \"{shown}\""
        return None


def _kind_text(kind: str) -> str:
    return {"Tensor": "Tensor", "Scalar": "Number", "int": "int", "int[]": "tuple of ints",
            "Tensor[]": "tuple of Tensors"}.get(kind.rstrip("?"), kind)


# How python_arg_parser.cpp names schema types in its messages.
_PRINTED_TYPES = [(re.compile(r"\b(?:int|SymInt)\[\d*\]\??"), "tuple of ints"),
                  (re.compile(r"\bTensor\?\[\]"), "tuple of Tensors"),
                  (re.compile(r"\bTensor\[\]"), "tuple of Tensors"),
                  (re.compile(r"\bScalarType\??"), "torch.dtype"),
                  (re.compile(r"\bScalar\??"), "Number"),
                  (re.compile(r"\bDevice\??"), "Device"),
                  (re.compile(r"\b(Tensor|int|float|bool|str|SymInt|Layout|MemoryFormat)\?"), r"\1")]


def _printed_params(sig: str, method: bool) -> str:
    inside = sig[sig.index("(") + 1:-1]
    for pattern, text in _PRINTED_TYPES:
        inside = pattern.sub(text, inside)
    return inside.replace("=", " = ")
