"""Which ready node the engine runs next: ``NodeTask``, ``compare_node_task_time`` and ``ReadyQueue``.

Models the ready queue of ``torch/csrc/autograd/engine.h`` / ``engine.cpp`` (``NodeTask``,
``ReadyQueue`` and its comparator ``CompareNodeTaskTime``). A node enters the queue once its last
gradient has arrived (``_pass_gradient`` in ``engine.py``); the engine always pops the node with the
highest ``sequence_nr``, the one whose forward op ran last (NOTE [Sequence Number] in ``graph.py``).

``ReadyQueue`` is the heap with libstdc++'s steps and a comparator of your choice (the course replays
PyTorch's own nodes with it). Two queues give its order: ``SequenceNrReadyQueue``, the caller's own loop on the
plain CPU path, where every task belongs to one ``GraphTask`` and none is empty, so comparing ``sequence_nr``
alone gives the same order (and ``heapq`` takes the same steps in C); and ``ThreadSafeReadyQueue``, the
queue of a device's worker thread (and of the caller once threads are in play), with PyTorch's mutex,
``not_empty`` condition and whole comparator (empty tasks first, then the deeper reentrant backward, then
``sequence_nr``).
Simplification: no shutdown tasks; the worker threads are daemons that live as long as the process.
"""

from __future__ import annotations

import heapq
import threading
from dataclasses import dataclass

from .graph import Node


@dataclass(slots=True)
class NodeTask:
    """A node whose gradients have all arrived, with those gradients (and the GraphTask it belongs to)."""

    fn: Node | None  # None: an empty task, pushed only to wake the thread that owns ``base``
    inputs: object  # the node's InputBuffer (engine.py); the queue never looks inside
    base: object = None  # the GraphTask (engine.py)

    def get_reentrant_depth(self) -> int:
        return self.base.reentrant_depth


def compare_sequence_nr(t1: NodeTask, t2: NodeTask) -> bool:
    """True when t2 should run before t1: t2's node has the higher sequence_nr."""
    return t1.fn._sequence_nr() < t2.fn._sequence_nr()


def compare_node_sequence_nr(t1: NodeTask, t2: NodeTask) -> bool:
    """``compare_sequence_nr`` for picotorch's own nodes, reading the field behind ``_sequence_nr()``: the
    engine's heap compares tens of thousands of times in a wide backward, and two method calls per
    comparison were most of its cost. (The course replays PyTorch's nodes with ``compare_sequence_nr``.)"""
    return t1.fn._sequence_nr_value < t2.fn._sequence_nr_value


def compare_node_task_time(t1: NodeTask, t2: NodeTask) -> bool:
    """``CompareNodeTaskTime``: true when t2 should run before t1.

    An empty task first (it wakes a thread whose backward has finished), then the task of the deeper
    reentrant backward (the inner backward must finish before the node that started it can), then
    the higher ``sequence_nr``.
    """
    if t1.fn is None:
        return False
    if t2.fn is None:
        return True
    depth1, depth2 = t1.get_reentrant_depth(), t2.get_reentrant_depth()
    if depth1 == depth2:
        return compare_node_sequence_nr(t1, t2)
    return depth1 < depth2


class ReadyQueue:
    """A binary max-heap with the exact push/pop steps of C++'s ``std::priority_queue`` (libstdc++).

    Using the same algorithm matters when two ready nodes compare equal (say two AccumulateGrads,
    which share the maximal sequence_nr): the heap's layout then decides which runs first, and we
    want the order a learner sees in PyTorch.
    """

    def __init__(self, compare=compare_sequence_nr) -> None:
        self.heap: list[NodeTask] = []
        self.compare = compare  # an instance attribute: as cheap to read as a global

    def __len__(self) -> int:
        return len(self.heap)

    def push(self, task: NodeTask) -> None:
        heap = self.heap
        heap.append(task)
        if len(heap) > 1:  # a lone task is the top already (a chain's backward: every push)
            self._sift_up(len(heap) - 1, 0, task)

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
        compare = self.compare
        parent = (hole - 1) // 2
        while hole > top and compare(heap[parent], value):
            heap[hole] = heap[parent]
            hole = parent
            parent = (hole - 1) // 2
        heap[hole] = value

    def _adjust_heap(self, hole: int, length: int, value: NodeTask) -> None:
        """libstdc++'s ``__adjust_heap``: sink the hole to a leaf along the earlier child, then sift up."""
        heap = self.heap
        compare = self.compare
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if compare(heap[child], heap[child - 1]):
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        self._sift_up(hole, top, value)


class SequenceNrReadyQueue:
    """The caller's queue on the plain CPU path: ``ReadyQueue`` with ``compare_node_sequence_nr``, the same
    order, ties included, with the heap's steps done by Python's ``heapq`` (C) instead of Python loops.

    A wide backward makes thousands of nodes ready at once (every output of a ``stack``): the heap's loops
    were a tenth of its time. NOTE [heapq takes libstdc++'s steps] says why the order is the same.
    """

    def __init__(self) -> None:
        self.heap: list[_Priority] = []  # heapq's min-heap of minus each task's sequence_nr

    def __len__(self) -> int:
        return len(self.heap)

    def push(self, task: NodeTask) -> None:
        priority = _Priority(-task.fn._sequence_nr_value)
        priority.task = task
        heapq.heappush(self.heap, priority)

    def pop(self) -> NodeTask:
        return heapq.heappop(self.heap).task


class _Priority(int):
    """Minus a task's ``sequence_nr``, carrying the task: compared as a plain int (in C), so equal numbers
    are ties, as ``compare_node_sequence_nr`` makes them, and never fall back on comparing tasks."""


# NOTE [heapq takes libstdc++'s steps]
# With keys negated (a min-heap of -sequence_nr is a max-heap of sequence_nr), CPython's heapq makes the moves
# libstdc++'s std::priority_queue makes, so the layout, and with it the order of ties, is the same:
# - push: append, then move up while the new key beats its parent (ties stop it): ``__push_heap``;
# - pop: take the top, put the last element in the hole at the root, sink the hole to a leaf along the child
#   that goes first (the right one on a tie), then move the element up from there: ``__adjust_heap``.
# tests/ch04_engine/test_ready_queue.py checks it against ``ReadyQueue`` on programs full of ties.


class ThreadSafeReadyQueue(ReadyQueue):
    """The ready queue threads share (``ReadyQueue`` in engine.h): a mutex, and ``pop`` waits for a task.

    Pushing a task counts it in its GraphTask's ``outstanding_tasks``; the thread that runs it counts
    it off (``Engine.thread_main``), and the backward is complete when the count is back to 0.
    """

    def __init__(self) -> None:
        super().__init__(compare_node_task_time)
        self.mutex = threading.Lock()
        self.not_empty = threading.Condition(self.mutex)

    def push(self, task: NodeTask) -> None:
        with self.mutex:
            task.base.outstanding_tasks.increment()
            super().push(task)
            self.not_empty.notify()

    def pop(self) -> NodeTask:
        with self.mutex:
            self.not_empty.wait_for(self.__len__)
            return super().pop()
