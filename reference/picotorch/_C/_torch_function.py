"""``__torch_function__``: when an argument is not a plain tensor, its class answers the call.

Models the protocol's machinery in ``torch/csrc/utils/python_arg_parser.cpp`` (``check_has_torch_function``,
``append_overloaded_arg``, ``handle_torch_function``), ``torch/csrc/utils/disable_torch_function.cpp``
(``DisableTorchFunction``, ``DisableTorchFunctionSubclass``, ``_has_torch_function*``,
``_disabled_torch_function_impl``), ``torch/csrc/autograd/python_variable.cpp``
(``handle_torch_function_getter``/``_setter``) and the Python half in ``torch/overrides.py``
(``handle_torch_function``, ``_get_overloaded_args``). ``picotorch.overrides`` re-exports the public names.

The story of one call, ``picotorch.mul(x, 2)`` with ``x`` an instance of ``class LoggingTensor(Tensor)``:

1. the generated binding parses the arguments, then asks whether any of them "has a torch function":
   an object whose type is neither exactly ``Tensor`` nor a basic Python type, and whose class has a
   ``__torch_function__`` that is not ``_disabled_torch_function_impl`` (``nn.Parameter``'s);
2. those arguments are ordered (``_get_overloaded_args``): each type once, a subclass before its
   superclass, otherwise left to right;
3. each one's ``__torch_function__(func, types, args, kwargs)`` is called in that order, ``func`` being
   the public function (``picotorch.mul``, ``Tensor.mul``, ``Tensor.grad_fn.__get__``); the first answer
   that is not ``NotImplemented`` is the result; if all decline, a ``TypeError``.

``Tensor.__torch_function__`` (``_tensor.py``), the default every subclass inherits, calls ``func`` again
under ``DisableTorchFunctionSubclass`` (so the second time the binding takes its ordinary path) and
converts the result to the subclass.

Cost for plain tensors: every binding first reads ``STATE.active``, true only once a ``Tensor`` subclass
with a ``__torch_function__`` of its own has been defined and while the protocol is not disabled. Until
then the check is one attribute read; after, it looks at the type of each argument. Objects that are not
tensors at all (a "tensor-like" class) fail the parser's fast path, and the binding asks then.
Left out: ``TorchFunctionMode`` (the mode stack) and ``__torch_dispatch__``.
"""

from __future__ import annotations

import warnings

# The three states of ``at::impl::PythonTorchFunctionTLS``'s disabled flag.
ENABLED, SUBCLASSES_DISABLED, ALL_DISABLED = 0, 1, 2


class _TorchFunctionState:
    """What the bindings read first. ``active`` caches ``subclasses and disabled == ENABLED``."""

    __slots__ = ("active", "subclasses", "disabled")

    def __init__(self) -> None:
        self.active = False
        self.subclasses = False  # a Tensor subclass with a __torch_function__ of its own exists
        self.disabled = ENABLED

    def refresh(self) -> None:
        self.active = self.subclasses and self.disabled == ENABLED


STATE = _TorchFunctionState()

_tensor_type: list = [None]  # picotorch.Tensor, registered by _tensor.py (this layer cannot import it)

# ``is_basic_python_type``: never asked for ``__torch_function__``.
_BASIC_TYPES = frozenset({bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset, slice,
                          type(None), type(Ellipsis), type(NotImplemented)})


