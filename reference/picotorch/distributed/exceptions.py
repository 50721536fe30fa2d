"""The errors a distributed run raises: ``horovod/common/exceptions.py``.

``HorovodInternalError`` is what Horovod raises when a collective fails (a rank died, a timeout, a
mismatch found during negotiation); elastic training catches it to restart. picotorch raises it for the
same reasons, with a message that names the tensor and the ranks involved.
"""

from __future__ import annotations

__all__ = ["HorovodInternalError"]


class HorovodInternalError(RuntimeError):
    """A collective failed on some rank: every other rank gets this instead of waiting forever."""
