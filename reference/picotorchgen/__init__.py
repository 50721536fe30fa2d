"""picotorchgen: the code generator, ``native_functions.yaml`` + ``derivatives.yaml`` -> ``picotorch/_generated/``.

Models ``torchgen/`` and ``tools/autograd/``, and sits beside ``picotorch`` as torchgen sits beside
``torch``: a build-time tool. ``python -m picotorchgen`` rewrites ``_generated/``; ``--check`` fails,
naming the stale file, when what is committed differs from what the YAML files give.

The map, in the order the driver runs it:

- ``gen.py`` (``torchgen/gen.py``): the driver: read both YAML files, write the three outputs.
- ``model.py`` (``torchgen/model.py``): the schema grammar, ``add.Tensor(Tensor self, ...)`` as data.
- ``load_derivatives.py`` (``tools/autograd/load_derivatives.py``): formulas per input, node names.
- ``api/`` (``torchgen/api/``): an op as autograd sees it and as Python sees it.
- ``code_template.py`` (``torchgen/code_template.py``): ``$name`` templates, one per output, kept at
  the top of the generator that fills it:
  ``gen_autograd_functions.py`` -> ``nodes.py``, ``gen_variable_type.py`` -> ``variable_type.py``,
  ``gen_python_functions.py`` -> ``python_bindings.py``.
- ``validate.py``: what the compiler would catch in PyTorch: a ``dispatch:`` kernel that does not exist, a
  formula reading a name its op does not have.
- ``errors.py``: bad input stops with one paragraph naming the file, the line, the entry and what was
  expected (``GenerationError``, ``ParseError``), never a stack trace.

And two ways to look inside: ``report.py`` (``python -m picotorchgen parse PATH``, :func:`parse_file`) parses
any ``native_functions.yaml`` or ``derivatives.yaml``, PyTorch's real ones too, and counts what is in it;
``explain.py`` (``python -m picotorchgen --explain mul.Tensor``) shows which template line wrote which
generated line.

Generating code must not need generated code. ``picotorch`` imports ``_generated/`` as soon as it is
imported, so a generator inside it, or one that imported it, would break exactly when it is needed:
after an edit to the YAML files made ``_generated/`` stale, or before it was ever written. So
picotorchgen never imports ``picotorch``: it reads the YAML files as data and writes text. It finds
the package's folder the way ``import picotorch`` would (a learner's copy in exercises mode) without
running its ``__init__.py``.
"""

from .errors import GenerationError, ParseError
from .report import ParseReport, Summary, parse_file

__all__ = ["GenerationError", "ParseError", "ParseReport", "Summary", "parse_file"]
