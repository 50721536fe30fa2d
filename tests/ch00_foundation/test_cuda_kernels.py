"""The CUDA layer: raw kernels (``picotorch/native/cuda/raw_kernels.py``) and ``picotorch.cuda``.

What runs where:

- everywhere: the CuPy probe never raises (CuPy absent, broken, without a GPU, without a driver),
  ``picotorch.cuda`` raises what ``torch.cuda`` raises, the launcher passes the right arguments;
- where ``nvcc`` is installed: every CUDA source compiles to PTX with the expected kernels;
- where CuPy has a GPU: the kernels agree with NumPy.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

_REFERENCE = Path(__file__).resolve().parents[2] / "reference"
# While the package is being built its modules are loaded by file path instead.
_PACKAGE_EXISTS = (_REFERENCE / "picotorch" / "__init__.py").exists()


def _import_kernels():
    """``picotorch.native.cuda.raw_kernels``; by file path while the package does not exist yet."""
    if _PACKAGE_EXISTS:
        return importlib.import_module("picotorch.native.cuda.raw_kernels")
    path = _REFERENCE / "picotorch" / "native" / "cuda" / "raw_kernels.py"
    spec = importlib.util.spec_from_file_location("_cuda_kernels_by_path", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cuda_kernels = _import_kernels()
HAS_GPU = cuda_kernels.cupy_available()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs CuPy and a CUDA GPU")


@pytest.fixture
def fresh_probe(monkeypatch):
    """Forget the cached CuPy probe before and after the test (which may fake ``cupy``)."""
    cuda_kernels.cupy_available.cache_clear()
    yield monkeypatch
    cuda_kernels.cupy_available.cache_clear()


# --- (a) every source compiles ----------------------------------------------------------------


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("name", sorted(cuda_kernels.KERNEL_SOURCES))
def test_kernel_source_compiles_to_ptx(name, tmp_path):
    source = tmp_path / f"{name}.cu"
    ptx = tmp_path / f"{name}.ptx"
    source.write_text(cuda_kernels.KERNEL_SOURCES[name])
    command = ["nvcc", "--ptx", "-arch=sm_90", "-o", str(ptx), str(source)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    text = ptx.read_text()
    for kernel in cuda_kernels.kernel_names(name):
        assert f".entry {kernel}(" in text


def test_every_kernel_has_one_source_per_name():
    assert set(cuda_kernels.KERNEL_SOURCES) == {"add", "mul", "relu", "threshold_backward"}
    for name, source in cuda_kernels.KERNEL_SOURCES.items():
        for kernel in cuda_kernels.kernel_names(name):
            assert f'extern "C" __global__ void {kernel}(' in source
        assert "gridDim.x" in source  # a grid-stride loop


# --- (b) the CuPy probe never raises ----------------------------------------------------------


def test_cupy_available_is_a_bool_and_cached():
    first = cuda_kernels.cupy_available()
    assert isinstance(first, bool)
    assert cuda_kernels.cupy_available() is first


def test_probe_without_cupy(fresh_probe):
    fresh_probe.setitem(sys.modules, "cupy", None)  # makes `import cupy` raise ImportError
    assert cuda_kernels.cupy_available() is False
    assert cuda_kernels.cupy_installed() is False


class _BrokenCupyFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a ``cupy`` whose import fails as a CUDA library that cannot be loaded does."""

    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name == "cupy" else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        raise OSError("libcudart.so.12: cannot open shared object file")


def test_probe_with_cupy_that_fails_to_import(fresh_probe):
    fresh_probe.delitem(sys.modules, "cupy", raising=False)
    fresh_probe.setattr(sys, "meta_path", [_BrokenCupyFinder(), *sys.meta_path])
    assert cuda_kernels.cupy_available() is False
    assert cuda_kernels.cupy_installed() is False


class CUDARuntimeError(RuntimeError):
    """Stands in for ``cupy_backends.cuda.api.runtime.CUDARuntimeError``."""


def _fake_cupy(*, available=True, array_op_works=True, driver_version=12040, devices=0):
    """A module that looks like CuPy on a machine with a given GPU situation."""

    def is_available():
        if isinstance(available, BaseException):
            raise available
        return available

    def ones(shape):
        if not array_op_works:
            raise CUDARuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient")
        return np.ones(shape)

    def driver_get_version():
        if isinstance(driver_version, BaseException):
            raise driver_version
        return driver_version

    runtime = types.SimpleNamespace(
        driverGetVersion=driver_get_version, getDeviceCount=lambda: devices
    )
    fake = types.ModuleType("cupy")
    fake.is_available, fake.ones = is_available, ones
    fake.cuda = types.SimpleNamespace(runtime=runtime)
    return fake


