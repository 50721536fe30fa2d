"""PyTorch's way, for comparison: DDP's bucketed reducer (``torch/nn/parallel/distributed.py``, ``reducer.cpp``).

(To be written.)
"""

from __future__ import annotations

__all__: list[str] = []
