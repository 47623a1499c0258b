"""Scale-out figures (issue 15): several ``cardtable serve`` processes as one card room.

Run ``python bench/cluster.py`` (every part) or ``--part failover throughput forwarding
idle`` (some).  Every part starts its own card room with ``tests/cluster_harness.py``:
N processes sharing a fresh PostgreSQL database and the local Redis (a key prefix of
their own), behind HAProxy (``--proxy nginx`` for nginx; its health checks wait 2 s for
an answer, as in production), ``CARDTABLE_BOT_DELAY=0``, the per-connection frame limit
and the per-address join limit lifted (every bot comes from 127.0.0.1).  ``--logs DIR``
keeps every process's log.  The parts:

* **failover**: 3 processes, ``--failover-tables`` tables of ``--failover-games`` (in
  turn; default Gin, Rummy and Spades) of one client seat (the game's bot in this
  process, playing through the proxy, ``--failover-think`` s before each move) against the
  server's computers.  ``--kills`` times: pick a table, find
  its owner (the Redis lease ``{prefix}:lease:{table}`` names a node; each process's
  ``/api/health`` says which node it is), ``kill -9`` it, and time until that table's
  client receives its next acknowledged move (``cardtable.client`` reconnects by itself
  through the proxy); the same for every other table the killed process owned; then
  start it again.  The lease lasts ``--lease-ttl`` s (the server's default).  The
  report counts the leases the live processes lost (their logs' "lost the lease") and
  retook (expired, but nobody else had taken them).
* **throughput**: actions per second and the latency from an action sent to the
  opponent's view received (``bench/server.py``'s measure: friend tables of *two client
  seats*, both normal Gin bots, ``--think`` s before each move) at each of ``--tables``
  for a card room of each of ``--processes`` processes, and for one process without
  Redis (plain single-process mode, behind the same proxy, on the same PostgreSQL) for
  reference.  The tables of one variant are opened in steps on one card room (1,000,
  then 1,000 more) and keep playing; each step is measured over ``--seconds``.  The bots
  run in ``--clients`` load-generating processes of their own (this file with
  ``--load-worker``), each with its share of the tables.  CPU (core-seconds per second)
  of the server processes, the proxy, Redis (its ``INFO``; the machine's one Redis) and
  the load generators shows who had the two cores.
* **forwarding**: 2 processes; ``--forward-tables`` tables created on process 0 (which
  owns them).  In alternating rounds every seat's socket is connected to process 0
  (local: the actor is in the process holding the socket) or to process 1 (forwarded:
  each frame goes over Redis pub/sub to the owner and every view comes back the same
  way); p50 / p99 of each round, medians and their difference.
* **idle**: ``--idle`` spectator sockets, ``--idle-per-table`` to a table, opened through
  the proxy to 3 processes and held; sockets per process (``/api/health``), the total,
  and each process's resident memory before and after.
* **redis-outages**: 3 processes on a private ``redis-server``, stopped ``--outages``
  times for ``--outage-seconds`` during play (``bench/cluster_outages.py`` says what is
  timed).

``--hog N`` runs N busy processes (a ``while True`` each) beside every part, as a loaded
machine would.  Figures of record: docs/benchmarks.md ("Scale-out"; "Under load (issue
27)" for ``--hog``).
"""


from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

# The card room comes from the tests' harness (tests/cluster_harness.py).
sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))

from rich.console import Console

from cardtable.engine import get_game
from cardtable.server.config import ServerConfig
from cluster_failover import failover_part
from cluster_harness import unavailable
from cluster_outages import outage_arguments, redis_outages_part
from cluster_parts import forwarding_part, idle_part, throughput_part
from cluster_room import MAX_TABLES, PARTS, WORKER_FLAG, worker_main
from hog import hog
from server import raise_open_files

# -- the command line -------------------------------------------------------------------------


