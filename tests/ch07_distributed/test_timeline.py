"""The distributed timeline (``picotorch.distributed.timeline``, Horovod's ``timeline.cc``) and its Gantt chart."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import picotorch as pt
import picotorch.distributed as hvd
from picotorch.distributed.timeline import Timeline

ENGINE = "autograd::engine::evaluate_function: "
PHASES = ("NEGOTIATE_ALLREDUCE", "QUEUE", "MEMCPY_IN_FUSION_BUFFER", "ALLREDUCE", "MEMCPY_OUT_FUSION_BUFFER")


def runtime_records_timeline() -> bool:
    """The skeleton runtime runs collectives on the caller and records nothing; the background cycle records."""
    return hasattr(hvd, "runtime_stats")


def synthetic_trace(mark_cycles=False) -> dict:
    """Two ranks, two tensors fused into one buffer, times chosen by hand (ns since the origin)."""
    timeline = Timeline(backward=False, mark_cycles=mark_cycles)  # never started: origin 0
    for rank, ready in ((0, 1_000), (1, 3_000)):
        recorder = timeline.recorder(rank)
        recorder.record("CYCLE_START", [], 500, 500)
        for name in ("a", "b"):
            recorder.record("NEGOTIATE_ALLREDUCE", [name], ready, 4_000)
        recorder.record("QUEUE", ["a", "b"], 4_000, 5_000)
        recorder.record("MEMCPY_IN_FUSION_BUFFER", ["a", "b"], 5_000, 6_000)
        recorder.record("ALLREDUCE", ["a", "b"], 6_000, 10_000)
        recorder.record("MEMCPY_OUT_FUSION_BUFFER", ["a", "b"], 10_000, 11_000)
    return timeline.chrome_trace()


def names_of(events, kind):
    return {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == kind}


def test_trace_has_a_process_row_per_rank_and_horovods_rows_per_tensor():
    trace = json.loads(json.dumps(synthetic_trace()))  # plain JSON
    events = trace["traceEvents"]
    assert {e["ph"] for e in events} <= {"X", "M", "i"}
    assert names_of(events, "process_name") == {(0, None): "rank 0", (1, None): "rank 1"}
    threads = names_of(events, "thread_name")
    for rank in (0, 1):
        rows = {name: tid for (pid, tid), name in threads.items() if pid == rank}
        assert {"backward", "communication", "a", "b"} <= set(rows)
        for tensor in ("a", "b"):
            on_row = [e["name"] for e in events if e["ph"] == "X" and e["pid"] == rank and e["tid"] == rows[tensor]
                      and e["dur"] > 0]
            assert on_row == list(PHASES)
        communication = [e for e in events if e["ph"] == "X" and e["pid"] == rank and e["tid"] == rows["communication"]]
        # one bar per piece of work (the fused buffer's ALLREDUCE once, naming both tensors), in µs
        assert [(e["name"], e["ts"], e["dur"]) for e in communication] == [
            ("MEMCPY_IN_FUSION_BUFFER", 5.0, 1.0), ("ALLREDUCE", 6.0, 4.0), ("MEMCPY_OUT_FUSION_BUFFER", 10.0, 1.0)]
        assert communication[1]["args"]["tensors"] == ["a", "b"]


def test_negotiation_marks_each_ranks_request_on_rank_0():
    events = synthetic_trace()["traceEvents"]
    marks = sorted((e["ts"], e["name"]) for e in events if e.get("cat") == "NEGOTIATE_RANK_READY")
    # NegotiateRankReady: per tensor, one zero-length mark per rank, when that rank asked (1 µs and 3 µs)
    assert marks == [(1.0, "0"), (1.0, "0"), (3.0, "1"), (3.0, "1")]
    assert all(e["pid"] == 0 and e["dur"] == 0 for e in events if e.get("cat") == "NEGOTIATE_RANK_READY")


def test_cycle_marks_only_with_mark_cycles():
    assert not [e for e in synthetic_trace()["traceEvents"] if e["ph"] == "i"]
    marks = [e for e in synthetic_trace(mark_cycles=True)["traceEvents"] if e["ph"] == "i"]
    assert [(e["name"], e["pid"], e["ts"]) for e in marks] == [("CYCLE_START", 0, 0.5), ("CYCLE_START", 1, 0.5)]


def _backward_and_allreduce(layers=3):
    hvd.init()
    pt.manual_seed(hvd.rank())
    weights = [pt.randn(32, 32, requires_grad=True) for _ in range(layers)]
    x = pt.randn(16, 32)
    for w in weights:
        x = (x @ w).tanh()
    x.sum().backward()
    for i, w in enumerate(weights):
        hvd.allreduce_(w.grad, name=f"w{i}")
    hvd.shutdown()


def test_timeline_around_a_launch_puts_each_ranks_backward_in_its_row():
    with Timeline() as timeline:
        hvd.launch(_backward_and_allreduce, 3, timeout=20)
    events = timeline.chrome_trace()["traceEvents"]
    backward = [e for e in events if e["ph"] == "X" and e["tid"] == 0]
    for rank in range(3):
        names = [e["name"] for e in backward if e["pid"] == rank]
        assert names.count(ENGINE + "TanhBackward0") == 3 and names.count(ENGINE + "MmBackward0") == 3
    assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in backward)


def test_start_timeline_before_init_raises_horovods_error():
    with pytest.raises(ValueError, match=r"Horovod has not been initialized; use hvd.init\(\)."):
        hvd.start_timeline("unused.json")


def _recorded_run(path):
    hvd.init()
    hvd.start_timeline(str(path))
    pt.manual_seed(hvd.rank())
    w = pt.randn(8, 8, requires_grad=True)
    (pt.randn(4, 8) @ w).sum().backward()
    hvd.allreduce_(w.grad, name="w")
    hvd.stop_timeline()
    hvd.shutdown()


def test_start_and_stop_timeline_write_one_file_for_every_rank(tmp_path):
    path = tmp_path / "timeline.json"
    hvd.launch(_recorded_run, 2, path, timeout=20)
    events = json.loads(path.read_text())["traceEvents"]
    assert names_of(events, "process_name") == {(0, None): "rank 0", (1, None): "rank 1"}
    for rank in (0, 1):
        assert ENGINE + "MmBackward0" in {e["name"] for e in events if e["ph"] == "X" and e["pid"] == rank}
    if not runtime_records_timeline():
        pytest.skip("the skeleton runtime records no communication phases")
    for rank in (0, 1):
        phases = {e["name"] for e in events if e["ph"] == "X" and e["pid"] == rank}
        assert {"NEGOTIATE_ALLREDUCE", "ALLREDUCE"} <= phases


def _hooked_step(overlap):
    hvd.init()
    pt.manual_seed(0)
    weights = [pt.randn(192, 192, requires_grad=True) for _ in range(10)]
    handles = []
    if overlap:
        for i, w in enumerate(weights):
            w.register_post_accumulate_grad_hook(
                lambda p, i=i: handles.append(hvd.allreduce_async_(p.grad, name=f"w{i}")))
    x = pt.randn(256, 192)
    for w in weights:
        x = (x @ w).tanh()
    hvd.barrier()  # both ranks start backward together: a loaded machine may not skew them past the overlap
    x.sum().backward()
    if not overlap:
        handles = [hvd.allreduce_async_(w.grad, name=f"w{i}") for i, w in enumerate(weights)]
    for handle in handles:
        hvd.synchronize(handle)
    hvd.shutdown()


def _backward_end_and_first_allreduce(events, rank):
    backward_end = max(e["ts"] + e["dur"] for e in events if e["ph"] == "X" and e["pid"] == rank and e["tid"] == 0)
    allreduce_start = min(e["ts"] for e in events if e["ph"] == "X" and e["pid"] == rank and e["tid"] == 1
                          and e["name"] == "ALLREDUCE")
    return backward_end, allreduce_start


@pytest.mark.skipif(not runtime_records_timeline(), reason="needs the runtime's background cycle")
def test_backward_and_communication_interleave_only_with_hooks():
    with Timeline() as timeline:
        hvd.launch(_hooked_step, 2, True, timeout=20)
    events = timeline.chrome_trace()["traceEvents"]
    assert any(start < end for end, start in (_backward_end_and_first_allreduce(events, r) for r in (0, 1)))
    with Timeline() as timeline:
        hvd.launch(_hooked_step, 2, False, timeout=20)
    events = timeline.chrome_trace()["traceEvents"]
    assert all(start >= end for end, start in (_backward_end_and_first_allreduce(events, r) for r in (0, 1)))


def test_gantt_chart_draws_one_row_group_per_rank():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from picotorch.viz import draw_distributed_timeline

    trace = synthetic_trace()
    fig = draw_distributed_timeline(trace)
    assert isinstance(fig, Figure)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["rank 0 · backward", "rank 0 · communication", "rank 1 · backward", "rank 1 · communication"]
    everything = draw_distributed_timeline(trace, rows=None)
    labels = [t.get_text() for t in everything.axes[0].get_yticklabels()]
    assert labels == [f"rank {r} · {row}" for r in (0, 1) for row in ("backward", "communication", "a", "b")]
    legend = [t.get_text() for t in everything.axes[0].get_legend().get_texts()]
    assert set(legend) == {"NEGOTIATE", "QUEUE", "MEMCPY_IN_FUSION_BUFFER", "ALLREDUCE", "MEMCPY_OUT_FUSION_BUFFER"}


def test_gantt_chart_of_a_recorded_run(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from picotorch.viz import draw_distributed_timeline

    with Timeline(tmp_path / "run.json") as timeline:
        hvd.launch(_backward_and_allreduce, 2, timeout=20)
    for source in (timeline, tmp_path / "run.json", str(tmp_path / "run.json")):
        fig = draw_distributed_timeline(source)
        bars = [c for c in fig.axes[0].collections]
        assert len(bars) >= 2  # at least one backward bar group per rank
        matplotlib.pyplot.close(fig)
    assert np.isfinite([e["ts"] for e in json.loads((tmp_path / "run.json").read_text())["traceEvents"]
                        if e["ph"] == "X"]).all()


MPI_SCRIPT = """
import sys
import picotorch as pt
import picotorch.distributed as hvd
hvd.init()
hvd.start_timeline(sys.argv[1])
pt.manual_seed(hvd.rank())
w = pt.randn(8, 8, requires_grad=True)
(pt.randn(4, 8) @ w).sum().backward()
hvd.allreduce_(w.grad, name="w")
hvd.stop_timeline()
hvd.shutdown()
"""


def test_under_mpi_rank_0_gathers_every_rank_into_one_file(tmp_path):
    pytest.importorskip("mpi4py")
    mpiexec = Path(sys.executable).parent / "mpiexec"
    if not mpiexec.exists():
        pytest.skip("no mpiexec beside this Python (the mpich wheel puts it there)")
    script, path = tmp_path / "recorded.py", tmp_path / "timeline.json"
    script.write_text(MPI_SCRIPT)
    subprocess.run([str(mpiexec), "-n", "2", sys.executable, str(script), str(path)], check=True, timeout=60,
                   capture_output=True)
    events = json.loads(path.read_text())["traceEvents"]
    assert names_of(events, "process_name") == {(0, None): "rank 0", (1, None): "rank 1"}
    for rank in (0, 1):
        names = {e["name"] for e in events if e["ph"] == "X" and e["pid"] == rank}
        assert ENGINE + "MmBackward0" in names  # each process's own backward, under its rank
        if runtime_records_timeline():
            assert {"NEGOTIATE_ALLREDUCE", "ALLREDUCE"} <= names
    assert not list(tmp_path.glob("timeline.json.rank*"))  # gathered: no per-rank files
