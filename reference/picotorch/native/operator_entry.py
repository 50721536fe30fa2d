"""One operator's kernels by dispatch key, and the table computed from them.

Models ``aten/src/ATen/core/dispatch/OperatorEntry.cpp``. The generated code registers, for each
overload (``mul.Tensor``), the kernels its ``dispatch:`` entry names (``CPU``, ``CUDA``, or the alias
key ``CompositeImplicitAutograd``) and its autograd kernel (the alias key ``Autograd``). From those the
entry computes, for every runtime key, which kernel runs (NOTE [DispatchTable computation]):

    1. a kernel registered to the key itself                         [kernel]
    2. a CompositeExplicitAutograd kernel, for a backend key         [default backend kernel]
    3. a CompositeImplicitAutograd kernel, for a backend or autograd
       key, unless the op has a kernel of its own for that backend   [math kernel]
    4. the Autograd kernel, for an autograd key                      [autograd kernel]
    5. a fallback registered for the key by the whole library        [backend fallback]
    otherwise none: calling it raises "Could not run ..." (:meth:`OperatorEntry.report_error`)

``_dispatch_dump`` prints what was registered (:meth:`dump_state`), ``_dispatch_dump_table`` the
computed table (:meth:`dump_computed_table`).

picotorch's autograd kernels call the backend kernel through ``kernel_for`` (``native/dispatcher.py``),
which reads the backend slots directly: this table describes the dispatch, the call path stays fast.
Its autograd kernel also does what PyTorch's ``ADInplaceOrView`` kernels do for in-place and view ops
(``bump_version``, ``as_view``), so the table names that one function under both keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..c10.dispatch_key import (
    RUNTIME_KEYS,
    DispatchKey,
    DispatchKeySet,
    backend_of_autograd_key,
    is_backend_key,
    runtime_keys_of,
)

K = DispatchKey


@dataclass
class AnnotatedKernel:
    """A kernel and where it was registered (``debug``), as ``_dispatch_dump`` shows it."""

    kernel: object
    debug: str
    fallthrough: bool = False


# NOTE [Backend fallbacks]
# A fallback serves one key for every operator that has no kernel of its own there. picotorch has
# the fallthrough ones a tensor's keys need: ADInplaceOrView (the autograd kernel does its work) and
# the autocast keys (picotorch has no autocast). A fallthrough kernel is skipped: the dispatcher
# takes the next key down.
BACKEND_FALLBACKS: dict[DispatchKey, AnnotatedKernel] = {}


def register_fallthrough(key: DispatchKey, debug: str) -> None:
    BACKEND_FALLBACKS[key] = AnnotatedKernel(None, debug, fallthrough=True)


def _included_in_alias(key: DispatchKey, alias: DispatchKey) -> bool:
    """Is ``key`` one of the runtime keys ``alias`` stands for (``isIncludedInAlias``)?"""
    return key != K.Undefined and runtime_keys_of(alias).has(key)


class OperatorEntry:
    """The kernels of one overload, by the key they were registered to."""

    def __init__(self, name: str, schema: str, debug: str):
        self.name = name  # "aten::mul.Tensor"
        self.schema = schema  # "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor"
        self.debug = debug
        self.kernels: dict[DispatchKey, AnnotatedKernel] = {}

    def register_kernel(self, key: DispatchKey, kernel, debug: str) -> None:
        self.kernels[key] = AnnotatedKernel(kernel, debug)

    def has_kernel_for_dispatch_key(self, key: DispatchKey) -> bool:
        """Registered to ``key`` itself (an alias key counts as itself), as PyTorch's helper."""
        return key in self.kernels

    # ------------------------------------------------------------------ the computed table

    def compute_dispatch_table_entry(self, key: DispatchKey) -> tuple[AnnotatedKernel | None, str]:
        """The kernel that runs for runtime ``key`` and why (the rules in the module docstring)."""
        if key in self.kernels:
            return self.kernels[key], "kernel"
        explicit = self.kernels.get(K.CompositeExplicitAutograd)
        if explicit is not None and (key == K.Undefined or is_backend_key(key)):
            return explicit, "default backend kernel"
        math = self.kernels.get(K.CompositeImplicitAutograd)
        if math is not None and (key == K.Undefined or _included_in_alias(key, K.CompositeImplicitAutograd)):
            if not self._has_backend_kernel(key):
                return math, "math kernel"
        autograd = self.kernels.get(K.Autograd)
        if autograd is not None and _included_in_alias(key, K.Autograd):
            return autograd, "autograd kernel"
        if key in BACKEND_FALLBACKS:
            return BACKEND_FALLBACKS[key], "backend fallback"
        return None, "missing"

    def _has_backend_kernel(self, key: DispatchKey) -> bool:
        """An autograd key whose backend has a kernel of its own (or a CompositeExplicitAutograd one)
        does not take the math kernel: the autograd formula must see the backend kernel's op."""
        backend = backend_of_autograd_key(key)
        return K.CompositeExplicitAutograd in self.kernels or (backend is not None and backend in self.kernels)

    def computed_table(self):
        """``(key, kernel, kind)`` for each key with a kernel: ``Undefined`` first, then by priority."""
        for key in (K.Undefined, *RUNTIME_KEYS):
            kernel, kind = self.compute_dispatch_table_entry(key)
            if kernel is not None:
                yield key, kernel, kind

    def fallthrough_keys(self) -> DispatchKeySet:
        """The keys a call skips for this operator (its table holds a fallthrough there)."""
        return DispatchKeySet(key for key, kernel, _ in self.computed_table() if kernel.fallthrough)

    def list_all_dispatch_keys(self) -> str:
        """``[CPU, CUDA, ...]``: the runtime keys with a kernel, as the "Could not run" error lists them."""
        return "[" + ", ".join(key.name for key, _, _ in self.computed_table() if key != K.Undefined) + "]"

    # ------------------------------------------------------------------ dumps

    def dump_state(self) -> str:
        """What was registered, in DispatchKey order (``dumpState``): what ``_dispatch_dump`` prints."""
        lines = [f"name: {self.name}", f"schema: {self.schema}", f"debug: {self.debug}",
                 "alias analysis kind: FROM_SCHEMA"]
        for key in sorted(self.kernels):  # the enum's order: backend keys, then autograd, then alias keys
            alias = "[alias]" if key in (K.Autograd, K.CompositeImplicitAutograd, K.CompositeExplicitAutograd) else ""
            lines.append(f"{key.name}{alias}: {self.kernels[key].debug} :: (none) [ boxed ]")
        return "\n".join(lines) + "\n"

    def dump_computed_table(self) -> str:
        """One line per runtime key with a kernel (``dumpComputedTable``): ``_dispatch_dump_table``."""
        return "".join(f"{key.name}: {'fallthrough ' if kernel.fallthrough else ''}{kernel.debug} [{kind}]\n"
                       for key, kernel, kind in self.computed_table())

    def report_error(self, key: DispatchKey | str) -> str:
        """The message of the NotImplementedError raised when ``key`` has no kernel (``reportError``)."""
        key_name = key if isinstance(key, str) else key.name
        # BEGIN SOLUTION 5.2: build the "Could not run ..." message PyTorch raises when a key has no kernel
        return (f"Could not run '{self.name}' with arguments from the '{key_name}' backend. This could be "
                "because the operator doesn't exist for this backend, or was omitted during the "
                "selective/custom build process (if using custom build). If you are a Facebook employee "
                "using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. "
                f"'{self.name}' is only available for these backends: {self.list_all_dispatch_keys()}.\n\n"
                + self.dump_computed_table())
        # END SOLUTION
