"""``torch.return_types``: the named tuples returned by ops whose results have names.

Models ``torch/csrc/autograd/generated/python_return_types.cpp`` (one ``PyStructSequence`` type per op
name, made by the code generator) and ``torch/return_types.py``. ``x.max(dim=1)`` returns
``torch.return_types.max(values=..., indices=...)``: a tuple (index it, unpack it) whose fields also
have names (``.values``, ``.indices``), printed one per line as PyTorch prints it.
"""

from __future__ import annotations

import types


class _StructSequence(tuple):
    """A tuple with named fields, as CPython's ``structseq`` (``n_fields`` ... as it names them)."""

    _fields: tuple = ()

    def __new__(cls, values):
        values = tuple(values)
        if len(values) != len(cls._fields):
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {len(cls._fields)}-sequence "
                            f"({len(values)}-sequence given)")
        return super().__new__(cls, values)

    def __repr__(self) -> str:
        fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return f"torch.return_types.{type(self).__name__}(\n{fields})"

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _make_type(name: str, fields: tuple):
    namespace = {"_fields": fields, "n_fields": len(fields), "n_sequence_fields": len(fields),
                 "n_unnamed_fields": 0, "__module__": "torch.return_types", "__slots__": ()}
    for i, field in enumerate(fields):
        namespace[field] = property(lambda self, i=i: self[i], doc=f"field {i}")
    return type(name, (_StructSequence,), namespace)


_TYPES: dict = {}


def return_type(name: str, fields: tuple):
    """The one type for ``name`` (``max``), made the first time it is asked for."""
    if name not in _TYPES:
        _TYPES[name] = _make_type(name, fields)
    return _TYPES[name]


def namespace() -> types.SimpleNamespace:
    """``torch.return_types``: every type made so far, by name."""
    return types.SimpleNamespace(**_TYPES)
