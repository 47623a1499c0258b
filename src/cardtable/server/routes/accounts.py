"""The account API (``server/accounts.py``): register, sign in and out, change the
password, delete the account. Every answer that signs a browser in sets a new session
cookie and a device cookie (``server/devices.py``); every refusal says why, and changes
nothing.

Whom a try counts against: a browser that presents the account's device cookie spends
its own window (``login-device``); any other spends its address's (``login-address``), the
account's from that address (``login-account-address``) and the account's
(``login-account``), in that order, and a refusal spends nothing further. Registering
spends the address's ``register-address`` window first of all, whatever the answer. The
windows and their sizes: ``server/accounts.py``; where they are counted:
``server/rate_limits.py``."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, StringConstraints

from ...names import PersonName
from ...store.players import PlayerRecord, UsernameTaken
from ..accounts import (
    MAX_PASSWORD,
    REGISTERS_PER_ADDRESS,
    TRIES_PER_ACCOUNT,
    TRIES_PER_ACCOUNT_ADDRESS,
    TRIES_PER_ADDRESS,
    TRIES_PER_DEVICE,
    TRY_WINDOW,
    PasswordWork,
    username_problem,
)
from ..devices import Device, clear_device_cookie, presented, set_device_cookie
from ..players import (
    clear_session_cookie,
    current_player,
    new_session_token,
    session_hash,
    set_session_cookie,
    token_hash,
)
from ..rate_limits import RateLimits
from .shared import registry_of

Text = Annotated[str, StringConstraints(max_length=4 * MAX_PASSWORD)]  # ours says why


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: PersonName  # NFKC, invisible characters dropped (names.py), then checked
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


def accounts_router(limits: RateLimits, work: PasswordWork) -> APIRouter:
    router = APIRouter()
    per_address = limits.window("login-address", TRIES_PER_ADDRESS, TRY_WINDOW)
    per_account_address = limits.window("login-account-address", TRIES_PER_ACCOUNT_ADDRESS,
                                        TRY_WINDOW)
    per_account = limits.window("login-account", TRIES_PER_ACCOUNT, TRY_WINDOW)
    per_device = limits.window("login-device", TRIES_PER_DEVICE, TRY_WINDOW)
    registrations = limits.window("register-address", REGISTERS_PER_ADDRESS, TRY_WINDOW)

    async def may_try(request: Request, account: str, known: Device | None) -> bool:
        """Spend one try at ``account`` (casefolded): of the known browser's own window,
        or of the address's, the account's from this address and the account's."""
        if known is not None:
            return await per_device.allow(known.key)
        address = limits.address(request)
        return (await per_address.allow(address)
                and await per_account_address.allow(f"{account}|{address}")
                and await per_account.allow(account))

    async def sign_in(request: Request, response: Response, player_id: str,
                      password_hash: str) -> None:
        """A new session for this browser; its old one ends (rotation). The browser is
        one this account signed in from (its device cookie)."""
        token = new_session_token()
        await registry_of(request).store.players.start_session(
            player_id, token_hash(token), replacing=session_hash(request))
        set_session_cookie(request, response, token)
        set_device_cookie(request, response, player_id, password_hash)

    @router.post("/api/account/register")
    async def register(body: Credentials, request: Request, response: Response) -> Account:
        """The browser's guest (a new player if it has none) becomes an account: its
        history stays its own. The name is checked before anything is hashed or made."""
        if not await registrations.allow(limits.address(request)):
            raise HTTPException(429, "too many new accounts from this address; wait a "
                                     "quarter of an hour")
        why = username_problem(body.username)
        if why:
            raise HTTPException(422, why)
        store = registry_of(request).store
        player = await current_player(request, store)
        if player is not None and player.registered:
            raise HTTPException(409, f"signed in as {player.username}: sign out first")
        if await store.players.username_like(body.username) is not None:  # or a homoglyph
            raise HTTPException(409, "that username is taken")
        why = await work.problem(body.password, body.username)
        if why:
            raise HTTPException(422, why)
        password_hash = await work.hash(body.password)
        try:
            if player is None:
                token = new_session_token()
                player = await store.players.create_account(
                    secrets.token_urlsafe(12), token_hash(token), body.username, password_hash)
                set_session_cookie(request, response, token)
                set_device_cookie(request, response, player.player_id, password_hash)
            else:
                await store.players.register(player.player_id, body.username, password_hash)
                await sign_in(request, response, player.player_id, password_hash)
        except UsernameTaken:  # taken since we looked
            raise HTTPException(409, "that username is taken") from None
        player.username = player.name = body.username
        return _account(player)

    @router.post("/api/account/login")
    async def login(body: Credentials, request: Request, response: Response) -> Account:
        store = registry_of(request).store
        device = presented(request)
        found = None if device is None else await store.players.by_username(body.username)
        known = device if device is not None and found is not None \
            and device.belongs_to(found[0].player_id, found[1]) else None
        if not await may_try(request, body.username.casefold(), known):
            raise HTTPException(429, "too many sign-in attempts; wait a quarter of an hour")
        if device is None:
            found = await store.players.by_username(body.username)
        if found is None:
            await work.dummy_check(body.password)
            raise HTTPException(401, "wrong username or password")
        player, stored = found
        ok, rehashed = await work.check(stored, body.password)
        if not ok:
            raise HTTPException(401, "wrong username or password")
        if rehashed is not None:
            await store.players.set_password(player.player_id, rehashed)
        await sign_in(request, response, player.player_id, rehashed or stored)
        await store.players.seen(player.player_id)
        return _account(player)

    @router.post("/api/account/logout", status_code=204)
    async def logout(request: Request, response: Response) -> None:
        """Signs out; the device cookie stays (this browser is still one he used)."""
        session = session_hash(request)
        if session is not None:
            await registry_of(request).store.players.end_session(session)
        clear_session_cookie(request, response)

    async def checked(request: Request, password: str) -> tuple[PlayerRecord, str]:
        """The signed-in account, its password checked, and its password hash."""
        store = registry_of(request).store
        player = await current_player(request, store)
        if player is None or not player.registered:
            raise HTTPException(401, "sign in first")
        stored = await store.players.password_hash(player.player_id)
        device = presented(request)
        known = device if device is not None and stored is not None \
            and device.belongs_to(player.player_id, stored) else None
        if not await may_try(request, str(player.username).casefold(), known):
            raise HTTPException(429, "too many attempts; wait a quarter of an hour")
        if stored is None or not (await work.check(stored, password))[0]:
            raise HTTPException(401, "wrong password")
        return player, stored

    @router.post("/api/account/password")
    async def change_password(body: NewPassword, request: Request,
                              response: Response) -> Account:
        player, _ = await checked(request, body.password)
        why = await work.problem(body.new_password, str(player.username))
        if why:
            raise HTTPException(422, why)
        store = registry_of(request).store
        password_hash = await work.hash(body.new_password)
        await store.players.set_password(player.player_id, password_hash)
        await store.players.end_sessions(player.player_id)  # everywhere else too
        await sign_in(request, response, player.player_id, password_hash)
        return _account(player)

    @router.post("/api/account/delete", status_code=204)
    async def delete_account(body: Confirm, request: Request, response: Response) -> None:
        """Delete the account (a guest's identity too) and its personal data."""
        store = registry_of(request).store
        player = await current_player(request, store)
        if player is None:
            raise HTTPException(401, "this browser has no player to delete")
        if player.registered:
            player, _ = await checked(request, body.password)
        await store.players.delete(player.player_id)
        clear_session_cookie(request, response)
        clear_device_cookie(request, response)

    return router
