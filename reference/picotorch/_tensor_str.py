"""How a tensor prints: ``repr(t)`` and ``print(t)``.

Models ``torch/_tensor_str.py`` (PyTorch 2.13), keeping its names so that a learner can read the two
files side by side: ``PRINT_OPTS`` and ``set_printoptions``, ``_Formatter``, ``get_summarized_data``,
``_tensor_str`` / ``_tensor_str_with_formatter`` / ``_vector_str`` / ``_scalar_str``, ``_add_suffixes``,
``_str_intern`` and ``_str``.

The journey of ``print(t)``::

    print(t) -> Tensor.__repr__ -> _str -> _str_intern -> _tensor_str -> _Formatter + _tensor_str_with_formatter
                                                        \\-> suffixes (device=, dtype=, grad_fn= ...) -> _add_suffixes

Three ideas carry the whole file:

1. One format for the whole tensor. ``_Formatter`` looks at the values that will be shown and picks
   *int mode* (``1.``), *fixed* (``1.0000``) or *scientific* (``1.0000e+03``) notation plus a
   width shared by every element, so the columns line up.
2. Summarisation. When the tensor has more than ``threshold`` elements, only the first and last
   ``edgeitems`` entries of every long dimension are shown, with ``...`` in between; the formatter
   only ever sees those elements (see NOTE [Summarise before formatting]).
3. Suffixes say only what is not obvious: ``device=`` off the CPU, ``dtype=`` when it is not a
   default one, ``grad_fn=<...>`` for computed tensors, ``requires_grad=True`` for leaves.

Where picotorch simplifies: PyTorch walks tensors (``self[i]``, ``.tolist()``, ``masked_select``); we
cut the storage array (NumPy, CuPy, ...) down to the shown elements, copy that small array to the
host once, and format from NumPy and Python lists. The strings are the same. Sparse, quantized, meta,
nested and functorch tensors do not exist in picotorch, so their branches are left out.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any

import numpy as np
from array_api_compat import array_namespace

from .autograd.grad_mode import no_grad
from .c10 import scalar_type
from .native import tensor_impl
from .native.cuda import current_device
from .native.device import to_numpy

# ---------------------------------------------------------------------------------------------------
# Print options
# ---------------------------------------------------------------------------------------------------


@dataclasses.dataclass
class _PrinterOptions:
    """The knobs of printing (PyTorch names this class ``__PrinterOptions``)."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()

# The three named profiles; any other profile name is silently ignored, as in PyTorch.
_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    profile=None,
    sci_mode=None,
):
    """Set the print options (the names and defaults come from NumPy's ``set_printoptions``).

    A ``profile`` is applied first, then every option that is not None overrides it. ``sci_mode`` is
    different: it is written on *every* call, so ``set_printoptions(precision=2)`` quietly puts a
    forced ``sci_mode=False`` back to automatic (None). Nothing is validated here: an unknown profile
    does nothing and a negative precision only fails later, when a float tensor is formatted
    (``ValueError: Format specifier missing precision``) -- exactly PyTorch's behaviour.
    """
    if isinstance(profile, str) and profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, name, value)
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems, "linewidth": linewidth}
    for name, value in given.items():
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments that ``set_printoptions`` accepts."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Change the print options inside a ``with`` block only."""
    old_kwargs = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old_kwargs)


# ---------------------------------------------------------------------------------------------------
# The formatter: one format, one width, for every element of a tensor
# ---------------------------------------------------------------------------------------------------


def _is_int_mode(nonzero_finite: np.ndarray) -> bool:
    """Whether every value is a whole number, so floats can print as ``3.`` instead of ``3.0000``.

    A worked example of the pattern exercise 1.1 follows: a rule read off the non-zero finite values.
    ``ceil`` is exact in every float dtype, so comparing in the tensor's own dtype is safe.
    """
    return bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))


