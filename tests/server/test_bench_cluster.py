"""``bench/cluster.py`` runs end to end: every part once, with tiny numbers (a smoke run
on a real card room of HAProxy, Redis and PostgreSQL; the figures are not checked)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import cluster_harness

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.slow
def test_every_part_runs_with_tiny_numbers(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    why = cluster_harness.unavailable()
    if why:
        pytest.skip(why)
    # As `cardtable bench cluster` loads it: bench/ on the path for its sibling modules.
    monkeypatch.syspath_prepend(str(BENCH_DIR))
    spec = importlib.util.spec_from_file_location("cardtable_bench_cluster",
                                                  BENCH_DIR / "cluster.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)
    spec.loader.exec_module(bench)

    code = bench.main([
        "--warmup", "0.5",
        "--kills", "1", "--failover-tables", "2",
        "--tables", "2", "4", "--processes", "2", "--seconds", "2", "--think", "0.2",
        "--forward-tables", "2", "--forward-seconds", "1", "--forward-rounds", "1",
        "--forward-think", "0.2", "--idle", "20", "--idle-per-table", "10",
    ])

    out = capsys.readouterr().out
    assert code == 0, out
    for title in ("failover: kill -9", "throughput and latency", "forwarded against local",
                  "idle spectator sockets"):
        assert title in out
    assert "stuck" in out and "cluster of 2" in out and "single, no Redis" in out
