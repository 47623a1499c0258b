"""``GET /api/health``: whether this process takes players, for a load balancer's checks.

200 with ``{"ok": true, "node", "pid", "tables", "sockets"}`` while it serves; 503 once it is
stopping (draining its tables to the other processes), so the proxy sends no one new.
"""

from __future__ import annotations

import os
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

router = APIRouter()


@router.get("/api/health")
async def health(request: Request) -> JSONResponse:
    state = request.app.state
    cluster = state.cluster
    draining = bool(getattr(state, "draining", False))
    body: dict[str, Any] = {
        "ok": not draining,
        "node": "single" if cluster is None else cluster.node,
        "pid": os.getpid(),
        "tables": state.registry.resident_count(),
        "sockets": state.registry.sockets + state.lobby.subscribers,
    }
    return JSONResponse(body, status_code=503 if draining else 200,
                        headers={"Cache-Control": "no-store"})
