"""Password work stays off the event loop (issue 26, item 4): argon2 (and zxcvbn) run in
worker threads, at most ``hash_workers`` at once, so a burst of registrations and
sign-ins stalls no table; and a register whose name is taken hashes nothing.

The server runs in a thread of this process (``local_server``) with real sockets, so a
sampling thread can look at every thread's stack (``sys._current_frames``) while the
requests are in flight: the server's loop thread must never be seen inside argon2, a
worker thread must be, never more than two at once, and plain GETs are answered while
a hash is running. No clock decides anything: the conditions are what the stacks show.
"""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
import sys
import threading
from collections.abc import Iterator
from types import FrameType

import httpx
import pytest

from cardtable.server.config import ServerConfig
from local_server import LocalServer

WORKERS = 2
PASSWORD = "a quiet loop at night"
_addresses = itertools.count(1)


def _in_argon2(frame: FrameType | None) -> bool:
    while frame is not None:
        if "argon2" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


def hashing_threads() -> set[int]:
    """The threads inside argon2 at this instant."""
    return {ident for ident, frame in sys._current_frames().items() if _in_argon2(frame)}


class Sampler(threading.Thread):
    """Looks at every thread's stack until stopped: which threads were ever seen inside
    argon2, and the most at once."""

    def __init__(self) -> None:
        super().__init__(name="stack sampler", daemon=True)
        self.seen: set[int] = set()
        self.most_at_once = 0
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.wait(0.001):  # a sampling period, not a wait for anything
            now = hashing_threads()
            self.seen |= now
            self.most_at_once = max(self.most_at_once, len(now))

    def __enter__(self) -> Sampler:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.halt.set()
        self.join()


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    server = LocalServer(tmp_path_factory.mktemp("hashing"), trusted_proxies=("127.0.0.1",),
                         hash_workers=WORKERS).start()
    try:
        yield server
    finally:
        server.stop()


def browser(local: LocalServer) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=local.base_url, timeout=60, headers={
        "X-Forwarded-For": f"192.0.2.{next(_addresses)}"})


async def _post(local: LocalServer, path: str, body: dict[str, str]) -> int:
    async with browser(local) as http:
        return (await http.post(path, json=body)).status_code


async def health_while(local: LocalServer, busy: list[asyncio.Task[int]]) -> int:
    """GET /api/health again and again until every task is done; how many answers came
    while the same worker thread was inside argon2 at the asking and at the answer."""
    answered_mid_hash = 0
    async with httpx.AsyncClient(base_url=local.base_url, timeout=60) as http:
        while not all(task.done() for task in busy):
            before = hashing_threads()
            assert (await http.get("/api/health")).status_code == 200
            if before & hashing_threads():
                answered_mid_hash += 1
    return answered_mid_hash


async def test_registers_and_sign_ins_hash_in_workers_not_on_the_loop(
        local: LocalServer) -> None:
    loop_thread = local.thread.ident
    names = [f"hasher_{i}" for i in range(6)]
    with Sampler() as sampler:
        registers = [asyncio.create_task(_post(local, "/api/account/register", {
            "username": name, "password": PASSWORD})) for name in names]
        mid_hash = await health_while(local, registers)
        assert [task.result() for task in registers] == [200] * len(names)
        sign_ins = [asyncio.create_task(_post(local, "/api/account/login", {
            "username": name, "password": PASSWORD if i % 2 else PASSWORD + "?"}))
            for i, name in enumerate(names)]
        mid_hash += await health_while(local, sign_ins)
        assert [task.result() for task in sign_ins] == [401, 200] * (len(names) // 2)
    assert loop_thread not in sampler.seen, "the event loop itself ran argon2"
    assert sampler.seen, "no worker was ever seen hashing"
    assert 1 <= sampler.most_at_once <= WORKERS
    assert mid_hash >= 1, "no GET was answered while a hash ran"


def player_rows(local: LocalServer) -> int:
    with sqlite3.connect(local.settings.data_dir / "cardtable.db") as db:
        count: int = db.execute("SELECT count(*) FROM players").fetchone()[0]
    return count


async def test_a_taken_name_is_refused_before_anything_is_hashed_or_made(
        local: LocalServer) -> None:
    assert await _post(local, "/api/account/register",
                       {"username": "Taken_One", "password": PASSWORD}) == 200
    players = player_rows(local)
    with Sampler() as sampler:
        for name in ("taken_one", "TAKEN_ONE", "Taken_One"):
            async with browser(local) as http:
                answer = await http.post("/api/account/register",
                                         json={"username": name, "password": PASSWORD})
                assert answer.status_code == 409
                assert answer.json()["detail"] == "that username is taken"
                assert (await http.get("/api/me")).json() is None  # no guest was made
                assert not http.cookies  # and no cookie set
    assert sampler.seen == set(), "a taken name was hashed"
    assert player_rows(local) == players, "a taken name made a guest"


def test_the_number_of_hash_workers_is_configured() -> None:
    assert ServerConfig.from_env(environ={}).hash_workers == 2
    assert ServerConfig.from_env(environ={"CARDTABLE_HASH_WORKERS": "3"}).hash_workers == 3
    for bad in ("0", "-1", "two"):
        with pytest.raises(ValueError, match="CARDTABLE_HASH_WORKERS"):
            ServerConfig.from_env(environ={"CARDTABLE_HASH_WORKERS": bad})
