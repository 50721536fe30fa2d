"""``torch.nonzero`` and ``Tensor.nonzero``: bound by hand, for their ``as_tuple`` keyword.

Models ``THPVariable_nonzero`` in ``torch/csrc/autograd/python_torch_functions_manual.cpp`` and in
``python_variable_methods.cpp``. ``nonzero`` is an ordinary op (one ``(count, ndim)`` int64 tensor), but the
Python name also takes ``as_tuple=True``, which returns one index tensor per dim (NumPy's form): the columns of
the same result, unbound (``nonzero_numpy``, an op PyTorch keeps out of Python).
"""

from __future__ import annotations

from .._generated import variable_type as vt
from ..native.dispatcher import ops

_PARAMETERS = ((("input", "Tensor", False),), (("as_tuple", "bool", True), ("out", "Tensor?", True)))


def nonzero(input, as_tuple=False):
    return tuple(ops.nonzero_numpy(input)) if as_tuple else ops.nonzero(input)


def nonzero_method(self, as_tuple=False):
    return nonzero(self, as_tuple)


def _nonzero_out(input, as_tuple=False, *, out):
    if as_tuple:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    return vt.nonzero_out(input, out=out)


FUNCTION_SIGNATURES = [(nonzero, "nonzero(Tensor input, *, bool as_tuple=False, Tensor out=None)", _PARAMETERS,
                        (_nonzero_out, ("out",)))]
# two signatures, as the method's own parser lists them (``x.nonzero(1)`` names both counts in its message)
METHOD_SIGNATURES = [(nonzero_method, "nonzero()", ((("self", "Tensor", False),), ())),
                     (nonzero_method, "nonzero(*, bool as_tuple)", ((("self", "Tensor", False),),
                                                                    (("as_tuple", "bool", False),)))]
