"""The browser client: one page for the home screen, every table and every how-to-play
page, its files, and the web app manifest that lets a phone install it."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from ...engine import GAMES

WEB = Path(__file__).resolve().parents[2] / "web"
MANIFEST_TYPE = "application/manifest+json"

router = APIRouter()


@router.get("/", include_in_schema=False)
@router.get("/t/{code}", include_in_schema=False)
@router.get("/how", include_in_schema=False)
@router.get("/p/{player_id}", include_in_schema=False)
@router.get("/account", include_in_schema=False)
@router.get("/leaderboard/{game}", include_in_schema=False)
@router.get("/r/{match_id}", include_in_schema=False)
async def page(code: str | None = None, player_id: str | None = None,
               game: str | None = None, match_id: str | None = None) -> FileResponse:
    # The page reads the code from its own address; no-cache, so a new release is seen.
    return FileResponse(WEB / "index.html", headers={"Cache-Control": "no-cache"})


@router.get("/how/{game}", include_in_schema=False)
async def how_to_play(game: str) -> FileResponse:
    # The page itself says that there is no such game, with links to those there are.
    return FileResponse(WEB / "index.html", status_code=200 if game in GAMES else 404,
                        headers={"Cache-Control": "no-cache"})


@router.get("/manifest.webmanifest", include_in_schema=False)
async def manifest() -> FileResponse:
    # At the root, so that the installed app's scope is the whole site; the type is set
    # here because not every system's MIME table knows .webmanifest.
    return FileResponse(WEB / "manifest.webmanifest", media_type=MANIFEST_TYPE,
                        headers={"Cache-Control": "no-cache"})


def mount_static(app: FastAPI) -> None:
    """Serve web/ under ``/static`` (an installed package without it serves the API only)."""
    if WEB.is_dir():
        app.mount("/static", StaticFiles(directory=WEB), name="static")
