"""Start-up cost of ``cardtable serve``: CPU seconds and wall time from exec to the first 200.

Run ``python bench/startup.py [--runs 10] [--against 995c5f8 HEAD~60] [--restart]``.
Each run starts ``python -m cardtable serve --host 127.0.0.1 --port P --data-dir DIR`` with
``PYTHONPATH`` at one tree's ``src`` (DIR: a new SQLite data directory every run; with
``--restart``, one per tree, made by an uncounted first start, so its schema is at head),
polls ``/api/games`` until it answers 200, then ``/``, and at each first 200 reads the
server's CPU seconds (user + system, from ``/proc/PID/stat``) and the wall time since
exec; then stops the server.

The trees are this checkout's working tree (``this tree``) and every ``--against``
revision, checked out with ``git worktree add --detach`` into a temporary directory (this
checkout's files are not touched; the worktrees are removed at the end).  All trees run
with this interpreter and its installed packages.  Runs are interleaved (A B C A B C ...)
so that a shared, noisy machine hurts every tree alike; medians and the ratio of each
tree to the first ``--against`` revision are printed with the load average.

``--importtime`` instead runs this tree once under ``python -X importtime`` and prints the
modules that cost most (cumulative and self time, in ms) up to the first 200.

Figures of record: docs/benchmarks.md ("Under load (issue 27)", "Start-up").
"""

from __future__ import annotations

import argparse
import http.client
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

REPO = Path(__file__).resolve().parents[1]
OURS = "this tree"
TICKS = os.sysconf("SC_CLK_TCK")
PATHS = ("/api/games", "/")


@dataclass
class Run:
    cpu: dict[str, float]  # path -> server CPU seconds at its first 200
    wall: dict[str, float]  # path -> seconds since exec at its first 200


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and of its children it waited for."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    # fields[11:15] are utime, stime, cutime, cstime (stat fields 14-17)
    return sum(int(f) for f in fields[11:15]) / TICKS


def status(port: int, path: str) -> int | None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    except OSError:
        return None
    finally:
        conn.close()


def one_run(src: Path, timeout: float, data_dir: Path | None = None) -> Run:
    """One start of the server of ``src``: on a new data directory, or on ``data_dir``
    (kept) for a restart."""
    port = free_port()
    keep = data_dir is not None
    data_dir = data_dir or Path(tempfile.mkdtemp(prefix="startup-data-"))
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    command = [sys.executable, "-m", "cardtable", "serve",
               "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)]
    started = time.perf_counter()
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              cwd=data_dir)
    run = Run({}, {})
    try:
        for path in PATHS:
            while status(port, path) != 200:
                if server.poll() is not None:
                    raise RuntimeError(f"the server under {src} exited ({server.returncode})")
                if time.perf_counter() - started > timeout:
                    raise RuntimeError(f"no 200 from {path} under {src} in {timeout:.0f} s")
                time.sleep(0.005)
            run.cpu[path] = cpu_seconds(server.pid)
            run.wall[path] = time.perf_counter() - started
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if not keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    return run


def importtime(timeout: float, top: int) -> None:
    """This tree once under ``-X importtime``: the costliest imports before the first 200."""
    port = free_port()
    data_dir = Path(tempfile.mkdtemp(prefix="startup-data-"))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    err_path = data_dir / "importtime.txt"  # a file: a pipe not read would fill and block
    server = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "cardtable", "serve", "--host",
         "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)],
        env=env, stdout=subprocess.DEVNULL, stderr=err_path.open("w"))
    started = time.perf_counter()
    try:
        for path in PATHS:
            while status(port, path) != 200:
                if time.perf_counter() - started > timeout or server.poll() is not None:
                    raise RuntimeError("no 200")
                time.sleep(0.005)
        cpu = cpu_seconds(server.pid)
    finally:
        server.terminate()
        server.wait(10)
        err = err_path.read_text()
        shutil.rmtree(data_dir, ignore_errors=True)
    rows = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        self_part, cumulative_part, name = line.removeprefix("import time:").split("|", 2)
        try:
            self_us_i, cumulative_i = int(self_part), int(cumulative_part)
        except ValueError:  # the header line
            continue
        rows.append((cumulative_i, self_us_i, len(name) - len(name.lstrip()), name.strip()))
    console = Console()
    console.print(f"CPU to the first 200 under -X importtime: {cpu:.2f} s "
                  f"(importtime itself adds to it)")
    for title, key in (("cumulative", 0), ("self", 1)):
        table = Table(title=f"Top {top} imports by {title} time (ms)")
        for column in ("module", "cumulative", "self", "depth"):
            table.add_column(column, justify="left" if column == "module" else "right")
        ranked = sorted(rows, key=lambda row: row[0] if key == 0 else row[1], reverse=True)
        for cumulative_i, self_i, depth, name in ranked[:top]:
            table.add_row(name, f"{cumulative_i / 1000:.0f}", f"{self_i / 1000:.0f}",
                          str(depth // 2))
        console.print(table)


def add_worktree(rev: str, parent: Path) -> Path:
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", rev], check=True,
                         capture_output=True, text=True).stdout.strip()
    where = parent / sha
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet",
                    str(where), sha], check=True)
    return where


