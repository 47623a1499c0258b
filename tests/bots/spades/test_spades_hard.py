"""The hard Spades player: positions where the right card is clear, its bids, its hints,
and seeded matches for every number of players.

Each position is a real match with the table set by hand (:func:`table`); seats 0 and
2 are partners and play goes 0, 1, 2, 3.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence

import pytest

from cardtable.bots.spades import hard, normal
from cardtable.bots.spades.hard_read import Reading, p_none
from cardtable.engine.api import Action
from cardtable.engine.cards import parse
from cardtable.engine.games import spades
from cardtable.engine.games.spades import Phase
from cardtable.engine.games.spades.tricks import is_spade, trick_winner


def table(me: list[int], *, seat: int = 0, bids: Sequence[int | None] = (3, 3, 3, 3),
          trick: str = "", tricks: Sequence[tuple[int, str]] = (), bags: int = 0,
          phase: Phase = Phase.PLAY) -> spades.SpadesState:
    """Four players, ``seat`` to act holding ``me``; ``tricks`` are the completed tricks
    as (leader, cards in play order); the other hands get the cards left, in order."""
    state = spades.new_match(spades.Options(), rng=random.Random(0))
    done = [(leader, parse(cards)) for leader, cards in tricks]
    current = parse(trick)
    used = set(me) | set(current) | {c for _, cards in done for c in cards}
    assert len(used) == len(me) + len(current) + sum(len(c) for _, c in done), "a card twice"
    state.tricks, won = [], [0, 0, 0, 0]
    for leader, cards in done:
        plays = [((leader + i) % 4, c) for i, c in enumerate(cards)]
        winner = trick_winner(plays)
        state.tricks.append((leader, plays, winner))
        won[winner] += 1
    trick_leader = (seat - len(current)) % 4
    state.trick = [((trick_leader + i) % 4, c) for i, c in enumerate(current)]
    counts = [13 - len(done) - (1 if any(s == p for p, _ in state.trick) else 0)
              for s in range(4)]
    assert len(me) == counts[seat], f"the player should hold {counts[seat]} cards"
    rest = iter(c for c in range(52) if c not in used)
    state.hands = [list(me) if s == seat else [next(rest) for _ in range(counts[s])]
                   for s in range(4)]
    state.bids, state.blind, state.looked = list(bids), [False] * 4, [True] * 4
    state.tricks_won = won
    state.broken = any(is_spade(c) for c in used - set(me))
    state.bags = [bags, 0]
    state.phase, state.to_act, state.opening = phase, seat, None
    state._legal = None  # the legal moves are cached; the fields above changed them
    return state


def move(state: spades.SpadesState) -> str:
    view = state.view(state.current_player())
    action = hard.choose(view)
    assert action.to_json() in view["legal"]
    return str(action)


def normal_move(state: spades.SpadesState) -> str:
    return str(normal.choose(state.view(state.current_player())))


BASE = parse("4c 5c 7c 9c 6d 8d Td Qd Js 3s")  # ten cards; three more per position


# -- following --------------------------------------------------------------------------------


def test_second_hand_plays_low_when_the_ace_is_out() -> None:
    # Seat 3 led the 4d; partner plays third.  The king would fall to the ace.
    state = table(parse("4c 5c 7c 9c 2c Kd 7d 2d Js 3s 5h 6h 7h"), trick="4d")
    assert move(state) == "play 2d"
    assert normal_move(state) == "play Kd"  # the normal player spends the king


def test_ruffs_with_the_lowest_spade_when_last() -> None:
    hand = parse("4c 5c 7c 9c 2c Ks 3s 4d 5d 6d Qd 8d 9d")
    state = table(hand, trick="Ah 5h 9h")  # seat 1 led the ace; we are void in hearts
    assert move(state) == "play 3s"


def test_leaves_partners_sure_winner_alone() -> None:
    state = table(BASE + parse("Kh Jh 2h"), trick="Ah 5h")  # partner led the ace
    assert move(state) == "play 2h"
    third = table(BASE + parse("Kh Jh 2h"), trick="4h Th 8h")  # partner's ten, we play last
    assert move(third) == "play 2h"


# -- nil ----------------------------------------------------------------------------------------


def test_a_nil_bidder_sheds_his_highest_losing_card() -> None:
    state = table(BASE[:-1] + parse("Kh Jh 9h 2h"), trick="Th 3h 5h", bids=(0, 3, 4, 3))
    assert move(state) == "play 9h"


def test_covers_a_nil_partner() -> None:
    # Partner (seat 2, nil) plays after us: go high so he can play under.
    ahead = table(BASE + parse("Kh 9h 3h"), trick="5h", bids=(4, 3, 0, 3))
    assert move(ahead) == "play Kh"
    # Partner's ten is winning: overtake it as cheaply as we can.
    behind = table(BASE + parse("Kh Jh 2h"), trick="4h Th 8h", bids=(4, 3, 0, 3))
    assert move(behind) == "play Jh"


def test_plays_under_an_opponent_nil_and_leads_low_into_him() -> None:
    under = table(BASE + parse("Kh 8h 3h"), seat=2, trick="5h 2h 9h", bids=(3, 0, 4, 3))
    assert move(under) == "play 8h"
    hand = parse("Ac Kc 5c Ad 8d 6d Ah Kh 3h Js 7s 4s 2s")
    assert move(table(hand, bids=(3, 0, 4, 3))) == "play 3h"


# -- the side's aim: contract, set, bags ----------------------------------------------------------

# Nine tricks gone; the side (0, 2) has taken seven, the opponents two.
NINE_TRICKS = [(0, "Ac 2c 3c 4c"), (2, "Kh 6h 2h 4h"), (1, "5h 9h 7h 8h"), (1, "6c Kc 8c 9c"),
               (3, "Tc Jc Qc 5c"), (1, "Th Jh 2s Ah"), (3, "Qh 3s 4s 5s"), (1, "6s 7s 8s 9s"),
               (1, "Ts Js Qs Ks")]


def test_ducks_once_the_contract_is_made_and_no_set_is_left() -> None:
    hand = parse("Ad 5d 7c 3h")
    # The opponents (1 + 1) have made theirs: every trick more is a bag for us.
    state = table(hand, trick="9d", tricks=NINE_TRICKS, bids=(3, 1, 3, 1))
    assert move(state) == "play 5d"
    assert normal_move(state) == "play Ad"  # the normal player takes it with few bags


def test_fights_on_while_the_opponents_can_be_set() -> None:
    hand = parse("Ad 5d 7c 3h")
    # The same tricks, but the opponents bid 4 + 1: they need three of the four left.
    state = table(hand, trick="9d", tricks=NINE_TRICKS, bids=(3, 4, 3, 1))
    assert move(state) == "play Ad"


def test_draws_trumps_with_the_top_spades() -> None:
    hand = parse("As Ks Qs 3s Ah 7h 5c 6c 8c 2d 4d 9d Td")
    done = [(3, "2h 3h 4h 2s")]  # spades broken by seat 2's ruff... of partner's lead
    state = table(hand[:12], tricks=done)
    assert move(state) == "play As"


# -- bidding -------------------------------------------------------------------------------------


def bid(hand: str, bids: Sequence[int | None] = (None, None, None, None)) -> int:
    state = table(parse(hand), bids=bids, phase=Phase.BID)
    return int(move(state).split()[1])


def test_bids_the_tricks_counted() -> None:
    strong = bid("As Ks Qs 7s 3s Ah Kh 4h Ac 5c 6d 7d 8d")
    weak = bid("Js 4s Jh 8h 5h 3c 7c 9c Qc 2d 4d 6d Kd")
    assert strong >= 6 and 1 <= weak <= 2
    assert weak < strong


def test_bids_nil_with_a_hand_that_hides_and_not_with_top_spades() -> None:
    assert bid("2s 4s 7s 3h 5h 9h 2c 4c 6c Tc 3d 5d 8d") == 0
    assert bid("As 4s 7s 3h 5h 9h 2c 4c 6c Tc 3d 5d 8d") > 0
    assert bid("2s 4s 7s 3h 5h 9h 2c 4c 6c Tc 3d 5d 8d", bids=(None, 3, 0, 3)) > 0


def test_nil_risk_grows_with_high_cards() -> None:
    low = parse("2s 4s 7s 3h 5h 9h 2c 4c 6c Tc 3d 5d 8d")
    high = parse("Qs 4s 7s 3h 5h Kh 2c 4c 6c Ac 3d 5d 8d")
    assert hard.nil_risk(low) < hard.NIL_RISK < hard.nil_risk(high)


# -- reading the view ------------------------------------------------------------------------------


def test_odds_of_holding_none() -> None:
    assert p_none(0, 13, 39) == 1.0
    assert p_none(1, 13, 39) == pytest.approx(26 / 39)
    assert p_none(3, 13, 13) == 0.0


def test_reads_voids_from_failures_to_follow_and_early_spade_leads() -> None:
    done = [(1, "Ac 2d 3c 4c"), (1, "2s 5h 6h 7h")]  # seat 1 led a spade before they broke
    state = table(parse("5c 6c 7c 8c 9c Tc Jc 8h 9h Th Jh"), tricks=done)
    r = Reading(state.view(0))
    assert 0 in r.voids[2]  # seat 2 threw a diamond on a club
    assert r.voids[1] >= {0, 1, 2}  # seat 1 held nothing but spades


# -- hints and the view ----------------------------------------------------------------------------


def test_decides_from_the_json_view_alone_and_leaves_it_alone() -> None:
    view = json.loads(json.dumps(table(BASE + parse("Kh Jh 2h"), trick="4h Th 8h").view(0)))
    before = copy.deepcopy(view)
    assert hard.choose(view) == hard.choose(view) == Action("play",
                                                                          card=parse("2h")[0])
    assert view == before


def test_hints_are_short_and_name_cards_with_suit_symbols() -> None:
    state = table(parse("4c 5c 7c 9c 2c Kd 7d 2d Js 3s 5h 6h 7h"), trick="4d")
    view = state.view(0)
    reason = hard.hint(view, hard.choose(view))
    assert "2♦" in reason and len(reason) <= 80
    other = hard.hint(view, Action("play", card=parse("Kd")[0]))
    assert "K♦" in other


def test_refuses_a_view_without_legal_moves() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        hard.choose(table(BASE + parse("Kh Jh 2h"), trick="4h Th 8h").view(1))


MATCHES = [({}, 4, 500, 6), ({"preset": "classic"}, 4, 500, 4), ({}, 3, 500, 4),
           ({}, 2, 500, 4), ({"jokers": "remove_2c_2d"}, 4, 100, 20),
           ({"suicide": True, "minimum_team_bid": 4}, 4, 100, 20),
           ({"blind_nil_margin": 0}, 4, 100, 20), ({"blind_nil_margin": 0}, 3, 100, 10),
           ({"preset": "classic", "jokers": "remove_2h_2d"}, 3, 100, 10),
           ({"spade_breaking": False, "failed_nil_tricks": "nothing"}, 2, 100, 10)]


@pytest.mark.slow  # whole matches: left out of the quick run
@pytest.mark.parametrize(("options", "players", "target", "games"), MATCHES)
def test_seeded_matches_finish_with_legal_moves_and_hints(options: dict[str, object],
                                                          players: int, target: int,
                                                          games: int) -> None:
    for seed in range(games):
        state = spades.new_match(spades.Options.from_dict({**options, "target": target}),
                                 players=players, rng=random.Random(seed))
        moves = 0
        while not state.is_over():
            seat = state.current_player()
            assert seat is not None
            view = state.view(seat)
            if seat % 2 == 0:
                action = hard.choose(view)
                assert action.to_json() in view["legal"], (seed, str(state), action)
                assert 0 < len(hard.hint(view, action)) <= 80
            else:
                action = normal.choose(view)
            state.apply(action)
            moves += 1
            assert moves < 20000, f"match {seed} does not end"
