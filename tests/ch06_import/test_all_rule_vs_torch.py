"""``picotorch.__all__`` is assembled by torch/__init__.py's rule, and the rule, applied to torch, gives torch's.

The rule (PyTorch 2.13's ``torch/__init__.py``): a sorted list of Python-level names; every name of
``_C`` not starting with ``_`` and not ending in ``Base`` (their functions and classes renamed into the
package, ``TensorBase`` removed from it); every name of ``_C._VariableFunctions`` not starting with
``__`` copied into the package (except ``PRIVATE_OPS``) and exported when it does not start with ``_``;
then every name of the package whose value is a dtype.
"""

from collections import Counter

import pytest

import picotorch

PYTHON_LEVEL = ["BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor", "IntTensor", "LongTensor",
                "ShortTensor", "Tensor", "TypedStorage", "UntypedStorage", "are_deterministic_algorithms_enabled",
                "autograd", "cuda", "e", "enable_grad", "get_rng_state", "inf", "inference_mode", "initial_seed",
                "is_deterministic_algorithms_warn_only_enabled", "is_storage", "is_tensor", "linalg", "load",
                "manual_seed", "nan", "newaxis", "nn", "no_grad", "norm", "numel", "optim", "pi", "return_types",
                "save", "seed", "set_grad_enabled", "set_printoptions", "set_rng_state", "typename",
                "use_deterministic_algorithms", "utils"]


def test_all_is_the_rule_recomputed():
    C = picotorch._C
    expected = list(PYTHON_LEVEL)
    expected += [n for n in dir(C) if not n.startswith("_") and not n.endswith("Base")]
    expected += [n for n in dir(C._VariableFunctions) if not n.startswith("_") and n != "unique_dim"]
    expected += [n for n in dir(picotorch) if isinstance(getattr(picotorch, n), picotorch.dtype)]
    assert Counter(picotorch.__all__) == Counter(expected)
    assert PYTHON_LEVEL == sorted(PYTHON_LEVEL)


def test_every_exported_name_resolves_and_base_names_stay_out():
    for name in picotorch.__all__:
        assert hasattr(picotorch, name), name
    assert not hasattr(picotorch, "TensorBase") and picotorch._C.TensorBase is picotorch.Tensor.__mro__[1]
    assert "TensorBase" not in picotorch.__all__ and "_TensorBase" not in picotorch.__all__


def test_dtypes_come_from_init_extension_not_from_C():
    assert not hasattr(picotorch._C, "float32") and picotorch.float32 is picotorch.float
    assert {"float32", "float", "bool", "long", "bfloat16"} <= set(picotorch.__all__)


def test_module_of_builtins_is_the_package():
    assert picotorch.add.__module__ == "picotorch"      # a generated function (Q6.4)
    assert picotorch.zeros.__module__ == "picotorch"    # a hand-written _C function
    assert picotorch.Size.__module__ == "picotorch" and repr(picotorch.Size) == "<class 'picotorch.Size'>"
    assert picotorch.Generator.__module__ == "picotorch._C"  # kept, as torch keeps torch._C.Generator


def test_lazy_submodule_imports_on_first_access():
    viz = picotorch.viz
    assert viz.__name__ == "picotorch.viz"
    with pytest.raises(AttributeError, match="^module 'picotorch' has no attribute 'no_such_thing'$"):
        picotorch.no_such_thing  # noqa: B018


def test_rule_applied_to_torch_gives_torchs_all():
    torch = pytest.importorskip("torch")
    everything = set(torch.__all__)
    from_c = set(picotorch._c_exports(torch._C))
    assert from_c == {n for n in everything if n in set(dir(torch._C))}
    exported = {name for name, _, is_exported in picotorch._variable_function_names(torch._C._VariableFunctions)
                if is_exported}
    assert exported == {n for n in everything if n in set(dir(torch._C._VariableFunctions))}
    copied = {name for name, _, _ in picotorch._variable_function_names(torch._C._VariableFunctions)}
    assert {"_segment_reduce", "segment_reduce"} <= copied and "unique_dim" not in copied
    assert all(getattr(torch, name) is getattr(torch._C._VariableFunctions, source)
               for name, source, _ in picotorch._variable_function_names(torch._C._VariableFunctions)
               if not hasattr(torch.functional, name))  # torch.functional's Python versions replace a few


def test_module_of_builtins_matches_torch():
    torch = pytest.importorskip("torch")
    assert torch.add.__module__ == "torch" and torch.Size.__module__ == "torch"
    assert torch.Generator.__module__ == "torch._C"
    assert not hasattr(torch, "TensorBase")
