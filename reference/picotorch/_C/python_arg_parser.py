"""Turning a Python call into an operator call: pick the overload, check the arguments.

Models ``torch/csrc/utils/python_arg_parser.cpp``: each Python name has a list of signatures, tried
in order (the order torchgen's ``sort_overloads`` gives them); the first that accepts the arguments
wins. A Python number passed where a ``Tensor`` is expected becomes a zero-dim "wrapped number" tensor,
for the arithmetic ops that allow it. A signature ending in ``Tensor out=None`` stands for two overloads,
the functional one and its out= one (``add.Tensor`` and ``add.out``, grouped by the generator as torchgen's
``group_overloads`` does): a call given ``out`` goes to the second.

When no signature accepts a call, the second half of this file says why, with PyTorch's words: it reads
each signature as the C++ parser does (``FunctionSignature``) and replays its decisions. One signature
(or one whose argument count fits) gives its own message: ``mul(): argument 'other' (position 1) must be
Tensor, not str``, a missing or extra argument, an unexpected keyword; otherwise every signature is listed
with "didn't match because" lines (``invalid_arguments.py``). See NOTE [Messages are built only on failure].
"""

from __future__ import annotations

import numpy as np

from ..c10.device import device
from ..c10.scalar_type import dtype, is_differentiable_type
from ..native.dispatcher import bind, bound_simply, simple_signature
from ..native.helpers import scalar_tensor
from ..native.tensor_impl import TensorImpl
from .invalid_arguments import format_invalid_args, tp_name


def _wrap_numbers(values: dict, params) -> dict:
    tensor_params = _tensor_params(params)
    for name, value in values.items():
        if name in tensor_params and not isinstance(value, TensorImpl) and value is not None:
            values[name] = scalar_tensor(value)
    return values


def _pack_int_list(args, params, sig: str, method: bool):
    """``x.view(2, 3)``: a lone ``int[]`` parameter also takes the ints as separate arguments."""
    first = 1 if method else 0
    if len(args) - first < 2 or not _takes_lone_int_list(params, sig, first):
        return None
    rest = args[first:]
    if isinstance(rest[0], bool) or not all(isinstance(a, (int, np.integer)) for a in rest):
        return None  # the first must be an int proper; later ones may be bools (PyTorch's unpacking)
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
        if kind.startswith("Tensor") and not kind.endswith("[]")))  # out=2.5 too, as in PyTorch


def _takes_lone_int_list(params, sig: str, first: int) -> bool:
    """The only positional parameter after ``self`` is an ``int[]`` (PyTorch: ``max_pos_args == 1``), so
    ``x.sum(0, 1)`` is not ``x.sum((0, 1))``: its 1 is ``keepdim``; and a list without a size: an ``int[1]``
    takes one int as itself (``x.std(0, 1)`` fails, as in PyTorch)."""
    def compute():
        positional = params[0]
        if len(positional) != first + 1 or not positional[first][1].startswith("int[]"):
            return False
        schema_type = sig[sig.index("(") + 1:].split(" ", 1)[0]  # a method's text leaves self out
        return schema_type.rstrip("?") in ("int[]", "SymInt[]")
    return _fact("int_list", params, first, compute)


def _out_arguments(names: tuple, out) -> dict:
    """``out=t``, or ``out=(values, indices)`` for several outputs (``PythonArgs::tensorlist_n``), by name."""
    if len(names) == 1:
        return {names[0]: out}
    if len(out) != len(names):
        raise TypeError(f"expected tuple of {len(names)} elements but got {len(out)}")
    return dict(zip(names, out))


