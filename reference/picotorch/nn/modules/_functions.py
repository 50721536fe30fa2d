"""Module backward hooks: ``BackwardHookFunction`` and ``BackwardHook``.

Models ``torch/nn/modules/_functions.py`` (``BackwardHookFunction``) and ``BackwardHook`` of
``torch/utils/hooks.py`` (kept here: picotorch's ``utils/hooks.py`` sits below autograd and imports nothing).

A module is no node of the graph, so a hook "on the module's backward" needs nodes that mark where the module
begins and ends. ``Module.__call__`` makes them: the tensors going in and the tensors coming out each pass
through ``BackwardHookFunction``, an identity custom Function, so the graph gets a
``BackwardHookFunctionBackward`` node after the module's outputs and one before its inputs:

    loss ... -> BackwardHookFunctionBackward (outputs) -> [the module's own nodes] -> BackwardHookFunctionBackward
    (inputs) -> ...

A hook on the output node records ``grad_output`` (after the backward pre-hooks, which may replace it); a hook on
the input node then has ``grad_input`` too and calls the user's full backward hooks with both, whose result may
replace ``grad_input``. Arguments that are not tensors are None in both tuples. When no input requires grad the
input node does not exist, and the output node calls the hooks itself, with a warning.
"""

from __future__ import annotations

import warnings

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...native.tensor_impl import TensorImpl

__all__ = ["BackwardHook", "BackwardHookFunction"]


class BackwardHookFunction(Function):
    """The identity, as a node: its backward hands every gradient on unchanged."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """One call of a module with full backward hooks or backward pre-hooks: the two nodes and what they share."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(self._set_output_hook, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]

    # ------------------------------------------------------------------------- the two node hooks

    def _set_user_hook(self, grad_fn) -> None:
        def hook(grad_input, _):
            if self.grad_outputs is None:  # the gradient reached the input without passing the output
                return None
            res = _pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                       f"{len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_tensors_index)

        grad_fn.register_hook(hook)

    def _set_output_hook(self, grad_fn) -> None:
        def hook(_, grad_output):
            self.grad_outputs = _pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
            self._run_pre_hooks()
            local_grad_outputs = self.grad_outputs
            if self.input_tensors_index is None:  # no input node: the hooks run here, without grad_input
                self._call_hooks_without_inputs()
            if local_grad_outputs is not None:
                return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
            return None

        grad_fn.register_hook(hook)

    def _run_pre_hooks(self) -> None:
        expected = len(self.grad_outputs)
        for user_pre_hook in self.user_pre_hooks:
            new = user_pre_hook(self.module, self.grad_outputs)
            if new is None:
                continue
            if len(new) != expected:
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, got "
                                   f"{len(new)}, but expected {expected}")
            self.grad_outputs = new

    def _call_hooks_without_inputs(self) -> None:
        warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                      "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                      "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                      UserWarning, stacklevel=5)
        grad_inputs = _pack_with_none([], [], self.n_inputs)
        for user_hook in self.user_hooks:
            res = user_hook(self.module, grad_inputs, self.grad_outputs)
            if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                raise RuntimeError("Backward hook for Modules where no input requires gradient should always return "
                                   "None or None for all gradients.")
        self.grad_outputs = None

    # ------------------------------------------------------------------------- wrapping the tensors

    def _apply_on_tensors(self, fn, args):
        """``args`` with its tensors passed through one ``BackwardHookFunction`` (whose node ``fn`` hooks), and
        where they were; unchanged (and None) when none requires grad or grad mode is off."""
        tensors_idx = [i for i, arg in enumerate(args) if isinstance(arg, TensorImpl)]
        tensors = [args[i] for i in tensors_idx]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue with a code sample to "
                               "reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, value in zip(tensors_idx, new_tensors):
            arg_list[idx] = value
        return (tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)), tensors_idx


def _pack_with_none(indices, values, size) -> tuple:
    res = [None] * size
    for idx, value in zip(indices, values):
        res[idx] = value
    return tuple(res)
