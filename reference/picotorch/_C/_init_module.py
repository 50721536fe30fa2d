"""The ordered registry ``_C`` builds itself from: one entry per call in ``initModule`` (``torch/csrc/Module.cpp``).

PyTorch's ``initModule`` is a list of calls run top to bottom (``THPGenerator_init``, ``THPSize_init``,
``THPDtype_init``, ..., ``THPVariable_initModule``, ..., ``initNNFunctions``, ...), each adding its
types and functions to the new ``torch._C`` module. ``picotorch/_C/__init__.py`` is written the same
way: for each of those calls, in the same order, either a *step* (a function returning the names it
adds, registered with :func:`step`) or a :func:`left_out` entry saying in one line why picotorch has
no counterpart. :func:`run` then builds the module by running the steps in that order, and the
record it returns is what ``picotorch._C._init_steps()`` shows: the list cannot disagree with the
module, because the module is made from it.
"""

import types
from collections.abc import Callable
from typing import NamedTuple


class InitStep(NamedTuple):
    """One call of ``initModule`` and what picotorch did for it."""

    pytorch: str                # the call in torch/csrc/Module.cpp's initModule
    builds: str                 # what picotorch builds for it; for a left-out step, why there is nothing
    names: tuple[str, ...]      # the names it added to _C, in the order it added them
    left_out: bool


_REGISTERED: list[tuple[str, str, Callable[[], dict] | None]] = []


def step(pytorch: str, builds: str):
    """Register the decorated function as ``initModule``'s next step; it returns ``{name: object}`` to add."""
    def register(build: Callable[[], dict]) -> Callable[[], dict]:
        _REGISTERED.append((pytorch, builds, build))
        return build
    return register


def left_out(pytorch: str, why: str) -> None:
    """Record a call of ``initModule`` that picotorch does not model, with the reason."""
    _REGISTERED.append((pytorch, why, None))


def run(namespace: dict) -> tuple[InitStep, ...]:
    """Build ``_C``: run the registered steps in order, adding their names to ``namespace``."""
    done, registered = [], list(_REGISTERED)
    _REGISTERED.clear()  # each step runs once, even when a later one fails
    for pytorch, builds, build in registered:
        if build is None:
            done.append(InitStep(pytorch, builds, (), True))
            continue
        added = build()
        _check_new(namespace, added, pytorch)
        namespace.update(added)
        done.append(InitStep(pytorch, builds, tuple(added), False))
    return tuple(done)


def _check_new(namespace: dict, added: dict, pytorch: str) -> None:
    """A name belongs to one step: a second step adding it would make the list lie about who built it.

    Already there and allowed: the very object (a function of ``_C/__init__.py`` a step exports under its
    own name) and a submodule of ``_C`` the step's namespace replaces (``_return_types``).
    """
    for name, value in added.items():
        found = namespace.get(name, value)
        if found is not value and not isinstance(found, types.ModuleType):
            raise RuntimeError(f"_C.{name} is added twice: again by {pytorch}")
