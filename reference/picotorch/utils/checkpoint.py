"""``torch.utils.checkpoint``: trade compute for memory by running a piece of forward again in backward.

Models ``torch/utils/checkpoint.py``. A checkpointed function keeps none of its intermediate tensors alive after
forward; backward recomputes them. The two variants are the two ways chapter 04's engine allows that:

- ``use_reentrant=True``: ``CheckpointFunction``, a custom Function. Its forward runs the function under
  ``no_grad`` (nothing recorded, nothing saved but the inputs); its backward runs it again with grad on and calls
  ``autograd.backward`` on the recomputed outputs *from inside* the engine: a reentrant backward (NOTE [Reentrant
  backwards] in engine.py). The graph shows one ``CheckpointFunctionBackward`` node whose edges are the tensor
  arguments only: parameters used inside get their ``.grad`` from the inner backward.
- ``use_reentrant=False``: the function runs normally (its own nodes are in the graph) under
  ``saved_tensors_hooks`` whose pack hook stores a placeholder instead of each saved tensor. The first unpack
  runs the function again under hooks that collect what it saves, in the same order, and stops it as soon as the
  last one is collected (early stop: code after the last saved tensor, a module's forward hook say, does not run
  again). RNG state is restored for the recomputation in both variants, so dropout draws the same mask.

Left out: the determinism check, ``context_fn``/``debug``, devices' RNG states, and the check that
``use_reentrant=True`` is not combined with ``autograd.grad`` or ``backward(inputs=...)``.
"""

from __future__ import annotations

import warnings

from ..autograd import backward as _backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.graph import saved_tensors_hooks
from ..native.tensor_impl import TensorImpl
from ..random import get_rng_state, set_rng_state

__all__ = ["CheckpointError", "checkpoint", "checkpoint_sequential", "detach_variable"]


class CheckpointError(RuntimeError):
    pass


def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, TensorImpl):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, TensorImpl)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning,
                      stacklevel=4)


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = get_rng_state()
        ctx.inputs, ctx.tensor_indices, tensor_inputs = [], [], []
        for i, arg in enumerate(args):
            if isinstance(arg, TensorImpl):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *args):
        inputs = list(ctx.inputs)
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = ctx.saved_tensors[i]
        outputs, detached_inputs = _recompute(ctx, inputs)
        if isinstance(outputs, TensorImpl):
            outputs = (outputs,)
        outputs_with_grad, args_with_grad = [], []
        for i, output in enumerate(outputs):
            if isinstance(output, TensorImpl) and output.requires_grad:
                outputs_with_grad.append(output)
                args_with_grad.append(args[i])
        if not outputs_with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward(outputs_with_grad, args_with_grad)
        return (None, None) + tuple(inp.grad if isinstance(inp, TensorImpl) else None for inp in detached_inputs)


def _recompute(ctx, inputs):
    saved_state = get_rng_state() if ctx.preserve_rng_state else None
    try:
        if saved_state is not None:
            set_rng_state(ctx.fwd_cpu_state)
        detached_inputs = detach_variable(tuple(inputs))
        with enable_grad():
            outputs = ctx.run_function(*detached_inputs)
    finally:
        if saved_state is not None:
            set_rng_state(saved_state)
    return outputs, detached_inputs


_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               early_stop=True, **kwargs):
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not None or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if context_fn is not None or debug:
        raise NotImplementedError("picotorch's checkpoint has no context_fn or debug mode")
    return _checkpoint_without_reentrant(function, preserve, early_stop, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """``functions`` (a Sequential or a list) cut into ``segments`` pieces, each but the last checkpointed."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(_run_segment(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return _run_segment(end + 1, len(functions) - 1, functions)(input)


def _run_segment(start, end, functions):
    def forward(input):
        for j in range(start, end + 1):
            input = functions[j](input)
        return input
    return forward


# ----------------------------------------------------------------------------- without reentrant backward


class _StopRecomputationError(Exception):
    pass


class _Frame:
    """One checkpointed call: the saved tensors of its recomputation, filled on the first unpack."""

    def __init__(self, recompute) -> None:
        self.recompute = recompute
        self.count = 0  # tensors packed in forward
        self.recomputed: list | None = None


def _checkpoint_without_reentrant(function, preserve, early_stop, args, kwargs):
    fwd_state = get_rng_state() if preserve else None
    frame = _Frame(None)

    def recompute():
        saved_state = get_rng_state() if preserve else None
        collected = []

        def pack(x):
            collected.append(x.detach() if isinstance(x, TensorImpl) else x)
            if early_stop and len(collected) == frame.count:
                raise _StopRecomputationError
            return None

        try:
            if fwd_state is not None:
                set_rng_state(fwd_state)
            with saved_tensors_hooks(pack, lambda _: None), enable_grad():
                function(*detach_variable(tuple(args)), **kwargs)
        except _StopRecomputationError:
            pass
        finally:
            if saved_state is not None:
                set_rng_state(saved_state)
        if len(collected) != frame.count:
            raise CheckpointError(f"torch.utils.checkpoint: A different number of tensors was saved during the "
                                  f"original forward and recomputation.\nNumber of tensors saved during forward: "
                                  f"{frame.count}\nNumber of tensors saved during recomputation: {len(collected)}.")
        frame.recomputed = collected

    def pack_hook(x):
        index = frame.count
        frame.count += 1
        return index

    def unpack_hook(index):
        if frame.recomputed is None:
            recompute()
        return frame.recomputed[index]

    with saved_tensors_hooks(pack_hook, unpack_hook):
        return function(*args, **kwargs)
