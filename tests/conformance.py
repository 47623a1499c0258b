"""The conformance suite every registered game must pass.

It plays seeded matches through the public contract only (``legal_actions``,
``apply``, ``view``, ``record``, ``replay``, ``resample``) and checks at every
step what DESIGN.md promises, plus card conservation and the absence of leaks
proved against ``zones()``: where every card physically is.

Leak rule: a card in the stock, face down, or in another seat's unrevealed
hand may appear in a seat's view (or in an event sent to it) only if it was
public before: seen in a spectator view since the current deal.  A game
whose zones list ``unseen_by`` (a seat's own cards it has not looked at, as
before a Spades blind nil decision) forbids those too; ``seen_by`` lists
hidden cards a seat has legitimately seen (its own dead discards, the card
it is offered, the cards it passed to its partner).  Card conservation uses
the pack the zones declare: ``packs`` standard packs (default 1) plus ``jokers``, with the cards
taken out of play in ``removed``.

All-or-nothing apply: at the first move, at the first deal of a new hand and on
every resampled copy the suite checks, the move's rule is made to fail once after
it changed a field (:func:`apply_after_a_fault`); the state must be as it was, and
the move then plays as usual.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from cardtable.engine import Action, Event, IllegalAction, get_game
from cardtable.engine.cards import card as parse_card
from cardtable.engine.cards import deck, str_card

CARD_NAMES = {str_card(c).lower() for c in range(53)} | {f"10{s}" for s in "cdhs"}
CARD_OF = {name: parse_card(name) for name in CARD_NAMES}
Policy = Callable[[Any, random.Random], Action]


def random_policy(state: Any, rng: random.Random) -> Action:
    legal: list[Action] = state.legal_actions()
    return rng.choice(legal)


def eager_policy(state: Any, rng: random.Random) -> Action:
    """Random, but ends hands whenever it can and bids low, so matches reach their target
    quickly (a contract of a trick or two is usually made even by random play); in the
    table-meld games it melds and lays off whenever it can, which empties hands."""
    legal: list[Action] = state.legal_actions()
    finishing = [a for a in legal if a.type in ("knock", "gin", "big_gin", "meld", "lay_off")]
    finishing += [a for a in legal if a.type == "bid" and a.number in (1, 2)]
    return rng.choice(finishing) if finishing and rng.random() < 0.8 else rng.choice(legal)


def cards_in(value: Any) -> set[int]:
    """Every card named anywhere in a JSON value (strings like ``"7h"`` or ``"7h 8h"``).

    ``stands_for`` (what each card of a meld plays as) is skipped: a joker's
    entry names a role, not a card, and its natural entries are named under
    ``cards`` beside it.  (A walk with a stack of its own, not recursion: the suite reads
    every view at every step, and this is its hottest loop.)
    """
    found: set[int] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            for token in item.split():
                number = CARD_OF.get(token.lower())
                if number is not None:
                    found.add(number)
        elif isinstance(item, dict):
            pending.extend(v for key, v in item.items() if key != "stands_for")
        elif isinstance(item, list):
            pending.extend(item)
    return found


def snapshot(state: Any, seats: int, record: bool = True) -> str:
    """Everything the contract shows of ``state``: every view, whose turn, and (unless
    ``record`` is false) the record, which grows with the match."""
    views = [state.view(s) for s in [*range(seats), None]]
    shown = [views, state.current_player()]
    return json.dumps([*shown, state.record()] if record else shown, sort_keys=True)


def forbidden(zones: dict[str, Any], seat: int | None, public: set[int]) -> set[int]:
    hidden = set(zones["stock"]) | set(zones.get("face_down", []))
    if not zones["revealed"]:
        for s, hand in enumerate(zones["hands"]):
            if s != seat:
                hidden |= set(hand)
    if seat is not None:
        unseen = set(zones.get("unseen_by", {}).get(seat, []))
        # Where a card has a twin (two jokers, two packs), a value the seat holds and has
        # seen may be named in its view even though its twin lies hidden elsewhere.
        hidden -= set(zones["hands"][seat]) - unseen
        hidden -= set(zones.get("seen_by", {}).get(seat, []))
        hidden |= unseen
    # a value lying face up (a played joker, a card of a hand shown at the end) may be
    # named although its twin is hidden
    shown = {c for hand in zones["hands"] for c in hand} if zones["revealed"] else set()
    return hidden - public - shown - set(zones["public"]) - set(zones.get("removed", []))


def check_guessed_resample(state: Any, seat: int, twin_zones: dict[str, Any], seed: int,
                           public: set[int]) -> None:
    """A resample with a guess (``held``) puts the guessed cards in the guessed hand, keeps
    what ``seat`` knows, and refuses a card ``seat`` can see."""
    players = len(twin_zones["hands"])
    hidden = forbidden(twin_zones, seat, public)
    for other in [(seat + k) % players for k in range(1, players)]:
        guess = [c for c in twin_zones["hands"][other] if c in hidden][:3]
        if not guess:
            continue
        world = state.resample(seat, random.Random(seed), {other: guess})
        assert world.view(seat) == state.view(seat)
        held = list(world.zones()["hands"][other])
        for card in guess:
            held.remove(card)  # raises if a guessed card is not in that hand
        assert all_cards(world.zones()) == all_cards(twin_zones)
        zones = state.zones()
        elsewhere = {c for s, hand in enumerate(zones["hands"]) if s != seat for c in hand}
        elsewhere |= set(zones["stock"]) | set(zones.get("face_down", []))
        seen = [c for c in zones["public"] if c not in elsewhere]  # no copy of it hidden
        if seen:
            try:
                state.resample(seat, random.Random(seed), {other: seen[:1]})
            except ValueError:
                pass
            else:
                raise AssertionError(f"a guess of a face-up card {seen[0]} was taken")
        break


def all_cards(zones: dict[str, Any]) -> list[int]:
    held = [c for h in zones["hands"] for c in h]
    return sorted(held + zones["stock"] + zones.get("face_down", []) + zones["public"]
                  + zones.get("removed", []))


class InjectedFault(RuntimeError):
    """The fault the suite puts inside a move's rule."""


