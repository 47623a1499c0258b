"""The browser client: one page for the home screen and every table, and its files."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

WEB = Path(__file__).resolve().parents[2] / "web"

router = APIRouter()


@router.get("/", include_in_schema=False)
@router.get("/t/{code}", include_in_schema=False)
async def page(code: str | None = None) -> FileResponse:
    # The page reads the code from its own address; no-cache, so a new release is seen.
    return FileResponse(WEB / "index.html", headers={"Cache-Control": "no-cache"})


def mount_static(app: FastAPI) -> None:
    """Serve web/ under ``/static`` (an installed package without it serves the API only)."""
    if WEB.is_dir():
        app.mount("/static", StaticFiles(directory=WEB), name="static")
