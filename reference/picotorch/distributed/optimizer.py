"""The optimizer that averages gradients while backward runs: ``horovod/torch/optimizer.py``.

(To be written: ``DistributedOptimizer``, ``_DistributedOptimizer`` with ``_register_hooks``, ``_make_hook``,
``synchronize``, ``step``, ``skip_synchronize``, ``zero_grad``; and the post-accumulate-grad variant.)
"""

from __future__ import annotations

__all__ = ["DistributedOptimizer"]


def DistributedOptimizer(optimizer, named_parameters=None, compression=None, backward_passes_per_step=1,
                         op="Average", gradient_predivide_factor=1.0, num_groups=0, groups=None,
                         sparse_as_dense=False, process_set=None):
    raise NotImplementedError("DistributedOptimizer: to be written (picotorch/distributed/optimizer.py)")
