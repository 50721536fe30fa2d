"""Code written by ``picotorch.codegen``; see ``picotorch/codegen/gen.py``."""
