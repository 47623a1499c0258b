"""The error bodies: every refusal is ``{"detail": "<one readable sentence>"}`` with the
pages' security headers (docs/protocol.md)."""

from __future__ import annotations

import logging

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from .. import metrics
from ..coordinator import Moved
from ..security import SECURITY_HEADERS
from ..table import SaveFailed

DATABASE_AWAY = ("the server cannot reach its database just now; nothing changed, "
                 "try again in a moment")
REDIS_AWAY = ("the card room cannot reach its coordinator (Redis) just now; nothing "
              "changed, try again in a moment")
MOVING = "that table is moving to another server; nothing changed, try again in a moment"

log = logging.getLogger("cardtable.http")


def _refused(request: Request, status: int, cause: str, error: BaseException) -> None:
    """Every 5xx once in the log, with its cause (repeats are throttled: server/logs.py),
    and counted for /metrics."""
    metrics.HTTP_ERRORS.labels(str(status), cause).inc()
    log.warning("%s %s answered %s: %s: %r", request.method, request.url.path, status,
                cause, error)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def bad_body(request: Request, error: RequestValidationError) -> JSONResponse:
        # The first thing wrong, as one string: "name: String should have at most 24
        # characters".
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"] if part != "body") or "body"
        return JSONResponse({"detail": f"{where}: {first['msg']}"}, status_code=422,
                            headers=SECURITY_HEADERS)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse({"detail": error.detail}, status_code=error.status_code,
                            headers=SECURITY_HEADERS)

    @app.exception_handler(SaveFailed)
    @app.exception_handler(DBAPIError)
    @app.exception_handler(PoolTimeout)  # every pooled connection busy past pool_timeout
    async def database_fault(request: Request, error: Exception) -> JSONResponse:
        # The database is locked, down or unreachable: nothing changed (docs/server.md).
        kind = metrics.database_error_kind(error.__cause__ or error)
        if not isinstance(error, SaveFailed):  # a table's own fault: counted where it fell
            metrics.DATABASE_ERRORS.labels(kind).inc()
        _refused(request, 503, f"database {kind}", error.__cause__ or error)
        return JSONResponse({"detail": DATABASE_AWAY}, status_code=503,
                            headers={**SECURITY_HEADERS, "Retry-After": "5"})

    @app.exception_handler(RedisError)
    async def redis_fault(request: Request, error: Exception) -> JSONResponse:
        # Scale-out only: which process owns a table cannot be known (docs/deploy.md).
        metrics.REDIS_ERRORS.labels("http").inc()
        _refused(request, 503, "redis", error)
        return JSONResponse({"detail": REDIS_AWAY}, status_code=503,
                            headers={**SECURITY_HEADERS, "Retry-After": "5"})

    @app.exception_handler(Moved)
    async def table_moving(request: Request, error: Exception) -> JSONResponse:
        _refused(request, 503, "table moving", error)
        return JSONResponse({"detail": MOVING}, status_code=503,
                            headers={**SECURITY_HEADERS, "Retry-After": "2"})

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        # A bug: uvicorn writes its traceback to the log once; here it is only counted.
        metrics.HTTP_ERRORS.labels("500", "internal").inc()
        return JSONResponse({"detail": "internal error: the server's log says why"},
                            status_code=500, headers=SECURITY_HEADERS)
