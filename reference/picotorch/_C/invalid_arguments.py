"""The "received an invalid combination of arguments" message, listing every signature.

Models ``torch/csrc/utils/invalid_arguments.cpp`` (``format_invalid_args``). It does not reuse the
parser's knowledge of each parameter: it reads the signatures back from their printed text
(``(Tensor input, Number other, *, Tensor out = None)``), splitting on ", " and taking the last word
of each piece as the name and the rest as the type. So ``*`` counts as an argument, a parameter with
a default is named after its default (``bool keepdim = False`` is "False", of type "bool keepdim ="),
and a value matches a type only when its Python type's name is that type's name (``int`` for ``int``;
``int`` or ``float`` for ``float``): nothing is ever a ``Number`` nor a ``tuple of ints`` here. The
message inherits these quirks, and so a "didn't match because" line appears under a signature only
when the call gave exactly as many arguments as that text has pieces.

NOTE [Keyword arguments in an unordered map]
PyTorch copies the keyword arguments into a ``std::unordered_map<std::string, ...>`` before describing
them, so they come out in the map's order, not the caller's. With GCC's standard library (PyTorch's
Linux wheels) that order is fixed: a string's hash is ``std::_Hash_bytes`` (MurmurHash2, 64-bit, seed
0xc70f6907), the first insertion makes 13 buckets, and a key goes to the front of the list unless its
bucket already has keys, then just before them. So usually the reverse of the caller's order, not always.
:func:`_kwargs_order` replays that for up to 13 keywords (more would make the table grow).
"""

from __future__ import annotations

import numpy as np

# Our classes standing for C types of torch, whose tp_name carries the module: "torch.dtype", "torch.Size".
_TORCH_C_TYPES = {"dtype": "torch.dtype", "device": "torch.device", "Size": "torch.Size", "layout": "torch.layout",
                  "memory_format": "torch.memory_format", "finfo": "torch.finfo", "iinfo": "torch.iinfo",
                  "Generator": "torch._C.Generator"}
_PACKAGE = __name__.split(".")[0]


def tp_name(value) -> str:
    """What C's ``Py_TYPE(value)->tp_name`` prints: a class's name, with the module for C types."""
    cls = type(value)
    if cls.__name__ in _TORCH_C_TYPES and cls.__module__.split(".")[0] == _PACKAGE:
        return _TORCH_C_TYPES[cls.__name__]
    if isinstance(value, np.generic):
        return f"numpy.{cls.__name__}"
    return cls.__name__


def format_invalid_args(args, kwargs: dict, function_name: str, options: list[str]) -> str:
    """``function_name`` is ``"mul()"``; ``options`` the printed signatures, hidden ones left out."""
    kwargs = dict(_kwargs_order(kwargs))
    message = f"{function_name} received an invalid combination of arguments - "
    if len(options) == 1:
        option = _Option(options[0])
        unmatched = _unmatched_kwargs(option, kwargs)
        if unmatched:
            return message + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        given = _marked(option, args, kwargs) if _count_matches(option, args, kwargs) else _described(args, kwargs)
        return message + f"got {given}, but expected {options[0]}"
    lines = [message + f"got {_described(args, kwargs)}, but expected one of:"]
    for text in options:
        lines.append(f" * {text}")
        why = why_not_matched(_Option(text), args, kwargs)
        if why is not None:
            lines.append(why)
    return "\n".join(lines) + "\n"


def why_not_matched(option: _Option, args, kwargs: dict) -> str | None:
    """The "didn't match because" line under one signature, or None when PyTorch prints none."""
    if not _count_matches(option, args, kwargs):
        return None
    unmatched = _unmatched_kwargs(option, kwargs)
    if unmatched:
        return "      didn't match because some of the keywords were incorrect: " + ", ".join(unmatched)
    return "      didn't match because some of the arguments have invalid types: " + _marked(option, args, kwargs)


