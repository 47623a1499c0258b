"""How the suite is shared between pytest-xdist's workers (``-n auto``).

A test that shares a fixture wider than itself with its module (a server, a browser page
set up once for the module) is grouped with its module: the module runs on one worker and
the fixture is made once. Every other test is a work unit of its own, so a module of a
hundred pure engine tests is spread over every worker instead of running on one.

xdist hands the units out in the order they are queued, and a worker asks for more as it
runs dry: the run ends when the last unit handed out ends. So the units likely to be long
go first and the short ones fill in at the end. The weights are rough on purpose: a
``slow`` test plays long matches, and runs for minutes when it runs a cluster of processes
(killing owners, a benchmark); a browser test drives Chromium.

Only the workers collect, so only they can see which tests share a fixture: each writes
the groups to a file the controller names (``UNITS_FILE`` in the environment), and the
controller's scheduler reads it once every worker has collected. (xdist's own
``xdist_group`` marks travel inside the test ids, which pytest 9.2 no longer lets a plugin
change: pytest-xdist issue 1386.)
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

UNITS_FILE = "CARDTABLE_TEST_UNITS"
SHARED_SCOPES = {"module", "class", "package"}
CLUSTER, SLOW, BROWSER, PLAIN = 60, 20, 8, 1
CLUSTERS = ("tests/cluster/", "tests/server/test_bench_cluster.py")


def shares_a_wider_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:  # a doctest
        return False
    return any(definition.scope in SHARED_SCOPES
               for definitions in info.name2fixturedefs.values() for definition in definitions)


def weight(item: pytest.Item) -> int:
    if item.get_closest_marker("slow"):
        return CLUSTER if item.nodeid.startswith(CLUSTERS) else SLOW
    return BROWSER if "browser" in getattr(item, "fixturenames", ()) else PLAIN


def group_and_order(items: list[pytest.Item]) -> dict[str, str]:
    """Queue the units heaviest first (a unit's tests stay together and in their order);
    returns the group of each test that has one (its module's path)."""
    units: dict[str, list[pytest.Item]] = {}
    groups: dict[str, str] = {}
    for item in items:
        if shares_a_wider_fixture(item):
            module = item.nodeid.split("::")[0]
            groups[item.nodeid] = module
            units.setdefault(module, []).append(item)
        else:
            units[item.nodeid] = [item]
    ordered = sorted(units.values(), key=lambda unit: -sum(weight(item) for item in unit))
    items[:] = [item for unit in ordered for item in unit]
    return groups


# -- the controller and its workers -------------------------------------------------------


def name_the_file(config: pytest.Config) -> None:
    """In the controller of a parallel run: a file for the workers' groups, named in the
    environment the workers inherit."""
    if not hasattr(config, "workerinput") and config.getoption("numprocesses", None):
        os.environ[UNITS_FILE] = str(Path(tempfile.mkdtemp(prefix="cardtable-units-"))
                                     / "groups.json")


def publish(config: pytest.Config, groups: dict[str, str]) -> None:
    """In a worker: write the groups for the controller (every worker collects the same
    tests and writes the same file; a rename makes each write whole)."""
    path = os.environ.get(UNITS_FILE)
    if path and hasattr(config, "workerinput"):
        partial = Path(f"{path}.{config.workerinput['workerid']}")
        partial.write_text(json.dumps(groups))
        partial.replace(path)


class WorkUnitScheduling(LoadScopeScheduling):
    """xdist's scope scheduler, with the units the workers' groups make."""

    def __init__(self, config: pytest.Config, log: object, path: Path) -> None:
        super().__init__(config, log)  # type: ignore[arg-type]
        self._path = path
        self._groups: dict[str, str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self._groups is None:  # first asked once every worker has collected
            self._groups = json.loads(self._path.read_text()) if self._path.exists() else {}
        return self._groups.get(nodeid, nodeid)


def scheduler(config: pytest.Config, log: object) -> WorkUnitScheduling | None:
    path = os.environ.get(UNITS_FILE)
    if config.getvalue("dist") != "loadgroup" or not path:
        return None
    return WorkUnitScheduling(config, log, Path(path))


def forget_the_file() -> None:
    path = os.environ.pop(UNITS_FILE, None)
    if path:
        for file in Path(path).parent.glob("groups.json*"):
            file.unlink()
        Path(path).parent.rmdir()
