"""Dispatch keys, the tables and the dispatcher's helpers against PyTorch 2.13's ``torch._C._dispatch_*``.

The same programs run on both libraries: a tensor's key set (``_dispatch_keys``) for every dtype, with
and without requires_grad, in and out of grad mode; the key a call dispatches on (picotorch's trace
against the rule computed with torch's own key sets); what is registered and computed for an
operator. Devices torch cannot make here (``cuda``, ``xpu``) are checked against the rule
(``TensorImpl``'s constructor: backend, ADInplaceOrView, Autograd<backend>, Autocast<backend>).
"""

from __future__ import annotations

import io

import pytest

import picotorch
from picotorch.native.device import use_backend

torch = pytest.importorskip("torch")
xps = pytest.importorskip("array_api_strict")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]


def keys_on_both(program) -> tuple[str, str]:
    return str(program(picotorch)), str(program(torch))


def call_key(fn) -> str:
    """The key of the first ``[call]`` line picotorch's trace prints for ``fn()``."""
    out = io.StringIO()
    with picotorch._C._dispatch_trace(file=out):
        fn()
    first = out.getvalue().splitlines()[0]
    return first[first.index("key=[") + 5:-1]


def torch_call_key(*tensors) -> str:
    """PyTorch's rule, computed with its own sets: union of the tensors' keys, minus the excluded ones."""
    keys = torch._C._dispatch_keys(tensors[0])
    for t in tensors[1:]:
        keys = keys | torch._C._dispatch_keys(t)
    keys = keys - torch._C._dispatch_tls_local_exclude_set()
    return keys.highestPriorityTypeId().name


# ----------------------------------------------------------------------------- a tensor's keys


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("grad_mode", [True, False])
def test_every_tensor_carries_the_autograd_key_whatever_its_dtype(dtype, grad_mode):
    def program(T):
        with T.set_grad_enabled(grad_mode):
            return T._C._dispatch_keys(T.ones(2, dtype=getattr(T, dtype)))
    ours, theirs = keys_on_both(program)
    assert ours == theirs == "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)"


@pytest.mark.parametrize("make", [
    lambda T: T.ones(2, requires_grad=True),
    lambda T: T.ones(2, requires_grad=True) * 2,
    lambda T: T.ones(2, requires_grad=True).detach(),
    lambda T: T.ones(2, 3, requires_grad=True)[0],
    lambda T: T.ones(2, 3).t(),
    lambda T: T.tensor(3),
    lambda T: T.arange(6).reshape(2, 3),
])
def test_requires_grad_views_and_results_do_not_change_the_keys(make):
    ours, theirs = keys_on_both(lambda T: T._C._dispatch_keys(make(T)))
    assert ours == theirs


def test_no_grad_changes_no_key_and_excludes_only_autocast():
    def program(T):
        with T.no_grad():
            return (T._C._dispatch_keys(T.ones(2, requires_grad=True)), T._C._dispatch_tls_local_exclude_set(),
                    T._C._dispatch_tls_is_dispatch_key_excluded(T._C.DispatchKey.AutogradCPU),
                    T._C._dispatch_tls_is_dispatch_key_excluded(T._C.DispatchKey.AutocastCPU))
    ours, theirs = keys_on_both(program)
    assert ours == theirs
    assert "AutocastPrivateUse1)" in ours


def test_the_exclude_set_outside_no_grad():
    ours, theirs = keys_on_both(lambda T: T._C._dispatch_tls_local_exclude_set())
    assert ours == theirs


def test_meta_tensors_have_no_autocast_key():
    """torch makes meta tensors itself; picotorch backs ``meta`` with array_api_strict for the test."""
    with use_backend("meta", xps, [xps.Device("device1")]):
        ours = str(picotorch._C._dispatch_keys(picotorch.ones(2, device="meta")))
    assert ours == str(torch._C._dispatch_keys(torch.ones(2, device="meta"))) == \
        "DispatchKeySet(Meta, ADInplaceOrView, AutogradMeta)"


@pytest.mark.parametrize("device_type, expected", [
    ("cuda", "DispatchKeySet(CUDA, ADInplaceOrView, AutogradCUDA, AutocastCUDA)"),
    ("xpu", "DispatchKeySet(XPU, ADInplaceOrView, AutogradXPU, AutocastXPU)"),
])
def test_other_devices_follow_the_rule(device_type, expected):
    with use_backend(device_type, xps, [xps.Device("device1")]):
        keys = picotorch._C._dispatch_keys(picotorch.ones(2, device=device_type, requires_grad=True))
    assert str(keys) == expected


def test_key_sets_combine_as_in_torch():
    def program(T):
        K = T._C.DispatchKey
        s = T._C.DispatchKeySet(K.AutogradCPU) | T._C.DispatchKeySet(K.CPU)
        return (s, s.has(K.CPU), s.remove(K.CPU), s.add(K.ADInplaceOrView), s.highestPriorityTypeId(),
                s - T._C.DispatchKeySet(K.AutogradCPU), T._C.DispatchKeySet(K.CUDA) | s, str(K.AutogradCPU))
    ours, theirs = keys_on_both(program)
    assert ours == theirs


# ----------------------------------------------------------------------------- the key of a call


