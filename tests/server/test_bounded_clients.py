"""Idle, slow and huge HTTP clients against a real `cardtable serve` (docs/server.md "Bounds").

Before these bounds, one process held 300 silent TCP connections and 300 slow-header
upgrades for over a minute, waited 40 s on a ``Content-Length: 10^12`` request and read a
32 MiB body whole. Here the head timeout is 1 s: every test waits for the server to act,
bounded by :data:`WAIT`, far above it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import httpx
import pytest

from cardtable.server.http_protocol import MAX_HEAD
from server_harness import ServerProcess

WAIT = 10.0  # seconds a bound may take at most here (the server's is 1 s)
MAX_BODY = 64 * 1024
FRIEND = "http://friend.example"  # a page CARDTABLE_ALLOWED_ORIGINS lets in
CREATE = {"opponent": "computer", "name": "Ann"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("bounded") / "data",
                            env={"CARDTABLE_HEADER_TIMEOUT": "1",
                                 "CARDTABLE_ALLOWED_ORIGINS": FRIEND}).start()
    try:
        yield process
    finally:
        process.stop()


async def opened(server: ServerProcess) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", server.port)


async def answer(reader: asyncio.StreamReader) -> bytes:
    """Everything the server writes until it closes the connection (within WAIT)."""
    return await asyncio.wait_for(reader.read(), WAIT)


def status_of(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1])


def still_serves(server: ServerProcess) -> None:
    assert httpx.get(f"{server.base_url}/api/games", timeout=WAIT).status_code == 200


# -- the connection: silence, a slow head, a huge head -------------------------------------------


async def test_silent_connections_are_closed(server: ServerProcess) -> None:
    """Fifty connections that never send a byte are each closed, without an answer."""
    connections = [await opened(server) for _ in range(50)]
    start = time.monotonic()
    answers = await asyncio.gather(*(answer(reader) for reader, _ in connections))
    assert answers == [b""] * 50  # closed, and nothing said: nobody asked anything
    assert time.monotonic() - start < WAIT
    for _, writer in connections:
        writer.close()
    still_serves(server)


async def drip(writer: asyncio.StreamWriter, reader: asyncio.StreamReader) -> bytes:
    """Send a header one byte at a time (slowloris) until the server answers and closes."""
    reading = asyncio.ensure_future(answer(reader))
    while not reading.done():
        try:
            writer.write(b"a")
            await writer.drain()
        except ConnectionError:
            break
        await asyncio.wait([reading], timeout=0.2)  # the drip's pace, or the answer
    return await reading


async def test_a_head_sent_a_byte_at_a_time_is_cut_with_408(server: ServerProcess) -> None:
    """Fifty slow WebSocket upgrades and slow GETs: each gets 408 and its connection ends."""
    connections = [await opened(server) for _ in range(50)]
    for n, (_, writer) in enumerate(connections):
        path = b"/ws/lobby" if n % 2 else b"/api/games"
        writer.write(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                     b"Connection: Upgrade\r\nX-Slow: ")
    answers = await asyncio.gather(*(drip(writer, reader) for reader, writer in connections))
    assert {status_of(raw) for raw in answers} == {408}
    assert b"a request's head must come within 1 s" in answers[0]
    still_serves(server)


async def test_a_head_over_32_kib_gets_431(server: ServerProcess) -> None:
    reader, writer = await opened(server)
    writer.write(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * MAX_HEAD)
    raw = await answer(reader)
    assert status_of(raw) == 431, raw
    writer.close()
    still_serves(server)


async def test_an_idle_keep_alive_connection_is_closed(server: ServerProcess) -> None:
    """After its answer, a connection that asks nothing more is closed (uvicorn's
    timeout_keep_alive, set to the head timeout)."""
    reader, writer = await opened(server)
    writer.write(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n")
    raw = await answer(reader)  # the answer, then the close
    assert status_of(raw) == 200
    writer.close()


# -- the body: too big, too slow, too deep ---------------------------------------------------


async def test_a_huge_content_length_gets_413_before_its_body(server: ServerProcess) -> None:
    reader, writer = await opened(server)
    start = time.monotonic()
    writer.write(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 1000000000000\r\n\r\n{")
    raw = await answer(reader)
    assert status_of(raw) == 413 and b"connection: close" in raw.lower(), raw
    assert b"at most 65536 bytes" in raw
    assert time.monotonic() - start < WAIT
    writer.close()


def test_a_body_over_64_kib_is_refused_and_one_under_it_is_read(server: ServerProcess) -> None:
    big = json.dumps({**CREATE, "padding": "x" * MAX_BODY})
    refused = httpx.post(f"{server.base_url}/api/tables", content=big,
                         headers={"content-type": "application/json"}, timeout=WAIT)
    assert refused.status_code == 413, refused.text
    assert refused.json() == {"detail": "a request's body has at most 65536 bytes"}
    fits = json.dumps({**CREATE, "padding": "x" * (MAX_BODY - 200)})
    read = httpx.post(f"{server.base_url}/api/tables", content=fits,
                      headers={"content-type": "application/json"}, timeout=WAIT)
    assert read.status_code == 422 and "padding" in read.text  # read and judged by the route


async def test_a_chunked_body_is_counted_as_it_comes(server: ServerProcess) -> None:
    """No Content-Length: 413 as soon as 64 KiB have come, without waiting for the end of
    the body (the client sends 65 KiB and then waits: its last chunk never comes)."""
    reader, writer = await opened(server)
    writer.write(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n")
    for _ in range(MAX_BODY // 1024 + 1):
        writer.write(b"400\r\n" + b" " * 1024 + b"\r\n")
    await writer.drain()
    raw = await answer(reader)
    assert status_of(raw) == 413 and b"at most 65536 bytes" in raw, raw
    writer.close()
    still_serves(server)


async def test_a_body_that_does_not_come_gets_408(server: ServerProcess) -> None:
    reader, writer = await opened(server)
    writer.write(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 100\r\n\r\n{\"opponent\": ")
    raw = await answer(reader)
    assert status_of(raw) == 408 and b"did not arrive within 1 s" in raw, raw
    writer.close()


def test_a_body_nested_too_deep_is_refused_by_name(server: ServerProcess) -> None:
    deep = "[" * 30_000 + "]" * 30_000
    refused = httpx.post(f"{server.base_url}/api/tables", content=deep,
                         headers={"content-type": "application/json"}, timeout=WAIT)
    assert refused.status_code == 422
    assert refused.json() == {"detail": "body: nested deeper than 32 levels"}
    assert "Traceback" not in server.output()


# -- Origin: no change from another site's page ---------------------------------------------


def own_origin(server: ServerProcess) -> str:
    return server.base_url


CROSS_SITE = [
    pytest.param({"Origin": "http://evil.example"}, id="another-site"),
    pytest.param({"Origin": "http://127.0.0.1:1"}, id="another-port"),  # same-site
    pytest.param({"Origin": "null"}, id="sandboxed-page"),
    pytest.param({"Sec-Fetch-Site": "same-site"}, id="same-site-without-origin"),
    pytest.param({"Sec-Fetch-Site": "cross-site"}, id="cross-site-without-origin"),
]


def table_state(browser: httpx.Client, code: str) -> dict[str, object]:
    info: dict[str, object] = browser.get(f"/api/tables/{code}").json()
    info.pop("now")  # the server's clock
    return info


@pytest.mark.parametrize("headers", CROSS_SITE)
def test_a_change_from_another_sites_page_gets_403(server: ServerProcess,
                                                    headers: dict[str, str]) -> None:
    with httpx.Client(base_url=server.base_url, timeout=WAIT) as browser:
        made = browser.post("/api/tables", json=CREATE)  # a table, and a guest's cookie
        assert made.status_code == 201
        code = made.json()["code"]
        before = table_state(browser, code)
        for method, path, body in [("POST", "/api/tables", CREATE),
                                   ("POST", f"/api/tables/{code}/join", {"name": "Eve"}),
                                   ("POST", "/api/account/logout", None),
                                   ("POST", "/api/blocks/p_someone", None),
                                   ("DELETE", "/api/blocks/p_someone", None),
                                   ("POST", "/api/lobby/quick-join", {"name": "Eve"})]:
            refused = browser.request(method, path, json=body, headers=headers)
            assert refused.status_code == 403, (method, path, refused.text)
            assert refused.json()["detail"].startswith("refused: a page of "), refused.text
        assert table_state(browser, code) == before  # nothing changed
        assert browser.get("/api/me").status_code == 200  # still the same guest


def test_a_form_post_from_another_port_cannot_sign_anyone_out(server: ServerProcess) -> None:
    """The attack of issue 26: a same-site page (another port) posts a form."""
    refused = httpx.post(f"{server.base_url}/api/account/logout", content=b"",
                         headers={"Origin": "http://127.0.0.1:8080",
                                  "Sec-Fetch-Site": "same-site",
                                  "Content-Type": "application/x-www-form-urlencoded"},
                         timeout=WAIT)
    assert refused.status_code == 403
    assert refused.json() == {
        "detail": "refused: a page of http://127.0.0.1:8080 may not change anything here"}


@pytest.mark.parametrize("headers", [
    pytest.param({}, id="no-browser"),  # the Python client, the CLI, curl
    pytest.param({"Origin": "OWN", "Sec-Fetch-Site": "same-origin"}, id="own-page"),
    pytest.param({"Sec-Fetch-Site": "same-origin"}, id="own-page-without-origin"),
    pytest.param({"Origin": FRIEND, "Sec-Fetch-Site": "cross-site"}, id="allowed-origin"),
])
def test_our_own_pages_and_clients_may_change_things(server: ServerProcess,
                                                     headers: dict[str, str]) -> None:
    headers = {k: own_origin(server) if v == "OWN" else v for k, v in headers.items()}
    made = httpx.post(f"{server.base_url}/api/tables", json=CREATE, headers=headers,
                      timeout=WAIT)
    assert made.status_code == 201, made.text


def test_reading_is_never_refused_for_its_origin(server: ServerProcess) -> None:
    got = httpx.get(f"{server.base_url}/api/lobby", timeout=WAIT,
                    headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"})
    assert got.status_code == 200