def set_tensor_type(cls) -> None:
    _tensor_type[0] = cls


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """The ``__torch_function__`` of classes that opt out (``nn.Parameter``): call ``func`` with subclass
    handling off, and do not convert the result."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def note_tensor_subclass(cls) -> None:
    """Called for every new subclass of ``Tensor``: from now on the bindings look at argument types."""
    if _defines_torch_function(cls):
        STATE.subclasses = True
        STATE.refresh()


# ----------------------------------------------------------------------------- turning it off


class _DisableTorchFunctionBase:
    _level = ALL_DISABLED

    def __enter__(self):
        self._previous = STATE.disabled
        STATE.disabled = max(self._level, STATE.disabled)
        STATE.refresh()
        return self

    def __exit__(self, *exc) -> None:
        STATE.disabled = self._previous
        STATE.refresh()


class DisableTorchFunctionSubclass(_DisableTorchFunctionBase):
    """``with DisableTorchFunctionSubclass():`` tensor subclasses behave as plain tensors (the default
    ``Tensor.__torch_function__`` runs ``func`` under it)."""

    _level = SUBCLASSES_DISABLED


class DisableTorchFunction(_DisableTorchFunctionBase):
    """Turns the whole protocol off (in PyTorch, modes as well)."""

    _level = ALL_DISABLED


def _is_torch_function_enabled() -> bool:
    return STATE.disabled == ENABLED


# ----------------------------------------------------------------------------- who has one


def _defines_torch_function(cls) -> bool:
    handler = getattr(cls, "__torch_function__", None)
    return handler is not None and handler is not _disabled_torch_function_impl


def check_has_torch_function(obj) -> bool:
    """``check_has_torch_function``: not exactly a Tensor, not a basic type, protocol on, a handler."""
    cls = type(obj)
    return (cls is not _tensor_type[0] and cls not in _BASIC_TYPES and STATE.disabled == ENABLED
            and _defines_torch_function(cls))


def _has_torch_function(args) -> bool:
    """``torch._C._has_torch_function(iterable)``."""
    return any(check_has_torch_function(a) for a in args)


def _has_torch_function_unary(obj) -> bool:
    return check_has_torch_function(obj)


def _has_torch_function_variadic(*args) -> bool:
    return any(check_has_torch_function(a) for a in args)


def _candidates(args, kwargs) -> list:
    """The arguments (and the elements of list arguments, such as ``cat``'s) that have a torch function,
    in argument order."""
    found = []
    for value in (*args, *kwargs.values()) if kwargs else args:
        if type(value) is list or type(value) is tuple:
            found.extend(v for v in value if check_has_torch_function(v))
        elif check_has_torch_function(value):
            found.append(value)
    return found


def overloaded_args(args, kwargs) -> list | None:
    """What a binding asks after parsing: the ordered arguments whose handlers to try, or None."""
    found = _candidates(args, kwargs)
    return _get_overloaded_args(found) if found else None


def _get_overloaded_args(relevant_args, get_type_fn=None) -> list:
    """``torch.overrides._get_overloaded_args``: the arguments whose ``__torch_function__`` to try, in order."""
    # BEGIN SOLUTION 6.2: order the overloaded args: each type once, subclass before superclass, else left to right
    get_type = type if get_type_fn is None else get_type_fn
    if not _is_torch_function_enabled():
        return []
    seen: set = set()
    ordered: list = []
    for arg in relevant_args:
        cls = get_type(arg)
        if cls in seen or not _defines_torch_function(cls):
            continue
        seen.add(cls)
        # before the first argument whose type it subclasses, else at the end
        index = next((i for i, old in enumerate(ordered) if issubclass(cls, get_type(old))), len(ordered))
        ordered.insert(index, arg)
    return ordered
    # END SOLUTION


# ----------------------------------------------------------------------------- calling the handlers


def handle_torch_function_c(overloaded: list, func, args: tuple, kwargs, qualified_name: str):
    """``handle_torch_function_no_python_arg_parser``: what the generated bindings, the hand-written
    methods and the property getters call. ``kwargs`` is None when the call had none, as in PyTorch."""
    types = tuple(type(arg) for arg in overloaded)
    for arg in overloaded:
        result = arg.__torch_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    handlers = "\n".join(f"  - tensor subclass {cls!r}" for cls in types)
    raise TypeError(f"Multiple dispatch failed for '{qualified_name}'; all __torch_function__ handlers returned "
                    f"NotImplemented:\n\n{handlers}\n\nFor more information, try re-running with "
                    "TORCH_LOGS=not_implemented")


def get_default_nowrap_functions() -> set:
    """``torch.overrides.get_default_nowrap_functions``: getters whose result the default handler returns as
    it is, so that ``x.grad is x.grad`` holds for a subclass (PyTorch also lists ``_base`` and ``_grad``,
    plain fields here)."""
    return {_tensor_type[0].grad.__get__}


def handle_torch_function_getter(self, name: str):
    """``handle_torch_function_getter``: ``func`` is the property's ``__get__``, the only argument ``self``."""
    func = getattr(_tensor_type[0], name).__get__
    return handle_torch_function_c([self], func, (self,), None, f"torch.Tensor.{name}.__get__")


def handle_torch_function_indexing(self, name: str, args: tuple):
    """``handle_torch_function_indexing``: ``Tensor.__getitem__`` or ``__setitem__`` with ``(self, index[, value])``."""
    return handle_torch_function_c([self], getattr(_tensor_type[0], name), args, None, f"torch.Tensor.{name}")


def handle_torch_function_setter(self, name: str, value, delete: bool = False):
    """``handle_torch_function_setter``: ``__set__`` with ``(self, value)``, or ``__delete__`` with ``(self,)``."""
    prop = getattr(_tensor_type[0], name)
    if delete:
        return handle_torch_function_c([self], prop.__delete__, (self,), None, f"torch.Tensor.{name}.__delete__")
    return handle_torch_function_c([self], prop.__set__, (self, value), None, f"torch.Tensor.{name}.__set__")


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """``torch.overrides.handle_torch_function``: the Python-level entry (``Tensor.backward``, ``__repr__``,
    the reflected operators ...). Unlike the bindings it counts plain tensors among the overloaded
    arguments (their type is in ``types``); its error names ``public_api``'s module."""
    overloaded = _get_overloaded_args(relevant_args)
    types = tuple(type(arg) for arg in overloaded)
    for arg in overloaded:
        handler = arg.__torch_function__
        if getattr(handler, "__self__", None) is arg and handler is not _disabled_torch_function_impl:
            warnings.warn("Defining your `__torch_function__ as a plain method is deprecated and will be an error "
                          "in future, please define it as a classmethod.", DeprecationWarning, stacklevel=2)
        result = handler(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{public_api.__module__}.{public_api.__name__}' on types that "
                    f"implement __torch_function__: {[type(arg) for arg in overloaded]}")


def handle_binding(parser, func, overloaded: list, args: tuple, kwargs: dict, qualified_name: str):
    """A generated binding with overloaded arguments: PyTorch parses first (a call no signature accepts
    raises the parser's TypeError, no handler runs), then hands the call to the handlers."""
    if all(isinstance(arg, _tensor_type[0]) for arg in overloaded):
        _check_parses(parser, args, kwargs)  # a tensor-like that is no tensor matches a Tensor slot in PyTorch
    return handle_torch_function_c(overloaded, func, args, kwargs or None, qualified_name)


def _check_parses(parser, args: tuple, kwargs: dict) -> None:
    """Raise the parser's error when no signature accepts the call; bind only, call nothing."""
    if parser.tensor_options and "requires_grad" in kwargs:
        kwargs = {k: v for k, v in kwargs.items() if k != "requires_grad"}
    parser.bound(args, kwargs)
