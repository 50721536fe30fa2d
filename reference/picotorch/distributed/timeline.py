"""What each rank did when: ``horovod/common/timeline.cc``, as one Chrome trace per run.

(To be written: backward nodes from ``picotorch.autograd.profiler`` and the runtime's communication
phases on one trace, one process row per rank; and a matplotlib Gantt chart.)
"""

from __future__ import annotations

__all__: list[str] = []
