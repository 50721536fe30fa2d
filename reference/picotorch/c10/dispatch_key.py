"""Dispatch keys and key sets: which kernel of an operator runs, named.

Models ``c10/core/DispatchKey.h`` and ``c10/core/DispatchKeySet.h``. Every tensor carries a set of
dispatch keys: its backend (``CPU``, ``CUDA``, ...), ``ADInplaceOrView``, its backend's autograd key
(``AutogradCPU``) and its autocast key (``AutocastCPU``), added when the tensor is made
(``TensorImpl``'s constructor). A call unions the sets of its tensor arguments, removes the keys the
thread excludes, and runs the kernel of the highest-priority key left: the autograd key first, whose
kernel records the graph and redispatches below autograd, to the backend key.

The keys are ordered here by priority, lowest first, which is the order ``DispatchKeySet`` prints
and iterates them. picotorch models the keys a learner meets in ``torch._C._dispatch_keys``:

    backends     CPU CUDA HIP XLA MPS IPU XPU HPU VE Lazy MTIA MAIA PrivateUse1..3 Meta
    then         BackendSelect, ADInplaceOrView, AutogradOther, Autograd<backend>..., Autocast<backend>...
    alias keys   Autograd, CompositeImplicitAutograd, CompositeExplicitAutograd (registration only)

PyTorch has more (Sparse*, Quantized*, Python, Functionalize, vmap's, ...), none of which picotorch has.

    >>> DispatchKeySet(DispatchKey.AutogradCPU) | DispatchKeySet(DispatchKey.CPU)
    DispatchKeySet(CPU, AutogradCPU)
    >>> tensor_key_set("cpu")
    DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)
"""

from __future__ import annotations

import enum

# The backend components, in PyTorch's order (C10_FORALL_BACKEND_COMPONENTS); each is also the name
# of its dense backend key, and ``Autograd<name>`` is its autograd key.
BACKENDS = ("CPU", "CUDA", "HIP", "XLA", "MPS", "IPU", "XPU", "HPU", "VE", "Lazy", "MTIA", "MAIA",
            "PrivateUse1", "PrivateUse2", "PrivateUse3", "Meta")
# Autocast keys are functionality keys of their own, in this order; not every backend has one.
AUTOCAST_BACKENDS = ("CPU", "MTIA", "MAIA", "XPU", "IPU", "HPU", "XLA", "MPS", "CUDA", "PrivateUse1")


class DispatchKey(enum.IntEnum):
    """``torch._C.DispatchKey``; the numbers are PyTorch's enum values (they are not the priority)."""

    Undefined = 0
    BackendSelect = 11
    ADInplaceOrView = 19
    AutogradOther = 20
    AutocastCPU = 24
    AutocastMTIA = 25
    AutocastMAIA = 26
    AutocastXPU = 27
    AutocastIPU = 28
    AutocastHPU = 29
    AutocastXLA = 30
    AutocastMPS = 31
    AutocastCUDA = 32
    AutocastPrivateUse1 = 33
    CPU = 49
    CUDA = 50
    HIP = 51
    XLA = 52
    MPS = 53
    IPU = 54
    XPU = 55
    HPU = 56
    VE = 57
    Lazy = 58
    MTIA = 59
    MAIA = 60
    PrivateUse1 = 61
    PrivateUse2 = 62
    PrivateUse3 = 63
    Meta = 64
    AutogradCPU = 134
    AutogradCUDA = 135
    AutogradHIP = 136
    AutogradXLA = 137
    AutogradMPS = 138
    AutogradIPU = 139
    AutogradXPU = 140
    AutogradHPU = 141
    AutogradVE = 142
    AutogradLazy = 143
    AutogradMTIA = 144
    AutogradMAIA = 145
    AutogradPrivateUse1 = 146
    AutogradPrivateUse2 = 147
    AutogradPrivateUse3 = 148
    AutogradMeta = 149
    # alias keys: a kernel registered to one fills the slots of several runtime keys
    Autograd = 150
    CompositeImplicitAutograd = 151
    CompositeExplicitAutograd = 154

    def __str__(self) -> str:  # an IntEnum prints its number; PyTorch's enum prints its name
        return f"DispatchKey.{self.name}"


