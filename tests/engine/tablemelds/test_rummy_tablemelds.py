"""The shared table-meld mechanism: lay-offs with jokers, joker exchange, listed melds,
and the hooks later games override (first-meld minimum, deep pickups)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TypeVar

import pytest

from cardtable.engine import Action, IllegalAction
from cardtable.engine.cards import JOKER, card, format_cards, parse
from cardtable.engine.games import rummy, rummy500
from cardtable.engine.games.romme.values import joker_problem
from cardtable.engine.melds import InvalidMeld, MeldRules, make_meld
from cardtable.engine.tablemelds import (
    TableMeldState,
    candidate_melds,
    extend,
    fits,
    lay,
    swap_joker,
)
from romme_deals import rigged as romme_rigged
from rummy500_deals import rigged as rummy500_rigged
from rummy_deals import rigged

State = TypeVar("State", bound=TableMeldState)
HIGH = MeldRules(ace_high=True)
AROUND = MeldRules(ace_high=True, around_corner=True)


def test_a_joker_in_a_run_keeps_the_card_it_stands_for() -> None:
    run = lay(3, 1, parse("5d Jk 7d"))
    assert format_cards(run.stands_for) == "5d 6d 7d"
    longer = extend(extend(run, card("8d"), 0), card("4d"), 2)
    assert format_cards(longer.cards) == "4d 5d Jk 7d 8d"
    assert format_cards(longer.stands_for) == "4d 5d 6d 7d 8d"
    assert longer.laid_by == (2, 1, 1, 1, 0) and longer.id == 3 and longer.owner == 1


def test_a_joker_laid_off_goes_high_then_low() -> None:
    run = lay(1, 0, parse("Jh Qh Kh"), HIGH)
    once = extend(run, JOKER, 0, HIGH)
    assert format_cards(once.stands_for) == "Jh Qh Kh Ah"
    twice = extend(once, JOKER, 0, HIGH)
    assert format_cards(twice.stands_for) == "Th Jh Qh Kh Ah"


@pytest.mark.parametrize(("meld", "rules", "card_text", "reason"), [
    ("Ah 2h 3h", HIGH, "Kh", "does not extend this run"),  # its ace is low
    ("Qh Kh Ah", HIGH, "2h", "does not extend this run"),  # nothing past an end ace
    ("Qh Kh Ah", AROUND, "2s", "not of this run's suit"),
    ("7c 7d 7h", MeldRules(), "8s", "does not belong in a set of 7s"),
    ("7c 7d 7h", MeldRules(), "7c", "different suits"),
])
def test_lay_off_refusals_say_why(meld: str, rules: MeldRules, card_text: str,
                                  reason: str) -> None:
    with pytest.raises(InvalidMeld, match=reason):
        extend(lay(1, 0, parse(meld), rules), card(card_text), 0, rules)


def test_around_the_corner_runs_extend_through_the_ace() -> None:
    run = lay(1, 0, parse("Qh Kh Ah"), AROUND)
    assert fits(run, card("2h"), AROUND) and fits(run, card("Jh"), AROUND)


@pytest.mark.parametrize(("limit", "laid_off", "allowed"), [
    ("one_per_meld", "Jk", False), ("one_per_meld", "6h", True),
    ("not_adjacent", "Jk", False), ("none", "Jk", True),
])
def test_fits_honours_the_games_meld_problem(limit: str, laid_off: str, allowed: bool) -> None:
    run = lay(1, 0, parse("7h 8h Jk"), HIGH)
    assert fits(run, card(laid_off), HIGH)  # the cards fit; the house rule decides
    assert fits(run, card(laid_off), HIGH, partial(joker_problem, limit)) is allowed
    state = romme_rigged(["7h 8h Jk 9c 9d 9s Kd 2c 4d 6s Qh 3s Tc Jc", "5c 6d 8s Js Qc 3h "
                          "6h 9h Kc Ks 2s 4c Th"], options={"joker_limit": limit})
    assert state.may_extend(run, card(laid_off)) is allowed


def test_a_set_joker_takes_the_lowest_missing_suit() -> None:
    group = lay(1, 0, parse("7c Jk 7h"))
    assert format_cards(group.stands_for) == "7c 7h 7d"
    # laying off the 7d moves the joker's role to the spade: placed cards never move
    full = extend(group, card("7d"), 1)
    assert format_cards(full.cards) == "7c 7h Jk 7d"
    assert format_cards(full.stands_for) == "7c 7h 7s 7d"


def test_joker_exchange() -> None:
    run = lay(1, 0, parse("Jd Jk Kd"))
    swapped = swap_joker(run, card("Qd"), 1)
    assert format_cards(swapped.cards) == "Jd Qd Kd" and swapped.laid_by == (0, 1, 0)
    with pytest.raises(InvalidMeld, match="stands for Qd, not 9s"):
        swap_joker(run, card("9s"), 1)
    # a set of three with a joker: either missing suit frees it; a full set only the exact card
    three = lay(2, 0, parse("9c 9h Jk"))
    assert JOKER not in swap_joker(three, card("9s"), 1).cards
    four = lay(3, 0, parse("9c 9h 9d Jk"))
    with pytest.raises(InvalidMeld):
        swap_joker(four, card("9d"), 1)
    assert JOKER not in swap_joker(four, card("9s"), 1).cards


def test_candidate_melds_are_exact_without_jokers() -> None:
    hand = parse("7c 7d 7h 8h 9h Th 2s")
    found = candidate_melds(hand)
    # every subset that is a legal meld, and nothing else
    from itertools import combinations
    legal = set()
    for size in range(3, len(hand) + 1):
        for group in combinations(sorted(hand), size):
            try:
                make_meld(group)
            except InvalidMeld:
                continue
            legal.add(group)
    assert set(found) == legal and found == sorted(found)


def test_candidate_melds_with_a_joker_are_bounded_and_valid() -> None:
    hand = parse("5d 6d 8d 9c 9h Jk Jk")
    found = candidate_melds(hand, max_jokers=1)
    assert all(sum(c == JOKER for c in m) <= 1 for m in found)
    assert tuple(parse("5d 6d 8d Jk")) in found and tuple(parse("9c 9h Jk")) in found
    for m in found:
        make_meld(m)


# -- hooks for the later games, exercised through small subclasses ------------------------


class FortyToComeOut(rummy.RummyState):
    """Rommé-style coming out: 40 points, aces 11 (1 low in A-2-3)."""

    def opening_minimum(self, seat: int) -> int:
        return 0 if self.has_melded[seat] else 40

    def meld_value(self, stands_for: Sequence[int]) -> int:
        low_ace = stands_for[0] % 13 == 0 and len({c % 13 for c in stands_for}) > 1
        return sum(11 if c % 13 == 0 and not (low_ace and i == 0) else min(c % 13 + 1, 10)
                   for i, c in enumerate(stands_for))


def _as(cls: type[State], state: TableMeldState) -> State:
    state.__class__ = cls
    state._legal = None
    return state


def test_first_meld_minimum_is_refused_with_the_points() -> None:
    hands = ["Qh Kh Ah 7c 7d 7s 2d 4c 9s Tc", "5c 6d 8s Js Qc 3h 5h 9c Kc Kd"]
    state = _as(FortyToComeOut, rigged(hands, "6c", "Ks", options={"ace": "high_or_low"}))
    state.apply(Action("draw_stock"))
    with pytest.raises(IllegalAction, match="your first meld is 31 points; 40 are needed"):
        state.apply(Action("meld", melds=(tuple(parse("Qh Kh Ah")),)))
    with pytest.raises(IllegalAction, match="together in one move"):
        state.apply(Action("meld", cards=tuple(parse("Qh Kh Ah"))))
    opening = Action("meld", melds=(tuple(parse("7c 7d 7s")), tuple(sorted(parse("Qh Kh Ah")))))
    assert opening in state.legal_actions()
    state.apply(opening)  # 31 + 21 = 52
    assert len(state.table) == 2 and state.has_melded[0]


class FiveHundredPickup(rummy.RummyState):
    """Rummy 500's draw: any depth of the discard pile, the deepest card used at once."""

    def pickup_depth(self) -> int:
        return 52


