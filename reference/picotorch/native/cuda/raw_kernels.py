"""Hand-written CUDA kernels, launched through CuPy: the one module where CuPy-only code lives.

Models the CUDA kernels of ``aten/src/ATen/native/cuda/``:

- ``BinaryAddSubKernel.cu`` (``add``: ``out = a + alpha * b``),
- ``BinaryMulKernel.cu`` (``mul``),
- ``ActivationThresholdKernel.cu`` (``threshold_backward``, the gradient of ``relu``),
- ``relu`` itself, which ATen routes to ``clamp_min(self, 0)`` (``TensorCompare.cu``),

and the grid-stride loop macro ``CUDA_KERNEL_LOOP`` of ``aten/src/ATen/cuda/detail/KernelUtils.h``.

Each kernel is a whole CUDA C source held in a Python string (``KERNEL_SOURCES``), so you can read
it, compile it with ``nvcc`` and launch it with ``cupy.RawKernel``. Differences from ATen, on
purpose: ATen writes each kernel once as a C++ lambda and lets ``TensorIterator`` and
``gpu_kernel`` (``aten/src/ATen/native/cuda/Loops.cuh``, ``CUDALoops.cuh``) handle broadcasting,
strides, type casts and vectorised loads. Here the caller has already broadcast, cast and made the
arrays contiguous, so a kernel only walks ``n`` elements of flat memory.

Nothing here imports CuPy when the module is imported: a machine without CuPy (or without a GPU,
or without a driver) can import this module, read the sources and ask :func:`cupy_available`.
"""

from __future__ import annotations

import functools
import importlib

import numpy

# ---------------------------------------------------------------------------------------------
# The CUDA sources.
#
# Every source has the same shape:
#   1. a templated __device__ function that does the work for one scalar type `scalar_t`,
#   2. one `extern "C" __global__` kernel per dtype (NAME_float32, NAME_float64) that calls it.
# `extern "C"` switches off C++ name mangling, so the kernel is found by its plain name
# (`cupy.RawKernel(source, "add_float32")`, or `.entry add_float32` in the PTX nvcc writes).
# A template alone compiles to nothing: only the explicit kernels make code.
# ---------------------------------------------------------------------------------------------

_GRID_STRIDE_NOTE = """\
// The grid-stride loop (ATen's CUDA_KERNEL_LOOP in aten/src/ATen/cuda/detail/KernelUtils.h):
// thread `i` of the whole grid handles elements i, i + stride, i + 2*stride, ... where
// stride = (threads per block) * (blocks in the grid). So any grid size covers any n, and
// the launcher may cap the number of blocks. The index is 64-bit so that n > 2**31 works.
"""

ADD_SOURCE = _GRID_STRIDE_NOTE + r"""
// out = a + alpha * b, as CUDAFunctor_add in aten/src/ATen/native/cuda/BinaryAddSubKernel.cu.
template <typename scalar_t>
__device__ void add_impl(const scalar_t* a, const scalar_t* b, scalar_t alpha,
                         scalar_t* out, long long n) {
  long long stride = (long long)blockDim.x * gridDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = a[i] + alpha * b[i];
  }
}

extern "C" __global__ void add_float32(const float* a, const float* b, float alpha,
                                       float* out, long long n) {
  add_impl<float>(a, b, alpha, out, n);
}

extern "C" __global__ void add_float64(const double* a, const double* b, double alpha,
                                       double* out, long long n) {
  add_impl<double>(a, b, alpha, out, n);
}
"""

MUL_SOURCE = _GRID_STRIDE_NOTE + r"""
// out = a * b, as the multiply functor in aten/src/ATen/native/cuda/BinaryMulKernel.cu.
template <typename scalar_t>
__device__ void mul_impl(const scalar_t* a, const scalar_t* b, scalar_t* out, long long n) {
  long long stride = (long long)blockDim.x * gridDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = a[i] * b[i];
  }
}

extern "C" __global__ void mul_float32(const float* a, const float* b, float* out, long long n) {
  mul_impl<float>(a, b, out, n);
}

extern "C" __global__ void mul_float64(const double* a, const double* b, double* out,
                                       long long n) {
  mul_impl<double>(a, b, out, n);
}
"""

RELU_SOURCE = _GRID_STRIDE_NOTE + r"""
// out = max(x, 0). ATen computes relu as clamp_min(x, 0), which lets NaN through.
// `x < 0 ? 0 : x` does too (NaN < 0 is false), and keeps -0.0 as -0.0, as torch.relu on CPU does.
template <typename scalar_t>
__device__ void relu_impl(const scalar_t* x, scalar_t* out, long long n) {
  long long stride = (long long)blockDim.x * gridDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    scalar_t v = x[i];
    out[i] = v < scalar_t(0) ? scalar_t(0) : v;
  }
}

extern "C" __global__ void relu_float32(const float* x, float* out, long long n) {
  relu_impl<float>(x, out, n);
}

extern "C" __global__ void relu_float64(const double* x, double* out, long long n) {
  relu_impl<double>(x, out, n);
}
"""

THRESHOLD_BACKWARD_SOURCE = _GRID_STRIDE_NOTE + r"""
// grad_input = (x <= threshold) ? 0 : grad, as threshold_kernel_impl in
// aten/src/ATen/native/cuda/ActivationThresholdKernel.cu with value = 0 and other = grad.
// This is relu's backward (derivatives.yaml: threshold_backward(grad, result, 0)).
// A NaN input lets its gradient through, because NaN <= threshold is false.
template <typename scalar_t>
__device__ void threshold_backward_impl(const scalar_t* grad, const scalar_t* x,
                                        scalar_t threshold, scalar_t* out, long long n) {
  long long stride = (long long)blockDim.x * gridDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = x[i] <= threshold ? scalar_t(0) : grad[i];
  }
}

extern "C" __global__ void threshold_backward_float32(const float* grad, const float* x,
                                                      float threshold, float* out, long long n) {
  threshold_backward_impl<float>(grad, x, threshold, out, n);
}

extern "C" __global__ void threshold_backward_float64(const double* grad, const double* x,
                                                      double threshold, double* out,
                                                      long long n) {
  threshold_backward_impl<double>(grad, x, threshold, out, n);
}
"""

