"""The mpi backend across 2 real processes (``mpiexec -n 2``): collectives equal NumPy; faults end the job.

Each case runs ``mpi_worker.py`` under mpiexec; the worker computes the expected values with NumPy from
every rank's seeded inputs and prints ``PASS case rank r``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from mpi_run import mpiexec

WORKER = Path(__file__).with_name("mpi_worker.py")
# Horovod ignores a shutdown time below the check time: both are set
STALL = {"HOROVOD_STALL_CHECK_TIME_SECONDS": "1", "HOROVOD_STALL_SHUTDOWN_TIME_SECONDS": "2"}


@pytest.mark.parametrize("case", ["collectives", "process_sets"])
def test_collectives_on_two_processes_equal_numpy(case):
    done = mpiexec(WORKER, case)
    assert done.returncode == 0, done.stdout + done.stderr
    passed = sorted(re.findall(r"PASS \w+ rank \d+", done.stdout))  # mpiexec may join the ranks' lines
    assert passed == [f"PASS {case} rank 0", f"PASS {case} rank 1"], done.stdout + done.stderr


@pytest.mark.parametrize("case, peer", [("fail", "raises"), ("hang", "is stuck in time.sleep")])
def test_peer_that_raises_or_hangs_fails_the_other_within_the_timeout(case, peer):
    """Rank 1 {peer} instead of joining an allreduce: rank 0 fails with Horovod's message and the job ends.

    A rank that raised exits, and its runtime's shutdown reaches rank 0 through the negotiation; a rank
    that is stuck still negotiates (its background thread runs), so the stall inspector ends the job."""
    start = time.monotonic()
    done = mpiexec(WORKER, case, env=STALL, timeout=30)
    elapsed = time.monotonic() - start
    assert done.returncode != 0
    assert "PASS" not in done.stdout
    if case == "fail":
        assert "ValueError: rank 1 breaks on purpose" in done.stderr
        # mpiexec may kill rank 0 as soon as rank 1 exits with an error; if rank 0 lived to say why, it says this
        # (its traceback may be cut short: the exception's own line comes last, so look for that)
        if "HorovodInternalError" in done.stderr:
            assert ("HorovodInternalError: Horovod has been shut down. This was caused by an exception on one of "
                    "the ranks") in done.stderr, done.stderr
    else:
        assert "Missing ranks:\n1!: [never.completes]" in done.stderr, done.stderr
    assert elapsed < 15, f"the job took {elapsed:.1f} s to end"


def test_a_rank_that_never_joins_fails_init_on_the_others_within_the_timeout():
    """Rank 1 never calls hvd.init(): rank 0's init gives up after the stall time and the job ends."""
    start = time.monotonic()
    done = mpiexec(WORKER, "late", env=STALL, timeout=30)
    elapsed = time.monotonic() - start
    assert done.returncode != 0
    assert "HorovodInternalError: rank 0 waited 2 s in hvd.init() for the other ranks to join" in done.stderr, \
        done.stderr
    assert elapsed < 15, f"the job took {elapsed:.1f} s to end"
