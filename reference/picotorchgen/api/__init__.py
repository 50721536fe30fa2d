"""How the generators see an op: as a Python signature (``python.py``) and for autograd (``autograd.py``).

Models ``torchgen/api/``, where torchgen keeps one module per way of looking at a schema.
"""
