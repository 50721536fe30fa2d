"""``RemovableHandle``: what every ``register_*hook`` call returns.

Models ``torch/utils/hooks.py``. The handle knows the dict its hook lives in (by weak reference, so a
handle never keeps a dropped node's hooks alive) and the key it was stored under; ``remove()``
deletes that entry. Keys come from one counter shared by all handles, so a dict's insertion order
is the registration order, which is the order the hooks run in.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict


class RemovableHandle:
    """A handle which provides the capability to remove a hook."""

    next_id: int = 0

    def __init__(self, hooks_dict: OrderedDict, *, extra_dict=None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    @classmethod
    def add(cls, hooks_dict: OrderedDict, fn) -> RemovableHandle:
        """Store ``fn`` in ``hooks_dict`` (an OrderedDict: a plain dict has no weak references)."""
        handle = cls(hooks_dict)
        hooks_dict[handle.id] = fn
        return handle

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks_dict = ref()
            if hooks_dict is not None and self.id in hooks_dict:
                del hooks_dict[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, type, value, tb) -> None:
        self.remove()
