"""Scenario tests for the Spades bot, one per complaint players make about
Spades bots, and seeded bot matches for every number of players.

Each scenario sets a table by hand and asks the bot for its move.  The bot's
hand is drawn as a picture (rows are suits, columns A..K) that the helper
``drawn`` reads, so the drawing is the data.  Seats 0 and 2 are partners;
play goes 0, 1, 2, 3.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence

import pytest

from cardtable.bots.spades.normal import Table, choose, nil_is_safe
from cardtable.engine.api import Action
from cardtable.engine.cards import parse
from cardtable.engine.games import spades
from cardtable.engine.games.spades import Phase
from cardtable.engine.games.spades.tricks import is_spade, trick_winner
from spades_deals import drawn, rigged, stacked


def table(me: list[int], *, seat: int = 0, bids: Sequence[int | None] = (3, 3, 3, 3),
          trick: str = "", tricks: Sequence[tuple[int, str]] = (), bags: int = 0,
          phase: Phase = Phase.PLAY, scores: Sequence[int] = (0, 0),
          options: dict[str, object] | None = None) -> spades.SpadesState:
    """Four players, ``seat`` (the bot) to act holding ``me``; ``tricks`` are the
    completed tricks as (leader, cards in play order); the rest is dealt at will."""
    state = spades.new_match(spades.Options.from_dict(options or {}), rng=random.Random(0))
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
    assert len(me) == counts[seat], f"the bot should hold {counts[seat]} cards"
    rest = iter(c for c in range(52) if c not in used)
    state.hands = [list(me) if s == seat else [next(rest) for _ in range(counts[s])]
                   for s in range(4)]
    state.bids, state.blind, state.looked = list(bids), [False] * 4, [True] * 4
    state.tricks_won = won
    state.broken = any(is_spade(c) for c in used - set(me))
    state.scores, state.bags = list(scores), [bags, 0]
    state.phase, state.to_act, state.opening = phase, seat, None
    state._legal = None  # the legal moves are cached; the fields above changed them
    return state


def bot_move(state: spades.SpadesState) -> str:
    seat = state.current_player()
    view = state.view(seat)
    action = choose(view)
    assert action.to_json() in view["legal"]
    return str(action)


def bid_of(me: list[int], bids: Sequence[int | None] = (None, None, None, None),
           seat: int = 0, **options: object) -> int:
    move = bot_move(table(me, seat=seat, bids=bids, phase=Phase.BID, options=options))
    return int(move.split()[1])


# -- bidding from hand strength ----------------------------------------------------------------

STRONG = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c A . . 4 . . . . . . . . K
  d A . . . 5 . . . . . . . K
  h . 2 3 . . . . . . . . . .
  s A . 3 . 5 . . . . . . Q K
""")  # two ace-kings, AKQ of spades and two more, a doubleton to ruff: about nine tricks

WEAK = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c . . 3 . 5 . 7 . 9 . . . .
  d . 2 . 4 . . . 8 . . J . .
  h . . 3 . 5 6 . . 9 . . . .
  s . . . . . . . . . T . . .
""")  # nothing that wins by force, a lone ten of spades


def test_bids_from_sure_winners_and_spade_honours() -> None:
    assert bid_of(STRONG) == 9
    assert bid_of(WEAK) == 1


LONG_SPADES = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c A . 3 . 5 . . . . . . . .
  d . 2 . 4 . . . . . . . . .
  h . . 3 . . 6 . . . . . . .
  s . 2 3 4 5 6 7 . . . . . .
""")  # six low spades, an ace and two doubletons

SHORT_SPADES = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c A . 3 4 5 . . . . . . . .
  d . 2 . 4 . 6 . . . . . . .
  h . . 3 . . 6 . 8 . . . . .
  s . 2 3 4 . . . . . . . . .
""")  # the same ace, three low spades, no short suit

VOID = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c A . 3 4 5 . . . . . . . .
  d . . . . . . . . . . . . .
  h . . 3 . . 6 . 8 . . . . .
  s . 2 3 4 5 6 7 . . . . . .
""")  # six low spades and no diamonds: two ruffs


