"""Code written by ``picotorchgen``; see ``picotorchgen/gen.py``."""
