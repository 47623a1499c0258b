"""The example deployment of docs/deploy.md: the proxies' and systemd's own checkers accept
deploy/, the doc quotes deploy/ as it is, and a real cluster behind each proxy spreads
HTTP requests and WebSockets over its processes (tests/cluster_harness.py)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect

from cluster_harness import PROXIES, Cluster, proxy_binary, unavailable

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOC = ROOT / "docs" / "deploy.md"
BACKEND_PORTS = {8001, 8002, 8003}


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def need(proxy: str) -> str:
    binary = proxy_binary(proxy)
    if binary is None:
        pytest.skip(f"{proxy} is not installed (Debian: apt-get install {proxy})")
    return binary


def test_haproxy_accepts_the_example() -> None:
    checked = run(need("haproxy"), "-c", "-f", str(DEPLOY / "haproxy.cfg"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Configuration file is valid" in checked.stdout + checked.stderr


def test_nginx_accepts_the_example(tmp_path: Path) -> None:
    """Checked on a copy whose files (pid, logs, buffers) are in tmp_path: the example names
    the system's, which a test may not write. Nothing else in it changes."""
    text = (DEPLOY / "nginx.conf").read_text()
    temp = "".join(f"    {kind}_temp_path {tmp_path}/{kind};\n"
                   for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    copy = (text.replace("/run/nginx.pid", f"{tmp_path}/nginx.pid")
                .replace("/var/log/nginx/", f"{tmp_path}/")
                .replace("http {\n", "http {\n" + temp, 1))
    assert copy.count(str(tmp_path)) == 3 + 5, "the example's file paths moved: update this test"
    (tmp_path / "nginx.conf").write_text(copy)
    checked = run(need("nginx"), "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"),
                  "-c", str(tmp_path / "nginx.conf"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "test is successful" in checked.stderr


def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    """``systemd-analyze verify`` of an instance, with a command that exists here."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    text = (DEPLOY / "cardtable@.service").read_text()
    assert "/opt/cardtable/venv/bin/cardtable serve" in text
    (tmp_path / "cardtable@.service").write_text(
        text.replace("/opt/cardtable/venv/bin/cardtable", "/bin/true"))
    checked = run(analyze, "verify", "--man=no", str(tmp_path / "cardtable@8001.service"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout + checked.stderr == ""


def test_both_proxies_front_the_same_processes() -> None:
    """The examples agree with each other and with the unit's instances: 8001-8003."""
    haproxy = (DEPLOY / "haproxy.cfg").read_text()
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert {int(p) for p in re.findall(r"^\s*server \S+ 127\.0\.0\.1:(\d+)", haproxy, re.M)} \
        == BACKEND_PORTS
    assert {int(p) for p in re.findall(r"^\s*server 127\.0\.0\.1:(\d+)", nginx, re.M)} \
        == BACKEND_PORTS
    assert "uri /api/health" in haproxy and "timeout tunnel 1h" in haproxy
    assert "proxy_read_timeout 1h;" in nginx and "$connection_upgrade" in nginx


def test_the_doc_quotes_deploy_as_it_is() -> None:
    """Every block of docs/deploy.md that names a file of deploy/ in its first line is a
    run of that file's lines, so the doc and the examples cannot drift apart."""
    quoted = re.findall(r"```\w*\n# (deploy/\S+)[^\n]*\n(.*?)```", DOC.read_text(), re.S)
    assert {name for name, _ in quoted} >= {"deploy/haproxy.cfg", "deploy/nginx.conf",
                                             "deploy/cardtable@.service"}
    for name, body in quoted:
        assert body.strip() in (ROOT / name).read_text(), f"docs/deploy.md misquotes {name}"


@pytest.mark.slow
@pytest.mark.parametrize("proxy", PROXIES)
def test_the_proxy_spreads_requests_and_sockets_over_the_processes(proxy: str,
                                                                   tmp_path: Path) -> None:
    """Three processes behind the proxy: requests through it reach every process (their
    /api/health names differ), and so do lobby WebSockets, which work through it."""
    reason = unavailable(proxy)
    if reason is not None:
        if os.environ.get("CI") and proxy_binary(proxy) is not None:
            pytest.fail(f"{reason} (CI is set: the cluster must be tested)")
        pytest.skip(reason)
    with Cluster(tmp_path, processes=3, proxy=proxy) as cluster:
        names = {i: cluster.health(i)["node"] for i in range(3)}
        assert len(set(names.values())) == 3, names
        seen = set()
        for _ in range(9):
            answer = httpx.get(f"{cluster.base_url}/api/health", timeout=5)
            assert answer.status_code == 200
            # The name in the body is that of the process the proxy says it asked.
            assert answer.json()["node"] == names[cluster.backend_of(answer.headers)]
            seen.add(answer.json()["node"])
        assert seen == set(names.values())
        held, counted = asyncio.run(lobby_backends(cluster, sockets=6))
        assert held == {0, 1, 2}
        assert sum(counted) == 6 and min(counted) >= 1, counted


async def lobby_backends(cluster: Cluster, sockets: int) -> tuple[set[int], list[int]]:
    """Open ``sockets`` lobby WebSockets through the proxy at once, as a browser on the
    proxy's page would (its Origin); each gets its first lobby frame. The processes that
    held them (the proxy's word), and each process's count of open sockets (its own)."""
    opened = [await connect(f"{cluster.ws_base}/ws/lobby",
                            additional_headers={"Origin": cluster.base_url})
              for _ in range(sockets)]
    try:
        for ws in opened:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert frame["t"] == "lobby", frame
        held = {cluster.backend_of(ws.response.headers) for ws in opened
                if ws.response is not None}
        counted = [cluster.health(i)["sockets"] for i in range(len(cluster.nodes))]
        return held, counted
    finally:
        for ws in opened:
            await ws.close()