KERNEL_SOURCES: dict[str, str] = {
    "add": ADD_SOURCE,
    "mul": MUL_SOURCE,
    "relu": RELU_SOURCE,
    "threshold_backward": THRESHOLD_BACKWARD_SOURCE,
}

# The dtypes every source has a kernel for; the kernel of NAME for DTYPE is called NAME_DTYPE.
SUPPORTED_DTYPES: tuple[str, ...] = ("float32", "float64")

# What PyTorch calls these numpy dtypes in its "not implemented for 'Half'" messages.
_TORCH_SCALAR_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "float32": "Float", "float64": "Double",
}

THREADS_PER_BLOCK = 256
MAX_BLOCKS = 4096  # the grid-stride loop lets us cap the grid; every element is still visited


def kernel_names(name: str) -> list[str]:
    """The ``extern "C"`` kernels that ``KERNEL_SOURCES[name]`` defines, one per dtype."""
    return [f"{name}_{dtype}" for dtype in SUPPORTED_DTYPES]


# ---------------------------------------------------------------------------------------------
# Is there a GPU we can use? Never raises.
# ---------------------------------------------------------------------------------------------


def _import_cupy():
    """The ``cupy`` module, or None when it cannot be imported (absent, or a broken install)."""
    try:
        return importlib.import_module("cupy")
    except Exception:  # ImportError, but also a CUDA library that fails to load
        return None


def cupy_installed() -> bool:
    """Whether CuPy can be imported: picotorch's "compiled with CUDA" (``torch.cuda._is_compiled``)."""
    return _import_cupy() is not None


@functools.cache
def cupy_available() -> bool:
    """Whether CuPy can run kernels here. Never raises; the answer is cached.

    Three checks, in this order, because each one can fail on a machine without a GPU:
    ``import cupy`` (CuPy not installed), ``cupy.is_available()`` (installed, but no device),
    and one real array operation (without a driver it raises ``CUDARuntimeError``).
    """
    try:
        cupy = _import_cupy()
        if cupy is None or not cupy.is_available():
            return False
        return float(cupy.ones(1).sum()) == 1.0  # a real op on the device, copied back
    except Exception:
        return False


# ---------------------------------------------------------------------------------------------
# Compiling and launching.
# ---------------------------------------------------------------------------------------------


@functools.cache
def _compiled_kernel(name: str, dtype: str):
    """``cupy.RawKernel`` for kernel ``name`` and ``dtype``, compiled (by NVRTC) on first use."""
    import cupy  # only here and in _launch: importing this module must not need CuPy

    return cupy.RawKernel(KERNEL_SOURCES[name], f"{name}_{dtype}")


def _kernel_for(name: str, *arrays):
    """Check the arrays agree, and return the compiled kernel for their dtype."""
    first = arrays[0]
    for other in arrays[1:]:
        if other.shape != first.shape or other.dtype != first.dtype:
            raise ValueError(
                f"{name}: arrays must have equal shape and dtype (the caller broadcasts and "
                f"casts first), got {first.shape}/{first.dtype} and {other.shape}/{other.dtype}"
            )
    dtype = first.dtype.name
    if dtype not in SUPPORTED_DTYPES:
        scalar = _TORCH_SCALAR_NAMES.get(dtype, dtype)
        raise NotImplementedError(f'"{name}_cuda" not implemented for \'{scalar}\'')
    return _compiled_kernel(name, dtype)


def _grid_size(n: int) -> int:
    """Blocks to launch for ``n`` elements: enough for one element per thread, at most MAX_BLOCKS."""
    return min((n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK, MAX_BLOCKS)


def _launch(name: str, inputs: list, scalars: list):
    """Run kernel ``name`` over equal-shaped ``inputs``; return a new array of their shape.

    The kernel's arguments are: the inputs, the scalars (cast to the inputs' dtype, because a
    Python float would be passed as a C ``double``), the output, and the element count ``n``.
    """
    import cupy  # see _compiled_kernel

    kernel = _kernel_for(name, *inputs)
    inputs = [cupy.ascontiguousarray(a) for a in inputs]
    out = cupy.empty_like(inputs[0])
    n = out.size
    if n == 0:
        return out  # a grid of zero blocks is an invalid launch
    scalar_type = out.dtype.type
    args = (*inputs, *(scalar_type(s) for s in scalars), out, numpy.int64(n))
    kernel((_grid_size(n),), (THREADS_PER_BLOCK,), args)
    return out


def add(a, b, alpha=1):
    """``a + alpha * b`` on the GPU; ``a`` and ``b`` are CuPy arrays of equal shape and dtype."""
    return _launch("add", [a, b], [alpha])


def mul(a, b):
    """``a * b`` on the GPU; ``a`` and ``b`` are CuPy arrays of equal shape and dtype."""
    return _launch("mul", [a, b], [])


def relu(a):
    """``max(a, 0)`` elementwise on the GPU (NaN stays NaN)."""
    return _launch("relu", [a], [])


def threshold_backward(grad, x, threshold=0):
    """``0 where x <= threshold, else grad``: the gradient of relu when ``threshold`` is 0."""
    return _launch("threshold_backward", [grad, x], [threshold])
