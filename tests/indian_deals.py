"""Fixed Indian Rummy deals for scenario tests, and the hands of the rules file's test
vectors 6 (a points deal) and 2 (a wrong show) that several tests play."""

from __future__ import annotations

from typing import Any

from cardtable.engine import Action
from cardtable.engine.cards import JOKER, format_cards, parse
from cardtable.engine.games import indian
from cardtable.engine.games.indian import IndianState, Options


def deck_order(hands: list[str], first: int, cut: str, open_card: str, closed: str = "",
               decks: int = 2, direction: int = 1) -> str:
    """A full deck that deals ``hands`` (by seat, one card at a time from ``first`` on in
    the direction of play), then the cut card, the open card, and ``closed`` on top of the
    closed deck (first drawn first)."""
    n = len(hands)
    cards = [parse(h) for h in hands]
    assert all(len(h) == 13 for h in cards), [len(h) for h in cards]
    seats = [(first + direction * k) % n for k in range(n)]
    order = [cards[seats[i % n]][i // n] for i in range(13 * n)]
    order += parse(cut) + parse(open_card) + parse(closed)
    rest = [c for _ in range(decks) for c in range(52)] + [JOKER] * decks
    for c in order:
        rest.remove(c)  # fails if a card is used more often than the packs hold
    return format_cards(order + rest)


def rigged(hands: list[str], cut: str, open_card: str, closed: str = "", *, first: int = 0,
           options: dict[str, Any] | None = None) -> IndianState:
    opts = Options.from_dict(options or {})
    direction = 1 if opts.direction == "clockwise" else -1
    chance = [first, deck_order(hands, first, cut, open_card, closed, opts.decks, direction)]
    return indian.replay({"game": "indian", "options": opts.to_dict(), "players": len(hands),
                          "chance": chance, "actions": []})


def act(state: IndianState, *moves: str) -> None:
    for text in moves:
        state.apply(Action.parse(text))


# -- vector 6: a points deal, A 23, B 80, E middle drop 40 -> the winner collects 143 ----------

# The cut card is the 7c: sevens are wild.
WINNER = "3h 4h 5h 6h Tc Jc Qc Kc Kd Kh 2c 2d 8c"
#         3h 4h 5h 6h | Tc Jc Qc | Kc Kd Kh | 2c 2d . | 8c   (draws the 2s, lays 8c aside)
LOSER_A = "3h 4h 5h 8s 9s 7d Qc Qd Qh Qs Kd 9c 4s"
#         3h 4h 5h (pure) | 8s 9s 7d (7d = Ts) | Qc Qd Qh Qs | Kd 9c 4s loose = 23
LOSER_B = "Kc Ks 9s 9h Qh Jd 8c 8d 6s 5c 5s 2h 3c"
#         no pure sequence: every card counts, 95 -> 80


# -- vector 2: a wrong show, and the deal goes on ----------------------------------------------

WRONG = "4h Jk 6h 9s 7c Js Kc Kd Kh 2c 2d 2s 8d"
#        4h Jk 6h | 9s 7c Js | Kc Kd Kh | 2c 2d 2s (+ 2h drawn) | 8d: no pure sequence
OTHER = "Ac 3c 5c 7d 9c Jd Ks 2h 4d 6s 8s Th Qd"
THIRD = "Ad 3d 5d 7s 9d Jc Qs 3s 5s 8h Tc Qh Kd"