def apply_after_a_fault(state: Any, action: Action, players: int) -> list[Event]:
    """Play ``action`` first with a fault raised inside its rule, as soon as the rule has
    set a field of the state: the state must then be exactly as before.  Then play it
    for real and return its events (a rule that sets no field has played already)."""
    before = snapshot(state, players)
    cls: Any = type(state)
    own = cls.__dict__.get("__setattr__")  # put back as it was: the class's own, or none
    plain = cls.__setattr__

    def trap(self: Any, key: str, value: Any) -> None:
        plain(self, key, value)
        if self is state and not key.startswith("_"):
            raise InjectedFault(f"{action} failed after setting {key}")

    cls.__setattr__ = trap
    try:
        events: list[Event] = state.apply(action)
    except InjectedFault:
        pass
    else:
        return events
    finally:
        if own is None:
            del cls.__setattr__
        else:
            cls.__setattr__ = own
    assert snapshot(state, players) == before, f"a fault inside {action} changed the state"
    replayed: list[Event] = state.apply(action)
    return replayed


def illegal_probes(state: Any, rng: random.Random, more: random.Random) -> list[Action]:
    legal = set(state.legal_actions())
    probes = [Action("no_such_move"), Action("discard", card=rng.randrange(52)),
              Action("draw_stock"), Action("draw_discard"), Action("knock", card=rng.randrange(52)),
              Action("pass"), Action("deal"), Action("bid", number=rng.randrange(14))]
    # Trick-game moves come from their own rng, so the rummy games' seeded
    # playouts stay what they were before these probes were added.
    probes += [Action("bid", number=more.choice([-1, 14, 18])),
               Action("play", card=more.randrange(53)), Action("keep"), Action("look"),
               Action("blind_nil"), Action("pass_cards", cards=(more.randrange(52),)),
               Action("pass_cards", cards=(more.randrange(26), 26 + more.randrange(27)))]
    return [p for p in probes if p not in legal]