def _is_sci_mode(nonzero_finite: np.ndarray) -> bool:
    """Whether the automatic rule picks scientific notation (``PRINT_OPTS.sci_mode`` is None).

    NumPy's rule, adopted by PyTorch: the magnitudes span more than three orders (max/min > 1000),
    or the largest is above 1e8, or the smallest is below 1e-4. Statistics are in float64, so a
    float16 tensor cannot overflow while they are computed.

    >>> _is_sci_mode(np.array([1.0, 1001.0]))    # max/min > 1000
    True
    >>> _is_sci_mode(np.array([1.0, 999.0]))
    False
    """
    # BEGIN SOLUTION 1.1: decide scientific notation from the magnitudes of the non-zero finite values
    magnitudes = np.abs(nonzero_finite).astype(np.float64)
    smallest = float(magnitudes.min())
    largest = float(magnitudes.max())
    return largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
    # END SOLUTION


def _float_spec(int_mode: bool, sci_mode: bool) -> str:
    """The ``format`` spec of one float, without width: ``.4e``, ``.0f`` or ``.4f``."""
    if sci_mode:
        return f".{PRINT_OPTS.precision}e"
    if int_mode:
        return ".0f"
    return f".{PRINT_OPTS.precision}f"


class _Formatter:
    """Decides how every element of one tensor is written, from the elements that will be shown.

    ``values`` is a host NumPy array (PyTorch passes the tensor itself). Non-float dtypes print with
    ``str`` (``7``, ``True``); floats use one of three modes, chosen from the non-zero finite values
    only (so nan, inf and 0 never push a tensor into scientific notation):

    - int mode, every value whole:   ``tensor([1., 2., nan])``
    - fixed, ``precision`` decimals: ``tensor([1.0000, 2.5000])``
    - scientific:                    ``tensor([1.0000e+00, 1.0010e+03])``
    """

    def __init__(self, values: np.ndarray):
        self.floating_dtype = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating_dtype:
            for text in map(str, flat.tolist()):
                self.max_width = max(self.max_width, len(text))
            return
        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            return  # only zeros, nan and inf: keep int mode, whatever sci_mode says
        self.int_mode = _is_int_mode(nonzero_finite)
        self.sci_mode = _is_sci_mode(nonzero_finite) if PRINT_OPTS.sci_mode is None else PRINT_OPTS.sci_mode
        self.max_width = max(self.max_width, self._widest(nonzero_finite.tolist()))

    def _widest(self, values: list[float]) -> int:
        spec = _float_spec(self.int_mode, self.sci_mode)
        # In int mode a "." is appended to every finite value, hence the extra character.
        extra = 1 if self.int_mode and not self.sci_mode else 0
        return max(len(format(value, spec)) for value in values) + extra

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        """One element, right-aligned to the shared width."""
        if not self.floating_dtype:
            text = f"{value}"
        else:
            text = format(value, _float_spec(self.int_mode, self.sci_mode))
            if self.int_mode and not self.sci_mode and math.isfinite(value):
                text += "."
        return (self.max_width - len(text)) * " " + text


# ---------------------------------------------------------------------------------------------------
# Summarisation
# ---------------------------------------------------------------------------------------------------


def _keep_edges(data, dim: int, edgeitems: int):
    """Cut dimension ``dim`` of an array down to its first and last ``edgeitems`` entries.

    A worked example for exercise 1.2, on any Array-API array (NumPy, CuPy...), without copying the
    middle: the two slices are views, only their concatenation is new.

    >>> _keep_edges(np.arange(10), 0, 3)
    array([0, 1, 2, 7, 8, 9])
    """
    before = (slice(None),) * dim
    head = data[before + (slice(None, edgeitems),)]
    tail = data[before + (slice(-edgeitems, None),)]
    return array_namespace(data).concat((head, tail), axis=dim)