NOT_SIMPLE = object()
_PLAIN_NUMBERS = (int, float)  # exactly these types: a bool, a NumPy scalar... take the general path
_TWO_TENSORS = ("Tensor", "Tensor")


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
        # A signature that ends in ``Tensor out=None`` is a functional overload grouped with its out= overload
        # (a fourth entry: the function and the names of its out arguments), which a call given ``out`` takes.
        self.out_overloads = {entry[0]: entry[3] for entry in signatures if len(entry) > 3}
        signatures = [entry[:3] for entry in signatures]
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
        self._message_signatures = None  # FunctionSignature each, made by the first call that fails

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
        if self.numbers_as_tensors and len(args) == 2 and kinds[:2] == _TWO_TENSORS:
            # ``a * 0.5``, ``a + b``: a tensor, then a tensor or a plain number (made its wrapped-number
            # tensor here), the commonest call of all; one look at each instead of binding twice
            first, second = args
            if isinstance(first, TensorImpl):
                if isinstance(second, TensorImpl):
                    return self.simple_impl(first, second)
                if type(second) is float or type(second) is int:
                    return self.simple_impl(first, scalar_tensor(second))
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
        impl, values = self.bound(args, kwargs)
        if "out" in values:  # only a grouped signature has an ``out`` parameter
            out = values.pop("out")
            if out is not None:
                out_overload, names = self.out_overloads[impl]
                return out_overload(**values, **_out_arguments(names, out))
        return impl(**values)

    def bound(self, args, kwargs):
        """The first signature that accepts the call: its implementation and the bound values; else
        the parser's TypeError."""
        for impl, sig, params in self.signatures:
            packed = _pack_int_list(args, params, sig, self.method)
            if packed is not None:
                values = bind(params, packed, kwargs, self.numbers_as_tensors)
                if values is not None:
                    return impl, values
            values = bind(params, args, kwargs, self.numbers_as_tensors)
            if values is not None:
                if self.numbers_as_tensors:
                    values = _wrap_numbers(values, params)
                return impl, values
        raise self._error(args, kwargs)

    def _error(self, args, kwargs) -> TypeError:
        """NOTE [Messages are built only on failure]: every call that binds never comes here."""
        signatures = self._message_signatures
        if signatures is None:
            signatures = self._message_signatures = message_signatures(
                self.name, [sig for _, sig, _ in self.signatures], self.numbers_as_tensors, self.method)
        given = args[1:] if self.method else args  # a method's tensor is not among its arguments
        if self.method and len(signatures) == 1 and not signatures[0].params:
            return TypeError(_no_arguments_message(self.name, given, kwargs))
        try:
            return parse_error(signatures, given, kwargs)
        except TypeError as error:  # the message PythonArgParser::parse raises
            return error


# ----------------------------------------------------------------------------- when no signature accepts the call
# NOTE [Messages are built only on failure]
# PyTorch's parser tries each signature quietly (``parse(..., raise_exception=false)``); only when all of
# them fail does it look again, to say why. Here the first pass is the fast binding above; this part
# models the second: each signature read as python_arg_parser.cpp reads its format string, its checks,
# and its messages. Nothing in it runs for a call that binds.


def message_signatures(name: str, texts: list[str], numbers_as_tensors: bool, method: bool) -> list:
    """Each signature as the parser reads it, then the deprecated ones PyTorch accepts but never lists."""
    signatures = [FunctionSignature(text, numbers_as_tensors) for text in texts]
    for params in _DEPRECATED.get(name.removesuffix("_") if method else name, ()):
        if method:
            params = params.replace("Tensor self, ", "")
        elif name not in _DEPRECATED_WITHOUT_OUT:  # grouped with its deprecated out= twin, as any overload
            params += ", *, Tensor out=None"
        signatures.append(FunctionSignature(f"{name}({params.replace('Tensor self', 'Tensor input')})",
                                            numbers_as_tensors, hidden=True))
    return signatures


# tools/autograd/deprecated.yaml: old argument orders (a scale before the tensors) that PyTorch still binds,
# with a warning, and leaves out of its messages. picotorch does not bind them; they shape the messages.
# Each has an out= twin there, except sspaddmm's.
_DEPRECATED_WITHOUT_OUT = {"sspaddmm"}
_DEPRECATED = {
    "add": ("Tensor self, Scalar alpha, Tensor other",),
    "sub": ("Tensor self, Scalar alpha, Tensor other",),
    "addcdiv": ("Tensor self, Scalar value, Tensor tensor1, Tensor tensor2",),
    "addcmul": ("Tensor self, Scalar value, Tensor tensor1, Tensor tensor2",),
    **{name: (f"Scalar beta, Tensor self, Scalar alpha, Tensor {a}, Tensor {b}",
              f"Scalar beta, Tensor self, Tensor {a}, Tensor {b}")
       for name, a, b in (("addmm", "mat1", "mat2"), ("sspaddmm", "mat1", "mat2"), ("addbmm", "batch1", "batch2"),
                          ("baddbmm", "batch1", "batch2"), ("addmv", "mat", "vec"), ("addr", "vec1", "vec2"))},
}


def _no_arguments_message(name: str, args, kwargs) -> str:
    """A method without parameters is a plain C method (``METH_NOARGS``): CPython words its errors."""
    if kwargs:
        return f"TensorBase.{name}() takes no keyword arguments"
    return f"TensorBase.{name}() takes no arguments ({len(args)} given)"


