"""Kernels and the dispatcher: the bottom of picotorch's stack.

Models ``aten/src/ATen/native/`` (the kernels, one per op and device type) and
``aten/src/ATen/core/dispatch/Dispatcher.h`` (the table that picks a kernel for a call). Kernels take
and return tensors without autograd: they read ``tensor._data`` (an Array-API array) and build new
tensors with :func:`tensor_impl.new_tensor`.
"""
