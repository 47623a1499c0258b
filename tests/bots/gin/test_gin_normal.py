"""Scenario tests for the normal Gin Rummy bot (``cardtable.bots.gin.normal``), and
bot-vs-bot matches.

Each scenario sets a table by hand and asks the bot (seat 0) for its move.
Hands are drawn as pictures, one row per suit, one column per rank, which
the helper ``drawn`` reads, so the drawing is the data and cannot drift.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from cardtable.bots.gin.normal import choose, wants
from cardtable.engine.api import Action
from cardtable.engine.cards import RANKS, SUITS, parse
from cardtable.engine.games import gin
from cardtable.engine.games.gin import Phase


def drawn(picture: str) -> list[int]:
    """Cards from a picture: rows ``c``/``d``/``h``/``s``, columns A..K, ``.`` for none."""
    cards = []
    for line in picture.strip().splitlines():
        suit, *cells = line.split()
        if suit not in SUITS:
            continue  # the A 2 3 ... heading
        assert len(cells) == 13, f"row {suit!r} needs 13 columns"
        for rank, cell in enumerate(cells):
            assert cell in (".", RANKS[rank]), f"{cell!r} in the {RANKS[rank]} column"
            if cell != ".":
                cards.append(SUITS.index(suit) * 13 + rank)
    return cards


def table(me: list[int], pile: str, phase: Phase = Phase.DRAW, *, taken: str | None = None,
          options: gin.Options | None = None, knock_limit: int = 10) -> gin.GinState:
    """Seat 0 (the bot) to act holding ``me``; ``pile`` bottom to top; the rest shuffled."""
    state = gin.new_match(options or gin.Options(), rng=random.Random(0))
    pile_cards = parse(pile)
    rest = [c for c in range(52) if c not in me and c not in pile_cards]
    assert len(set(me) | set(pile_cards)) == len(me) + len(pile_cards), "a card is used twice"
    assert len(me) == (11 if phase is Phase.DISCARD else 10), "10 cards, 11 after the draw"
    state.hands = [list(me), rest[:10]]
    state.stock = rest[10:]
    state.discard = pile_cards
    state.phase, state.to_act = phase, 0
    state.taken = parse(taken)[0] if taken else None
    state.picked = [set(), set()]
    state.stock_only = state.must_knock = False
    state.knock_limit = knock_limit
    state._legal = None  # the legal moves are cached; the fields above changed them
    return state


def bot_move(state: gin.GinState) -> str:
    view = state.view(0)
    action = choose(view)
    assert action.to_json() in view["legal"]
    return str(action)


# A hand with two melds and a pair of sevens:
SEVENS = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c . . . . . . 7 . 9 . . . K
  d . . . . . . 7 . . . . . .
  h . . 3 4 5 . . . . . . . .
  s . . . . . . . . . . J Q K
""")  # 3h4h5h and JsQsKs melded; 7c 7d 9c Kc loose: deadwood 33


def test_takes_a_discard_that_completes_a_set() -> None:
    assert bot_move(table(SEVENS, "2d 7h")) == "draw_discard"


def test_takes_a_discard_that_extends_a_run() -> None:
    assert bot_move(table(SEVENS, "6h")) == "draw_discard"


def test_draws_from_the_stock_when_the_discard_melds_nothing() -> None:
    assert bot_move(table(SEVENS, "7h 2d")) == "draw_stock"


def test_a_low_card_that_only_replaces_a_high_one_is_not_a_meld() -> None:
    # The ace would lower deadwood (throw the Kc), but it joins no meld.
    assert not wants(SEVENS, parse("Ad")[0])
    assert bot_move(table(SEVENS, "Ad")) == "draw_stock"


def test_first_upcard_taken_or_passed() -> None:
    assert bot_move(table(SEVENS, "7s", Phase.FIRST_UPCARD)) == "take_upcard"
    assert bot_move(table(SEVENS, "2c", Phase.FIRST_UPCARD)) == "pass"


# Eleven cards after a stock draw (the 5d), nothing near a knock:
LOOSE = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c A 2 . . . . 7 . . . . . .
  d . . . . 5 . 7 . 9 . . . .
  h . . 3 4 5 . . . . . . . K
  s . . . . . . 7 . . . . . .
""")  # 3h4h5h and 7c7d7s melded; Ac 2c 5d 9d Kh loose: deadwood 27


def test_discards_the_highest_unmatched_card() -> None:
    assert bot_move(table(LOOSE, "Qc", Phase.DISCARD)) == "discard Kh"


# Melded kings are worth keeping over an unmatched nine:
KINGS = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c . 2 . . . 6 . . . . . . K
  d . . . 4 . . . . 9 . . . K
  h . . 3 . 5 . . . . . . . K
  s . . . . . . 7 8 . . . . .
""")  # KcKdKh melded; 2c 6c 4d 9d 3h 5h 7s 8s loose: deadwood 44


def test_never_breaks_a_meld_to_throw_a_high_card() -> None:
    assert bot_move(table(KINGS, "Qc", Phase.DISCARD)) == "discard 9d"


