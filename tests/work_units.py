"""How the suite is shared between pytest-xdist's workers (``--dist loadgroup``).

A test that shares a fixture wider than itself with its module (a server, a browser page
set up once for the module) is grouped with its module: the module runs on one worker and
the fixture is made once. Every other test is a work unit of its own, so a module of a
hundred pure engine tests is spread over every worker instead of running on one.

xdist hands the units out in the order they are queued, and a worker asks for more as it
runs dry: the run ends when the last unit handed out ends. So the units likely to be long
go first and the short ones fill in at the end. The weights are rough on purpose: a
``slow`` test plays long matches, and runs for minutes when it runs a cluster of processes
(killing owners, a benchmark); a browser test drives Chromium.
"""

from __future__ import annotations

import pytest

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


def group_and_order(items: list[pytest.Item]) -> None:
    """Mark each test that shares a wider fixture with its module's group, then queue the
    units heaviest first (a unit's tests stay together and in their order)."""
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        if shares_a_wider_fixture(item):
            module = item.nodeid.split("::")[0]
            item.add_marker(pytest.mark.xdist_group(module))
            units.setdefault(module, []).append(item)
        else:
            units[item.nodeid] = [item]
    ordered = sorted(units.values(), key=lambda unit: -sum(weight(item) for item in unit))
    items[:] = [item for unit in ordered for item in unit]
