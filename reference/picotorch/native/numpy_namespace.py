"""``np_xp``: NumPy's Array-API namespace (``array_api_compat.numpy``), the array library of the ``cpu`` device.

Models nothing in PyTorch; it keeps ``import picotorch`` fast (chapter 06, "what import costs").
``array_api_compat.numpy`` copies every public attribute of ``numpy`` into its own namespace, and
asking NumPy for ``numpy.f2py``, ``numpy.testing``, ``numpy.ma`` ... imports them (NumPy loads its
submodules on first access, as ``torch/__init__.py`` does with ``_lazy_modules``). No kernel uses
them, yet they cost about as much again as ``import numpy`` itself (the Fortran wrapper generator
pulls in ``charset_normalizer``, the test helpers ``unittest`` and ``email``). So, before the copy,
each of those submodules not yet imported is registered as a *lazy* module (the standard library's
``importlib.util.LazyLoader``): the name and the module object exist at once, and the module's code
runs on its first attribute access (``numpy.testing.assert_allclose`` works as ever, just later).
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np

# NumPy's lazily loaded submodules that no picotorch import reads (numpy.random: the first random tensor's)
DEFERRED_SUBMODULES = ("f2py", "testing", "ma", "polynomial", "ctypeslib", "random", "char", "strings", "rec")


def defer_submodule(name: str) -> None:
    """Register ``numpy.<name>`` as a module whose code runs on its first attribute access."""
    full_name = f"{np.__name__}.{name}"
    if full_name in sys.modules:
        return
    spec = importlib.util.find_spec(full_name)
    if spec is None or spec.loader is None:
        return
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[full_name] = module
    spec.loader.exec_module(module)  # with LazyLoader: only arms the load
    setattr(np, name, module)  # what the import system does for a finished submodule import


for _name in DEFERRED_SUBMODULES:
    defer_submodule(_name)

from array_api_compat import numpy as np_xp  # noqa: E402  (after the deferral above, which is the point)

__all__ = ["np_xp"]