def get_summarized_data(data):
    """The elements a summarised print shows, as an array of the same rank.

    Every dimension longer than ``2 * edgeitems`` keeps only its first and last ``edgeitems``
    entries; shorter dimensions are kept whole. A (1000, 1000) array becomes (6, 6), a 10**7-element
    vector becomes 6 elements. (PyTorch's version recurses over rows and stacks; cutting one
    dimension after another gives the same elements.) ``edgeitems`` is at least 1 here.
    """
    # BEGIN SOLUTION 1.2: keep the first and last edgeitems entries of every dimension longer than 2 * edgeitems
    for dim, size in enumerate(data.shape):
        if size > 2 * PRINT_OPTS.edgeitems:
            data = _keep_edges(data, dim, PRINT_OPTS.edgeitems)
    return data
    # END SOLUTION


# NOTE [Summarise before formatting]
# Early PyTorch 0.4 builds chose the number format by scanning every element, so printing a
# 1000x1000x1000 tensor took about 40 s (pytorch#6863). Since then the formatter is built from the
# output of get_summarized_data only, and since PR 14418 that cuts *every* dimension, not just the
# first. picotorch goes one step further: the layout code also walks the summarised array (it knows
# from the original shape where "..." belongs), so a device tensor is copied to the host once, and
# only the elements that are printed. Summarised or not, the formatter never sees a hidden element.


# ---------------------------------------------------------------------------------------------------
# Layout: brackets, commas, line breaks
# ---------------------------------------------------------------------------------------------------


def _complex_str(value: complex, formatter1: _Formatter, formatter2: _Formatter) -> str:
    """``1.+2.j``: the real part, then the imaginary part with its sign and ``j``."""
    real_str = formatter1.format(value.real)
    imag_str = (formatter2.format(value.imag) + "j").lstrip()
    if imag_str[0] in "+-":  # a negative imaginary part (or -0.) brings its own sign
        return real_str + imag_str
    return real_str + "+" + imag_str


def _scalar_str(value, formatter1: _Formatter, formatter2: _Formatter | None = None) -> str:
    """A 0-d tensor: just its one element, ``tensor(3.5000)``."""
    if formatter2 is not None:
        return _complex_str(value, formatter1, formatter2)
    return formatter1.format(value)


