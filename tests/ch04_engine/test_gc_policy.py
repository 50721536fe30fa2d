"""NOTE [The cyclic GC and big graphs]: the policy raises the full-collection threshold only while a big
graph is built and full collections find nothing, puts back what it found afterwards, never overrides
thresholds the program set itself, and cycles (a hook holding its own tensor) are still collected."""

from __future__ import annotations

import gc
import weakref

import pytest

import picotorch
from picotorch.autograd import gc_policy

STEPS = 3 * 10**4  # 6e4 nodes: enough for the full collections to repeat


@pytest.fixture
def default_thresholds():
    saved = gc.get_threshold()
    gc.collect()
    gc.freeze()  # what earlier tests left alive would hold off full collections (the quarter rule): set aside
    gc_policy._restore()
    gc.set_threshold(700, 10, 10)
    try:
        yield
    finally:
        gc_policy._restore()
        gc.set_threshold(*saved)
        gc.unfreeze()


def _chain(steps: int):
    y = picotorch.ones(1, requires_grad=True)
    for _ in range(steps):
        y = y * 1.0001 + 0.0001
    return y


def _full_collections_while(fn) -> tuple[int, tuple]:
    counts = []

    def count(phase, info):
        if phase == "stop" and info["generation"] == 2:
            counts.append(1)
    gc.callbacks.append(count)
    try:
        result = fn()
        return len(counts), gc.get_threshold(), result
    finally:
        gc.callbacks.remove(count)


def test_a_big_graph_raises_the_third_threshold_and_fewer_full_collections_run(default_thresholds):
    """A 2e5-node graph: with the policy, few full collections; without it, many (each scans everything)."""
    with_policy, raised, y = _full_collections_while(lambda: _chain(10**5))
    assert raised[:2] == (700, 10) and raised[2] > 10
    del y
    gc_policy.set_enabled(False)
    try:
        gc.set_threshold(700, 10, 10)
        without, thresholds, y = _full_collections_while(lambda: _chain(10**5))
        assert thresholds == (700, 10, 10)
    finally:
        gc_policy.set_enabled(True)
    assert with_policy * 3 <= without, (with_policy, without)


def test_thresholds_come_back_once_no_graph_is_built(default_thresholds):
    """After the graph, ordinary allocations run second-generation collections: the policy steps back."""
    _chain(STEPS)
    assert gc.get_threshold()[2] > 10
    junk = []
    for i in range(120_000):  # no node built: more than ten second-generation collections
        junk.append([i])
    assert gc.get_threshold() == (700, 10, 10)


def test_the_programs_own_thresholds_are_left_alone(default_thresholds):
    """A program that sets thresholds after the policy raised them keeps its own."""
    _chain(STEPS)
    gc.set_threshold(1000, 20, 30)
    y = _chain(STEPS)
    assert gc.get_threshold()[:2] == (1000, 20)
    del y
    junk = [[i] for i in range(120_000)]
    assert gc.get_threshold()[:2] == (1000, 20), junk[:0]


def test_cycles_made_by_hooks_are_still_collected_without_gc_collect(default_thresholds):
    """Graphs whose hook closures hold their own tensor (a cycle) are freed by the collector as we go."""
    _chain(STEPS)  # the policy is active from here on
    assert gc.get_threshold()[2] > 10
    alive = []
    for _ in range(2000):
        x = picotorch.ones(1, requires_grad=True)
        y = x * 2.0
        y.register_hook(lambda g, y=y: g)  # y -> its node's hooks -> the closure -> y
        alive.append(weakref.ref(y.grad_fn))
        del x, y
    assert sum(ref() is not None for ref in alive) < 1000