K = DispatchKey

# NOTE [DispatchKeySet Internal Representation]
# A key set is one 64-bit word in PyTorch: a bit per backend component (CPU, CUDA, ...) and a bit per
# functionality (Dense, ADInplaceOrView, AutogradFunctionality, AutocastCPU, ...). ``CPU`` is Dense +
# the CPU bit, ``AutogradCPU`` AutogradFunctionality + the CPU bit. So the set {CPU, AutogradCUDA} also
# holds CUDA and AutogradCPU, and removing a key clears its functionality bit only (NOTE [Removing keys
# from DispatchKeySet Only Affects Functionality Keys]). picotorch keeps the same word, with the bits of
# the keys it models: a backend's bit is its index in BACKENDS, a functionality's is 16 + its index.
PER_BACKEND = ("Dense", "AutogradFunctionality")
FUNCTIONALITIES = ("Dense", "BackendSelect", "ADInplaceOrView", "AutogradOther", "AutogradFunctionality",
                   *("Autocast" + b for b in AUTOCAST_BACKENDS))
_BACKEND_BIT = {b: 1 << i for i, b in enumerate(BACKENDS)}
_FUNCTIONALITY_BIT = {f: 1 << (len(BACKENDS) + i) for i, f in enumerate(FUNCTIONALITIES)}
_BACKEND_MASK = (1 << len(BACKENDS)) - 1
_PREFIX = {"Dense": "", "AutogradFunctionality": "Autograd"}


def _bits(key: DispatchKey) -> int:
    name = key.name
    if name in _BACKEND_BIT:
        return _FUNCTIONALITY_BIT["Dense"] | _BACKEND_BIT[name]
    if name.startswith("Autograd") and name[8:] in _BACKEND_BIT:
        return _FUNCTIONALITY_BIT["AutogradFunctionality"] | _BACKEND_BIT[name[8:]]
    return _FUNCTIONALITY_BIT[name]  # a KeyError for alias keys: they are never in a set


class DispatchKeySet:
    """``torch._C.DispatchKeySet``: printed and iterated lowest priority first."""

    __slots__ = ("repr_",)

    def __init__(self, keys=()):
        if isinstance(keys, DispatchKey):
            keys = (keys,)
        self.repr_ = 0
        for key in keys:
            self.repr_ |= _bits(key)

    @classmethod
    def _raw(cls, repr_: int) -> DispatchKeySet:
        keys = cls()
        keys.repr_ = repr_
        return keys

    def __repr__(self) -> str:
        return f"DispatchKeySet({', '.join(k.name for k in self)})"

    __str__ = __repr__

    def __iter__(self):
        for functionality in FUNCTIONALITIES:
            if not self.repr_ & _FUNCTIONALITY_BIT[functionality]:
                continue
            if functionality not in PER_BACKEND:
                yield K[functionality]
                continue
            for backend in BACKENDS:
                if self.repr_ & _BACKEND_BIT[backend]:
                    yield K[_PREFIX[functionality] + backend]

    def __or__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet._raw(self.repr_ | other.repr_)

    def __and__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet._raw(self.repr_ & other.repr_)

    def __sub__(self, other: DispatchKeySet) -> DispatchKeySet:
        """Only functionality bits go: the backend bits stay (see the NOTE above)."""
        return DispatchKeySet._raw(self.repr_ & (_BACKEND_MASK | ~other.repr_))

    def __eq__(self, other) -> bool:
        return isinstance(other, DispatchKeySet) and self.repr_ == other.repr_

    def __hash__(self) -> int:
        return hash(self.repr_)

    def has(self, key: DispatchKey) -> bool:
        bits = _bits(key)
        return self.repr_ & bits == bits

    def add(self, key: DispatchKey) -> DispatchKeySet:
        return DispatchKeySet._raw(self.repr_ | _bits(key))

    def remove(self, key: DispatchKey) -> DispatchKeySet:
        return DispatchKeySet._raw(self.repr_ & ~(_bits(key) & ~_BACKEND_MASK))

    def empty(self) -> bool:
        return self.repr_ == 0

    def highestPriorityTypeId(self) -> DispatchKey:  # noqa: N802  (PyTorch's name)
        """The key whose kernel runs: the highest functionality, with the highest backend if it is
        per-backend; ``Undefined`` for the empty set."""
        last = K.Undefined
        for last in self:  # noqa: B007  (the last key is the highest)
            pass
        return last