@pytest.mark.parametrize(
    "situation",
    [
        {"available": False},
        {"available": CUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")},
        {"available": True, "array_op_works": False},
    ],
    ids=["no-device", "is_available-raises", "array-op-raises"],
)
def test_probe_with_cupy_but_no_gpu(fresh_probe, situation):
    fresh_probe.setitem(sys.modules, "cupy", _fake_cupy(**situation))
    assert cuda_kernels.cupy_available() is False
    assert cuda_kernels.cupy_installed() is True


def test_probe_with_a_working_fake_cupy(fresh_probe):
    fresh_probe.setitem(sys.modules, "cupy", _fake_cupy())
    assert cuda_kernels.cupy_available() is True


# --- the launcher, checked with a CuPy that records instead of running -----------------------


class _RecordingRawKernel:
    """Stands in for ``cupy.RawKernel``: records launches and computes the result with NumPy."""

    launches: list = []
    reference = {
        "add": lambda a, b, alpha: a + alpha * b,
        "mul": lambda a, b: a * b,
        "relu": lambda x: np.where(x < 0, 0, x),
        "threshold_backward": lambda g, x, t: np.where(x <= t, 0, g),
    }

    def __init__(self, source, name):
        self.source, self.name = source, name

    def __call__(self, grid, block, args):
        self.launches.append((self.name, grid, block, args))
        *operands, out, n = args
        op = self.name.rsplit("_float", 1)[0]
        out[...] = self.reference[op](*operands)


@pytest.fixture
def recording_cupy(monkeypatch):
    fake = types.ModuleType("cupy")
    fake.RawKernel = _RecordingRawKernel
    fake.ascontiguousarray, fake.empty_like = np.ascontiguousarray, np.empty_like
    monkeypatch.setitem(sys.modules, "cupy", fake)
    cuda_kernels._compiled_kernel.cache_clear()
    _RecordingRawKernel.launches = []
    yield _RecordingRawKernel.launches
    cuda_kernels._compiled_kernel.cache_clear()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_launch_passes_typed_scalars_and_a_64_bit_count(recording_cupy, dtype):
    a = np.arange(1000, dtype=dtype)
    out = cuda_kernels.add(a, a, 0.5)
    np.testing.assert_array_equal(out, a * 1.5)
    [(name, grid, block, args)] = recording_cupy
    assert name == f"add_{dtype}"
    assert type(args[2]) is np.dtype(dtype).type  # alpha: a C float for float32, not a double
    assert type(args[-1]) is np.int64 and args[-1] == 1000
    assert block == (cuda_kernels.THREADS_PER_BLOCK,)
    assert grid[0] * block[0] >= 1000


def test_launch_caps_the_grid(recording_cupy):
    big = np.zeros(cuda_kernels.THREADS_PER_BLOCK * cuda_kernels.MAX_BLOCKS * 2, dtype="float32")
    cuda_kernels.relu(big)
    assert recording_cupy[0][1] == (cuda_kernels.MAX_BLOCKS,)


def test_launch_skips_empty_arrays(recording_cupy):
    assert cuda_kernels.mul(np.zeros((0, 3)), np.zeros((0, 3))).shape == (0, 3)
    assert recording_cupy == []


def test_launch_rejects_mismatched_or_unsupported_arrays(recording_cupy):
    with pytest.raises(ValueError, match="equal shape and dtype"):
        cuda_kernels.mul(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="equal shape and dtype"):
        cuda_kernels.mul(np.zeros(3), np.zeros(3, dtype="float32"))
    with pytest.raises(NotImplementedError, match="\"relu_cuda\" not implemented for 'Long'"):
        cuda_kernels.relu(np.zeros(3, dtype="int64"))


# --- (c) picotorch.cuda never crashes, and raises what torch.cuda raises ---------------------


@pytest.fixture
def pcuda(fresh_probe):
    """``picotorch.cuda``, reset to "not initialised"; skipped until the package exists."""
    if not _PACKAGE_EXISTS:
        pytest.skip("the picotorch package does not exist yet")
    module = importlib.import_module("picotorch.cuda")
    fresh_probe.setattr(importlib.import_module("picotorch.native.cuda"), "_initialized", False)  # its state
    return module


def test_is_available_matches_the_probe(pcuda):
    assert pcuda.is_available() is HAS_GPU
    if not HAS_GPU:
        assert pcuda.device_count() == 0


@pytest.mark.parametrize(
    "situation",
    [{"available": False}, {"available": ValueError("boom")}, {"array_op_works": False}],
)
def test_is_available_never_raises(pcuda, fresh_probe, situation):
    fresh_probe.setitem(sys.modules, "cupy", _fake_cupy(**situation))
    assert pcuda.is_available() is False
    assert pcuda.device_count() == 0


_NO_DRIVER = (
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
    "installed a driver from http://www.nvidia.com/Download/index.aspx"
)


@pytest.mark.parametrize(
    ("driver_version", "message"),
    [(12040, "No CUDA GPUs are available"), (0, _NO_DRIVER), (OSError("no libcuda"), _NO_DRIVER)],
    ids=["driver-but-no-gpu", "no-driver", "driver-query-fails"],
)
def test_lazy_init_with_cupy_but_no_gpu(pcuda, fresh_probe, driver_version, message):
    fake = _fake_cupy(available=False, driver_version=driver_version)
    fresh_probe.setitem(sys.modules, "cupy", fake)
    for call in (pcuda._lazy_init, pcuda.init, pcuda.current_device, pcuda.synchronize):
        with pytest.raises(RuntimeError) as caught:
            call()
        assert str(caught.value) == message
    with pytest.raises(RuntimeError, match="No CUDA GPUs|Found no NVIDIA driver"):
        pcuda.set_device(0)
    assert pcuda.is_initialized() is False


def test_lazy_init_without_cupy(pcuda, fresh_probe):
    fresh_probe.setitem(sys.modules, "cupy", None)
    for call in (pcuda._lazy_init, pcuda.current_device, pcuda.synchronize):
        with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
            call()
    with pytest.raises(AttributeError, match="has no attribute '_cuda_setDevice'"):
        pcuda.set_device(0)


@pytest.mark.skipif(
    HAS_GPU or not cuda_kernels.cupy_installed(), reason="needs CuPy installed and no usable GPU"
)
def test_lazy_init_with_real_cupy_and_no_gpu(pcuda):
    with pytest.raises(RuntimeError) as caught:
        pcuda._lazy_init()
    assert str(caught.value) in ("No CUDA GPUs are available", _NO_DRIVER)


def _outcome(call):
    try:
        return ("returned", call())
    except Exception as err:
        return (type(err).__name__, str(err))


_PROGRAMS = {
    "is_available": lambda cuda: cuda.is_available(),
    "device_count": lambda cuda: cuda.device_count(),
    "is_initialized": lambda cuda: cuda.is_initialized(),
    "_lazy_init": lambda cuda: cuda._lazy_init(),
    "init": lambda cuda: cuda.init(),
    "current_device": lambda cuda: cuda.current_device(),
    "synchronize": lambda cuda: cuda.synchronize(),
    "synchronize('cpu')": lambda cuda: cuda.synchronize("cpu"),
    "set_device(0)": lambda cuda: cuda.set_device(0),
    "set_device('cuda:1')": lambda cuda: cuda.set_device("cuda:1"),
    "set_device(-1)": lambda cuda: cuda.set_device(-1),
    "set_device('cpu')": lambda cuda: cuda.set_device("cpu"),
    "set_device('cuda')": lambda cuda: cuda.set_device("cuda"),
    "set_device(None)": lambda cuda: cuda.set_device(None),
}


@pytest.mark.parametrize("program", sorted(_PROGRAMS))
def test_same_as_torch_cpu_build(pcuda, fresh_probe, program):
    torch = pytest.importorskip("torch")
    if torch.cuda._is_compiled():
        pytest.skip("compares with a CPU build of torch")
    fresh_probe.setitem(sys.modules, "cupy", None)  # picotorch "not compiled with CUDA" too
    run = _PROGRAMS[program]
    assert _outcome(lambda: run(pcuda)) == _outcome(lambda: run(torch.cuda))


# --- (d) on a GPU: the kernels agree with NumPy ----------------------------------------------


def _on_gpu(array):
    import cupy

    return cupy.asarray(array)


def _sample(dtype, size=3001, seed=0):
    """Values with negatives, zeros (both signs) and a NaN; an odd size leaves a partial block."""
    values = np.random.default_rng(seed).standard_normal(size).astype(dtype)
    values[:4] = [0.0, -0.0, np.nan, -1.0]
    return values


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_add_and_mul_on_gpu(dtype):
    a, b = _sample(dtype, seed=1), _sample(dtype, seed=2)
    # The GPU may fuse `a + alpha * b` into one fused multiply-add (one rounding, NumPy does two).
    atol = 1e-5 if dtype == "float32" else 1e-12
    got_add = cuda_kernels.add(_on_gpu(a), _on_gpu(b), 2.5).get()
    np.testing.assert_allclose(got_add, a + np.asarray(2.5, dtype) * b, rtol=1e-6, atol=atol)
    got_mul = cuda_kernels.mul(_on_gpu(a), _on_gpu(b)).get()
    np.testing.assert_array_equal(got_mul, a * b)  # one correctly rounded product on both
    assert got_add.dtype == got_mul.dtype == np.dtype(dtype)


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_and_its_backward_on_gpu(dtype):
    x, grad = _sample(dtype), _sample(dtype, seed=3)
    got = cuda_kernels.relu(_on_gpu(x)).get()
    np.testing.assert_array_equal(got, np.where(x < 0, 0, x))
    assert np.signbit(got[1])  # relu(-0.0) is -0.0, as torch.relu on CPU
    got_grad = cuda_kernels.threshold_backward(_on_gpu(grad), _on_gpu(x), 0.0).get()
    np.testing.assert_array_equal(got_grad, np.where(x <= 0, 0, grad))


@needs_gpu
def test_kernels_accept_non_contiguous_input():
    x = _sample("float32", size=64).reshape(8, 8)
    got = cuda_kernels.relu(_on_gpu(x).T).get()
    np.testing.assert_array_equal(got, np.where(x.T < 0, 0, x.T))


@needs_gpu
def test_picotorch_cuda_sees_the_gpu(pcuda):
    assert pcuda.is_available() is True
    assert pcuda.device_count() >= 1
    pcuda.set_device(0)
    assert pcuda.current_device() == 0
    pcuda.synchronize()
    assert pcuda.is_initialized() is True
