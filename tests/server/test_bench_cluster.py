"""``bench/cluster.py`` runs end to end: every part once, with tiny numbers (a smoke run
on a real card room of HAProxy, Redis and PostgreSQL; the figures are not checked)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

import cluster_harness

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


# Each part starts its own card room: one test each, so that the workers share them out.
PART_TITLES = {"failover": "failover: kill -9", "throughput": "throughput and latency",
               "forwarding": "forwarded against local", "idle": "idle spectator sockets",
               "redis-outages": "Redis away and back"}


def load_bench(monkeypatch: pytest.MonkeyPatch) -> Any:
    """bench/cluster.py as `cardtable bench cluster` loads it: bench/ on the path for its
    sibling modules."""
    monkeypatch.syspath_prepend(str(BENCH_DIR))
    spec = importlib.util.spec_from_file_location("cardtable_bench_cluster",
                                                  BENCH_DIR / "cluster.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)
    spec.loader.exec_module(bench)
    return bench


def test_every_part_is_tested(monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(load_bench(monkeypatch).PARTS) == set(PART_TITLES)


@pytest.mark.slow
@pytest.mark.parametrize("part", list(PART_TITLES))
def test_the_part_runs_with_tiny_numbers(part: str, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    why = cluster_harness.unavailable()
    if why:
        pytest.skip(why)
    bench = load_bench(monkeypatch)
    code = bench.main([
        "--part", part, "--warmup", "0.5",
        "--kills", "1", "--failover-tables", "2",
        "--tables", "2", "4", "--processes", "2", "--seconds", "2", "--think", "0.2",
        "--forward-tables", "2", "--forward-seconds", "1", "--forward-rounds", "1",
        "--forward-think", "0.2", "--idle", "20", "--idle-per-table", "10",
        "--outages", "1", "--outage-seconds", "2",
    ])

    out = capsys.readouterr().out
    assert code == 0, out
    assert PART_TITLES[part] in out, out
    if part == "failover":
        assert "stuck" in out
    if part == "throughput":
        assert "cluster of 2" in out and "single, no Redis" in out
