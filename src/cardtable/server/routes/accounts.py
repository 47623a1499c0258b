"""The account API (``server/accounts.py``): register, sign in and out, change the
password, delete the account. Every answer that signs a browser in sets a new session
cookie; every refusal says why, and changes nothing."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, StringConstraints

from ...store.players import PlayerRecord, UsernameTaken
from ..accounts import (
    MAX_PASSWORD,
    TRIES_PER_ACCOUNT,
    TRIES_PER_ADDRESS,
    TRY_WINDOW,
    check_password,
    dummy_check,
    hash_password,
    password_problem,
    username_problem,
)
from ..players import (
    clear_session_cookie,
    current_player,
    new_session_token,
    session_hash,
    set_session_cookie,
    sitting_player,
    token_hash,
)
from ..rate_limits import RateLimits
from .shared import registry_of

Text = Annotated[str, StringConstraints(max_length=4 * MAX_PASSWORD)]  # ours says why


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: Annotated[str, StringConstraints(strip_whitespace=True, max_length=64)]
    password: Text


class NewPassword(BaseModel):
    model_config = ConfigDict(extra="forbid")

    password: Text
    new_password: Text


class Confirm(BaseModel):
    model_config = ConfigDict(extra="forbid")

    password: Text = ""


class Account(BaseModel):
    player_id: str
    name: str
    username: str | None


def _account(player: PlayerRecord) -> Account:
    return Account(player_id=player.player_id, name=player.name, username=player.username)


def accounts_router(limits: RateLimits) -> APIRouter:
    router = APIRouter()
    per_account = limits.window("login-account", TRIES_PER_ACCOUNT, TRY_WINDOW)
    per_address = limits.window("login-address", TRIES_PER_ADDRESS, TRY_WINDOW)

    async def sign_in(request: Request, response: Response, player_id: str) -> None:
        """A new session for this browser; its old one ends (rotation)."""
        token = new_session_token()
        await registry_of(request).store.players.start_session(
            player_id, token_hash(token), replacing=session_hash(request))
        set_session_cookie(request, response, token)

    @router.post("/api/account/register")
    async def register(body: Credentials, request: Request, response: Response) -> Account:
        """The browser's guest (a new one if it has none) becomes an account: its history
        stays its own."""
        why = username_problem(body.username) or password_problem(body.password, body.username)
        if why:
            raise HTTPException(422, why)
        store = registry_of(request).store
        player = await current_player(request, store)
        if player is not None and player.registered:
            raise HTTPException(409, f"signed in as {player.username}: sign out first")
        if player is None:
            player = await sitting_player(request, response, store, body.username)
        try:
            await store.players.register(player.player_id, body.username,
                                         hash_password(body.password))
        except UsernameTaken:
            raise HTTPException(409, "that username is taken") from None
        await sign_in(request, response, player.player_id)
        player.username = player.name = body.username
        return _account(player)

    @router.post("/api/account/login")
    async def login(body: Credentials, request: Request, response: Response) -> Account:
        if not await per_address.allow(limits.address(request)) \
                or not await per_account.allow(body.username.casefold()):
            raise HTTPException(429, "too many sign-in attempts; wait a quarter of an hour")
        store = registry_of(request).store
        found = await store.players.by_username(body.username)
        if found is None:
            dummy_check(body.password)
            raise HTTPException(401, "wrong username or password")
        player, stored = found
        ok, rehashed = check_password(stored, body.password)
        if not ok:
            raise HTTPException(401, "wrong username or password")
        if rehashed is not None:
            await store.players.set_password(player.player_id, rehashed)
        await sign_in(request, response, player.player_id)
        await store.players.seen(player.player_id)
        return _account(player)

    @router.post("/api/account/logout", status_code=204)
    async def logout(request: Request, response: Response) -> None:
        session = session_hash(request)
        if session is not None:
            await registry_of(request).store.players.end_session(session)
        clear_session_cookie(request, response)

    async def checked(request: Request, password: str) -> PlayerRecord:
        """The signed-in account, its password checked."""
        store = registry_of(request).store
        player = await current_player(request, store)
        if player is None or not player.registered:
            raise HTTPException(401, "sign in first")
        if not await per_address.allow(limits.address(request)) \
                or not await per_account.allow(str(player.username).casefold()):
            raise HTTPException(429, "too many attempts; wait a quarter of an hour")
        stored = await store.players.password_hash(player.player_id)
        if stored is None or not check_password(stored, password)[0]:
            raise HTTPException(401, "wrong password")
        return player

    @router.post("/api/account/password")
    async def change_password(body: NewPassword, request: Request,
                              response: Response) -> Account:
        player = await checked(request, body.password)
        why = password_problem(body.new_password, str(player.username))
        if why:
            raise HTTPException(422, why)
        store = registry_of(request).store
        await store.players.set_password(player.player_id, hash_password(body.new_password))
        await store.players.end_sessions(player.player_id)  # everywhere else too
        await sign_in(request, response, player.player_id)
        return _account(player)

    @router.post("/api/account/delete", status_code=204)
    async def delete_account(body: Confirm, request: Request, response: Response) -> None:
        """Delete the account (a guest's identity too) and its personal data."""
        store = registry_of(request).store
        player = await current_player(request, store)
        if player is None:
            raise HTTPException(401, "this browser has no player to delete")
        if player.registered:
            player = await checked(request, body.password)
        await store.players.delete(player.player_id)
        clear_session_cookie(request, response)

    return router
