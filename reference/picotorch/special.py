"""``torch.special``: the special functions under their SciPy-like names.

Models ``torch/special/__init__.py``. In PyTorch each is a ``special_*`` operator whose kernel is the ordinary op
(``special_expit`` calls ``sigmoid``, ``special_gammaln`` calls ``lgamma``), so the graph shows the ordinary op's
node: ``torch.special.expit(x).grad_fn`` is ``SigmoidBackward0``. ``round`` always passes ``decimals``
(``RoundBackward1``). The functions with nodes of their own (``entr``, ``ndtr``, the Bessel and polynomial families)
are not modelled, but for ``i1`` (what ``i0``'s gradient calls).
"""

from __future__ import annotations

import functools

from .native.dispatcher import ops
from .native.tensor_impl import TensorImpl

__all__ = ["digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i1", "log1p", "log_softmax",
           "logit", "logsumexp", "polygamma", "psi", "round", "sinc", "softmax", "xlogy"]


def _special(name: str):
    """The argument check of the ``special_<name>`` binding: the first tensor argument must be a Tensor."""
    def wrap(fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            position = 1 if name == "polygamma" else 0
            if len(args) > position and not isinstance(args[position], TensorImpl):
                raise TypeError(f"special_{name}(): argument '{'input' if position == 0 else 'self'}' (position "
                                f"{position + 1}) must be Tensor, not {type(args[position]).__name__}")
            return fn(*args, **kwargs)
        return checked
    return wrap


@_special("expit")
def expit(input):
    return ops.sigmoid(input)


@_special("logit")
def logit(input, eps=None):
    return ops.logit(input, eps)


@_special("logsumexp")
def logsumexp(input, dim, keepdim=False):
    return ops.logsumexp(input, dim, keepdim)


@_special("log_softmax")
def log_softmax(input, dim, *, dtype=None):
    return ops.log_softmax(input, dim, dtype=dtype)


@_special("softmax")
def softmax(input, dim, *, dtype=None):
    return ops.softmax(input, dim, dtype=dtype)


@_special("gammaln")
def gammaln(input):
    return ops.lgamma(input)


@_special("digamma")
def digamma(input):
    return ops.digamma(input)


@_special("psi")
def psi(input):
    return ops.digamma(input)


@_special("polygamma")
def polygamma(n, input):
    return ops.polygamma(n, input)


@_special("round")
def round(input, *, decimals=0):  # noqa: A001 - torch's name
    return ops.round(input, decimals=decimals)


@_special("i0")
def i0(input):
    """``special_i0`` is ``i0``: ``I0Backward0``."""
    return ops.i0(input)


@_special("i1")
def i1(input):
    """``special_i1`` has a node of its own, ``SpecialI1Backward0`` (what ``i0``'s gradient calls)."""
    return ops.special_i1(input)


@_special("sinc")
def sinc(input):
    return ops.sinc(input)


def xlogy(input, other):
    return ops.xlogy(input, other)


@_special("exp2")
def exp2(input):
    return ops.exp2(input)


@_special("expm1")
def expm1(input):
    return ops.expm1(input)


@_special("log1p")
def log1p(input):
    return ops.log1p(input)


@_special("erf")
def erf(input):
    return ops.erf(input)


@_special("erfc")
def erfc(input):
    return ops.erfc(input)


@_special("erfinv")
def erfinv(input):
    return ops.erfinv(input)
