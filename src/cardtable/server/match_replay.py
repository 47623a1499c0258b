"""Any match of a table, from its log: as a file (``cardtable.match_file``) once it is over,
and as a replay a browser steps through.

A match is named ``"<table_id>:<version>"``: the version of the event that dealt it
(``start``, ``rematch``; 0: the table's creation, if every seat was taken then -- a table
made to wait for players has no match before its ``start``). The log is the truth; this
reads the store, not the table actor, so it works for any table wherever it lives and for
matches long finished.

A replay is one step per move: who played what, every seat's hand, the cards on the table,
the stock and the scores after it. **Nothing is face up before the match is over.** While
it is played (a hand of it already finished too: one rule, the safest, for every game)
each step says what a spectator saw: every hand as a count, and the move as the public
side of its events (``Event.view(None)``, the redaction of the table's own frames) tell it
-- the move's text keeps a field only where those events name it, whatever the game or
the move (:func:`told`), so a card passed face down (Spades' blind-nil exchange), drawn
from the stock or laid face down stays unnamed. A replay never tells more than the table
did. Once the match is over (or ended by agreement) every hand and every move is shown.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine import Action, GameState, get_game
from ..engine.cards import format_cards, str_card
from ..match_file import match_document
from ..store import EventRecord, TableRecord
from .codes import LogKind
from .table import MOVES, NEW_MATCH, Drawn, Fairness


@dataclass
class LoggedMatch:
    """One match of a table's log: its rules, chance outcomes and moves, by event."""

    start: int
    options: dict[str, Any]
    chance: list[Any] = field(default_factory=list)
    actions: list[tuple[int | None, dict[str, Any]]] = field(default_factory=list)  # seat, move
    drawn: list[Drawn] = field(default_factory=list)
    ended: str | None = None

    def record(self, game: str, players: int) -> dict[str, Any]:
        return {"game": game, "options": self.options, "players": players,
                "chance": list(self.chance), "actions": [a for _, a in self.actions]}


def logged_match(record: TableRecord, events: list[EventRecord], start: int) -> LoggedMatch | None:
    """The match that began at version ``start``, or None if none did."""
    match: LoggedMatch | None = None
    if start == 0 and record.start_chance:  # dealt as it was made (every seat taken)
        match = LoggedMatch(0, dict(record.options), list(record.start_chance),
                            drawn=[Drawn(0, list(record.start_chance), True)])
    for event in events:
        if event.kind in NEW_MATCH:
            if match is not None:
                break  # the next match began: ours is complete
            if event.version == start:
                options = dict(event.payload.get("options") or record.options)
                match = LoggedMatch(start, options, list(event.chance),
                                    drawn=[Drawn(start, list(event.chance), True)])
            continue
        if match is None:
            continue
        if event.kind == LogKind.END:
            match.ended = str(event.payload.get("reason", "agreed"))
        elif event.kind in MOVES:
            match.chance += event.chance
            match.actions.append((event.seat, event.payload))
            if event.chance or event.payload.get("type") == "deal":
                match.drawn.append(Drawn(event.version, list(event.chance),
                                         event.payload.get("type") == "deal"))
    return match


def _played(record: TableRecord, match: LoggedMatch) -> GameState:
    game = get_game(record.game)
    return game.replay(match.record(record.game, record.players), secrets.SystemRandom())


def match_file(record: TableRecord, match: LoggedMatch) -> dict[str, Any] | None:
    """The match as a file, or None while it is being played (its cards stay hidden)."""
    state = _played(record, match)
    if not (state.is_over() or match.ended):
        return None
    fairness = Fairness.of(record.table_id, record.fair_key, match.drawn)
    return match_document(record.code, state.record(), fairness.proofs(revealed=True),
                          state.result() if state.is_over() else None, match.ended,
                          seat_names(record))


def seat_names(record: TableRecord) -> list[str]:
    """Who sat where: a person who left keeps his name in his match."""
    return [s.was if s.kind == "bot" and s.was else s.name or "?" for s in record.seats]


