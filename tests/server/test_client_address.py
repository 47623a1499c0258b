"""Whose address a request counts against: the socket's peer, and X-Forwarded-For only
through proxies the operator trusts (``CARDTABLE_TRUSTED_PROXIES``).

The function first, case by case; then real servers: a forged header from 127.0.0.1 does
not reset the join limit, and behind a trusted proxy each client has a budget of its own.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from cardtable.server.config import ServerConfig
from cardtable.server.security import client_address, trusted_networks
from server_harness import ServerProcess

PROXIES = trusted_networks(["127.0.0.1", "10.0.0.0/8", "fd00::/8"])


@pytest.mark.parametrize(("peer", "headers", "expected"), [
    # nobody trusted, or not from a trusted proxy: the header is never read
    ("127.0.0.1", [], "127.0.0.1"),
    ("198.51.100.2", ["203.0.113.7"], "198.51.100.2"),
    ("198.51.100.2", ["10.0.0.1"], "198.51.100.2"),
    # from a trusted proxy: the rightmost untrusted hop is the client
    ("127.0.0.1", ["203.0.113.7"], "203.0.113.7"),
    ("127.0.0.1", ["6.6.6.6, 203.0.113.7"], "203.0.113.7"),  # the client wrote 6.6.6.6
    ("127.0.0.1", ["6.6.6.6, 203.0.113.7, 10.9.8.7"], "203.0.113.7"),  # two proxies
    ("10.0.0.5", ["6.6.6.6", "203.0.113.7,10.9.8.7"], "203.0.113.7"),  # several headers
    ("127.0.0.1", ["10.1.1.1, 10.2.2.2"], "10.1.1.1"),  # all trusted: the leftmost
    ("127.0.0.1", [""], "127.0.0.1"),  # an empty header: the proxy itself
    # what proxies write besides bare addresses
    ("127.0.0.1", ["203.0.113.7:51234"], "203.0.113.7"),
    ("127.0.0.1", ["[2001:db8::1]:443"], "2001:db8::1"),
    ("127.0.0.1", ["2001:DB8:0::1"], "2001:db8::1"),
    ("::ffff:127.0.0.1", ["::ffff:203.0.113.7"], "203.0.113.7"),
    ("fd00::1", ["203.0.113.7"], "203.0.113.7"),
    # garbage where an address should be: trust stops at the last good hop
    ("127.0.0.1", ["unknown"], "127.0.0.1"),
    ("127.0.0.1", ["203.0.113.7, nonsense, 10.0.0.1"], "10.0.0.1"),
    # not an IP at all (the in-process test client): counted as it is
    ("testclient", ["203.0.113.7"], "testclient"),
    (None, ["203.0.113.7"], "?"),
])
def test_client_address(peer: str | None, headers: list[str], expected: str) -> None:
    assert client_address(peer, headers, PROXIES) == expected


def test_without_trusted_proxies_the_header_is_never_read() -> None:
    for peer in ("127.0.0.1", "10.0.0.1", "::1"):
        assert client_address(peer, ["203.0.113.7"], ()) == peer


def test_the_setting_takes_addresses_and_blocks_and_refuses_names(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDTABLE_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8,::1 ,")
    assert ServerConfig.from_env().trusted_proxies == ("127.0.0.1/32", "10.0.0.0/8", "::1/128")
    monkeypatch.delenv("CARDTABLE_TRUSTED_PROXIES")
    assert ServerConfig.from_env().trusted_proxies == ()
    monkeypatch.setenv("CARDTABLE_TRUSTED_PROXIES", "127.0.0.1,proxy.internal")
    with pytest.raises(ValueError, match=r"'proxy\.internal' is not an IP address"):
        ServerConfig.from_env()


# -- real servers ----------------------------------------------------------------------------

LIMIT = 3


def limited_server(tmp_path_factory: pytest.TempPathFactory, name: str,
                   **env: str) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp(name) / "data",
                            env={"CARDTABLE_JOIN_LIMIT": str(LIMIT),
                                 "CARDTABLE_CREATE_LIMIT": str(LIMIT), **env}).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="module")
def direct(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """No trusted proxies (the default)."""
    yield from limited_server(tmp_path_factory, "direct")


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Behind a proxy on 127.0.0.1 that the operator names."""
    yield from limited_server(tmp_path_factory, "proxied",
                              CARDTABLE_TRUSTED_PROXIES="127.0.0.1")


def lookup(server: ServerProcess, forwarded: str | None = None) -> int:
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    return httpx.get(f"{server.base_url}/api/tables/NOCODE", headers=headers).status_code


def test_a_forged_header_does_not_reset_the_join_limit(direct: ServerProcess) -> None:
    answers = [lookup(direct, f"203.0.113.{n}") for n in range(LIMIT)]
    assert answers == [404] * LIMIT  # counted, whatever each claimed to be
    assert lookup(direct, "203.0.113.99") == 429
    assert lookup(direct, "203.0.113.99, 198.51.100.1") == 429
    assert lookup(direct) == 429
    forged = {"X-Forwarded-For": "198.51.100.77"}
    joined = httpx.post(f"{direct.base_url}/api/tables/NOCODE/join", json={"name": "Eve"},
                        headers=forged)
    assert joined.status_code == 429
    quick = httpx.post(f"{direct.base_url}/api/lobby/quick-join", json={"name": "Eve"},
                       headers=forged)
    assert quick.status_code == 429  # quick join shares the budget


def create(server: ServerProcess, forwarded: str | None = None) -> httpx.Response:
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    return httpx.post(f"{server.base_url}/api/tables", headers=headers,
                      json={"game": "gin", "opponent": "computer", "name": "Ann"})


def test_new_tables_have_a_budget_per_address(proxied: ServerProcess) -> None:
    assert [create(proxied, "203.0.113.50").status_code for _ in range(LIMIT)] == [201] * LIMIT
    refused = create(proxied, "203.0.113.50")
    assert refused.status_code == 429
    assert refused.json()["detail"] == "too many new tables from your address; wait a minute"
    assert "set-cookie" not in refused.headers  # refused first: no player made either
    assert create(proxied, "203.0.113.51").status_code == 201  # another client
    assert lookup(proxied, "203.0.113.50") == 404  # lookups have a budget of their own
    assert httpx.get(f"{proxied.base_url}/api/health").status_code == 200


def test_a_forged_header_does_not_reset_the_new_table_limit(direct: ServerProcess) -> None:
    made = [create(direct, f"198.51.100.{n}").status_code for n in range(LIMIT)]
    assert made == [201] * LIMIT
    assert create(direct, "198.51.100.200").status_code == 429


def test_a_trusted_proxy_gives_each_client_its_own_budget(proxied: ServerProcess) -> None:
    assert [lookup(proxied, "203.0.113.1") for _ in range(LIMIT)] == [404] * LIMIT
    assert lookup(proxied, "203.0.113.1") == 429
    # what the client wrote left of its own address changes nothing
    assert lookup(proxied, "6.6.6.6, 203.0.113.1") == 429
    assert lookup(proxied, "203.0.113.2") == 404  # another client behind the proxy
    assert lookup(proxied) == 404  # the proxy's own requests count as the proxy's
    answer = httpx.post(f"{proxied.base_url}/api/lobby/quick-join", json={"name": "Al"},
                        headers={"X-Forwarded-For": "203.0.113.1"})
    assert answer.status_code == 429