# Every runtime key, lowest priority first (the order of DispatchKeySet::FULL's iteration).
_FULL = DispatchKeySet._raw((1 << (len(BACKENDS) + len(FUNCTIONALITIES))) - 1)
RUNTIME_KEYS: tuple[DispatchKey, ...] = tuple(_FULL)
ALIAS_KEYS = (K.Autograd, K.CompositeImplicitAutograd, K.CompositeExplicitAutograd)


# ----------------------------------------------------------------------------- from a device to its keys

# torch.device types whose name is not their backend key's name upper-cased
_BACKEND_OF_DEVICE = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta", "lazy": "Lazy", "privateuseone": "PrivateUse1"}


def backend_key_name(device_type: str) -> str:
    """``cuda`` -> ``CUDA``, ``meta`` -> ``Meta``: the name PyTorch's messages give a device's backend."""
    return _BACKEND_OF_DEVICE.get(device_type) or device_type.upper()


def tensor_key_set(device_type: str) -> DispatchKeySet:
    """The keys every tensor on ``device_type`` carries (``TensorImpl``'s constructor): its backend,
    ``ADInplaceOrView``, the backend's autograd key and, where the backend has one, its autocast key.
    Dtype and requires_grad do not matter: an int64 tensor has ``AutogradCPU`` too (see
    NOTE [Dream: skip VariableType kernel when requires_grad=false] in PyTorch)."""
    name = backend_key_name(device_type)
    if name not in BACKENDS:
        return DispatchKeySet()
    keys = {K[name], K.ADInplaceOrView, K["Autograd" + name]}
    if name in AUTOCAST_BACKENDS:
        keys.add(K["Autocast" + name])
    return DispatchKeySet(keys)


def runtime_keys_of(alias: DispatchKey) -> DispatchKeySet:
    """The runtime keys an alias key's kernel serves (``getRuntimeDispatchKeySet``)."""
    if alias == K.Autograd:
        return DispatchKeySet([K.AutogradOther, *(K["Autograd" + b] for b in BACKENDS)])
    if alias == K.CompositeImplicitAutograd:  # every backend and every autograd key
        return runtime_keys_of(K.Autograd) | runtime_keys_of(K.CompositeExplicitAutograd)
    if alias == K.CompositeExplicitAutograd:  # every backend
        return DispatchKeySet(K[b] for b in BACKENDS)
    return DispatchKeySet(alias)


def is_backend_key(key: DispatchKey) -> bool:
    return key.name in BACKENDS


def backend_of_autograd_key(key: DispatchKey) -> DispatchKey | None:
    """``AutogradCPU`` -> ``CPU`` (``getBackendKeySetFromAutograd``, for one backend)."""
    name = key.name
    if name.startswith("Autograd") and name[8:] in BACKENDS:
        return K[name[8:]]
    return None


# Autocast is off unless ``torch.autocast`` turns it on: its keys sit in the thread's excluded set.
# picotorch has no autocast, so this set never changes.
DEFAULT_EXCLUDED = DispatchKeySet(K["Autocast" + b] for b in AUTOCAST_BACKENDS)
# What the autograd kernel's redispatch keeps (``after_autograd_keyset``): the keys below AutogradOther.
AFTER_AUTOGRAD = DispatchKeySet._raw(_BACKEND_MASK | _FUNCTIONALITY_BIT["Dense"] | _FUNCTIONALITY_BIT["BackendSelect"]
                                    | _FUNCTIONALITY_BIT["ADInplaceOrView"])