def _vector_str(values: list, length: int, indent: int, summarize: bool, formatter1, formatter2=None) -> str:
    """One row, ``[1, 2, 3]``, wrapped so that each line fits in ``linewidth``.

    ``values`` are the shown elements of a row of ``length`` elements; ``indent`` is the column the
    opening bracket sits in. Every element counts as its formatted width plus ``", "``, and a line
    holds as many as fit in the columns right of the indent (at least one). The ``" ..."`` of a
    summarised row takes an element's place when lines are cut.
    """
    element_length = formatter1.width() + 2
    if formatter2 is not None:
        element_length += formatter2.width() + 1  # the imaginary part and its "j"
    elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))

    if formatter2 is not None:
        data = [_complex_str(value, formatter1, formatter2) for value in values]
    else:
        data = [formatter1.format(value) for value in values]
    if summarize and length > 2 * PRINT_OPTS.edgeitems:
        edge = PRINT_OPTS.edgeitems
        data = data[:edge] + [" ..."] + data[edge:]

    lines = [", ".join(data[i : i + elements_per_line]) for i in range(0, len(data), elements_per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(values, shape: tuple, indent: int, summarize: bool, formatter1, formatter2=None) -> str:
    """Nested brackets, one level per dimension (recursion depth = number of dimensions).

    ``values`` is the (summarised) data as nested Python lists, ``shape`` the tensor's real shape.
    Rows are separated by ``,`` and ``dim - 1`` newlines, so a 3-D tensor has a blank line between
    its matrices, and each deeper level is indented by one more column.
    """
    dim = len(shape)
    if dim == 0:
        return _scalar_str(values, formatter1, formatter2)
    if dim == 1:
        return _vector_str(values, shape[0], indent, summarize, formatter1, formatter2)

    slices = [
        _tensor_str_with_formatter(row, shape[1:], indent + 1, summarize, formatter1, formatter2) for row in values
    ]
    if summarize and shape[0] > 2 * PRINT_OPTS.edgeitems:
        edge = PRINT_OPTS.edgeitems
        slices = slices[:edge] + ["..."] + slices[edge:]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _array_str(data, indent: int) -> str:
    """The bracketed body of a tensor's repr, from its storage array (any Array-API array)."""
    shape = tuple(data.shape)
    numel = math.prod(shape)
    if numel == 0:
        return "[]"
    summarize = numel > PRINT_OPTS.threshold
    if summarize and not PRINT_OPTS.edgeitems and shape:
        if len(shape) == 1:
            _Formatter(_host(data))  # PyTorch still builds a formatter from the whole row: a bad precision raises
        return "[...]"

    shown = _host(get_summarized_data(data) if summarize else data)
    if shown.dtype.kind == "c":
        real_formatter, imag_formatter = _Formatter(shown.real), _Formatter(shown.imag)
        return _tensor_str_with_formatter(shown.tolist(), shape, indent, summarize, real_formatter, imag_formatter)
    return _tensor_str_with_formatter(shown.tolist(), shape, indent, summarize, _Formatter(shown))


def _host(data) -> np.ndarray:
    """The shown values as a host NumPy array; bfloat16 (ml_dtypes, not a NumPy float kind) widened to
    float32, which holds every bfloat16 exactly, as PyTorch formats its values as Python floats."""
    shown = to_numpy(data)
    return shown.astype(np.float32) if shown.dtype.name == "bfloat16" else shown


def _tensor_str(self, indent: int) -> str:
    """The bracketed body of ``self``'s repr, e.g. ``[[1., 2.],\\n        [3., 4.]]``."""
    return _array_str(self._data, indent)


# ---------------------------------------------------------------------------------------------------
# Suffixes and the whole repr
# ---------------------------------------------------------------------------------------------------


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int, force_newline: bool) -> str:
    """Append ``, suffix`` after the values, moving a suffix to its own line when it would not fit.

    The length of the last line is measured as in PyTorch, two columns longer than it really is
    (``tensor([1, 2]`` counts as 15, not 13). A suffix goes to a new line, indented to sit under the
    first value, when that length + ``", "`` + the suffix would exceed ``linewidth``; after a
    suffix, the count goes on from the end of the suffix. The closing ``)`` is never counted.
    """
    # BEGIN SOLUTION 1.3: place each suffix after the values, or on a new indented line if it would pass linewidth
    tensor_strs = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += len(suffix) + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)
    # END SOLUTION


def _default_device_type() -> str:
    """The device type tensors are created on by default (PyTorch: ``torch._C._get_default_device()``)."""
    return "cpu"


def _device_suffix(self) -> str | None:
    """``device='cuda:0'`` when the device is not the obvious one (Note [Print tensor device]).

    A worked example for exercise 1.4: a suffix is a string, or None when there is nothing to say.
    The device is shown when its type is not the default device type (so every CUDA tensor while
    the default is the CPU), or when a CUDA tensor is not on the current GPU.
    """
    device = self.device
    if device.type != _default_device_type():
        return f"device='{device}'"
    if device.type == "cuda" and _current_cuda_device() != device.index:
        return f"device='{device}'"
    return None


def _current_cuda_device() -> int:
    return current_device()


def _grad_fn_name(self) -> str | None:
    """The printed name of ``self.grad_fn`` (``MulBackward0``), or None for a leaf."""
    try:
        grad_fn = self.grad_fn
    except RuntimeError:  # PyTorch prints this when reading grad_fn fails (pytorch#99968)
        return "Invalid"
    if grad_fn is None:
        return None
    return grad_fn.name().rsplit("::", 1)[-1]