def test_deep_pickup_must_use_the_deepest_card() -> None:
    # pile bottom->top 4c 9d 5s Jh 2d; seat 0 holds 9s 9h: may take 9d and all above it
    hands = ["9s 9h Ac 3c 6d Tc Qs Kd 4h 8c", "2c 3d 6s 8s Js Qc 3h 5h 9c Kc"]
    state = _as(FiveHundredPickup, rigged(hands, "4c", "9d 5s Jh 2d"))
    for _ in range(4):  # seat 1 then 0 ... throw the stock cards to build the pile
        state.apply(Action("draw_stock"))
        state.apply(Action("discard", card=state.hands[state.current_player() or 0][-1]))
    assert format_cards(state.discard) == "4c 9d 5s Jh 2d"
    legal = state.legal_actions()
    assert Action("draw_discard", number=4) in legal
    assert Action("draw_discard", number=5) not in legal  # the 4c cannot be used
    state.apply(Action("draw_discard", number=4))
    assert not [a for a in state.legal_actions() if a.type == "discard"]
    with pytest.raises(IllegalAction, match="first use 9d"):
        state.apply(Action("discard", card=card("Ac")))
    state.apply(Action("meld", cards=tuple(parse("9d 9h 9s"))))
    assert Action("discard", card=card("Ac")) in state.legal_actions()


class FiveHundredWithExchanges(rummy500.Rummy500State):
    """Rummy 500 with Rommé's joker exchange, to try the shared exchange rule."""

    def may_swap_jokers(self, seat: int) -> bool:
        return True


# Three players, C (seat 2) deals, A (seat 0) plays first and lays 8c 8d 8h Jk (the joker is
# the 8s), then throws the Kc he drew.  B draws the Qs: his 8s could take the joker's place,
# but the freed joker must go back on the table this turn, and B's other cards make no meld
# with it and the full set takes nothing more: the exchange would stick the turn.
#   A  8c 8d 8h Jk 2s 5s Kd
#   B  8s Ac 4c Jc 2d 6d Th        (with Qc for the Th: Jc Qc Jk is a meld, so he may)
#   C  3h 5h 7h 9c Jh Kh 2c        upcard 3s, stock: Kc Qs
@pytest.mark.parametrize(("last_card", "offered"), [("Th", False), ("Qc", True)])
def test_a_joker_is_exchanged_only_when_it_can_go_back_on_the_table(
        last_card: str, offered: bool) -> None:
    state = rummy500_rigged(["8c 8d 8h Jk 2s 5s Kd", f"8s Ac 4c Jc 2d 6d {last_card}",
                             "3h 5h 7h 9c Jh Kh 2c"], "3s", "Kc Qs")
    state = _as(FiveHundredWithExchanges, state)
    for move in ("draw_stock", "meld cards=8c8d8hJk", "discard Kc", "draw_stock"):
        state.apply(Action.parse(move))
    swap = Action("swap_joker", card=card("8s"), meld=1)
    assert (swap in state.legal_actions()) is offered
    if offered:
        state.apply(swap)
        assert state.must_place == [JOKER] and state.legal_actions()
        assert all(JOKER in (*a.cards, a.card) for a in state.legal_actions())
