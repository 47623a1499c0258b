"""WebSockets that never say hello, and too many from one address (docs/protocol.md).

Before these bounds, 200 WebSockets that never said hello were all still held after 60 s,
and one address could open as many as it liked. Here the hello timeout is 1 s and an
address may hold 4 sockets; each test's client has addresses of its own (the server
trusts 127.0.0.1 as a proxy, so X-Forwarded-For says whom a socket counts against).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from cardtable.server.codes import CloseCode
from server_harness import ServerProcess
from ws_helpers import create, recv_type

WAIT = 10.0  # seconds a bound may take at most here (the server's hello timeout is 1 s)
LIMIT = 4
_addresses = (f"198.51.{n // 250}.{n % 250 + 1}" for n in itertools.count())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("sockets") / "data",
                            env={"CARDTABLE_HELLO_TIMEOUT": "1",
                                 "CARDTABLE_SOCKET_LIMIT": str(LIMIT),
                                 "CARDTABLE_TRUSTED_PROXIES": "127.0.0.1",
                                 "CARDTABLE_JOIN_LIMIT": "100000"}).start()
    try:
        yield process
    finally:
        process.stop()


async def opened(server: ServerProcess, path: str, address: str) -> ClientConnection:
    return await connect(f"{server.ws_base}{path}",
                         additional_headers={"X-Forwarded-For": address})


async def closed(ws: ClientConnection) -> tuple[int | None, str | None]:
    """The code and reason the server closed ``ws`` with (within WAIT)."""
    await asyncio.wait_for(ws.wait_closed(), WAIT)
    return ws.close_code, ws.close_reason


async def answers_pings(ws: ClientConnection) -> None:
    await ws.send(json.dumps({"t": "ping"}))
    await recv_type(ws, "pong", WAIT)


def hello(token: str) -> str:
    return json.dumps({"t": "hello", "d": {"token": token}})


# -- hello within the hello timeout ---------------------------------------------------------------


async def test_a_table_socket_that_says_no_hello_is_closed_with_4008(
        server: ServerProcess) -> None:
    grant = create(server, "computer")
    address = next(_addresses)
    silent = await opened(server, f"/ws/{grant['table_id']}", address)
    chatty = await opened(server, f"/ws/{grant['table_id']}", address)  # pings, no hello
    seated = await opened(server, f"/ws/{grant['table_id']}", address)
    await seated.send(hello(grant["token"]))
    await recv_type(seated, "welcome", WAIT)

    async def ping_until_closed() -> tuple[int | None, str | None]:
        while chatty.close_code is None:  # every frame before hello is answered, but
            with contextlib.suppress(ConnectionClosed):  # none of them is a hello; the
                await chatty.send(json.dumps({"t": "ping"}))  # close may cross a ping
            await asyncio.wait([asyncio.ensure_future(chatty.wait_closed())], timeout=0.2)
        return await closed(chatty)

    reason = "no hello within 1 s"
    assert await closed(silent) == (CloseCode.NO_HELLO, reason)
    assert await ping_until_closed() == (CloseCode.NO_HELLO, reason)
    await answers_pings(seated)  # who said hello in time stays, past the timeout
    await seated.close()


async def test_a_lobby_socket_that_says_no_hello_is_closed_with_4008(
        server: ServerProcess) -> None:
    address = next(_addresses)
    silent = await opened(server, "/ws/lobby", address)
    listener = await opened(server, "/ws/lobby", address)
    await listener.send(json.dumps({"t": "hello"}))
    assert json.loads(await asyncio.wait_for(silent.recv(), WAIT))["t"] == "lobby"
    assert await closed(silent) == (CloseCode.NO_HELLO, "no hello within 1 s")
    await answers_pings(listener)  # a listener that said hello may listen on
    await listener.close()


async def test_a_hundred_silent_sockets_are_all_closed(server: ServerProcess) -> None:
    grant = create(server, "computer")
    sockets = [await opened(server, f"/ws/{grant['table_id']}" if n % 2 else "/ws/lobby",
                            next(_addresses)) for n in range(100)]
    codes = await asyncio.gather(*(closed(ws) for ws in sockets))
    assert {code for code, _ in codes} == {CloseCode.NO_HELLO}


# -- sockets per address -------------------------------------------------------------------------


async def test_an_address_holds_at_most_the_limit_of_sockets(server: ServerProcess) -> None:
    grant = create(server, "friend")
    crowd, other = next(_addresses), next(_addresses)
    held = []
    for n in range(LIMIT):  # lobby and table sockets count together
        ws = await opened(server, "/ws/lobby" if n % 2 else f"/ws/{grant['table_id']}", crowd)
        await ws.send(json.dumps({"t": "hello"}) if n % 2 else hello(grant["token"]))
        await answers_pings(ws)
        held.append(ws)
    for path in ("/ws/lobby", f"/ws/{grant['table_id']}"):
        one_more = await opened(server, path, crowd)
        assert await closed(one_more) == (
            CloseCode.POLICY, f"too many connections from your address (at most {LIMIT})")
    elsewhere = await opened(server, "/ws/lobby", other)  # another address is not counted
    await elsewhere.send(json.dumps({"t": "hello"}))
    await answers_pings(elsewhere)
    for ws in held:
        await answers_pings(ws)  # the refusals cost those already open nothing
    await held.pop().close()

    async def room_again() -> ClientConnection:
        while True:  # the server counts the close as soon as it has seen it
            ws = await opened(server, "/ws/lobby", crowd)
            await ws.send(json.dumps({"t": "hello"}))
            try:
                await answers_pings(ws)
                return ws
            except ConnectionClosed:
                assert ws.close_code == CloseCode.POLICY

    again = await asyncio.wait_for(room_again(), WAIT)
    for ws in [*held, again, elsewhere]:
        await ws.close()