@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("grad_mode", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_a_cpu_call_dispatches_on_the_autograd_key(requires_grad, grad_mode, dtype):
    a = picotorch.ones(2, dtype=getattr(picotorch, dtype), requires_grad=requires_grad and dtype == "float32")
    with picotorch.set_grad_enabled(grad_mode):
        ours = call_key(lambda: picotorch.add(a, a))
    t = torch.ones(2, dtype=getattr(torch, dtype), requires_grad=requires_grad and dtype == "float32")
    with torch.set_grad_enabled(grad_mode):
        assert ours == torch_call_key(t, t) == "AutogradCPU"


def test_a_cuda_tensor_outranks_a_cpu_one():
    """torch cannot make a CUDA tensor here: the rule, with the CUDA tensor's keys written out."""
    with use_backend("cuda", xps, [xps.Device("device1")]):
        x = picotorch.ones(2, device="cuda")
        ours = call_key(lambda: x * picotorch.tensor(2.0))
    K = torch._C.DispatchKey
    cuda = torch._C.DispatchKeySet(K.CUDA) | torch._C.DispatchKeySet(K.AutogradCUDA)
    union = torch._C._dispatch_keys(torch.tensor(2.0)) | cuda
    rule = (union - torch._C._dispatch_tls_local_exclude_set()).highestPriorityTypeId().name
    assert ours == rule == "AutogradCUDA"


# ----------------------------------------------------------------------------- what an operator has


# ops whose schema and dispatch: entries are PyTorch's (picotorch's YAML gives some ops, e.g. sum and
# clone, CPU and CUDA kernels where PyTorch has a CompositeExplicitAutograd one)
FUNCTIONAL_OPS = ["aten::mul.Tensor", "aten::add.Tensor", "aten::exp", "aten::neg", "aten::mm"]
INPLACE_OPS = ["aten::mul_.Tensor", "aten::add_.Tensor", "aten::fill_.Scalar"]
VIEW_OPS = ["aten::view", "aten::_reshape_alias"]  # their schemas differ: PyTorch says SymInt
COMPOSITE_OPS = ["aten::matmul", "aten::flatten.using_ints", "aten::softmax.int", "aten::view_as"]


@pytest.mark.parametrize("name", FUNCTIONAL_OPS + INPLACE_OPS + COMPOSITE_OPS)
def test_dump_names_the_operator_and_its_schema_as_torch(name):
    ours, theirs = picotorch._C._dispatch_dump(name), torch._C._dispatch_dump(name)
    assert ours.splitlines()[:2] == theirs.splitlines()[:2]
    assert ours.splitlines()[3] == theirs.splitlines()[3] == "alias analysis kind: FROM_SCHEMA"


def _table(text: str) -> dict[str, str]:
    """``{key: "[kind]" (with "fallthrough" when it is one)}`` from a computed table."""
    rows = {}
    for line in text.splitlines():
        key, rest = line.split(": ", 1)
        rows[key] = ("fallthrough " if rest.startswith("fallthrough ") else "") + rest[rest.rindex("["):]
    return rows


@pytest.mark.parametrize("name", FUNCTIONAL_OPS + INPLACE_OPS + VIEW_OPS + COMPOSITE_OPS)
def test_the_computed_table_agrees_with_torch_on_every_key_both_have(name):
    """torch's CPU-only wheel has no CUDA kernels (its CUDA row is another kernel): CUDA is left out, and
    so are the autocast kernels some ops have in torch (picotorch has no autocast)."""
    ours = _table(picotorch._C._dispatch_dump_table(name))
    theirs = _table(torch._C._dispatch_dump_table(name))
    shared = [key for key in ours if key in theirs and key != "CUDA"
              and not (key.startswith("Autocast") and theirs[key] == "[kernel]")]
    assert len(shared) >= len(ours) - 7
    assert {k: ours[k] for k in shared} == {k: theirs[k] for k in shared}
    assert shared == [key for key in theirs if key in shared]  # the same order


@pytest.mark.parametrize("name, key", [
    ("aten::mul.Tensor", "CPU"), ("aten::mul.Tensor", "AutogradCPU"), ("aten::mul.Tensor", "Autograd"),
    ("aten::mul.Tensor", "CompositeImplicitAutograd"), ("aten::mul.Tensor", "AutocastCPU"),
    ("aten::reshape", "CompositeImplicitAutograd"), ("aten::reshape", "CPU"), ("aten::reshape", "Autograd"),
])
def test_has_kernel_for_dispatch_key_as_torch(name, key):
    ours = picotorch._C._dispatch_has_kernel_for_dispatch_key(name, key)
    assert ours == torch._C._dispatch_has_kernel_for_dispatch_key(name, key)


def test_bad_key_and_unknown_operator_as_torch():
    def program(T):
        try:
            T._C._dispatch_has_kernel_for_dispatch_key("aten::mul.Tensor", "Foo")
        except RuntimeError as err:
            return str(err), T._C._dispatch_dump("aten::no_such_op"), T._C._dispatch_dump_table("aten::no_such_op")
    ours, theirs = keys_on_both(program)
    assert ours == theirs


def test_no_kernel_is_a_not_implemented_error_naming_the_backend():
    with use_backend("xpu", xps, [xps.Device("device1")]):
        x = picotorch.ones(2, 2, device="xpu")
        with pytest.raises(NotImplementedError) as info:
            picotorch.mm(x, x)
    assert str(info.value).startswith("Could not run 'aten::mm' with arguments from the 'XPU' backend. ")