async def bench(args: argparse.Namespace) -> int:
    console = Console(width=None if sys.stdout.isatty() else 160)
    raise_open_files(20000)
    why = unavailable(args.proxy)
    if why:
        console.print(f"[red]cannot run a card room here: {why}[/red]")
        return 2
    parts: dict[str, Callable[[argparse.Namespace, Console], Awaitable[object]]] = {
        "failover": failover_part, "throughput": throughput_part,
        "forwarding": forwarding_part, "idle": idle_part, "redis-outages": redis_outages_part}
    for part in args.part:
        began = time.perf_counter()
        console.rule(part + (f" (CPU hog: {args.hog} busy processes)" if args.hog else ""))
        with hog(args.hog):
            await parts[part](args, console)
        console.print(f"({part}: {time.perf_counter() - began:.0f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [WORKER_FLAG]:
        return worker_main(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--part", nargs="+", choices=PARTS, default=list(PARTS), metavar="PART",
                        help=f"parts to run, in order: {', '.join(PARTS)} (default: all)")
    parser.add_argument("--proxy", choices=("haproxy", "nginx"), default="haproxy")
    parser.add_argument("--logs", type=Path, metavar="DIR",
                        help="keep every room's logs (processes, proxy, load generators) in "
                             "a new directory under DIR (default: deleted)")
    parser.add_argument("--hog", type=int, default=0, metavar="N",
                        help="N busy processes beside every part (default: 0)")
    parser.add_argument("--warmup", type=float, default=5.0, metavar="S",
                        help="seconds of play before each measured window (default: 5)")
    failover = parser.add_argument_group("failover")
    failover.add_argument("--kills", type=int, default=20, help="kills -9 (default: 20)")
    failover.add_argument("--failover-tables", type=int, default=30, metavar="N",
                          help="tables playing meanwhile (default: 30)")
    failover.add_argument("--failover-games", nargs="+", default=["gin", "rummy", "spades"],
                          metavar="GAME", help="their games, in turn (default: gin rummy "
                                               "spades)")
    failover.add_argument("--failover-think", type=float, default=0.1, metavar="S",
                          help="mean seconds before each move (default: 0.1)")
    failover.add_argument("--lease-ttl", type=float, default=ServerConfig().lease_ttl,
                          metavar="S", help="CARDTABLE_LEASE_TTL of the processes (default: "
                                            "the server's own, %(default)g)")
    failover.add_argument("--stuck-after", type=float, default=30.0, metavar="S",
                          help="a table without a move this long after a kill is stuck "
                               "(default: 30)")
    load = parser.add_argument_group("throughput")
    load.add_argument("--tables", type=int, nargs="+", default=[1000, 2000], metavar="N",
                      help="table counts, opened in steps on one room (default: 1000 2000)")
    load.add_argument("--processes", type=int, nargs="+", default=[1, 2, 3], metavar="N",
                      help="card rooms of N processes to compare (default: 1 2 3)")
    load.add_argument("--no-single", dest="single", action="store_false",
                      help="leave out the single-process (no Redis) reference")
    load.add_argument("--seconds", type=float, default=30.0,
                      help="measured window per table count (default: 30)")
    load.add_argument("--think", type=float, default=2.0, metavar="S",
                      help="mean seconds a bot waits before each move (default: 2)")
    load.add_argument("--clients", type=int, default=1, metavar="N",
                      help="load-generating processes sharing the tables (default: 1)")
    load.add_argument("--repeat", type=int, default=1, metavar="N",
                      help="run every variant N times, interleaved (default: 1)")
    forwarding = parser.add_argument_group("forwarding")
    forwarding.add_argument("--forward-tables", type=int, default=100, metavar="N")
    forwarding.add_argument("--forward-think", type=float, default=1.0, metavar="S")
    forwarding.add_argument("--forward-seconds", type=float, default=15.0, metavar="S")
    forwarding.add_argument("--forward-rounds", type=int, default=3, metavar="N",
                            help="rounds of each (local, forwarded, local, ...; default: 3)")
    idle = parser.add_argument_group("idle")
    idle.add_argument("--idle", type=int, default=3000, metavar="N",
                      help="idle spectator sockets (default: 3000)")
    idle.add_argument("--idle-per-table", type=int, default=100, metavar="N",
                      help="spectators to a table (default: 100; the server takes 200)")
    outage_arguments(parser)
    args = parser.parse_args(argv)
    if not all(1 <= n <= MAX_TABLES for n in [*args.tables, args.forward_tables]):
        parser.error(f"table counts from 1 to {MAX_TABLES}")
    if not all(1 <= n <= 3 for n in args.processes) or not 1 <= args.clients <= 4:
        parser.error("--processes from 1 to 3, --clients from 1 to 4")
    for game in args.failover_games:
        try:
            get_game(game)
        except (KeyError, ValueError):
            parser.error(f"no game {game!r}")
    if not 0 <= args.hog <= 16:
        parser.error("--hog from 0 to 16")
    if not (1 <= args.kills <= 200 and 1 <= args.failover_tables <= 200
            and 1 <= args.repeat <= 10 and 1 <= args.forward_rounds <= 20
            and 1 <= args.idle <= 15000 and 1 <= args.idle_per_table <= 200):
        parser.error("a count out of range")
    if not (0 < args.seconds <= 600 and 0 < args.forward_seconds <= 600
            and 0 <= args.think <= 60 and 0 <= args.failover_think <= 10
            and 0 <= args.forward_think <= 60 and 0 < args.lease_ttl <= 60
            and 0 <= args.warmup <= 120 and 0 < args.stuck_after <= 600):
        parser.error("a time out of range")
    return asyncio.run(bench(args))


if __name__ == "__main__":
    raise SystemExit(main())
