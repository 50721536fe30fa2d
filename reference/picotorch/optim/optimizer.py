"""The ``Optimizer`` base class. Models ``torch/optim/optimizer.py``.

An optimizer holds ``param_groups`` (dicts: ``params`` plus every hyper-parameter, the constructor's
``defaults`` filling what a group leaves out) and ``state``, per-parameter buffers keyed by the
parameter itself. ``state_dict()`` replaces each parameter by its index in the order the groups list
them, as PyTorch does, so a saved state can be loaded into a fresh optimizer over new tensors.
Zero-dim state such as ``step`` is float32, or float64 under a float64 default dtype (``_get_scalar_dtype``).
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

from .. import _C
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from ..c10 import scalar_type as st
from ..utils.hooks import RemovableHandle


class _RequiredParameter:
    """The marker for a hyper-parameter with no default (PyTorch's ``required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


_TENSOR_TYPES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                 "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
                 "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}


def _typename(obj) -> str:
    """``torch.typename``: ``torch.FloatTensor`` for a float32 CPU tensor, else the class's dotted name."""
    if isinstance(obj, Tensor):
        return "torch." + _TENSOR_TYPES.get(str(obj.dtype).removeprefix("torch."), "Tensor")
    module, name = type(obj).__module__, type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def _get_scalar_dtype():
    """The dtype of the optimizers' zero-dim state (``step``...): float64 when that is the default dtype."""
    return st.float64 if st.get_default_dtype() == st.float64 else st.float32


def _new_scalar(value: float):
    """A zero-dim state tensor such as ``step``, in ``_get_scalar_dtype()``."""
    return _C.tensor(value, dtype=_get_scalar_dtype())


def _check_lr(lr) -> None:
    """The learning-rate check of PyTorch's newer optimizers (a tensor rate must have one element)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_eps_betas_weight_decay(eps, betas, weight_decay) -> None:
    """The constructor checks the Adam family shares (Adam, AdamW, Adamax, NAdam, RAdam), in PyTorch's order."""
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _check_capturable(param, group: dict, tensors: str = "params and state_steps", supports_xla: bool = True) -> None:
    """``capturable=True`` (CUDA graphs) needs the parameter on an accelerator: on the CPU, PyTorch's update raises
    this before its first change (the state is already made)."""
    if not group["capturable"]:
        return
    devices = ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if supports_xla else [])
    if param.device.type not in devices:
        raise AssertionError(f"If capturable=True, {tensors} must be on supported devices: {devices}.")


def _to_scalar(value):
    """A one-element tensor hyper-parameter as a zero-dim tensor; anything else as it is."""
    return value.squeeze() if isinstance(value, Tensor) and value.dim() != 0 else value


# the hooks every optimizer's step runs (torch.optim.optimizer.register_optimizer_step_pre_hook / _post_hook)
_global_optimizer_pre_hooks: OrderedDict = OrderedDict()
_global_optimizer_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` before every optimizer's step, before its own pre hooks."""
    return _add_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` after every optimizer's step, after its own post hooks."""
    return _add_hook(_global_optimizer_post_hooks, hook)


def _add_hook(table: OrderedDict, hook, prepend: bool = False) -> RemovableHandle:
    handle = RemovableHandle(table)
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


class Optimizer:
    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        for table in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                      "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                      "_optimizer_load_state_dict_post_hooks"):
            setattr(self, table, OrderedDict())
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {_typename(params)}")
        self.state: dict = defaultdict(dict)  # opt.state[p] of a parameter without state is {}
        self.param_groups: list[dict] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        self._warned_capturable_if_run_uncaptured = True

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        _extract_names(param_group)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_typename(param)}")
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in param_group["params"]}) != len(param_group["params"]):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ step hooks

    @staticmethod
    def profile_hook_step(func):
        """Wrap a class's ``step``: the global and the optimizer's pre hooks (each may return new ``(args,
        kwargs)``), the step, then its post hooks and the global ones."""
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"{func} must return None or a tuple of (new_args, new_kwargs), but got "
                                           f"{result}.")
                    args, kwargs = result
            out = func(*args, **kwargs)
            self._optimizer_step_code()
            for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out
        return wrapper

    def _patch_step_function(self) -> None:
        """The first optimizer of a class wraps the class's ``step`` once (``profile_hook_step``)."""
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        if not getattr(self.__class__.step, "hooked", None):
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def _optimizer_step_code(self) -> None:
        """An empty function the profiler marks a step's end with."""

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` before ``step``; it may return ``(new_args, new_kwargs)``."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after ``step``."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def step(self, closure=None):
        """Each optimizer class has its own (so its hooks' messages and ``opt.step`` name it): ``SGD.step``..."""
        raise NotImplementedError

    def _step(self, closure=None):
        """What every ``step`` here does: update each parameter that has a gradient (``_update``, PyTorch's
        ``_single_tensor_*`` for one). The closure re-evaluates the model, so it runs with grad mode on; the update
        itself without."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, param, group) -> None:
        raise NotImplementedError

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
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

    # ------------------------------------------------------------------ state_dict

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` before ``state_dict`` packs the state."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` after: it may return a new state dict."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` before loading (a shallow copy): it may return a new state dict."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` after loading."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def state_dict(self) -> dict:
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        state_dict = self._packed_state()
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def _packed_state(self) -> dict:
        # PyTorch numbers the positions, not the tensors: a tensor listed twice in one group takes its last
        # position there, and a tensor already numbered by an earlier group keeps that number
        index: dict[int, int] = {}
        groups, start = [], 0
        for group in self.param_groups:
            index.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in index})
            start += len(group["params"])
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = state_dict.copy()  # shallow, as Module's
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        self._load(state_dict)
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    def _load(self, state_dict: dict) -> None:
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = {saved_id: p for g, s in zip(groups, saved_groups) for saved_id, p in zip(s["params"], g["params"])}
        state: dict = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = {k: _cast_like(param, v, k) for k, v in value.items()}
            else:
                state[key] = _copy(value)
        self.state = state
        self.param_groups = [_updated_group(g, _copy(s)) for g, s in zip(groups, saved_groups)]


def _extract_names(param_group: dict) -> None:
    """``(name, tensor)`` pairs (``model.named_parameters()``): the tensors stay in ``params``, the names go to
    ``param_names``; all of a group's params are named or none is."""
    names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
    param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in param_group["params"]]
    if names:
        if len(names) != len(param_group["params"]):
            raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        param_group["param_names"] = names


def _updated_group(group: dict, saved: dict) -> dict:
    """A loaded group over this optimizer's tensors, keeping its own names if the saved group has none."""
    saved["params"] = group["params"]
    if "param_names" in group and "param_names" not in saved:
        saved["param_names"] = group["param_names"]
    return saved


def _cast_like(param, value, key):
    """A loaded buffer in the parameter's dtype and device; ``step`` keeps its own (PyTorch's policy)."""
    if not isinstance(value, Tensor):
        return _copy(value)
    if key != "step" and param.is_floating_point():
        return value.to(dtype=param.dtype, device=param.device).clone()
    return value.to(device=param.device).clone() if key != "step" else value.clone()


def _copy(value):
    if isinstance(value, Tensor):
        return value.clone()
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
