"""Which ready node the engine runs next: ``NodeTask``, ``compare_node_task_time`` and ``ReadyQueue``.

Models the ready queue of ``torch/csrc/autograd/engine.h`` / ``engine.cpp`` (``NodeTask``,
``ReadyQueue`` and its comparator ``CompareNodeTaskTime``). A node enters the queue once its last
gradient has arrived (``_pass_gradient`` in ``engine.py``); the engine always pops the node with the
highest ``sequence_nr``, the one whose forward op ran last (NOTE [Sequence Number] in ``graph.py``).

Simplification: PyTorch's comparator ranks shutdown tasks first, then empty tasks, then the task of the
deeper reentrant backward; picotorch has no worker threads to shut down, and a backward started inside a
node runs on its own queue to the end before the outer one goes on, so only ``sequence_nr`` is compared.
"""

from __future__ import annotations

from dataclasses import dataclass

from .graph import Node


@dataclass(slots=True)
class NodeTask:
    """A node whose gradients have all arrived, with those gradients."""

    fn: Node
    inputs: object  # the node's InputBuffer (engine.py); the queue never looks inside


def compare_node_task_time(t1: NodeTask, t2: NodeTask) -> bool:
    """``CompareNodeTaskTime``: true when t2 should run before t1 (t2's node has the higher sequence_nr)."""
    return t1.fn._sequence_nr() < t2.fn._sequence_nr()


class ReadyQueue:
    """A binary max-heap with the exact push/pop steps of C++'s ``std::priority_queue`` (libstdc++).

    Using the same algorithm matters when two ready nodes compare equal (say two AccumulateGrads,
    which share the maximal sequence_nr): the heap's layout then decides which runs first, and we
    want the order a learner sees in PyTorch.
    """

    def __init__(self) -> None:
        self.heap: list[NodeTask] = []

    def __len__(self) -> int:
        return len(self.heap)

    def push(self, task: NodeTask) -> None:
        self.heap.append(task)
        self._sift_up(len(self.heap) - 1, 0, task)

    def pop(self) -> NodeTask:
        heap = self.heap
        top = heap[0]
        last = heap.pop()
        if heap:
            self._adjust_heap(0, len(heap), last)
        return top

    def _sift_up(self, hole: int, top: int, value: NodeTask) -> None:
        """libstdc++'s ``__push_heap``: move the hole up while ``value`` should run before its parent."""
        heap = self.heap
        parent = (hole - 1) // 2
        while hole > top and compare_node_task_time(heap[parent], value):
            heap[hole] = heap[parent]
            hole = parent
            parent = (hole - 1) // 2
        heap[hole] = value

    def _adjust_heap(self, hole: int, length: int, value: NodeTask) -> None:
        """libstdc++'s ``__adjust_heap``: sink the hole to a leaf along the earlier child, then sift up."""
        heap = self.heap
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if compare_node_task_time(heap[child], heap[child - 1]):
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        self._sift_up(hole, top, value)