def parse_error(signatures: list[FunctionSignature], args, kwargs) -> TypeError:
    """``PythonArgParser::raw_parse`` and ``print_error`` after every signature failed: one signature
    raises its own message; among several, the only one whose argument count fits does; else all are listed."""
    for signature in signatures:  # one PyTorch accepts: it fails later, unpacking an int list
        bound = signature.parse(args, kwargs, raise_exception=False)
        if bound is not None:
            return TypeError(signature.unpack_error(bound) or _listed(signatures, args, kwargs))
    if len(signatures) == 1:
        signatures[0].parse(args, kwargs, raise_exception=True)
    count = len(args) + len(kwargs)
    plausible = [s for s in signatures if s.min_args <= count <= s.max_args and not s.hidden]
    if len(plausible) == 1:
        plausible[0].parse(args, kwargs, raise_exception=True)
    return TypeError(_listed(signatures, args, kwargs))


def _listed(signatures, args, kwargs) -> str:
    shown = [s.to_string() for s in signatures if not s.hidden]
    return format_invalid_args(args, kwargs, f"{signatures[0].name}()", shown)


class FunctionParameter:
    """One ``type name=default`` of a signature, as the parser reads it (``FunctionParameter``)."""

    __slots__ = ("type_name", "size", "name", "default", "optional", "allow_none", "keyword_only")

    def __init__(self, text: str, keyword_only: bool) -> None:
        schema_type, _, rest = text.partition(" ")
        self.name, has_default, default = rest.partition("=")
        self.optional = bool(has_default)
        self.keyword_only = keyword_only
        base = schema_type[:-1] if schema_type.endswith("?") else schema_type
        self.size = 0
        if base.endswith("]") and not base.endswith("[]"):  # int[2]: a list of 2, or one int for both
            self.size = int(base[base.index("[") + 1:-1])
            base = base[:base.index("[")] + "[]"
        self.type_name = _TYPE_NAMES.get(base, "object")
        self.default = _printed_default(base, default) if self.optional else None
        self.allow_none = schema_type.endswith("?") or self.default == "None"  # amax(x, None): dim=[] is None

    def check(self, value, index: int, numbers_as_tensors: bool) -> bool:
        return _CHECKS[self.type_name](value, self, index, numbers_as_tensors)