def play_match(name: str, options: Any, seed: int, policy: Policy = random_policy,
               max_actions: int = 200_000, players: int | None = None) -> dict[str, Any]:
    """Play one seeded match, checking every invariant at every step; returns stats."""
    game = get_game(name)
    players = players or game.PLAYERS[0]
    rng, more = random.Random(seed), random.Random(-seed)
    state = game.new_match(options, players=players, rng=random.Random(seed))
    zones0 = state.zones()
    full_deck = sorted(zones0["pack"]) if "pack" in zones0 else sorted(
        deck(packs=zones0.get("packs", 1), jokers=zones0.get("jokers", 0)))
    public: set[int] = set()
    deal = None
    stats: dict[str, Any] = {"actions": 0, "illegal_probes": 0, "faults": 0}
    faulted_deal = False
    for _ in range(max_actions):
        zones = state.zones()
        if zones["deal"] != deal:
            deal, public = zones["deal"], set()
        # card conservation
        assert all_cards(zones) == full_deck
        # no leaks in views, public cards remembered from the spectator's view
        spectator = state.view(None)
        json.dumps(spectator)
        shown = cards_in(spectator)
        leaked = shown & forbidden(zones, None, public)
        assert not leaked, f"the spectator sees {leaked} in {spectator}"
        views = [state.view(seat) for seat in range(players)]
        for seat, view in enumerate(views):
            leaked = cards_in(view) & forbidden(zones, seat, public)
            assert not leaked, f"seat {seat} sees {leaked}"
        public |= shown

        if state.is_over():
            assert state.current_player() is None and state.legal_actions() == []
            break
        legal = state.legal_actions()
        assert legal, "no legal action in a live state"
        assert legal == sorted(legal), "legal actions are not sorted"
        assert len(set(legal)) == len(legal)
        to_act = state.current_player()
        assert to_act is not None
        assert views[to_act]["legal"] == [a.to_json() for a in legal]
        for action in legal:
            assert Action.from_json(action.to_json()) == action
            assert Action.parse(str(action)) == action

        # an illegal action changes nothing: the views and whose turn after each probe, and
        # the record (which costs as much as the match is long to read) after them all
        if rng.random() < 0.1:
            before = snapshot(state, players)
            views_before = snapshot(state, players, record=False)
            for probe in illegal_probes(state, rng, more):
                try:
                    state.apply(probe)
                except IllegalAction as error:
                    assert error.reason
                    stats["illegal_probes"] += 1
                else:
                    raise AssertionError(f"{probe} was accepted but is not legal")
                assert snapshot(state, players, record=False) == views_before, \
                    f"{probe} changed a view"
            assert snapshot(state, players) == before

        # resampling keeps what the seat knows
        if rng.random() < 0.05:
            twin = state.resample(to_act, random.Random(seed + stats["actions"]))
            assert twin.view(to_act) == state.view(to_act)
            twin_zones = twin.zones()
            if not zones.get("unseen_by", {}).get(to_act):  # a hand not looked at is redealt
                assert sorted(twin_zones["hands"][to_act]) == sorted(zones["hands"][to_act])
            assert [len(h) for h in twin_zones["hands"]] == [len(h) for h in zones["hands"]]
            assert twin_zones["public"] == zones["public"]
            assert all_cards(twin_zones) == full_deck
            assert twin.legal_actions() == legal
            check_guessed_resample(state, to_act, twin_zones, seed + stats["actions"], public)
            # the copy plays on (and rolls back) without touching the original
            original = (zones, state.record())
            apply_after_a_fault(twin, legal[0], players)
            stats["faults"] += 1
            assert (state.zones(), state.record()) == original, "the resampled copy shares state"

        action = policy(state, rng)
        dealing = game.only_dealing(state)
        if stats["actions"] == 0 or (dealing and not faulted_deal):
            # the first move, and a deal (which draws a chance outcome) fail once first
            faulted_deal |= dealing
            events = apply_after_a_fault(state, action, players)
            stats["faults"] += 1
        else:
            events = state.apply(action)
        stats["actions"] += 1
        after = state.zones()
        if after["deal"] == deal:
            for seat in [*range(players), None]:
                for event in events:
                    seen = event.view(seat)
                    json.dumps(seen)
                    leaked = cards_in(seen) & forbidden(after, seat, public)
                    assert not leaked, f"event {event.type} shows {leaked} to seat {seat}"
    else:
        raise AssertionError("the match did not end")

    # record / replay round-trips, and the record is plain JSON
    record = json.loads(json.dumps(state.record()))
    again = game.replay(record)
    assert snapshot(again, players) == snapshot(state, players)
    # same seed, same game
    twin = game.new_match(options, players=players, rng=random.Random(seed))
    replayed = copy.deepcopy(record["actions"])
    for data in replayed:
        twin.apply(Action.from_json(data))
    assert twin.record() == state.record()
    # the unchecked path (playouts, search) plays the same match
    unchecked = game.new_match(options, players=players, rng=random.Random(seed))
    for data in record["actions"]:
        unchecked.apply_unchecked(Action.from_json(data))
    assert unchecked.record() == state.record()
    stats["result"] = state.result()
    return stats
