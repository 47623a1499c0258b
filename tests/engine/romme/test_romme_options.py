"""Rommé variant options: deck, deal, joker limits, the top discard, going out, the stock."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cardtable.engine import Action, IllegalAction
from cardtable.engine.cards import JOKER, parse
from cardtable.engine.games import romme
from romme_deals import act, legal_text, meld_id, rigged


def match(players: int = 2, **options: object) -> romme.RommeState:
    return romme.new_match(romme.Options.from_dict(options), players, random.Random(3))


def meld_action(*groups: str) -> Action:
    return Action("meld", melds=tuple(sorted(tuple(sorted(parse(g))) for g in groups)))


# -- presets and validation -----------------------------------------------------------------


def test_presets() -> None:
    assert romme.Options() == romme.Options.preset("standard")
    dskv = romme.Options.preset("dskv_online")
    assert dskv.joker_penalty == 25 and dskv.first_meld == 40 and dskv.jokers == 6
    assert romme.Options.from_dict({"preset": "dskv_online", "jokers": 4}).jokers == 4
    for bad in ({"jokers": 5}, {"first_meld": 35}, {"upcard": True}, {"end": "never"}):
        with pytest.raises(ValueError):
            romme.Options.from_dict(bad)


# -- the deck and the deal ----------------------------------------------------------------------


@pytest.mark.parametrize(("jokers", "size"), [(6, 110), (4, 108), (2, 106)])
def test_two_packs_and_jokers(jokers: int, size: int) -> None:
    state = match(jokers=jokers)
    zones = state.zones()
    assert zones["packs"] == 2 and zones["jokers"] == jokers
    cards = [c for h in zones["hands"] for c in h] + zones["stock"] + zones["public"]
    assert len(cards) == size and Counter(cards)[JOKER] == jokers


@pytest.mark.parametrize(("players", "options", "sizes"), [
    (3, {}, [13, 13, 14]),                                # the dealer's 14th card
    (3, {"hand_size": 14}, [14, 14, 15]),
    (5, {"short_hands_5_6": True}, [11, 11, 11, 11, 12]),
    (4, {"short_hands_5_6": True}, [13, 13, 13, 14]),     # only with 5 or 6 players
    (6, {}, [13, 13, 13, 13, 13, 14]),
])
def test_dealer_gets_one_more_and_opens_without_drawing(players: int, options: dict[str, object],
                                                        sizes: list[int]) -> None:
    state = match(players, **options)
    by_seat = [len(state.hands[(state.dealer + k) % players]) for k in range(1, players + 1)]
    assert by_seat == sizes
    assert state.current_player() == state.dealer and state.phase.value == "play"
    assert state.discard == [] and not legal_text(state, "draw_stock")
    assert state.view(None)["discard"] == []


def test_upcard_deal() -> None:
    state = match(3, deal="upcard")
    assert [len(h) for h in state.hands] == [13, 13, 13] and len(state.discard) == 1
    assert state.current_player() == (state.dealer + 1) % 3 and state.phase.value == "draw"
    assert len(state.stock) == 110 - 3 * 13 - 1


def test_the_next_deal_has_no_upcard_either() -> None:
    state = rigged(["Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc 2d",
                    "5c 6d 8s Js Qc 3h 6h 9d Kc Kd 2s 4d Th"], more_deals=1)
    act(state, "meld melds=Ac2c3c4c5c6c7c8c9cTcJcQcKc", "discard 2d")
    assert state.legal_actions() == [Action("deal")] and state.current_player() == 1
    events = state.apply(Action("deal"))
    assert events[0].data["upcard"] is None
    assert state.dealer == 1 and state.current_player() == 1 and len(state.hands[1]) == 14


# -- joker limits: new melds, lay-offs and listed melds alike ------------------------------------

# seat 0 (dealer)  Ks Kd Jk Jk | Th Jh Qh | 9c Qc | 2s 4d 6h 3c 5d
# seat 1           Tc Jc Qc Kc | Jk | 2h 4s 6d 8h 3s 5h 7c 9s
LIMITS_DEALER = "Ks Kd Jk Jk Th Jh Qh 9c Qc 2s 4d 6h 3c 5d"
LIMITS_OTHER = "Tc Jc Qc Kc Jk 2h 4s 6d 8h 3s 5h 7c 9s"


def limited(limit: str) -> romme.RommeState:
    return rigged([LIMITS_DEALER, LIMITS_OTHER], stock="7d", options={"joker_limit": limit})


def listed(state: romme.RommeState) -> list[tuple[int, ...]]:
    shown = [tuple(sorted(parse(" ".join(c["cards"])))) for c in state.view(0)["candidates"]]
    return shown + [m for a in state.legal_actions() for m in a.melds]


def test_no_joker_limit_by_default() -> None:
    state = limited("none")
    assert meld_action("Ks Kd Jk Jk") in state.legal_actions()  # 40 alone
    assert meld_action("9c Jk Jk Qc", "Th Jh Qh") in state.legal_actions()  # 39 + 30


def test_one_joker_per_meld() -> None:
    state = limited("one_per_meld")
    assert all(m.count(JOKER) <= 1 for m in listed(state))
    with pytest.raises(IllegalAction, match="at most one joker in a meld"):
        act(state, "meld melds=KsKdJkJk")
    act(state, "meld melds=KsKdJk/ThJhQhJk", "discard 2s", "draw_stock", "meld melds=TcJcQcKc")
    assert {a.meld for a in state.legal_actions() if a.type == "lay_off" and a.card == JOKER} \
        == {meld_id(state, "Tc Jc Qc Kc")}
    with pytest.raises(IllegalAction, match="at most one joker"):
        act(state, f"lay_off Jk meld={meld_id(state, 'Ks Kd Jk')}")


def test_no_more_jokers_than_naturals() -> None:
    state = limited("not_more_than_naturals")
    assert all(2 * m.count(JOKER) <= len(m) for m in listed(state))
    assert meld_action("Ks Kd Jk Jk") in state.legal_actions()  # two and two
    with pytest.raises(IllegalAction, match="more jokers than natural cards"):
        act(state, "meld melds=5dJkJk/ThJhQh")


def test_no_two_jokers_side_by_side_in_a_run() -> None:
    state = limited("not_adjacent")
    assert meld_action("Ks Kd Jk Jk") in state.legal_actions()  # a set: no sides
    with pytest.raises(IllegalAction, match="side by side"):
        act(state, "meld melds=9cJkJkQc/ThJhQh")
    act(state, "meld melds=ThJhQhJk/KsKdJk", "discard 2s", "draw_stock", "meld melds=TcJcQcKc")
    run = meld_id(state, "Th Jh Qh Jk")  # the joker is the Kh: one more would be the Ah
    assert Action("lay_off", card=JOKER, meld=run) not in state.legal_actions()
    with pytest.raises(IllegalAction, match="side by side"):
        act(state, f"lay_off Jk meld={run}")
    act(state, f"lay_off Jk meld={meld_id(state, 'Ks Kd Jk')}")  # a set takes it


# -- the top discard -----------------------------------------------------------------------------

# seat 0 (dealer)  9d 2s | 4c 6c 8c Ts Js 3h 5h 7h 2d Qd Ks 4s
# seat 1           9s 9h | Tc Jc Qc Kc | 4d 6h 8s 3c 5s 7s Ad
TOP_DEALER = "9d 2s 4c 6c 8c Ts Js 3h 5h 7h 2d Qd Ks 4s"
TOP_OTHER = "9s 9h Tc Jc Qc Kc 4d 6h 8s 3c 5s 7s Ad"


def test_top_discard_is_free_by_default() -> None:
    state = rigged([TOP_DEALER, TOP_OTHER])
    act(state, "discard 2s")
    assert "draw_discard" in legal_text(state, "draw_discard")


def test_top_discard_must_be_used() -> None:
    options = {"top_discard_must_be_used": True}
    state = rigged([TOP_DEALER, TOP_OTHER], options=options)
    act(state, "discard 2s")
    assert not legal_text(state, "draw_discard")  # seat 1 has no use for the 2s
    with pytest.raises(IllegalAction, match="must use that card"):
        act(state, "draw_discard")

    state = rigged([TOP_DEALER, TOP_OTHER], options=options)
    act(state, "discard 9d", "draw_discard")
    assert state.must_place == parse("9d") and not legal_text(state, "discard")
    assert all(card in group for a in state.legal_actions() for group in [
        [c for m in a.melds for c in m] + list(a.cards)] for card in parse("9d"))
    act(state, "meld melds=9d9h9s/TcJcQcKc")
    assert legal_text(state, "discard")


# -- going out ------------------------------------------------------------------------------------

# seat 0 (dealer)  Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc | Qd Qh Qs
ALL_OUT = "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qd Qh Qs"
QUIET = "5c 6d 8s Js Qc 3h 6h 9d Kc Kd 2s 4d Th"


def test_going_out_by_melding_the_last_card() -> None:
    state = rigged([ALL_OUT, QUIET])
    act(state, "meld melds=Ac2c3c4c5c6c7c8c9cTcJc/QdQhQs")
    assert state.history[-1]["winner"] == 0 and state.history[-1]["hand_romme"]


def test_final_discard_required() -> None:
    state = rigged([ALL_OUT, QUIET], options={"final_discard": True})
    assert meld_action("Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc", "Qd Qh Qs") \
        not in state.legal_actions()
    with pytest.raises(IllegalAction, match="go out by discarding"):
        act(state, "meld melds=Ac2c3c4c5c6c7c8c9cTcJc/QdQhQs")
    act(state, "meld melds=Ac2c3c4c5c6c7c8c9cTc/QdQhQs", "discard Jc")
    assert state.history[-1]["winner"] == 0


# -- the stock runs out ---------------------------------------------------------------------------


def drain_stock(state: romme.RommeState) -> None:
    """Everyone draws from the stock and throws the card back, until the stock is empty."""
    state.apply(Action("discard", card=state.hands[state.dealer][0]))
    while state.stock:
        state.apply(Action("draw_stock"))
        seat = state.current_player()
        assert seat is not None
        state.apply(Action("discard", card=state.hands[seat][-1]))


def test_the_pile_but_its_top_card_becomes_the_new_stock() -> None:
    state = match(2)
    drain_stock(state)
    pile = list(state.discard)
    events = state.apply(Action("draw_stock"))
    assert events[0].type == "renew_stock" and events[0].data["shuffled"]
    seat = state.current_player()
    assert seat is not None
    assert state.discard == pile[-1:]  # the top discard stays face up
    assert sorted(state.stock + state.hands[seat][-1:]) == sorted(pile[:-1])
    assert state.recycles == 1 and state.phase.value == "play"


def test_stock_exhausted_ends_the_hand_and_everyone_counts() -> None:
    state = match(2, stock_exhausted="end_hand")
    drain_stock(state)
    row = state.history[-1]
    assert row["blocked"] and row["winner"] is None
    assert row["points"] == row["values"] and all(v > 0 for v in row["values"])
