"""``nn.Module``: the base class of every layer and model. Models ``torch/nn/modules/module.py``.

A module keeps three tables that ``__setattr__`` fills as attributes are assigned: ``_parameters``
(``nn.Parameter``s), ``_buffers`` (tensors saved with the model but not trained, e.g. running statistics)
and ``_modules`` (child modules). Everything else walks those tables:

- names: ``named_modules`` walks the tree depth first, naming each child by the path of attribute names
  (``"0.weight"`` in a ``Sequential``); ``named_parameters``/``named_buffers`` list each tensor once;
- ``state_dict`` maps those names to detached tensors; ``load_state_dict`` copies them back under
  ``no_grad`` and reports missing, unexpected and mis-sized keys in PyTorch's words;
- ``_apply`` converts every parameter, its ``.grad`` and every buffer (``.to()``, ``.double()``, ``.cuda()``);
- ``__call__`` runs the forward pre-hooks, ``forward`` and the forward hooks; with backward hooks it also
  wraps the inputs and outputs in ``BackwardHookFunction`` nodes (``_functions.py``), whose node hooks call
  the module's full backward hooks and backward pre-hooks. The global hooks of ``register_module_*`` run
  before each module's own.

picotorch leaves out what a first training loop does not need: state-dict hooks and ``torch.jit``.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _C
from ...autograd.grad_mode import no_grad
from ...c10 import scalar_type as st
from ...c10.device import device as Device
from ...native.tensor_impl import TensorImpl
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter
from ._functions import BackwardHook

__all__ = ["Module", "register_module_backward_hook", "register_module_forward_hook",
           "register_module_forward_pre_hook", "register_module_full_backward_hook",
           "register_module_full_backward_pre_hook"]

# NOTE [Global module hooks]
# ``register_module_forward_hook`` and its siblings register a hook for every module at once: these tables are read
# by every ``Module.__call__``, before the module's own hooks of the same kind.
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()
_global_is_full_backward_hook: bool | None = None
_BOTH_KINDS = "Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only " \
              "one of them."


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs: bool = False, always_call: bool = False) -> RemovableHandle:
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=[_global_forward_hooks_always_called, _global_forward_hooks_with_kwargs])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook) -> RemovableHandle:
    return _register_global_backward_hook(hook, full=False)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook) -> RemovableHandle:
    return _register_global_backward_hook(hook, full=True)


def _register_global_backward_hook(hook, full: bool) -> RemovableHandle:
    """Every module's backward hook of one kind: the global hooks are all full or all of the old kind."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                           "Please use only one of them.")
    _global_is_full_backward_hook = full
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


_NON_FULL_WARNINGS = {
    "result": "Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of Tensors "
              "is deprecated and will be removed in future versions. This hook will be missing some of the "
              "grad_output. Please use register_full_backward_hook to get the documented behavior.",
    "inputs": "Using non-full backward hooks on a Module that does not take as input a single Tensor or a tuple of "
              "Tensors is deprecated and will be removed in future versions. This hook will be missing some of the "
              "grad_input. Please use register_full_backward_hook to get the documented behavior.",
    "nested": "Using a non-full backward hook when outputs are nested in python data structure is deprecated and "
              "will be removed in future versions. This hook will be missing some grad_output.",
    "several": "Using a non-full backward hook when outputs are generated by different autograd Nodes is deprecated "
               "and will be removed in future versions. This hook will be missing some grad_output. Please use "
               "register_full_backward_hook to get the documented behavior.",
    "multiple": "Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and "
                "will be removed in future versions. This hook will be missing some grad_input. Please use "
                "register_full_backward_hook to get the documented behavior.",
}


class _WrappedHook:
    """A hook called with the module first (held weakly, as PyTorch does), or without one when ``module`` is None:
    a non-full backward hook on a node, a load_state_dict pre hook."""

    def __init__(self, hook, module=None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if not self.with_module:
            return self.hook(*args, **kwargs)
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args, **kwargs)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it did not find and the keys it did not expect."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def _add_hook(table: OrderedDict, hook) -> RemovableHandle:
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle


def _defines(module, method: str) -> bool:
    """Whether the module's class overrides ``Module.<method>`` (the extra state is only saved then)."""
    return getattr(type(module), method, None) is not getattr(Module, method)


def _load(module, state_dict, prefix: str, metadata, assign: bool, keys, error_msgs) -> None:
    """``load_state_dict``'s ``load``: the module's entries, then each child's (recursively: as deep as the modules
    nest), then the module's post hooks, which see the keys found so far."""
    local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
    if assign:
        local_metadata["assign_to_params_buffers"] = assign
    module._load_from_state_dict(state_dict, prefix, local_metadata, True, keys.missing_keys, keys.unexpected_keys,
                                 error_msgs)
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            child_state = {k: v for k, v in state_dict.items() if k.startswith(child_prefix)}
            _load(child, child_state, child_prefix, metadata, assign, keys, error_msgs)
    for hook in module._load_state_dict_post_hooks.values():
        if hook(module, keys) is not None:
            raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not expected to "
                                 "return new values, if incompatible_keys need to be modified, it should be done "
                                 "inplace.")


