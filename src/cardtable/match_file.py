"""A finished match as a file anyone can check: its record, the proofs of its shuffles.

The server offers a match for download once it is over (``GET /api/tables/{code}/match``);
``cardtable verify FILE`` checks it with nothing but this package:

1. every shuffle's revealed order and salt hash to its commitment (:mod:`cardtable.fairness`);
2. the revealed orders are, one for one and in order, the chance outcomes of the record:
   the cards the proofs vouch for are the cards that were dealt;
3. the engine replays the record from those outcomes alone, every move legal, to the
   match's end (or to where the players agreed to end it), and its result is the file's.

The document (``FORMAT``)::

    {"format": "cardtable-match/1", "code": "V88FCR", "game": "gin", "ended": null,
     "record": {"game": "gin", "options": {...}, "players": 2,
                "chance": [1, "8h 6h ..."], "actions": [{"type": "pass"}, ...]},
     "result": {...}, "shuffles": [{"id": "0.0", "commit": "...", "order": "1",
                                    "salt": "..."}, ...]}
"""

from __future__ import annotations

import json
from collections.abc import Mapping, MutableSequence
from dataclasses import dataclass, field
from typing import Any

from .engine import Action, IllegalAction, get_game
from .fairness import Shuffle, outcome_text, problems

FORMAT = "cardtable-match/1"


def match_document(code: str, record: Mapping[str, Any], shuffles: list[Shuffle],
                   result: Mapping[str, Any] | None, ended: str | None,
                   seats: list[str] | None = None) -> dict[str, Any]:
    """The downloadable file of a finished match (``seats``: who sat where, by name)."""
    return {"format": FORMAT, "code": code, "game": record["game"], "ended": ended,
            "seats": list(seats or []), "record": dict(record),
            "result": None if result is None else dict(result),
            "shuffles": [s.to_json() for s in shuffles]}


def replay_lines(document: Mapping[str, Any]) -> list[str]:
    """The match move by move, as text: who played what, and the scores after each hand
    (``cardtable replay FILE``). ValueError if the record does not replay."""
    record = document["record"]
    game = get_game(str(record["game"]))
    players = int(record["players"])
    names = list(document.get("seats") or []) or [f"Seat {s}" for s in range(players)]
    state = game.replay({**record, "actions": []}, _RecordOnly())
    lines = [f"{game.title}: {' v '.join(names)} (table {document.get('code', '?')})"]
    for number, data in enumerate(record["actions"], 1):
        seat = state.current_player()
        ending = not game.only_dealing(state)
        try:
            state.apply(Action.from_json(data))
        except IllegalAction as illegal:
            raise ValueError(f"move {number} ({data}) is illegal: {illegal.reason}") from None
        who = names[seat] if seat is not None and seat < len(names) else "?"
        lines.append(f"{number:>4}. {who}: {Action.from_json(data)}")
        if ending and (state.is_over() or game.only_dealing(state)):
            scores = state.view(None).get("scores")
            lines.append(f"      -- hand over; scores: {scores}")
    if state.is_over():
        lines.append(f"Result: {json.dumps(state.result().get('scores'))}")
    elif document.get("ended"):
        lines.append(f"Ended by agreement ({document['ended']}).")
    return lines


class _RecordOnly:
    """The rng of a strict replay: a deal the record does not hold is an error."""

    def shuffle(self, x: MutableSequence[Any]) -> None:
        raise ValueError("the record needs a deal it does not hold")

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        raise ValueError("the record needs a chance outcome it does not hold")


@dataclass
class Verdict:
    """What ``verify`` found: problems (none: the file holds), and what it checked."""

    problems: list[str] = field(default_factory=list)
    shuffles: int = 0
    moves: int = 0
    result: Mapping[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def _shuffle_order(shuffle: Shuffle) -> tuple[int, int]:
    version, _, index = shuffle.shuffle_id.partition(".")
    return int(version), int(index)


def verify(document: Mapping[str, Any]) -> Verdict:
    """Check a match file (see the module's docstring); never raises on a bad file."""
    verdict = Verdict()
    if not isinstance(document, Mapping) or document.get("format") != FORMAT:
        verdict.problems.append(f"not a {FORMAT} file")
        return verdict
    try:
        shuffles = sorted((Shuffle.from_json(s) for s in document["shuffles"]),
                          key=_shuffle_order)
        record = document["record"]
        chance = [outcome_text(o) for o in record["chance"]]
    except (KeyError, TypeError, ValueError) as error:
        verdict.problems.append(f"the file is malformed: {error}")
        return verdict
    verdict.shuffles = len(shuffles)
    verdict.problems += problems(shuffles)
    orders = [s.order for s in shuffles]
    if orders != chance:
        first = next((i for i, (a, b) in enumerate(zip(orders, chance, strict=False)) if a != b),
                     min(len(orders), len(chance)))
        verdict.problems.append(
            f"the proofs vouch for {len(orders)} chance outcomes, the record holds "
            f"{len(chance)}; they differ from outcome {first + 1} on")
    try:
        game = get_game(str(record["game"]))
        state = game.replay({**record, "actions": []}, _RecordOnly())
        for number, data in enumerate(record["actions"], 1):
            try:
                state.apply(Action.from_json(data))
            except IllegalAction as illegal:
                verdict.problems.append(f"move {number} ({data}) is illegal: {illegal.reason}")
                return verdict
            verdict.moves = number
    except (KeyError, TypeError, ValueError) as error:
        verdict.problems.append(f"the record does not replay: {error}")
        return verdict
    if state.is_over():
        verdict.result = json.loads(json.dumps(state.result()))  # as a file holds it
        if document.get("result") is not None and document["result"] != verdict.result:
            verdict.problems.append("the file's result is not the one the record replays to")
    elif not document.get("ended"):
        verdict.problems.append("the record stops before the match is over")
    return verdict