CARD_NAMES = frozenset(str_card(c) for c in range(54))  # as actions and events name cards


def told(action: Action, public: list[dict[str, Any]]) -> str:
    """``action`` as a spectator learns it from the public side of its events: its kind, and
    each of its fields only where those events name it -- its cards (each as many times as
    they name it), its number or meld (under the same key, or a meld named by its id).
    Generic on purpose: no game's move needs its own rule, and a new one is covered.

    >>> from cardtable.engine import Event
    >>> passed = Action("pass_cards", cards=(0, 1))
    >>> told(passed, [Event("pass_cards", 2, {"to": 0}, {"cards": ["Ac", "2c"]}).view(None)])
    'pass_cards'
    >>> told(Action.parse("lay_off 7h meld=3"),
    ...      [{"type": "lay_off", "card": "7h", "meld": {"id": 3, "cards": ["5h", "6h", "7h"]}}])
    'lay_off 7h meld=3'
    """
    named = Counter(_card_names(public))
    kept: dict[str, Any] = {}
    for key, value in action.to_json().items():
        if key == "type":
            continue
        if isinstance(value, int):
            if _carries(public, key, value):
                kept[key] = value
        elif all(named[card] >= count for card, count in Counter(_card_names(value)).items()):
            kept[key] = value
    return str(Action.from_json({"type": action.type, **kept}))


def _card_names(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _card_names(item)
    elif isinstance(value, list):
        for item in value:
            yield from _card_names(item)
    elif isinstance(value, str):
        yield from (word for word in value.split() if word in CARD_NAMES)


def _carries(value: Any, key: str, number: int) -> bool:
    """Whether some object in ``value`` has ``number`` under ``key`` (or there names an
    object of that ``id``); booleans are not numbers here."""
    if isinstance(value, list):
        return any(_carries(item, key, number) for item in value)
    if not isinstance(value, Mapping):
        return False
    there = value.get(key)
    if isinstance(there, Mapping):
        there = there.get("id")
    if type(there) is int and there == number:
        return True
    return any(_carries(item, key, number) for item in value.values())


def _step(state: GameState, face_up: bool) -> dict[str, Any]:
    public = state.view(None)
    zones = state.zones()
    hands: list[Any] = [format_cards(h).split() for h in zones["hands"]] if face_up \
        else [h.get("count") if isinstance(h, dict) else h for h in public.get("hands", [])]
    stock = public.get("stock")
    return {"phase": state.phase.value, "hands": hands,
            "table": format_cards(zones["public"]).split(),
            "stock": stock if isinstance(stock, int) else len(zones["stock"]),
            "scores": public.get("scores"), "to_act": state.current_player()}


def replay(record: TableRecord, match: LoggedMatch) -> dict[str, Any]:
    """The match step by step (see the module's docstring)."""
    game = get_game(record.game)
    final = _played(record, match)
    over = final.is_over() or match.ended is not None
    state = game.replay({**match.record(record.game, record.players), "actions": []},
                        secrets.SystemRandom())
    steps = [{"n": 0, "seat": None, "action": None, "events": [], **_step(state, over)}]
    for n, (seat, data) in enumerate(match.actions, 1):
        action = Action.from_json(data)
        public = [event.view(None) for event in state.apply(action)]
        steps.append({"n": n, "seat": seat, "action": str(action) if over else told(action, public),
                      "events": public, **_step(state, over)})
    seats = seat_names(record)
    shuffles = Fairness.of(record.table_id, record.fair_key, match.drawn).proofs(True) \
        if over else []
    return {"match_id": f"{record.table_id}:{match.start}", "code": record.code,
            "game": record.game, "title": game.title, "over": over, "ended": match.ended,
            "seats": seats, "steps": steps,
            "result": final.result() if final.is_over() else None,
            "shuffles": [s.to_json() for s in shuffles]}
