"""Rate limits hold across the processes of a cluster (server/rate_limits.py): two real
processes on one Redis, asked in turn from one address, spend one budget, so a second
process does not double the tries at a password or at room codes.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import redis

from cardtable.server.accounts import TRIES_PER_ACCOUNT_ADDRESS
from cluster_harness import Cluster, unavailable

pytestmark = pytest.mark.slow

LOOKUPS = 6  # the room-code budget per address here
CREATES = 4  # new tables per address here


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if (why := unavailable()) is not None:
        pytest.skip(why)
    with Cluster(tmp_path_factory.mktemp("limits"), processes=2,
                 env={"CARDTABLE_JOIN_LIMIT": str(LOOKUPS),
                      "CARDTABLE_CREATE_LIMIT": str(CREATES)}) as made:
        yield made


def test_room_code_lookups_share_one_budget(cluster: Cluster) -> None:
    with httpx.Client(base_url=cluster.node_url(0)) as zero, \
            httpx.Client(base_url=cluster.node_url(1)) as one:
        answers = [(zero if i % 2 else one).get("/api/tables/ZZZZZZ").status_code
                   for i in range(LOOKUPS)]
        assert answers == [404] * LOOKUPS  # no such table, each lookup spent
        for client in (zero, one):
            refused = client.get("/api/tables/ZZZZZZ")
            assert refused.status_code == 429
            assert "too many room-code lookups" in refused.json()["detail"]
        # a join spends from the same budget, on either process
        assert one.post("/api/tables/ZZZZZZ/join", json={"name": "Eve"}).status_code == 429


def test_new_tables_share_one_budget(cluster: Cluster) -> None:
    with httpx.Client(base_url=cluster.node_url(0)) as zero, \
            httpx.Client(base_url=cluster.node_url(1)) as one:
        table = {"game": "gin", "opponent": "computer", "name": "Ann"}
        made = [(zero if i % 2 else one).post("/api/tables", json=table).status_code
                for i in range(CREATES)]
        assert made == [201] * CREATES
        for client in (zero, one):
            assert client.post("/api/tables", json=table).status_code == 429


def test_sign_in_tries_per_account_share_one_budget(cluster: Cluster) -> None:
    with httpx.Client(base_url=cluster.node_url(0), timeout=60) as owner, \
            httpx.Client(base_url=cluster.node_url(0), timeout=60) as zero, \
            httpx.Client(base_url=cluster.node_url(1), timeout=60) as one:
        made = owner.post("/api/account/register",
                          json={"username": "Marlowe_7", "password": "a long walk at dusk"})
        assert made.status_code == 200, made.text
        wrong = {"username": "marlowe_7", "password": "not the password at all"}
        answers = [(zero if i % 2 else one).post("/api/account/login", json=wrong).status_code
                   for i in range(TRIES_PER_ACCOUNT_ADDRESS)]
        assert answers == [401] * TRIES_PER_ACCOUNT_ADDRESS
        right = {"username": "MARLOWE_7", "password": "a long walk at dusk"}
        for client in (zero, one):  # even the right password waits: shut from this address
            refused = client.post("/api/account/login", json=right)
            assert refused.status_code == 429
            assert "too many sign-in attempts" in refused.json()["detail"]
        # The browser that registered on one process is known to the other (its device
        # cookie is checked against the account's password hash in the shared database;
        # cookies go to every port of a host).
        signed_in = owner.post(f"{cluster.node_url(1)}/api/account/login", json=right)
        assert signed_in.status_code == 200, signed_in.text


def test_redis_holds_no_address_or_username(cluster: Cluster) -> None:
    with redis.Redis.from_url(cluster.redis_url) as client:
        keys = [key.decode() for key in client.scan_iter(f"{cluster.redis_prefix}:limit:*")]
        assert keys, "the limits above counted in Redis"
        assert not [k for k in keys if "127.0.0.1" in k or "marlowe" in k.casefold()]
        assert all(client.pttl(k) > 0 for k in keys)  # every log expires