def _autograd_suffix(self) -> str | None:
    """What the repr says about autograd: ``grad_fn=<Name>``, ``requires_grad=True`` or nothing.

    A tensor made by a recorded operation shows its ``grad_fn``; only a leaf that requires grad
    shows ``requires_grad=True``. A non-leaf always requires grad, so the two never appear together
    -- and ``.grad`` is filled only for tensors that print the second one.
    """
    # BEGIN SOLUTION 1.4: choose between grad_fn=<Name>, requires_grad=True and no suffix
    grad_fn_name = _grad_fn_name(self)
    if grad_fn_name is not None:
        return f"grad_fn=<{grad_fn_name}>"
    if self.requires_grad:
        return "requires_grad=True"
    return None
    # END SOLUTION


def _has_default_dtype(self) -> bool:
    """float32 (the default float dtype), int64 and bool can be told from the values: no ``dtype=``."""
    default = scalar_type.get_default_dtype()
    defaults = [default, scalar_type.int64, scalar_type.bool_]
    default_complex = getattr(scalar_type, "complex128" if default.name == "float64" else "complex64", None)
    if default_complex is not None:
        defaults.append(default_complex)
    return self.dtype in defaults


def _is_plain_tensor(self) -> bool:
    """``Tensor`` and ``nn.Parameter`` print as ``tensor(``; their subclasses print their own name.

    Both classes are defined above this module, so it knows them by what they declare: ``Tensor`` is
    the class registered for new tensors, and ``nn.Parameter`` sets ``_is_param`` in its own class
    body (a subclass inherits the flag, but not the body).
    """
    cls = type(self)
    return cls is tensor_impl.tensor_class() or "_is_param" in vars(cls)


def _is_parameter(self) -> bool:
    """``isinstance(self, nn.Parameter)``, told by the flag every Parameter carries."""
    return getattr(self, "_is_param", False)


def _str_intern(inp, *, tensor_contents=None) -> str:
    """``tensor(<values>, <suffixes>)``: the prefix, the body, then the suffixes in PyTorch's order.

    Order: ``device=``, then ``size=`` (empty tensors not of shape (0,), or ``edgeitems == 0``),
    ``dtype=`` (empty tensors: unless the default float dtype; others: unless a default dtype), then
    ``grad_fn=<...>`` or ``requires_grad=True``. ``tensor_contents`` replaces the body.
    """
    is_plain_tensor = _is_plain_tensor(inp)
    prefix = "tensor(" if is_plain_tensor else f"{type(inp).__name__}("
    indent = len(prefix)
    suffixes = []
    tensor_str = tensor_contents

    device_suffix = _device_suffix(inp)
    if device_suffix is not None:
        suffixes.append(device_suffix)

    shape = tuple(inp.shape)
    if math.prod(shape) == 0:
        if len(shape) != 1:  # like NumPy: the shape is printed unless it is (0,)
            suffixes.append("size=" + str(shape))
        if inp.dtype != scalar_type.get_default_dtype():  # no values to guess an int64 from
            suffixes.append("dtype=" + str(inp.dtype))
        if tensor_contents is None:
            tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:  # "[...]" hides the shape, so say it
            suffixes.append("size=" + str(shape))
        if not _has_default_dtype(inp):
            suffixes.append("dtype=" + str(inp.dtype))
        if tensor_contents is None:
            tensor_str = _tensor_str(inp, indent)

    autograd_suffix = _autograd_suffix(inp)
    if autograd_suffix is not None:
        suffixes.append(autograd_suffix)

    string_repr = _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)
    # A Parameter wrapping a tensor subclass says so here; plain Parameters get their
    # "Parameter containing:" line from nn.Parameter.__repr__ instead.
    if not is_plain_tensor and _is_parameter(inp):
        string_repr = f"Parameter({string_repr})"
    return string_repr


def _str(self, *, tensor_contents=None) -> str:
    """Entry point of ``Tensor.__repr__``. Printing never records autograd history."""
    with no_grad():
        return _str_intern(self, tensor_contents=tensor_contents)
