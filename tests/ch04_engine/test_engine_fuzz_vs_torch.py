"""A fixed sample of the engine fuzzer's random programs (``tests/engine_fuzz.py``): on picotorch and on torch
they must print the same lines (gradients, hook order, grad_fn names and edges, saved tensors, errors).

A longer campaign, with fresh seeds: ``python tests/engine_fuzz.py 0 5000``.
"""

from __future__ import annotations

import pytest

import picotorch
from engine_fuzz import first_difference, generate, run, same_lines

torch = pytest.importorskip("torch")

SEEDS = range(300)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program_prints_what_torch_prints(seed):
    source = generate(seed)
    ours, theirs = run(picotorch, source), run(torch, source)
    assert same_lines(ours, theirs), f"{first_difference(ours, theirs)}\n--- program (seed {seed}):\n{source}"