def test_does_not_throw_back_the_card_it_took() -> None:
    # Had the Kh just come from the pile it could not go straight back: the 9d goes.
    assert bot_move(table(LOOSE, "Qc", Phase.DISCARD, taken="Kh")) == "discard 9d"


# Three melds, an ace and a nine after the draw:
KNOCKER = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c . . . . . . 7 . . . J Q K
  d A . . . . . 7 . . . . . .
  h . . 3 4 5 . . . . . . . .
  s . . . . . . 7 . 9 . . . .
""")  # 3h4h5h 7c7d7s JcQcKc melded; Ad 9s loose


def test_knocks_as_soon_as_it_can_with_the_least_deadwood() -> None:
    # Throwing the Ad also leaves 9, a legal knock, but throwing the 9s leaves 1.
    assert bot_move(table(KNOCKER, "Qd", Phase.DISCARD)) == "knock 9s"


def test_above_the_knock_limit_it_keeps_discarding() -> None:
    # Oklahoma with an ace upcard is gin only: 1 deadwood is too much to knock.
    state = table(KNOCKER, "Qd", Phase.DISCARD, knock_limit=0)
    assert bot_move(state) == "discard 9s"


GIN = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c . . . . . . 7 . . . J Q K
  d . 2 . . . . 7 . . . . . .
  h . . 3 4 5 6 . . . . . . .
  s . . . . . . 7 . . . . . .
""")  # 3h-6h 7c7d7s JcQcKc melded; 2d loose


def test_goes_gin_rather_than_knock() -> None:
    state = table(GIN, "Qd", Phase.DISCARD)
    legal = {a["type"] for a in state.view(0)["legal"]}
    assert {"gin", "knock"} <= legal  # throwing the 6h knocks with 2
    assert bot_move(state) == "gin 2d"


BIG_GIN = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c . . . . . . 7 . . . J Q K
  d . . . . . . 7 . . . . . .
  h . . 3 4 5 6 7 . . . . . .
  s . . . . . . 7 . . . . . .
""")  # 3h-6h, 7c7d7h7s and JcQcKc: all eleven melded


def test_prefers_big_gin_to_gin() -> None:
    assert bot_move(table(BIG_GIN, "Qd", Phase.DISCARD)) == "big_gin"
    pagat = gin.Options.preset("pagat")  # no big gin: a plain gin instead
    assert bot_move(table(BIG_GIN, "Qd", Phase.DISCARD, options=pagat)).startswith("gin ")


# The 50th-card rule: the last discard is on offer only to knock with it.
FINAL = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c A 2 . . . . . . 9 . . . K
  d . . . . . . . . 9 . . . K
  h . . . 4 5 6 . . 9 . . . .
  s . . . . . . . . . . . . .
""")  # 9s and 4h5h6h melded; Ac 2c Kc Kd loose: deadwood 23


def test_final_discard_taken_only_to_knock() -> None:
    options = gin.Options.from_dict({"fiftieth_card": True})
    # The Kh makes the kings a set; throwing the 2c then knocks with 1.
    assert bot_move(table(FINAL, "Kh", Phase.FINAL_DISCARD, options=options)) == "draw_discard"
    assert bot_move(table(FINAL, "Qs", Phase.FINAL_DISCARD, options=options)) == "pass"


def test_deals_when_that_is_the_only_move() -> None:
    state = table(SEVENS, "Qd", Phase.HAND_OVER)
    assert bot_move(state) == "deal"


def test_decides_from_the_json_view_alone_and_leaves_it_alone() -> None:
    view = json.loads(json.dumps(table(SEVENS, "2d 7h").view(0)))
    before = copy.deepcopy(view)
    assert choose(view) == choose(view) == Action("draw_discard")
    assert view == before


def test_refuses_a_view_without_legal_moves() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        choose(table(SEVENS, "2d").view(1))


MATCH_OPTIONS = [gin.Options(), gin.Options.preset("pagat"), gin.Options.preset("oklahoma"),
                 gin.Options.from_dict({"fiftieth_card": True, "next_dealer": "loser"})]


@pytest.mark.slow  # a long random or bot playout: left out of the quick run
def test_200_seeded_bot_matches_finish_with_only_legal_moves() -> None:
    kinds: set[str] = set()
    for seed in range(200):
        state = gin.new_match(MATCH_OPTIONS[seed % 4], rng=random.Random(seed))
        moves = 0
        while not state.is_over():
            seat = state.current_player()
            assert seat is not None
            view = state.view(seat)
            action = choose(view, random.Random(seed))
            assert action.to_json() in view["legal"], (seed, str(state), action)
            state.apply(action)  # raises IllegalAction on a bad move
            moves += 1
            assert moves < 5000, f"match {seed} does not end"
        kinds.update(row["kind"] for row in state.result()["hands"])
        assert state.result()["winner"] in (0, 1)
    assert {"knock", "gin", "undercut"} <= kinds