class _Option:
    """One printed signature read back as (name, type) pairs: ``Tensor other`` -> ("other", "Tensor")."""

    def __init__(self, text: str) -> None:
        self.arguments = []
        for piece in text[1:-1].split(", "):  # "()" gives one piece, "", as in PyTorch
            type_name, _, name = piece.rpartition(" ")
            self.arguments.append((name, type_name))

    def matches(self, i: int, value) -> bool:
        accepted = _ACCEPTED.get(self.arguments[i][1])
        return tp_name(value) in (accepted or (self.arguments[i][1],))


_ACCEPTED = {"float": ("float", "int", "long"), "int": ("int", "long")}


def _count_matches(option: _Option, args, kwargs: dict) -> bool:
    return len(args) + len(kwargs) == len(option.arguments)


def _unmatched_kwargs(option: _Option, kwargs: dict) -> list[str]:
    """The keywords not among the last ``len(kwargs)`` names of the signature."""
    names = [name for name, _ in option.arguments[max(len(option.arguments) - len(kwargs), 0):]]
    return [key for key in kwargs if key not in names]


def _marked(option: _Option, args, kwargs: dict) -> str:
    """``(Tensor, !str!)``: each given type, between ``!`` where it does not fit the signature's type there."""
    # BEGIN SOLUTION 6.1: mark each given type !like this! where it misfits its place; a keyword as name=type
    pieces = []
    for i in range(len(args) + len(kwargs)):
        if i < len(args):
            value, text = args[i], ""
        else:  # the keywords fill the places after the positional ones, in the signature's order
            name = option.arguments[i][0]
            value, text = kwargs[name], f"{name}="
        text += _value_type(value)
        pieces.append(text if option.matches(i, value) else f"!{text}!")
    return _joined(pieces, args)
    # END SOLUTION


def _described(args, kwargs: dict) -> str:
    pieces = [tp_name(a) for a in args] + [f"{key}={tp_name(value)}" for key, value in kwargs.items()]
    return _joined(pieces, args)


def _joined(pieces: list[str], args) -> str:
    """Each piece followed by ", ", the last one taken off only if there were positional arguments."""
    text = "".join(piece + ", " for piece in pieces)
    return f"({text[:-2] if args else text})"


def _value_type(value) -> str:
    """A value's type as the marked list shows it: a list or tuple with its elements' types."""
    if isinstance(value, list):
        return f"list of [{', '.join(tp_name(v) for v in value)}]"
    if isinstance(value, tuple):  # PyTuple_Check: a torch.Size too, named as itself
        inner = ", ".join(tp_name(v) for v in value)
        return f"{tp_name(value)} of ({inner}{',' if len(value) == 1 else ''})"
    return tp_name(value)


def _kwargs_order(kwargs: dict) -> list:
    """The keyword arguments as PyTorch's map lists them: NOTE [Keyword arguments in an unordered map]."""
    order = []
    for key in kwargs:
        bucket = _string_hash(key) % _BUCKETS
        same = [i for i, other in enumerate(order) if _string_hash(other) % _BUCKETS == bucket]
        order.insert(same[0] if same else 0, key)
    return [(key, kwargs[key]) for key in order]


_BUCKETS = 13
_MASK = (1 << 64) - 1
_MUL = (0xC6A4A793 << 32) + 0x5BD1E995


def _string_hash(text: str) -> int:
    """``std::hash<std::string>`` of GCC's library: MurmurHash2 over 8-byte little-endian words."""
    data = text.encode()
    length = len(data)
    aligned = length & ~7
    h = (0xC70F6907 ^ (length * _MUL)) & _MASK
    for i in range(0, aligned, 8):
        h ^= (_shift_mix((int.from_bytes(data[i:i + 8], "little") * _MUL) & _MASK) * _MUL) & _MASK
        h = (h * _MUL) & _MASK
    if length & 7:
        h = ((h ^ int.from_bytes(data[aligned:], "little")) * _MUL) & _MASK
    return _shift_mix((_shift_mix(h) * _MUL) & _MASK)


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)

