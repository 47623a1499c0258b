"""The server's garbage-collector set-up (server/gc_tuning.py): applied at start, timed.

No timing is asserted here: the pauses themselves are measured by bench/server.py and
bench/gc_pauses.py (docs/benchmarks.md).
"""

from __future__ import annotations

import gc
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardtable import cli
from cardtable.server import gc_tuning
from server_harness import ServerProcess


@pytest.fixture
def restore_gc() -> Iterator[None]:
    """Whatever a test does to the collector of this process is undone."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_modes() -> None:
    assert gc_tuning.parse_mode(None) == (True, gc_tuning.THRESHOLDS)
    assert gc_tuning.parse_mode("tuned") == (True, gc_tuning.THRESHOLDS)
    assert gc_tuning.parse_mode("python") == (False, None)
    assert gc_tuning.parse_mode("freeze") == (True, None)
    assert gc_tuning.parse_mode(" 5000, 10,50 ") == (True, (5000, 10, 50))
    for bad in ("fast", "0,10,10", "1,2", "a,b,c"):
        with pytest.raises(ValueError, match="CARDTABLE_GC"):
            gc_tuning.parse_mode(bad)


def test_apply_freezes_and_sets_thresholds(restore_gc: None) -> None:
    line = gc_tuning.apply()
    assert gc.get_freeze_count() > 1000  # pytest, the cardtable modules: all of it frozen
    assert gc.get_threshold() == gc_tuning.THRESHOLDS
    assert "objects frozen" in line


def test_apply_python_leaves_cpython_alone(restore_gc: None) -> None:
    before = gc.get_threshold()
    gc_tuning.apply(*gc_tuning.parse_mode("python"))
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


def test_pause_stats_count_every_generation(tmp_path: Path) -> None:
    stats = gc_tuning.install_stats(tmp_path / "gc.json", on_signal=False)
    try:
        gc.collect(0)
        gc.collect(2)
    finally:
        gc_tuning.uninstall_stats(stats)
    assert stats not in gc.callbacks
    figures = stats.snapshot()
    young, _, full = figures["generations"]
    assert young["passes"] >= 1 and full["passes"] >= 1
    assert sum(full["histogram"]) == full["passes"]
    assert full["longest_ms"] > 0 and full["total_ms"] >= full["longest_ms"]
    stats.write(tmp_path / "gc.json", collect=True)
    written = json.loads((tmp_path / "gc.json").read_text())
    assert written["tracked"] > 0 and written["types"] and written["tables"] == 0


def test_a_bad_mode_stops_serve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CARDTABLE_GC", "sometimes")
    assert cli.main(["serve", "--data-dir", str(tmp_path)]) == 2
    assert "CARDTABLE_GC" in capsys.readouterr().err


def test_serve_applies_it_and_reports_pauses(tmp_path: Path) -> None:
    stats = tmp_path / "gc.json"
    server = ServerProcess(tmp_path, env={"CARDTABLE_GC_STATS": str(stats)}).start()
    try:
        assert server.process is not None
        asked = time.monotonic()
        os.kill(server.process.pid, signal.SIGUSR1)
        deadline = time.monotonic() + 20
        while not stats.exists() or json.loads(stats.read_text())["at"] < asked:
            assert time.monotonic() < deadline, "no figures after SIGUSR1"
            time.sleep(0.05)
        figures = json.loads(stats.read_text())
        assert figures["frozen"] > 10_000  # FastAPI, pydantic, SQLAlchemy, the engine
        assert tuple(figures["thresholds"]) == gc_tuning.THRESHOLDS
        assert len(figures["generations"]) == 3
    finally:
        server.stop()  # SIGTERM: uvicorn shuts down, then dies of the signal it caught
    assert json.loads(stats.read_text())["at"] > figures["at"]  # written again at the end
    assert "objects frozen" in server.log.read_text()
