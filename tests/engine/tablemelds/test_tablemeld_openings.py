"""Coming out in Rommé: any legal first move is accepted, whatever the move list shows.

``legal_actions`` offers a bounded menu of openings (up to three melds, at most 300 of
them); a submitted opening is judged from its content (``tablemelds/play_checks.py``):
its cards are held, each group is a meld, the total reaches the minimum.  Deals are fixed
(tests/romme_deals.py): seat 0 deals, holds 14 cards and opens the hand without drawing.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.engine import Action, IllegalAction
from cardtable.engine.cards import JOKER, deck, format_cards, parse
from cardtable.engine.games import romme
from cardtable.engine.games.romme.values import melding_points
from cardtable.engine.melds import InvalidMeld, make_meld
from cardtable.engine.tablemelds.coming_out import opening_with
from cardtable.engine.tablemelds.opening import MAX_OPENING_MELDS, MAX_OPENINGS, opening_actions
from conformance import snapshot
from romme_deals import act, rigged

QUIET = "5c 6d 8s Js Qc 3h 6h 9d Kc Kd 2s 4d Th"
FOUR_SMALL_SETS = "2c 2d 2h 3c 3d 3h 4c 4d 4h 6c 6d 6h"


def opening(*groups: str) -> Action:
    return Action("meld", melds=tuple(tuple(parse(g)) for g in groups))


def refusal(state: romme.RommeState, action: Action) -> str:
    """The reason ``action`` is refused; the state must be exactly as it was."""
    before = snapshot(state, state.players)
    with pytest.raises(IllegalAction) as refused:
        state.apply(action)
    assert snapshot(state, state.players) == before
    return refused.value.reason


# -- the vectors -------------------------------------------------------------------

# seat 0 (dealer)  2c 2d 2h | 3c 3d 3h | 4c 4d 4h | 6c 6d 6h | 9c Jd   (6 + 9 + 12 + 18 = 45)
def test_four_small_sets_come_out_together() -> None:
    state = rigged([f"{FOUR_SMALL_SETS} 9c Jd", QUIET])
    assert not [a for a in state.legal_actions() if a.type == "meld"]  # three sets make 39
    act(state, "meld melds=2c2d2h/3c3d3h/4c4d4h/6c6d6h")
    assert sorted(format_cards(m.cards) for m in state.table) == [
        "2c 2d 2h", "3c 3d 3h", "4c 4d 4h", "6c 6d 6h"]
    assert state.has_melded[0] and sorted(state.hands[0]) == sorted(parse("9c Jd"))
    act(state, "discard 9c")
    assert state.current_player() == 1


# seat 0 (dealer)  9s Js Qs Ks Jk | Jk Jk 9c Tc Jc Qc Kc Ac 9d: clubs and jokers fill the
# menu (300 openings, in card order) before 9s Jk Js Qs Ks (9-T-J-Q-K = 49) comes up
def test_an_opening_the_full_menu_leaves_out_is_accepted() -> None:
    state = rigged(["9s Js Qs Ks Jk Jk Jk 9c Tc Jc Qc Kc Ac 9d", QUIET])
    menu = opening_actions(state, state.hands[0])
    run = opening("9s Js Qs Ks Jk")
    assert len(menu) == MAX_OPENINGS and state.canonical(run) not in menu
    state.apply(run)
    assert [format_cards(m.stands_for) for m in state.table] == ["9s Ts Js Qs Ks"]
    assert state.meld_value(state.table[0].stands_for) == 49


def test_one_natural_and_three_jokers_may_be_laid_though_never_listed() -> None:
    # seat 0 (dealer)  Ks Jk Jk Jk | 7c 7d 7h | 2c 4h 6s 8h 3d 5s 9c
    state = rigged(["Ks Jk Jk Jk 7c 7d 7h 2c 4h 6s 8h 3d 5s 9c", QUIET])
    assert all(m.count(JOKER) <= 2 for a in state.legal_actions() for m in a.melds)
    act(state, "meld melds=KsJkJkJk/7c7d7h")  # a lone natural and jokers read as a set: 40
    assert [format_cards(m.stands_for) for m in state.table] == ["7c 7d 7h", "Ks Kc Kd Kh"]


# -- each refusal names its reason ------------------------------------------------------------

def test_refusals_of_an_opening_name_their_reason() -> None:
    state = rigged([f"{FOUR_SMALL_SETS} 9c Jd", QUIET], options={"first_meld": 50})
    reasons = {
        "short": refusal(state, opening("2c 2d 2h", "3c 3d 3h", "4c 4d 4h", "6c 6d 6h")),
        "not held": refusal(state, opening("2c 2d 2h", "5c 5d 5h")),
        "twice": refusal(state, opening("2c 2d 2h", "2c 3c 4c")),
        "no meld": refusal(state, opening("2c 2d 2h", "3c 4d 6h")),
        "in cards": refusal(state, Action("meld", cards=tuple(parse("2c 2d 2h")))),
        "both": refusal(state, Action("meld", cards=tuple(parse("2c 2d 2h")),
                                      melds=(tuple(parse("3c 3d 3h")),))),
    }
    assert reasons == {
        "short": "your first meld is 45 points; 50 are needed",
        "not held": "you do not hold 5c",
        "twice": "you hold 2c only once",
        "no meld": "3c 4d 6h: a run needs three cards of one suit in sequence",
        "in cards": "lay your first melds together in one move (melds), to show they reach "
                    "50 points",
        "both": "a meld names its cards (cards) or the first melds (melds), not both",
    }
    assert not any("discard pile" in reason for reason in reasons.values())


def test_a_card_is_kept_to_discard_when_going_out_needs_a_discard() -> None:
    # seat 0 (dealer)  2c 2d 2h 2s | 3c 3d 3h 3s | 4c 4d 4h | 6c 6d 6h   (all 14 in melds)
    hand = "2c 2d 2h 2s 3c 3d 3h 3s 4c 4d 4h 6c 6d 6h"
    melds = ("2c 2d 2h 2s", "3c 3d 3h 3s", "4c 4d 4h", "6c 6d 6h")
    strict = rigged([hand, QUIET], options={"final_discard": True})
    assert refusal(strict, opening(*melds)) == \
        "you must keep a card to discard: you go out by discarding"
    strict.apply(opening("2c 2d 2h", "3c 3d 3h 3s", "4c 4d 4h", "6c 6d 6h"))  # keeps the 2s
    free = rigged([hand, QUIET])
    free.apply(opening(*melds))  # out by melding: Hand-Rommé
    assert free.history[-1]["winner"] == 0 and free.history[-1]["hand_romme"]


def test_the_card_taken_from_the_pile_is_named_only_when_it_is_the_reason() -> None:
    # seat 0 (dealer) discards the 9c; seat 1 takes it and may not keep it alone
    # seat 1  2c 2d 2h | 3c 3d 3h | 4c 4d 4h | 6c 6d 6h Jk   (+ 9c from the pile)
    state = rigged(["9c 5s 8h Qd 2s 3s 4s 6s Tc Th Ks Kh Ad 7d", f"{FOUR_SMALL_SETS} Jk"])
    act(state, "discard 9c", "draw_discard")
    sets = ("2c 2d 2h", "3c 3d 3h", "4c 4d 4h")
    assert refusal(state, opening(*sets, "6c 6d 6h Jk")) == (
        "you would keep only 9c, the card you took from the discard pile: it may not be "
        "discarded this turn, and it cannot be laid off")
    state.apply(opening(*sets, "6c 6d 6h"))  # keeps the joker too
    assert sorted(state.hands[1]) == sorted(parse("9c Jk"))


def test_the_card_taken_may_be_kept_alone_when_it_can_be_laid_off() -> None:
    # seat 1 takes the 9c and comes out with everything else, a club run among it: the 9c
    # then goes on the run, and he is out
    # seat 1  2c 2d 2h | 3s 3d 3h | 4c 4d 4h Jk | 6c 7c 8c   (+ 9c from the pile)
    state = rigged(["9c 5s 8h Qd 2s 3c 4s 6s Tc Th Ks Kh Ad 7d",
                    "2c 2d 2h 3s 3d 3h 4c 4d 4h Jk 6c 7c 8c"])
    act(state, "discard 9c", "draw_discard")
    state.apply(opening("2c 2d 2h", "3s 3d 3h", "4c 4d 4h Jk", "6c 7c 8c"))
    assert state.hands[1] == parse("9c")
    run = next(m for m in state.table if m.kind == "run")
    assert [str(a) for a in state.legal_actions()] == [f"lay_off 9c meld={run.id}"]
    act(state, f"lay_off 9c meld={run.id}")
    assert state.history[-1]["winner"] == 1


def test_the_top_discard_may_be_taken_for_an_opening_the_menu_leaves_out() -> None:
    # Under "the top discard must be used" seat 1 may take the 2h only to come out with it:
    # 2c 2d 2h + three more small sets (45) is such a move, though no menu lists it.
    # seat 0 (dealer)  discards 2h
    # seat 1           2c 2d | 3c 3d 3h | 4c 4d 4h | 6c 6d 6h | 9s Jd
    state = rigged(["2h 5s 8h Qd 2s 3s 4s 6s Tc Th Ks Kh Ad 7d",
                    "2c 2d 3c 3d 3h 4c 4d 4h 6c 6d 6h 9s Jd"],
                   options={"top_discard_must_be_used": True})
    act(state, "discard 2h")
    assert opening_actions(state, [*state.hands[1], *parse("2h")]) == []
    act(state, "draw_discard")
    assert state.must_place == parse("2h")
    offered = [a for a in state.legal_actions() if a.type == "meld"]
    assert len(offered) == 1 and any(parse("2h")[0] in m for m in offered[0].melds)
    state.apply(opening("2c 2d 2h", "3c 3d 3h", "4c 4d 4h", "6c 6d 6h"))
    assert state.must_place == [] and sorted(state.hands[1]) == sorted(parse("9s Jd"))


def test_later_melds_go_down_one_at_a_time() -> None:
    state = rigged([f"{FOUR_SMALL_SETS} 9c Jd", QUIET], options={"first_meld": 30})
    act(state, "meld melds=4c4d4h/6c6d6h")  # 12 + 18
    assert refusal(state, opening("2c 2d 2h", "3c 3d 3h")) == \
        "lay one meld at a time (cards): only the first melds go down together (melds)"
    act(state, "meld cards=2c2d2h", "meld cards=3c3d3h")
    assert refusal(state, Action("discard", card=parse("Jd")[0], meld=1)) == \
        "a discard names only the card"


# -- properties: openings built from random melds ---------------------------------------------

PACKS = Counter(deck(packs=2, jokers=6))
RULES = rigged([QUIET, QUIET]).meld_rules()  # ace high or low


@st.composite
def melds(draw: st.DrawFn) -> list[int]:
    """A random set or run of Rommé (ace high or low), some cards replaced by jokers."""
    if draw(st.booleans()):
        rank = draw(st.integers(0, 12))
        suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
        wild = draw(st.integers(max(0, 3 - len(suits)), 4 - len(suits)))
        return [s * 13 + rank for s in suits] + [JOKER] * wild
    length = draw(st.integers(3, 7))
    low = draw(st.integers(0, 14 - length))  # position 13 is a high ace
    suit = draw(st.integers(0, 3))
    cards = [suit * 13 + (low + i) % 13 for i in range(length)]
    wild = draw(st.sets(st.integers(0, length - 1), max_size=length - 1))
    return [JOKER if i in wild else c for i, c in enumerate(cards)]


@st.composite
def deals(draw: st.DrawFn) -> tuple[list[list[int]], list[int]]:
    """(melds, the dealer's 14 cards holding them): 1-5 random melds that the two packs
    and six jokers hold, the rest of the hand random cards."""
    chosen: list[list[int]] = []
    used: Counter[int] = Counter()
    for meld in draw(st.lists(melds(), min_size=1, max_size=5)):
        if sum(used.values()) + len(meld) <= 14 and not used + Counter(meld) - PACKS:
            chosen.append(meld)
            used += Counter(meld)
    rng = random.Random(draw(st.integers(0, 2**32)))
    rest = list((PACKS - used).elements())
    hand = sorted(used.elements()) + rng.sample(rest, 14 - sum(used.values()))
    return chosen, hand


def deal(hand: list[int], **options: object) -> romme.RommeState:
    rest = Counter(deck(packs=2, jokers=6)) - Counter(hand)
    other = sorted(c for c in rest.elements() if c < JOKER)[::7][:13]
    return rigged([format_cards(hand), format_cards(other)], options=dict(options))


def is_legal_opening(groups: Sequence[Sequence[int]], hand: list[int], minimum: int) -> bool:
    """The rule, written plainly: held, every group a meld, the total at least the minimum."""
    if not groups or Counter(c for g in groups for c in g) - Counter(hand):
        return False
    try:
        laid = [make_meld(g, RULES) for g in groups]
    except InvalidMeld:
        return False
    return sum(melding_points(m.stands_for) for m in laid) >= minimum


def check_submitted(hand: list[int], groups: list[list[int]]) -> None:
    state = deal(hand)
    action = Action("meld", melds=tuple(tuple(g) for g in groups))
    if is_legal_opening(groups, hand, 40):
        state.apply(action)
        assert sorted(sorted(m.cards) for m in state.table) == sorted(sorted(g) for g in groups)
        left = Counter(hand) - Counter(c for g in groups for c in g)
        assert Counter(state.hands[0]) == left and state.has_melded[0]
    else:
        reason = refusal(state, action)
        assert reason and "discard pile" not in reason


@settings(max_examples=300, deadline=None)
@given(deals())
def test_every_opening_of_random_melds_is_judged_by_the_rule(dealt: tuple[
        list[list[int]], list[int]]) -> None:
    groups, hand = dealt
    check_submitted(hand, groups)


@settings(max_examples=200, deadline=None)
@given(deals(), st.randoms(use_true_random=False), st.sampled_from(
    ["drop", "add", "swap", "foreign", "twice", "split"]))
def test_broken_openings_are_refused_and_change_nothing(dealt: tuple[list[list[int]], list[int]],
                                                        rng: random.Random, how: str) -> None:
    groups, hand = dealt
    groups = [list(g) for g in groups]
    target = rng.randrange(len(groups))
    spare = list((Counter(hand) - Counter(c for g in groups for c in g)).elements())
    if how == "drop":
        groups[target].pop(rng.randrange(len(groups[target])))
    elif how == "add":
        groups[target].append(rng.choice(spare or hand))
    elif how == "swap" and len(groups) > 1:
        other = (target + 1) % len(groups)
        i, j = rng.randrange(len(groups[target])), rng.randrange(len(groups[other]))
        groups[target][i], groups[other][j] = groups[other][j], groups[target][i]
    elif how == "foreign":
        groups[target][0] = rng.choice([c for c in range(52) if c not in hand])
    elif how == "twice":
        groups.append(list(groups[target]))
    elif how == "split":
        cut = rng.randrange(1, len(groups[target]))
        groups[target:target + 1] = [groups[target][:cut], groups[target][cut:]]
    check_submitted(hand, groups)


@settings(max_examples=80, deadline=None)
@given(deals())
def test_every_opening_the_menu_lists_is_accepted(dealt: tuple[list[list[int]], list[int]]
                                                  ) -> None:
    _, hand = dealt
    state = deal(hand)
    menu = [a for a in state.legal_actions() if a.type == "meld"]
    assert len(menu) <= MAX_OPENINGS
    for action in menu:
        assert len(action.melds) <= MAX_OPENING_MELDS
        assert is_legal_opening(action.melds, hand, 40)
        assert state.check(action) == action
    if menu:
        state.apply(menu[-1])
        assert state.has_melded[0]


@settings(max_examples=200, deadline=None)
@given(deals(), st.integers(0, 13))
def test_the_search_for_an_opening_with_a_card_finds_one_when_there_is_one(
        dealt: tuple[list[list[int]], list[int]], pick: int) -> None:
    groups, hand = dealt
    state = deal(hand)
    card = hand[pick]
    found = opening_with(state, hand, card, 0)
    if found is not None:
        assert any(card in m for m in found.melds) and state.check(found) == found
    if hand.count(card) == 1 and any(card in g for g in groups) and \
            is_legal_opening(groups, hand, 40):
        assert found is not None
    menu = opening_actions(state, hand)
    if any(card in m for a in menu for m in a.melds):
        assert found is not None
