"""``picotorch._C`` is built by the steps of ``initModule`` (torch/csrc/Module.cpp), in its order, and says so.

The expected order below is read from PyTorch's ``initModule``; the tests check that ``_C._init_steps()``
follows it, that each step's names are in ``_C`` and that no public name of ``_C`` comes from anywhere
else, that left-out steps give a reason, and that the registry refuses a name added twice.
"""

import pytest

import picotorch
from picotorch._C import _init_module

# calls of initModule in PyTorch 2.13's order (THPVariable_initModule calls initTorchFunctions)
INIT_MODULE_ORDER = [
    "TorchMethods", "torch::autograd::python_functions",
    "THPGenerator_init", "THPException_init", "THPSize_init", "THPDtype_init", "THPDTypeInfo_init",
    "THPLayout_init", "THPMemoryFormat_init", "THPQScheme_init", "THPDevice_init", "THPStream_init",
    "THPEvent_init", "NodeBase_init", "NodeIter_init", "THPVariable_initModule", "initTorchFunctions",
    "THPFunction_initModule", "THPEngine_initModule", "torch::onnx::initONNXBindings",
    "torch::autograd::initEnumTag", "torch::jit::initJITBindings", "torch::monitor::initMonitorBindings",
    "torch::impl::dispatch::initDispatchBindings", "torch::dynamo::initDynamoBindings",
    "torch::autograd::initReturnTypes", "torch::autograd::initNNFunctions", "torch::autograd::initFFTFunctions",
    "torch::autograd::initLinalgFunctions", "torch::autograd::initSpecialFunctions",
    "torch::profiler::initPythonBindings", "torch::cuda::initModule", "THPStorage_init",
]

# picotorch's _C names that torch._C (and its _VariableFunctions) do not have, and why
PICOTORCH_ONLY = {
    "set_default_dtype": "Python-level in torch/__init__.py",
    "_get_default_dtype": "a helper of picotorch's factories",
    "_set_tensor_class": "what torch's _initExtension finds by itself (torch.Tensor)",
    "_is_operand": "what Tensor's Python operators accept",
    "_dispatch_trace": "what a debug build's TORCH_SHOW_DISPATCH_TRACE prints, as a context manager",
    "_engine": "torch/autograd/variable.py makes torch's engine object",
}


def steps():
    return picotorch._C._init_steps()


def test_steps_follow_init_modules_order():
    names = [s.pytorch for s in steps()]
    positions = [names.index(call) for call in INIT_MODULE_ORDER]
    assert positions == sorted(positions), [names[p] for p in positions]


def test_every_added_name_is_in_C():
    for s in steps():
        for name in s.names:
            assert hasattr(picotorch._C, name), (s.pytorch, name)


def test_every_public_name_of_C_comes_from_exactly_one_step():
    added = [name for s in steps() for name in s.names]
    assert len(added) == len(set(added)), sorted(n for n in added if added.count(n) > 1)
    public = {name for name in dir(picotorch._C) if not name.startswith("_")}
    assert public <= set(added), sorted(public - set(added))


def test_left_out_steps_say_why_and_add_nothing():
    left_out = [s for s in steps() if s.left_out]
    assert len(left_out) > 20  # quantization, JIT, storages, CUDA streams ...
    for s in left_out:
        assert s.names == () and len(s.builds) > 10, s
    built = [s for s in steps() if not s.left_out]
    assert {"THPVariable_initModule", "initTorchFunctions", "torch::autograd::initNNFunctions"} <= {
        s.pytorch for s in built}
    assert all(s.builds for s in built)


def test_the_tensor_type_and_the_generated_functions_come_from_their_steps():
    by_call = {s.pytorch: s.names for s in steps()}
    assert "TensorBase" in by_call["THPVariable_initModule"]
    assert "_VariableFunctions" in by_call["initTorchFunctions"]
    assert by_call["torch::autograd::initNNFunctions"] == ("_nn",)
    assert picotorch._C.TensorBase.mul is not None and picotorch._C._VariableFunctions.mul is picotorch.mul


def test_the_registry_runs_steps_in_order_and_refuses_a_name_twice():
    calls = []

    @_init_module.step("first_init", "a")
    def first():
        calls.append("first")
        return {"a": 1}

    _init_module.left_out("skipped_init", "not modelled")

    @_init_module.step("second_init", "b")
    def second():
        calls.append("second")
        return {"b": 2}

    namespace = {}
    record = _init_module.run(namespace)
    assert calls == ["first", "second"] and namespace == {"a": 1, "b": 2}
    assert [(s.pytorch, s.names, s.left_out) for s in record] == [
        ("first_init", ("a",), False), ("skipped_init", (), True), ("second_init", ("b",), False)]

    @_init_module.step("again_init", "a again")
    def again():
        return {"a": 3}

    with pytest.raises(RuntimeError, match="_C.a is added twice: again by again_init"):
        _init_module.run(namespace)


def test_names_match_torch_C():
    torch = pytest.importorskip("torch")
    ours = {name for s in steps() for name in s.names}
    missing = sorted(name for name in ours - set(PICOTORCH_ONLY)
                     if not hasattr(torch._C, name) and not hasattr(torch._C._VariableFunctions, name))
    assert missing == []
    assert set(PICOTORCH_ONLY) <= ours
