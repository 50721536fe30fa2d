"""The caller's specialised heap (``SequenceNrReadyQueue``) pops in exactly the order of ``ReadyQueue``
with ``compare_node_sequence_nr``: the same libstdc++ steps, ties included (``test_engine_view_vs_torch``
checks ``ReadyQueue`` itself against PyTorch's recorded orders)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from picotorch.autograd.ready_queue import NodeTask, ReadyQueue, SequenceNrReadyQueue, compare_node_sequence_nr


class FakeNode:
    """Only what the comparator reads; ``name`` tells tied tasks apart."""

    def __init__(self, name, sequence_nr):
        self.name, self._sequence_nr_value = name, sequence_nr


# a program: push a task with this sequence_nr (small range: many ties), or pop (None)
programs = st.lists(st.one_of(st.integers(0, 5), st.none()), max_size=200)
long_programs = st.lists(st.one_of(st.integers(0, 40), st.integers(0, 40), st.none()), min_size=200, max_size=2000)


@settings(max_examples=200, deadline=None)
@given(programs)
def test_same_pops_as_the_general_heap(program):
    _check_same_pops(program)


@settings(max_examples=30, deadline=None)
@given(long_programs)
def test_same_pops_as_the_general_heap_when_it_is_deep(program):
    """Hundreds of tasks at once, ties among them: every level of the sink and the climb is taken."""
    _check_same_pops(program)


def _check_same_pops(program):
    general, special = ReadyQueue(compare_node_sequence_nr), SequenceNrReadyQueue()
    popped_general, popped_special = [], []
    for i, step in enumerate(program):
        if step is None:
            if general.heap:
                popped_general.append(general.pop().fn.name)
                popped_special.append(special.pop().fn.name)
            continue
        node = FakeNode(f"n{i}", step)
        general.push(NodeTask(node, None))
        special.push(NodeTask(node, None))
    while general.heap:
        popped_general.append(general.pop().fn.name)
        popped_special.append(special.pop().fn.name)
    assert popped_special == popped_general
    assert not special.heap


def test_ties_are_not_first_in_first_out():
    """Five equal numbers (as five AccumulateGrads of a cat): libstdc++'s order, the one PyTorch shows for
    ``torch.cat`` of five parameters (notebook 04, "Ties"), not the push order."""
    queue = SequenceNrReadyQueue()
    for i in range(5):
        queue.push(NodeTask(FakeNode(f"p{i}", 7), None))
    assert [queue.pop().fn.name for _ in range(5)] == ["p0", "p2", "p4", "p1", "p3"]
