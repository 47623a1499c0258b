"""The error bodies: every refusal is ``{"detail": "<one readable sentence>"}`` with the
pages' security headers (docs/protocol.md)."""

from __future__ import annotations

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError

from ...cluster.remote import Moved
from ..security import SECURITY_HEADERS
from ..table_commit import SaveFailed

DATABASE_AWAY = ("the server cannot reach its database just now; nothing changed, "
                 "try again in a moment")
REDIS_AWAY = ("the card room cannot reach its coordinator (Redis) just now; nothing "
              "changed, try again in a moment")
MOVING = "that table is moving to another server; nothing changed, try again in a moment"


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
    async def database_fault(request: Request, error: Exception) -> JSONResponse:
        # The database is locked, down or unreachable: nothing changed (docs/server.md).
        return JSONResponse({"detail": DATABASE_AWAY}, status_code=503,
                            headers={**SECURITY_HEADERS, "Retry-After": "5"})

    @app.exception_handler(RedisError)
    async def redis_fault(request: Request, error: Exception) -> JSONResponse:
        # Scale-out only: which process owns a table cannot be known (docs/deploy.md).
        return JSONResponse({"detail": REDIS_AWAY}, status_code=503,
                            headers={**SECURITY_HEADERS, "Retry-After": "5"})

    @app.exception_handler(Moved)
    async def table_moving(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"detail": MOVING}, status_code=503,
                            headers={**SECURITY_HEADERS, "Retry-After": "2"})