def test_spade_length_and_voids_count() -> None:
    assert (bid_of(SHORT_SPADES), bid_of(LONG_SPADES), bid_of(VOID)) == (2, 4, 5)


def test_partners_bid_trims_an_overbid_and_a_nil_asks_for_cover() -> None:
    # Seat 3 bids last; seat 1 is its partner.
    assert bid_of(STRONG, seat=3) == 9
    assert bid_of(STRONG, bids=(4, 4, 4, None), seat=3) == 1  # the table left one trick
    assert bid_of(WEAK, bids=(2, 0, 2, None), seat=3) == 2  # one more behind a nil


def test_legal_limits_move_the_bid_to_the_nearest_allowed() -> None:
    assert bid_of(WEAK, bids=(None, 3, 1, None), seat=3, minimum_team_bid=5) == 2


# -- nil only with a safe hand ------------------------------------------------------------------

SAFE_NIL = drawn("""
    A 2 3 4 5 6 7 8 9 T J Q K
  c . 2 3 4 . 6 . . . . . . .
  d . 2 3 . 5 . . . . . . . K
  h . . . 4 . 6 . . 9 . . . .
  s . 2 . . 5 . . . . . . . .
""")  # low everywhere, the king of diamonds guarded by three low ones, two low spades


def swap(hand: list[int], out: str, into: str) -> list[int]:
    return [c for c in hand if c not in parse(out)] + parse(into)


def test_bids_nil_with_a_safe_hand_only() -> None:
    assert nil_is_safe(SAFE_NIL) and bid_of(SAFE_NIL) == 0
    risks = [("2c", "Ac"),  # an ace
             ("5s", "Qs"),  # a spade above the nine
             ("4h 6h", "3s 4s"),  # four spades
             ("3d 5d", "7c 8c")]  # the king of diamonds with one low card
    for out, into in risks:
        risky = swap(SAFE_NIL, out, into)
        assert not nil_is_safe(risky) and bid_of(risky) >= 1, (out, into)


def test_no_second_nil_beside_a_partner_who_bid_nil() -> None:
    assert bid_of(SAFE_NIL, bids=(None, 3, 0, 4)) >= 1


def test_blind_nil_only_when_far_behind_with_a_partner() -> None:
    assert bot_move(table(WEAK, phase=Phase.BLIND_NIL, scores=(100, 300),
                          bids=(None,) * 4)) == "blind_nil"
    assert bot_move(table(WEAK, phase=Phase.BLIND_NIL, scores=(200, 300),
                          bids=(None,) * 4)) == "look"


