"""``GET /metrics``: the server's figures for Prometheus (server/metrics.py), guarded.

The figures name no player and no card, but they tell an outsider how busy the room is and
when its database struggles, so the endpoint is off by default (404, as if absent) and an
operator turns it on (docs/deploy.md "Monitoring"):

* ``CARDTABLE_METRICS=on``: answered to a scraper on the same machine (the socket's own
  peer is loopback; a forwarded-for header is not believed here) or to one that sends
  ``Authorization: Bearer <CARDTABLE_METRICS_TOKEN>``;
* ``CARDTABLE_METRICS=open``: answered to anyone (a port only the monitoring network
  reaches), still asking for the token when one is set.
"""

from __future__ import annotations

import hmac
import ipaddress

from fastapi import APIRouter, HTTPException, Request, Response

from .. import metrics
from ..config import ServerConfig


def _loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _token_matches(request: Request, token: str) -> bool:
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(),
                                                              token.encode())


def metrics_router(config: ServerConfig, live: metrics.LiveFigures) -> APIRouter:
    router = APIRouter()

    @router.get("/metrics", include_in_schema=False)
    async def scrape(request: Request) -> Response:
        if config.metrics == "off":
            raise HTTPException(404, "Not Found")
        token = config.metrics_token
        if token is not None:
            if not _token_matches(request, token):
                raise HTTPException(401, "/metrics asks for its bearer token "
                                    "(CARDTABLE_METRICS_TOKEN)")
        elif config.metrics == "on" and not _loopback(request):
            raise HTTPException(403, "/metrics answers only this machine; set "
                                "CARDTABLE_METRICS_TOKEN to scrape from elsewhere")
        return Response(metrics.exposition(live), media_type=metrics.CONTENT_TYPE,
                        headers={"Cache-Control": "no-store"})

    return router
