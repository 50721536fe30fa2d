"""The code generator: YAML op declarations -> ``picotorch/_generated/``.

Models ``torchgen/`` (``gen.py``, ``model.py``) and ``tools/autograd/`` (``load_derivatives.py``,
``gen_autograd_functions.py``, ``gen_variable_type.py``, ``gen_python_functions.py``). It runs at
build time only: nothing in picotorch imports it at run time. ``python -m picotorch.codegen``
regenerates the files; ``--check`` fails when the committed output is stale.
"""
