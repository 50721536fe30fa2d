"""``torch.result_type``: the dtype an arithmetic op would give its two operands.

Models ``aten/src/ATen/native/TypeProperties.cpp`` (``result_type``, the four overloads of its
Python binding: tensor or number on either side). The promotion itself is the one every kernel uses
(``native.helpers.result_type``): a Python number only decides the category, a zero-dim tensor yields
to a dimensioned one of the same category.
"""

from __future__ import annotations

from ..native.helpers import result_type as _promoted
from ..native.helpers import scalar_tensor
from ..native.tensor_impl import TensorImpl

_SIGNATURES = (("Tensor tensor", "Tensor other"), ("Number scalar", "Tensor tensor"),
               ("Tensor tensor", "Number other"), ("Number scalar1", "Number scalar2"))


def result_type(*args, **kwargs):
    for signature in _SIGNATURES:
        values = _bind(signature, args, kwargs)
        if values is not None:
            return _promoted(*[a if _is_tensor(a) else scalar_tensor(a) for a in values])
    raise TypeError(_invalid_arguments(args, kwargs))


def _bind(signature, args, kwargs):
    """The two values, if ``args`` and ``kwargs`` fit this overload (by position, then by name)."""
    names = [param.split()[1] for param in signature]
    if len(args) > 2 or set(kwargs) - set(names[len(args):]):
        return None
    values = list(args) + [kwargs[name] for name in names[len(args):] if name in kwargs]
    if len(values) != 2 or not all(_fits(param, v) for param, v in zip(signature, values)):
        return None
    return values


def _is_tensor(value) -> bool:
    return isinstance(value, TensorImpl)


def _is_number(value) -> bool:
    return isinstance(value, (bool, int, float, complex))


def _invalid_arguments(args, kwargs) -> str:
    """python_arg_parser's message: every overload, and why each one of the right length did not match."""
    given = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    lines = [f"result_type() received an invalid combination of arguments - got ({', '.join(given)}), "
             "but expected one of:"]
    for signature in _SIGNATURES:
        lines.append(f" * ({', '.join(signature)})")
        if len(args) == len(signature) and not kwargs:
            marked, failed = [], False
            for param, value, name in zip(signature, args, given):
                failed = failed or not _fits(param, value)  # python_arg_parser marks every one after a misfit
                marked.append(f"!{name}!" if failed else name)
            lines.append(f"      didn't match because some of the arguments have invalid types: ({', '.join(marked)})")
    return "\n".join(lines) + "\n"


def _fits(param: str, value) -> bool:
    return _is_tensor(value) if param.startswith("Tensor") else _is_number(value)


def _type_name(value) -> str:
    return "Tensor" if _is_tensor(value) else type(value).__name__
