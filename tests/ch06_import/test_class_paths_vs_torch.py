"""Where each class lives: every public class picotorch has at one of torch's paths prints as torch's does there
(``<class 'torch.optim.adamw.AdamW'>``, ``<class 'torch.utils.data.sampler.RandomSampler'>``), the library's name
aside. A learner who prints a class, or reads its ``__module__`` to find the file, is sent to PyTorch's file."""

from __future__ import annotations

import types

import pytest

import picotorch

torch = pytest.importorskip("torch")

# picotorch's stand-ins for C++ types, which live in one Python module where torch's live in another extension
KNOWN_DIFFERENT = {
    "torch.DisableTorchFunction": "torch._C's type; picotorch's _C._torch_function holds its context managers",
    "torch.DisableTorchFunctionSubclass": "the same",
    "torch.DispatchKey": "a pybind enum in torch, a Python Enum here",
    "torch.nn.modules.module.BackwardHook": "torch.utils.hooks holds it; picotorch's module hooks keep it beside "
                                            "BackwardHookFunction (nn/modules/_functions.py)",
}


def _class_paths(ours, theirs, prefix: str, seen: set) -> list[tuple[str, str, str]]:
    found = []
    for name in dir(ours):
        if name.startswith("_"):
            continue
        mine, torchs = getattr(ours, name, None), getattr(theirs, name, None)
        if isinstance(mine, type) and isinstance(torchs, type):
            found.append((prefix + name, repr(mine).replace("picotorch", "torch"), repr(torchs)))
        elif isinstance(mine, types.ModuleType) and isinstance(torchs, types.ModuleType) \
                and mine.__name__.startswith("picotorch") and mine.__name__ not in seen:
            seen.add(mine.__name__)
            found += _class_paths(mine, torchs, prefix + name + ".", seen)
    return found


def test_every_shared_class_prints_with_torchs_module():
    paths = _class_paths(picotorch, torch, "torch.", set())
    different = [(path, mine, torchs) for path, mine, torchs in paths
                 if mine != torchs and path not in KNOWN_DIFFERENT]
    assert different == []
    assert len(paths) > 300  # the walk reached nn, optim, utils.data, autograd...
    assert ("torch.optim.AdamW", "<class 'torch.optim.adamw.AdamW'>", "<class 'torch.optim.adamw.AdamW'>") in paths