def test_the_exchange_sheds_danger_and_returns_low_cards() -> None:
    others = [c for c in range(52) if c not in STRONG]
    hands = [STRONG, others[:13], others[13:26], others[26:]]
    state = rigged(hands, dealer=3, options={"blind_nil_margin": 0})
    state.apply(Action("blind_nil"))
    while state.phase is not Phase.EXCHANGE:
        state.apply(choose(state.view(state.current_player())))
    assert bot_move(state) == "pass_cards cards=AsKs"  # the blind bidder's top spades
    state.apply(Action.parse("pass_cards cards=AsKs"))
    lowest = sorted((c for c in state.hands[2] if c // 13 != 3), key=lambda c: (c - 1) % 13)
    assert bot_move(state) == str(Action("pass_cards", cards=tuple(sorted(lowest[:2]))))


# -- play: a nil bidder and his partner ----------------------------------------------------------

# 13 cards; the hearts change from scenario to scenario.
BASE = parse("4c 5c 7c 9c 6d 8d Td Qd Js 3s")


def test_covers_a_nil_partner_still_to_play_by_going_high() -> None:
    # Seat 3 led the 5h; the bot (seat 0) plays before its nil partner (seat 2).
    state = table(BASE + parse("Kh 9h 3h"), trick="5h", bids=(4, 3, 0, 3))
    assert bot_move(state) == "play Kh"


def test_overtakes_a_nil_partner_who_is_winning() -> None:
    # Seat 1 led the 4h, partner (nil) played the Th and is winning, seat 3 the 8h.
    state = table(BASE + parse("Kh Jh 2h"), trick="4h Th 8h", bids=(4, 3, 0, 3))
    assert bot_move(state) == "play Jh"  # the cheapest card over him


def test_a_nil_bidder_ducks_with_his_highest_losing_card() -> None:
    # Seat 1 led the Th and is winning; the bot bid nil.
    state = table(BASE[:-1] + parse("Kh Jh 9h 2h"), trick="Th 3h 5h", bids=(0, 3, 4, 3))
    assert bot_move(state) == "play 9h"
    normal = table(BASE[:-1] + parse("Kh Jh 9h 2h"), trick="Th 3h 5h")
    assert bot_move(normal) == "play Jh"  # last to play: the cheapest winner


def test_never_overtakes_a_partners_sure_winner() -> None:
    # Partner's Th wins a trick the bot plays last to: a low heart, not the jack.
    state = table(BASE + parse("Kh Jh 2h"), trick="4h Th 8h")
    assert bot_move(state) == "play 2h"
    # Partner led the ace of hearts; seat 1, after the bot, cannot beat it.
    led = table(BASE + parse("Kh Jh 2h"), trick="Ah 5h")
    assert led.trick[0][0] == 2 and bot_move(led) == "play 2h"


# -- play: setting an opponent's nil -----------------------------------------------------------


def test_plays_under_an_opponent_nil_who_is_winning() -> None:
    # Seat 3 led the 5h, partner (seat 0) the 2h, seat 1 (nil) the 9h; the bot is seat 2.
    state = table(BASE + parse("Kh 8h 3h"), seat=2, trick="5h 2h 9h", bids=(3, 0, 4, 3))
    assert bot_move(state) == "play 8h"  # the highest card that leaves him winning
    normal = table(BASE + parse("Kh 8h 3h"), seat=2, trick="5h 2h 9h")
    assert bot_move(normal) == "play Kh"


def test_leads_low_into_an_opponent_nil() -> None:
    hand = parse("Ac Kc 5c Ad 8d 6d Ah Kh 3h Js 7s 4s 2s")
    assert bot_move(table(hand, bids=(3, 0, 4, 3))) == "play 3h"
    assert bot_move(table(hand)) == "play Ah"  # otherwise: cash a sure winner


# -- play: bags --------------------------------------------------------------------------------

# Nine tricks gone; the side (0, 2) bid 3 + 3 and has taken eight.
NINE_TRICKS = [(0, "Ac 2c 3c 4c"), (2, "Kh 6h 2h 4h"), (1, "5h 9h 7h 8h"), (1, "6c Kc 8c 9c"),
               (3, "Tc Jc Qc 5c"), (1, "Th Jh Qh Ah"), (1, "2s 3s 4s 5s"), (1, "6s 7s 8s 9s"),
               (1, "Ts Js Qs Ks")]


def test_ducks_once_the_contract_is_safe_and_the_bags_are_high() -> None:
    hand = parse("Ad 5d 7c 3h")
    state = table(hand, trick="9d", tricks=NINE_TRICKS, bags=8)  # seat 3 led the 9d
    assert state.tricks_won[0] + state.tricks_won[2] == 8
    assert bot_move(state) == "play 5d"  # two bags taken, eight carried: duck
    relaxed = table(hand, trick="9d", tricks=NINE_TRICKS, bags=0)
    assert bot_move(relaxed) == "play Ad"  # few bags: win it, it may set them


def test_leads_low_when_the_bags_are_high() -> None:
    hand = parse("Ad 5d 7c As")  # the ace of diamonds and the 7c are boss
    assert bot_move(table(hand, tricks=NINE_TRICKS, bags=8)) == "play 5d"
    assert bot_move(table(hand, tricks=NINE_TRICKS, bags=0)) == "play Ad"


# -- play: lead to partner's strength ------------------------------------------------------

LEADER = parse("2c 4c 6c 8c 3d 7d")


def test_leads_back_the_suit_partner_led() -> None:
    # Partner (seat 2) led the Kd early on: the bot returns a diamond, low (the 7d is no boss).
    done = [(2, "Kd 2d 4d 5d"), (2, "Qh 2h Jh 3h"), (1, "Ac As Kc Qc"), (2, "2s 3s 4s 5s"),
            (2, "6s 7s 8s 9s"), (2, "Ts Js Qs Ks"), (3, "3c 4h 5h 6h")]
    assert bot_move(table(LEADER, tricks=done)) == "play 3d"
    # Nobody's suit to return: low from the longest.
    alone = [(1, "Ac Kd Kc Qc"), (1, "Qh 2h Jh 3h"), (3, "2s 3s 4s 5s"), (3, "6s 7s 8s 9s"),
             (3, "Ts Js Qs Ks"), (3, "3c 4h 5h 6h"), (1, "5c 7c 9c Tc")]
    assert bot_move(table(LEADER, tricks=alone)) == "play 2c"


def test_two_players_keep_spades_and_high_cards() -> None:
    for top, move in (("3s", "keep"), ("Qh", "keep"), ("9d", "reject")):
        state = stacked(top, dealer=1)
        assert bot_move(state) == move


# -- the bot and the view -----------------------------------------------------------------------


def test_decides_from_the_json_view_alone_and_leaves_it_alone() -> None:
    view = json.loads(json.dumps(table(BASE + parse("Kh Jh 2h"), trick="4h Th 8h").view(0)))
    before = copy.deepcopy(view)
    assert choose(view) == choose(view) == Action("play", card=parse("2h")[0])
    assert view == before
    assert sorted(Table.read(view).hand) == sorted(BASE + parse("Kh Jh 2h"))


def test_refuses_a_view_without_legal_moves() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        choose(table(WEAK, phase=Phase.BID, bids=(None,) * 4).view(1))


def test_reads_the_jokers_from_the_view() -> None:
    state = spades.new_match(spades.Options(jokers="remove_2c_2d"), rng=random.Random(4))
    holder = next(s for s, h in enumerate(state.hands) if 53 in h)
    assert 53 in Table.read(state.view(holder)).hand


# -- seeded matches ----------------------------------------------------------------------------

# Full matches to 500 for each number of players and the presets, then many
# short matches (to 100) across the options: over a thousand matches in all.
MATCHES = [({}, 4, 500, 12), ({"preset": "classic"}, 4, 500, 12), ({}, 3, 500, 12),
           ({}, 2, 500, 12),
           ({"jokers": "remove_2c_2d"}, 4, 100, 100),
           ({"suicide": True, "minimum_team_bid": 4}, 4, 100, 100),
           ({"ten_for_two_hundred": True, "bag_limit": 5, "bag_penalty": 50}, 4, 100, 100),
           ({"blind_nil_margin": 0, "blind_nil_exchange": False}, 4, 100, 100),
           ({"blind_nil_margin": 0}, 3, 100, 100), ({"three_player_removes": "deal_out"}, 3,
                                                     100, 100),
           ({"mercy": 200, "first_trick": "no_spades"}, 4, 100, 100),
           ({"preset": "classic", "jokers": "remove_2h_2d"}, 3, 100, 100),
           ({"spade_breaking": False, "failed_nil_tricks": "nothing"}, 2, 100, 100),
           ({"preset": "classic", "blind_nil_margin": 0}, 4, 100, 100)]


@pytest.mark.slow  # a long random or bot playout: left out of the quick run
@pytest.mark.parametrize(("options", "players", "target", "games"), MATCHES)
def test_seeded_bot_matches_finish_with_only_legal_moves(options: dict[str, object],
                                                         players: int, target: int,
                                                         games: int) -> None:
    hands = 0
    for seed in range(games):
        state = spades.new_match(spades.Options.from_dict({**options, "target": target}),
                                 players=players, rng=random.Random(seed))
        moves = 0
        while not state.is_over():
            seat = state.current_player()
            assert seat is not None
            view = state.view(seat)
            action = choose(view)
            assert action.to_json() in view["legal"], (seed, str(state), action)
            state.apply(action)  # raises IllegalAction on a bad move
            moves += 1
            assert moves < 20000, f"match {seed} does not end"
        assert state.result()["winner"] in range(len(state.sides))
        hands += len(state.history)
    assert hands >= games