class FunctionSignature:
    """A signature read from its text, as ``FunctionSignature``: parsed once, the first time a call fails."""

    def __init__(self, text: str, numbers_as_tensors: bool, hidden: bool = False) -> None:
        self.name = text[:text.index("(")]
        self.numbers_as_tensors = numbers_as_tensors
        self.hidden = hidden  # a deprecated signature: tried last, never listed
        self.params = []
        keyword_only = False
        for piece in filter(None, text[text.index("(") + 1:-1].split(", ")):
            if piece == "*":
                keyword_only = True
            else:
                self.params.append(FunctionParameter(piece, keyword_only))
        self.min_args = sum(1 for p in self.params if not p.optional)
        self.max_args = len(self.params)
        self.max_pos_args = sum(1 for p in self.params if not p.keyword_only)

    def to_string(self) -> str:
        """``(Tensor input, *, Number alpha = 1)``: how the messages print a signature."""
        pieces = []
        for i, p in enumerate(self.params):
            if p.keyword_only and (i == 0 or not self.params[i - 1].keyword_only):
                pieces.append("*")
            pieces.append(f"{p.type_name} {p.name}" + ("" if p.default is None else f" = {p.default}"))
        return f"({', '.join(pieces)})"

    def parse(self, args, kwargs: dict, raise_exception: bool) -> dict | None:
        """``FunctionSignature::parse``: the value of each parameter, or None (or the TypeError it raises)."""
        params = self.params
        varargs_list = self.max_pos_args == 1 and params[0].type_name == "tuple of ints"  # x.view(2, 3)
        if len(args) > self.max_pos_args and not varargs_list:
            return self._fail(raise_exception, self._extra_args, len(args))
        bound = {}
        position = 0
        remaining_kwargs = len(kwargs)
        for i, param in enumerate(params):
            value, is_kwd = _MISSING, False
            if position < len(args):
                if param.keyword_only:
                    return self._fail(raise_exception, self._extra_args, len(args))
                value = args[position]
            elif kwargs:
                value, is_kwd = _keyword_value(kwargs, param.name), True
            if (value is _MISSING and param.optional) or (value is None and param.allow_none):
                bound[param.name] = None
            elif value is _MISSING:
                return self._fail(raise_exception, self._missing_args, i)
            elif param.check(value, i, self.numbers_as_tensors):
                bound[param.name] = value
            elif varargs_list and position == 0 and not is_kwd and _is_int_list(args, param.size):
                bound[param.name] = tuple(args)  # permute(1, 2, 0) is permute((1, 2, 0))
                position = len(args)
                continue
            elif not raise_exception:
                return None
            elif varargs_list and len(args) > self.max_pos_args:  # view(2.5, 3): not ints, and too many
                raise TypeError(self._extra_args(len(args)))
            elif is_kwd:
                raise TypeError(f"{self.name}(): argument '{param.name}' must be {param.type_name}, "
                                f"not {tp_name(value)}")
            else:
                raise TypeError(f"{self.name}(): argument '{param.name}' (position {position + 1}) must be "
                                f"{param.type_name}, not {tp_name(value)}")
            if not is_kwd:
                position += 1
            elif value is not _MISSING:
                remaining_kwargs -= 1
        if position < len(args):  # permute((1, 0), 1): an int list took only the first
            return self._fail(raise_exception, self._extra_args, len(args))
        if remaining_kwargs > 0:
            return self._fail(raise_exception, self._extra_kwargs, kwargs, len(args))
        return bound

    def unpack_error(self, bound: dict) -> str | None:
        """The parse checks an int list's first element only; unpacking it (``PythonArgs::intlist``) finds the rest."""
        for param in self.params:
            value = bound.get(param.name)
            if param.type_name == "tuple of ints" and isinstance(value, (list, tuple)):
                for pos, item in enumerate(value):
                    if not isinstance(item, (int, np.integer)):  # a bool passes here (not as the first)
                        return (f"{self.name}(): argument '{param.name}' failed to unpack the object at pos "
                                f"{pos + 1} with error \"type must be tuple of ints,but got {tp_name(item)}\"")
        return None

    def _fail(self, raise_exception: bool, message, *args):
        if raise_exception:
            raise TypeError(message(*args))
        return None

    def _extra_args(self, given: int) -> str:
        if self.min_args != self.max_pos_args:
            return (f"{self.name}() takes from {self.min_args} to {self.max_pos_args} positional arguments "
                    f"but {given} were given")
        most = self.max_pos_args
        return (f"{self.name}() takes {most} positional argument{'' if most == 1 else 's'} "
                f"but {given} {'was' if given == 1 else 'were'} given")

    def _missing_args(self, index: int) -> str:
        missing = [f'"{p.name}"' for p in self.params[index:] if not p.optional]
        # PyTorch's plural is the wrong way round: "1 required positional arguments", "2 ... argument"
        return (f"{self.name}() missing {len(missing)} required positional argument"
                f"{'s' if len(missing) == 1 else ''}: {', '.join(missing)}")

    def _extra_kwargs(self, kwargs: dict, given: int) -> str:
        names = [p.name for p in self.params]
        for key in kwargs:
            if not isinstance(key, str):
                return "keywords must be strings"
            if key not in names:
                return f"{self.name}() got an unexpected keyword argument '{key}'"
            if names.index(key) < given:
                return f"{self.name}() got multiple values for argument '{key}'"
        return "invalid keyword arguments"


_MISSING = object()

# NumPy's names for some parameters, also accepted as keywords (``torch.sum(x, axis=0)``).
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}


def _keyword_value(kwargs: dict, name: str):
    value = kwargs.get(name, _MISSING)
    for numpy_name in _NUMPY_NAMES.get(name, ()):
        if value is not _MISSING:
            break
        value = kwargs.get(numpy_name, _MISSING)
    return value


# What each schema type is called in the messages (``FunctionParameter::type_name``).
_TYPE_NAMES = {
    "Tensor": "Tensor", "Tensor[]": "tuple of Tensors", "Tensor?[]": "tuple of Tensors",
    "Scalar": "Number", "Scalar[]": "tuple of Scalars", "int": "int", "SymInt": "int",
    "int[]": "tuple of ints", "SymInt[]": "tuple of ints", "float": "float", "float[]": "tuple of floats",
    "bool": "bool", "str": "str", "ScalarType": "torch.dtype", "Layout": "torch.layout", "Device": "torch.device",
    "MemoryFormat": "torch.memory_format", "Generator": "torch.Generator", "Dimname": "name",
    "Dimname[]": "tuple of names",
}


