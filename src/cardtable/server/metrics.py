"""What an operator scrapes: the server's figures in Prometheus's text format (``/metrics``).

Counters and histograms live in one registry of this module (:data:`REGISTRY`), so any
layer counts without being handed an object: ``metrics.ACTIONS.labels("gin").inc()``.
Figures that are a reading of live state (tables in memory, open sockets) are read at
scrape time from the app that serves the scrape (:class:`LiveFigures`), so two apps in
one process (the tests' in-process servers) never mix their readings.

Counting is always on (a counter is a few hundred nanoseconds); the endpoint is off
unless ``CARDTABLE_METRICS=on`` (docs/deploy.md "Monitoring").

=================================  =========  ==============================================
metric                             type       what
=================================  =========  ==============================================
cardtable_tables_live              gauge      tables whose actor is in this process's memory
cardtable_sockets                  gauge      open table and lobby sockets of this process
cardtable_actions_total            counter    acts committed, by game (rate(): actions/s)
cardtable_action_seconds           histogram  a player's command received to its answer sent
cardtable_log_commit_seconds       histogram  one event appended and committed to the log
cardtable_database_errors_total    counter    database faults, by kind (locked, timeout, ...)
cardtable_retries_total            counter    ``retry`` answers, by cause
cardtable_http_errors_total        counter    5xx answers, by status and cause
cardtable_lease_events_total       counter    leases gained, retaken, lost, released
cardtable_lease_renew_seconds      histogram  one renewal round of all leases held
cardtable_lease_late_seconds       histogram  how late a renewal round (thread) or a
                                              callback of the event loop (loop) ran
cardtable_bus_lag_seconds          histogram  published by one process to heard by another
cardtable_redis_errors_total       counter    Redis calls that failed, by what was asked
cardtable_gc_pause_seconds         histogram  collector pauses, by generation
cardtable_evictions_total          counter    idle tables taken out of memory
=================================  =========  ==============================================
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

# The *_created series only double what a scraper keeps anyway.
disable_created_metrics()  # type: ignore[no-untyped-call]
REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)  # CPU seconds, resident memory, open files, start time

# Latencies of a card room: most answers take milliseconds, a starved one seconds.
_LATENCY = (.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30)
_PAUSES = (.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5)

ACTIONS = Counter("cardtable_actions", "Acts committed to a table's log, by game.",
                  ["game"], registry=REGISTRY)
ACTION_SECONDS = Histogram("cardtable_action_seconds",
                           "From a player's command received to its answer sent.",
                           buckets=_LATENCY, registry=REGISTRY)
LOG_COMMIT_SECONDS = Histogram("cardtable_log_commit_seconds",
                               "One event appended to a table's log and committed.",
                               buckets=_LATENCY, registry=REGISTRY)
DATABASE_ERRORS = Counter("cardtable_database_errors",
                          "Database faults, by kind (locked, timeout, unreachable, fenced, "
                          "other).", ["kind"], registry=REGISTRY)
RETRIES = Counter("cardtable_retries", "Answers 'retry' (nothing changed, send it again), "
                  "by cause.", ["cause"], registry=REGISTRY)
HTTP_ERRORS = Counter("cardtable_http_errors", "HTTP answers 5xx, by status and cause.",
                      ["status", "cause"], registry=REGISTRY)
LEASE_EVENTS = Counter("cardtable_lease_events", "Table leases gained, retaken (expired "
                       "but still ours), lost and released.", ["event"], registry=REGISTRY)
LEASE_RENEW_SECONDS = Histogram("cardtable_lease_renew_seconds",
                                "One renewal round of every lease this process holds.",
                                buckets=_LATENCY, registry=REGISTRY)
BUS_LAG_SECONDS = Histogram("cardtable_bus_lag_seconds",
                            "A message published by one process to heard by another.",
                            buckets=_LATENCY, registry=REGISTRY)
REDIS_ERRORS = Counter("cardtable_redis_errors", "Redis calls that failed, by what was "
                       "asked (renew, publish, acquire, ...).", ["op"], registry=REGISTRY)
GC_PAUSE_SECONDS = Histogram("cardtable_gc_pause_seconds", "Garbage collector pauses.",
                             ["generation"], buckets=_PAUSES, registry=REGISTRY)
EVICTIONS = Counter("cardtable_evictions", "Idle tables taken out of memory (their log "
                    "stays).", registry=REGISTRY)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def database_error_kind(error: BaseException) -> str:
    """A short name for a database fault, for the ``kind`` label and the log line."""
    text = f"{type(error).__name__} {error}".lower()
    if "locked" in text or "busy" in text:
        return "locked"
    if "fenced" in text:
        return "fenced"
    if "timeout" in text or "timed out" in text:
        return "timeout"
    if any(word in text for word in ("connect", "refused", "closed", "terminat", "reset")):
        return "unreachable"
    return "other"


class LiveFigures(Collector):
    """Readings of one app's live state, taken when scraped."""

    def __init__(self, tables: Callable[[], int], sockets: Callable[[], int]):
        self.tables, self.sockets = tables, sockets

    def collect(self) -> Iterable[GaugeMetricFamily]:
        yield GaugeMetricFamily("cardtable_tables_live",
                                "Tables whose actor is in this process's memory.",
                                value=self.tables())
        yield GaugeMetricFamily("cardtable_sockets",
                                "Open table and lobby sockets of this process.",
                                value=self.sockets())


def exposition(live: LiveFigures) -> bytes:
    """The whole text a scrape gets: the module's figures and ``live``'s readings."""
    own = CollectorRegistry(auto_describe=True)
    own.register(live)
    return generate_latest(REGISTRY) + generate_latest(own)


class _GcTimer:
    """Times each collection (``gc.callbacks``) into :data:`GC_PAUSE_SECONDS`."""

    def __init__(self) -> None:
        self.started = 0.0
        self.children = [GC_PAUSE_SECONDS.labels(str(g)) for g in range(3)]

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        else:
            self.children[min(int(info.get("generation", 0)), 2)].observe(
                time.perf_counter() - self.started)


_GC_TIMER: _GcTimer | None = None


def time_collections() -> None:
    """Start timing the collector's pauses (once per process)."""
    global _GC_TIMER
    if _GC_TIMER is None:
        _GC_TIMER = _GcTimer()
        gc.callbacks.append(_GC_TIMER)


LEASE_LATE_SECONDS = Histogram(
    "cardtable_lease_late_seconds", "How late a lease renewal round started on its "
    "thread (thread), and how late the event loop ran a callback posted then (loop).",
    ["where"], buckets=(.005, .01, .025, .05, .1, .25, .5, 1, 1.5, 2, 3, 5, 10),
    registry=REGISTRY)