def _addindent(s_: str, num_spaces: int) -> str:
    """Indent every line of a child's repr but its first (which follows ``(name): ``)."""
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line if line.strip() else "" for line in lines)


def _typename(obj) -> str:
    """``torch.typename``: ``torch.FloatTensor`` for a tensor, the qualified class name otherwise."""
    if isinstance(obj, TensorImpl):
        where = "torch.cuda." if obj._device.type == "cuda" else "torch."
        return f"{where}{obj._dtype.c10_name}Tensor"
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    if not hasattr(obj, "__qualname__"):
        qualname, module = type(obj).__qualname__, type(obj).__module__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """Base class for all neural network modules."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    forward = _forward_unimplemented

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} "
                            "were given")
        # set through object.__setattr__ (Module.__setattr__ reads these tables), in PyTorch's order: vars(module)
        for name, value in (("training", True), ("_parameters", {}), ("_buffers", {}),
                            ("_non_persistent_buffers_set", set()), ("_backward_pre_hooks", OrderedDict()),
                            ("_backward_hooks", OrderedDict()), ("_is_full_backward_hook", None),
                            ("_forward_hooks", OrderedDict()), ("_forward_hooks_with_kwargs", OrderedDict()),
                            ("_forward_hooks_always_called", OrderedDict()), ("_forward_pre_hooks", OrderedDict()),
                            ("_forward_pre_hooks_with_kwargs", OrderedDict()), ("_state_dict_hooks", OrderedDict()),
                            ("_state_dict_pre_hooks", OrderedDict()), ("_load_state_dict_pre_hooks", OrderedDict()),
                            ("_load_state_dict_post_hooks", OrderedDict()), ("_modules", {})):
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------------------- registration

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_member_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, TensorImpl):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_member_name(name, "parameter", self._parameters)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        elif param.grad_fn:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                             "the value in the forward() method.")
        else:
            self._parameters[name] = param

    def _check_member_name(self, name, kind: str, table) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in table:
            raise KeyError(f"attribute '{name}' already exists")

    def add_module(self, name: str, module) -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name: str, module) -> None:
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at the dotted ``target`` (its parent must exist; with ``strict``, the name too)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str):
        module, name = self._owner_of(target)
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str):
        module, name = self._owner_of(target)
        buffer = getattr(module, name)
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buffer

    def _owner_of(self, target: str) -> tuple:
        """The submodule holding the dotted ``target``'s last name, and that name (which it must have)."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        return module, name

    # ------------------------------------------------------------------------- attributes

    def __getattr__(self, name: str):
        for table in ("_parameters", "_buffers", "_modules"):
            store = self.__dict__.get(table)
            if store is not None and name in store:
                return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            self._set_module_buffer_or_attribute(name, value)

    def _set_module_buffer_or_attribute(self, name: str, value) -> None:
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
        elif self.__dict__.get("_buffers") is not None and name in self._buffers:
            if value is not None and not isinstance(value, TensorImpl):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            self.register_buffer(name, value, name not in self._non_persistent_buffers_set)
        else:
            object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name, *dicts_or_sets) -> None:
        for d in dicts_or_sets:
            if name in d:
                if isinstance(d, dict):
                    del d[name]
                else:
                    d.discard(name)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = dir(self.__class__) + list(self.__dict__) + list(self._parameters) + list(self._modules) \
            + list(self._buffers)
        return sorted(key for key in keys if not key[0].isdigit())

    # ------------------------------------------------------------------------- calling, with hooks

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """``hook(module, args)`` (or ``hook(module, args, kwargs)``) before ``forward``; a result replaces the
        arguments."""
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """``hook(module, args, output)`` after ``forward``; a result replaces the output."""
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_output)`` when the gradients of the module's outputs are known; a result replaces
        them."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """The old, deprecated kind: a hook on the node that made the output, whatever that node's inputs are."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(_BOTH_KINDS)
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_input, grad_output)`` when the gradients of the module's inputs are known; a result
        replaces ``grad_input``."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(_BOTH_KINDS)
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _get_backward_hooks(self):
        """(full, non-full) backward hooks of this call: the global ones first, then the module's."""
        full, non_full = [], []
        if _global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if _global_is_full_backward_hook is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def __call__(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks or self._backward_pre_hooks
                or _global_forward_hooks or _global_forward_pre_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        called = set()
        result = None
        try:
            backward_pre_hooks = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
            full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()
            args, kwargs = self._run_forward_pre_hooks(args, kwargs)
            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            result = self._run_forward_hooks(args, kwargs, result, called)
            if bw_hook:
                if not isinstance(result, (TensorImpl, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                                  f"Tensors but received {type(result)}", stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            if non_full_backward_hooks:
                self._hook_output_node(args, result, non_full_backward_hooks)
            return result
        except Exception:
            self._run_always_called_hooks(args, kwargs, result, called)
            raise

    def _hook_output_node(self, args, result, hooks) -> None:
        """Non-full backward hooks: on the node that made the (first) output tensor, with the module first."""
        var = result
        while not isinstance(var, TensorImpl):
            var = next(v for v in var.values() if isinstance(v, TensorImpl)) if isinstance(var, dict) else var[0]
        grad_fn = var.grad_fn
        if grad_fn is not None:
            for hook in hooks:
                grad_fn.register_hook(_WrappedHook(hook, self))
            self._maybe_warn_non_full_backward_hook(args, result, grad_fn)

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn) -> None:
        """Why a non-full hook sees only part of the gradients: the output or input is no tensor tuple, the outputs
        come from several nodes, or the output's node is not the one that took the inputs."""
        if not isinstance(result, TensorImpl):
            if not (isinstance(result, tuple) and all(isinstance(r, TensorImpl) for r in result)):
                warnings.warn(_NON_FULL_WARNINGS["result"], FutureWarning, stacklevel=3)
                return
        else:
            result = (result,)
        if not isinstance(inputs, TensorImpl):
            if not (isinstance(inputs, tuple) and all(isinstance(i, TensorImpl) for i in inputs)):
                warnings.warn(_NON_FULL_WARNINGS["inputs"], FutureWarning, stacklevel=3)
                return
        else:
            inputs = (inputs,)
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn(_NON_FULL_WARNINGS["nested"], FutureWarning, stacklevel=3)
        elif len(out_grad_fn) > 1:
            warnings.warn(_NON_FULL_WARNINGS["several"], FutureWarning, stacklevel=3)
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            if inputs_grad_fn != {n[0] for n in grad_fn.next_functions}:
                warnings.warn(_NON_FULL_WARNINGS["multiple"], FutureWarning, stacklevel=3)

    def _run_forward_pre_hooks(self, args, kwargs):
        for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                new = hook(self, args, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {new}.")
                    args, kwargs = new
            else:
                new = hook(self, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
        return args, kwargs

    def _run_forward_hooks(self, args, kwargs, result, called):
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                called.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                new = hook(self, args, kwargs, result)
            else:
                new = hook(self, args, result)
            if new is not None:
                result = new
        return result

    def _run_always_called_hooks(self, args, kwargs, result, called) -> None:
        """After ``forward`` raised: the hooks registered with ``always_call=True`` that have not run yet."""
        for hook_id, hook in self._forward_hooks.items():
            if hook_id in self._forward_hooks_always_called and hook_id not in called:
                try:
                    if hook_id in self._forward_hooks_with_kwargs:
                        new = hook(self, args, kwargs, result)
                    else:
                        new = hook(self, args, result)
                    if new is not None:
                        result = new
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                                  f"silenced as another error was raised in forward: {e}", stacklevel=2)

    # ------------------------------------------------------------------------- walking the tree

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """Depth first, parents before children, each module once (``remove_duplicate``)."""
        memo = set() if memo is None else memo
        stack = [(prefix, self)]
        while stack:  # iterative: a deep model must not hit Python's recursion limit
            name, module = stack.pop()
            if module in memo:
                continue
            if remove_duplicate:
                memo.add(module)
            yield name, module
            children = [(name + ("." if name else "") + key, child) for key, child in module._modules.items()
                        if child is not None]
            stack.extend(reversed(children))

    def modules(self, remove_duplicate: bool = True):
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, get_members, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for key, value in get_members(module):
                if value is None or value in memo:
                    continue
                if remove_duplicate:
                    memo.add(value)
                yield module_prefix + ("." if module_prefix else "") + key, value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def apply(self, fn):
        """``fn`` on every submodule, each child's subtree before the child, and ``self`` last (post-order)."""
        stack = [(self, False)]
        while stack:
            module, children_done = stack.pop()
            if children_done:
                fn(module)
            else:
                stack.append((module, True))
                stack.extend((child, False) for child in reversed(list(module.children())))
        return self

    # ------------------------------------------------------------------------- modes and gradients

    def train(self, mode: bool = True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            module.training = mode
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    # ------------------------------------------------------------------------- conversions

    def _apply(self, fn, recurse: bool = True):
        """Convert parameters, their ``.grad`` and buffers with ``fn``. A parameter keeps its identity (its
        ``.data`` is replaced, under ``no_grad``), so an optimizer built before ``.double()`` still holds it."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            param.data = param_applied
            if param.grad is not None:
                with no_grad():
                    grad_applied = fn(param.grad)
                param.grad.data = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        device, dtype = _parse_to(*args, **kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")

        def convert(t):
            return t.to(device=device, dtype=dtype if t.is_floating_point() else None)
        return self._apply(convert)

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def type(self, dst_type):
        """Every parameter and buffer through ``Tensor.type(dst_type)`` (floating or not)."""
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device, recurse: bool = True):
        """Parameters and buffers moved to ``device`` without their values (``empty_like``: zeros here)."""
        return self._apply(lambda t: _C._VariableFunctions.empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_())

    # ------------------------------------------------------------------------- state_dict

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """Parameters and persistent buffers by their dotted names, detached unless ``keep_vars``; a module that
        defines ``get_extra_state`` adds ``<prefix>_extra_state``. Pre hooks run before, post hooks after."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                          " for details.", FutureWarning, stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:  # the private hook may replace the dict
                destination = result
        return destination

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if _defines(self, "get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def get_extra_state(self):
        """Anything picklable to keep in the state dict beside the tensors; only a subclass that overrides it has
        some (``set_extra_state`` takes it back)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please file "
                           "an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to "
                           "report this bug.")

    def set_extra_state(self, state) -> None:
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please file "
                           "an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to "
                           "report this bug.")

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` before the module saves its own entries."""
        return _add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` after the module and its children saved theirs; it
        edits the dict in place and returns None."""
        hook._from_public_api = True
        return _add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        """The private post hook: it may return a new dict."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was previously "
                               "registered via register_state_dict_post_hook")
        return _add_hook(self._state_dict_hooks, hook)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy ``state_dict``'s tensors into this module's parameters and buffers (in place, under ``no_grad``).

        With ``strict`` a missing or unexpected key is an error; a size mismatch always is. The error lists
        missing keys, then unexpected keys, then the other problems, one per line. Each module's load
        state_dict pre hooks run before it loads its own entries; its post hooks after it and its children.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        keys = _IncompatibleKeys(missing_keys, unexpected_keys)
        _load(self, state_dict, "", metadata, assign, keys, error_msgs)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in [*self._parameters.items(), *persistent_buffers.items()] if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                self._load_one(name, param, key, state_dict[key], assign, error_msgs)
            elif strict:
                missing_keys.append(key)
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if _defines(self, "set_extra_state"):
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if (len(input_name) > 1 and input_name[0] not in self._modules) or \
                            (len(input_name) == 1 and input_name[0] not in local_state):
                        unexpected_keys.append(key)

    def _load_one(self, name, param, key, input_param, assign, error_msgs) -> None:
        """One entry into one parameter or buffer: copied in place, or (``assign``) put in its place."""
        if not isinstance(input_param, TensorImpl):
            error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(input_param)}")
            return
        if len(param.shape) == 0 and len(input_param.shape) == 1 and input_param.shape[0] == 1:
            input_param = input_param[0]
        if input_param.shape != param.shape:
            error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                              f"checkpoint, the shape in current model is {param.shape}.")
            return
        try:
            with no_grad():
                if assign:
                    if isinstance(param, Parameter):
                        if not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param, requires_grad=param.requires_grad)
                        else:
                            input_param.requires_grad_(param.requires_grad)
                    setattr(self, name, input_param)
                else:
                    param.copy_(input_param)
        except Exception as ex:
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                              f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, "
                              f"an exception occurred : {ex.args}.")

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``
        before the module loads its own entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        return _add_hook(self._load_state_dict_pre_hooks, _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` after the module and its children loaded; it edits the key lists in
        place and returns None."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    # ------------------------------------------------------------------------- repr

    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """The module's own settings, shown inside its parentheses (``in_features=3, ...``)."""
        return ""

    def __repr__(self) -> str:
        extra_lines = self.extra_repr().split("\n") if self.extra_repr() else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"


def _parse_to(*args, **kwargs):
    """``torch._C._nn._parse_to``: ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``, keywords."""
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    tensor = kwargs.get("tensor")
    for a in args:
        if isinstance(a, st.dtype):
            dtype = a
        elif isinstance(a, TensorImpl):
            tensor = a
        elif isinstance(a, (str, Device, int)) and not isinstance(a, bool):
            device = a
        elif not isinstance(a, bool):  # non_blocking
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__}, )")
    if tensor is not None:
        device, dtype = tensor.device, tensor.dtype
    return (_C.device(device) if isinstance(device, (str, int)) else device), dtype