def _printed_default(base: str, default: str) -> str:
    """A schema default as torchgen writes it into the signature: its C++ spelling (``[]`` is ``{}``,
    ``Mean`` is ``at::Reduction::Mean``), read back as a Python value where one parses, ``{}`` as None."""
    if default == "None":
        return "None"
    if base == "str" and default[:1] == "'":
        return '"' + default[1:-1].replace('"', '\\"') + '"'
    if base.endswith("[]") and default.startswith("["):
        return "None" if default == "[]" else "{" + default[1:-1] + "}"
    default = _CPP_DEFAULTS.get(default, default)
    for parse in (int, float):
        try:
            return str(parse(default))
        except ValueError:
            pass
    return {"true": "True", "false": "False"}.get(default, default)


_CPP_DEFAULTS = {"Mean": "at::Reduction::Mean", "contiguous_format": "c10::MemoryFormat::Contiguous",
                 "long": "at::kLong"}


# ---- the checks of FunctionParameter::check, one per type; Python's own type tests stand in for C's


def _is_long(value) -> bool:
    """``THPUtils_checkLong``: an int that is no bool, or a NumPy integer."""
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, np.integer)


def _is_numpy_scalar(value) -> bool:
    return isinstance(value, (np.integer, np.bool_, np.floating, np.complexfloating))


def _is_double(value) -> bool:
    return isinstance(value, (int, float)) or _is_numpy_scalar(value)


def _is_scalar(value) -> bool:
    """``THPUtils_checkScalar``: a Python or NumPy number (a bool is one)."""
    return isinstance(value, (int, float, complex)) or _is_numpy_scalar(value)


def _zero_dim_without_grad(value) -> bool:
    return (isinstance(value, TensorImpl) and value._data.ndim == 0 and not value._requires_grad
            and value._grad_fn is None)


def _is_integral_scalar_tensor(value) -> bool:
    return (_zero_dim_without_grad(value) and not value._dtype.is_floating_point and not value._dtype.is_complex
            and value._dtype.name != "bool")


def _is_int_list(value, size: int) -> bool:
    """A list or tuple whose first element is an int (PyTorch looks no further here), or one int for ``int[2]``."""
    if isinstance(value, (list, tuple)):
        return len(value) == 0 or _is_long(value[0])
    return size > 0 and _is_long(value)


def _is_tensor_list(value, param, index: int, numbers_as_tensors: bool) -> bool:
    if not isinstance(value, (list, tuple)):
        return False
    for i, item in enumerate(value):
        if not isinstance(item, TensorImpl):  # PyTorch raises at once, whichever signature it was trying
            raise TypeError(f"expected Tensor as element {i} in argument {index}, but got {tp_name(item)}")
    return True


_CHECKS = {
    "Tensor": lambda v, p, i, numbers: isinstance(v, TensorImpl) or (numbers and _is_scalar(v)),
    "Number": lambda v, p, i, n: _is_scalar(v) or _zero_dim_without_grad(v),
    "float": lambda v, p, i, n: _is_double(v) or _zero_dim_without_grad(v),
    "int": lambda v, p, i, n: _is_long(v) or _is_integral_scalar_tensor(v),
    "tuple of Tensors": _is_tensor_list,
    "tuple of ints": lambda v, p, i, n: _is_int_list(v, p.size),
    "tuple of floats": lambda v, p, i, n: isinstance(v, (list, tuple)) and (not v or _is_double(v[0])
                                                                            or isinstance(v[0], complex)),
    "tuple of Scalars": lambda v, p, i, n: isinstance(v, (list, tuple)) and all(_is_scalar(x) for x in v),
    "bool": lambda v, p, i, n: isinstance(v, bool),
    "str": lambda v, p, i, n: isinstance(v, str),
    "torch.dtype": lambda v, p, i, n: isinstance(v, dtype) or v in (float, int, bool, complex),
    "torch.device": lambda v, p, i, n: _is_long(v) or isinstance(v, (str, device)),
    "torch.Generator": lambda v, p, i, n: tp_name(v) == "torch._C.Generator",
    "torch.layout": lambda v, p, i, n: type(v).__name__ == "layout",
    "torch.memory_format": lambda v, p, i, n: type(v).__name__ == "memory_format",
    "name": lambda v, p, i, n: isinstance(v, str),
    "tuple of names": lambda v, p, i, n: isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v),
    "object": lambda v, p, i, n: True,
}