def remove_worktree(where: Path) -> None:
    subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(where)],
                   check=False, capture_output=True)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(console: Console, trees: dict[str, Path], runs: dict[str, list[Run]],
           reference: str | None, loads: list[float], restart: bool) -> None:
    database = "a database at head (a restart)" if restart else "a new database"
    table = Table(title=f"cardtable serve, exec to first 200 (SQLite, {database}); "
                        f"{len(next(iter(runs.values())))} runs each, medians")
    table.add_column("tree")
    for path in PATHS:
        table.add_column(f"CPU s {path}", justify="right")
        table.add_column(f"wall s {path}", justify="right")
    table.add_column("CPU min..max /api/games", justify="right")
    if reference:
        table.add_column(f"CPU ratio to {reference}", justify="right")
    ref_cpu = median([r.cpu["/api/games"] for r in runs[reference]]) if reference else None
    for name in trees:
        cpus = [r.cpu["/api/games"] for r in runs[name]]
        row = [name]
        for path in PATHS:
            row.append(f"{median([r.cpu[path] for r in runs[name]]):.2f}")
            row.append(f"{median([r.wall[path] for r in runs[name]]):.2f}")
        row.append(f"{min(cpus):.2f}..{max(cpus):.2f}")
        if ref_cpu:
            row.append(f"{median(cpus) / ref_cpu:.2f}")
        table.add_row(*row)
    console.print(table)
    console.print(f"load average (1 min) during the runs: median {median(loads):.2f}, "
                  f"{min(loads):.2f}..{max(loads):.2f}; {os.cpu_count()} CPUs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each tree")
    parser.add_argument("--against", nargs="*", default=["995c5f8"], metavar="REV",
                        help="git revisions to compare with (the first is the reference)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds a server may take to its first 200")
    parser.add_argument("--restart", action="store_true",
                        help="start on a database made by an earlier start (at the newest "
                             "schema), not on a new one")
    parser.add_argument("--importtime", action="store_true",
                        help="run this tree once under -X importtime and show the top imports")
    parser.add_argument("--top", type=int, default=25, help="rows of --importtime")
    args = parser.parse_args()
    console = Console(width=max(Console().width, 130))
    if args.importtime:
        importtime(args.timeout, args.top)
        return

    parent = Path(tempfile.mkdtemp(prefix="startup-trees-"))
    trees: dict[str, Path] = {OURS: REPO / "src"}
    worktrees = []
    try:
        for rev in args.against:
            where = add_worktree(rev, parent)
            worktrees.append(where)
            trees[f"{rev} ({where.name})" if rev != where.name else rev] = where / "src"
        # One start of each tree first, not counted: it writes the tree's bytecode caches
        # (a fresh worktree has none), which every later start reads; with --restart its
        # database is the one every later start of that tree opens.
        data_dirs: dict[str, Path | None] = {}
        for number, (name, src) in enumerate(trees.items()):
            data_dirs[name] = None
            if args.restart:
                data_dirs[name] = parent / f"data-{number}"
                (parent / f"data-{number}").mkdir()
            one_run(src, args.timeout, data_dirs[name])
        runs: dict[str, list[Run]] = {name: [] for name in trees}
        loads: list[float] = []
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[last]}"), console=console) as progress:
            task = progress.add_task("start-ups", total=args.runs * len(trees), last="")
            for _ in range(args.runs):
                for name, src in trees.items():
                    loads.append(os.getloadavg()[0])
                    run = one_run(src, args.timeout, data_dirs[name])
                    runs[name].append(run)
                    progress.update(task, advance=1, last=f"{name}: "
                                    f"{run.cpu['/api/games']:.2f} CPU-s")
        reference = list(trees)[1] if len(trees) > 1 else None
        report(console, trees, runs, reference, loads, args.restart)
    finally:
        for where in worktrees:
            remove_worktree(where)
        shutil.rmtree(parent, ignore_errors=True)


if __name__ == "__main__":
    main()
