"""A finished match as a file (cardtable.match_file): what verify accepts, and every way a
file can lie that it catches."""

from __future__ import annotations

import copy
import random
import secrets
from typing import Any

import pytest

from cardtable.bots.levels import bot_for
from cardtable.engine import get_game
from cardtable.fairness import Shuffle, commitment, outcome_text
from cardtable.match_file import FORMAT, match_document, verify


def finished_match(game: str, options: dict[str, Any], players: int, seed: int) -> Any:
    descriptor = get_game(game)
    state = descriptor.new_match(descriptor.options.from_dict(options), players=players,
                                 rng=random.Random(seed))
    bot = bot_for(game)
    while not state.is_over():
        seat = state.current_player()
        state.apply(bot(state.view(seat)))
    return state


def document_of(state: Any) -> dict[str, Any]:
    shuffles = []
    for number, outcome in enumerate(state.chance_outcomes(), 1):
        salt = secrets.token_hex(32)
        order = outcome_text(outcome)
        shuffles.append(Shuffle(f"{number}.0", commitment(salt, order), order, salt))
    return match_document("ABCDEF", state.record(), shuffles, state.result(), None)


@pytest.fixture(scope="module")
def gin_file() -> dict[str, Any]:
    return document_of(finished_match("gin", {"target": 100}, 2, seed=7))


@pytest.mark.parametrize(("game", "players", "options"), [
    ("gin", 2, {"target": 100}), ("rummy", 3, {}), ("spades", 4, {"target": 200}),
    ("indian", 2, {"preset": "pool101"}), ("romme", 3, {}), ("rummy500", 2, {}),
])
def test_a_true_file_of_every_game_holds(game: str, players: int,
                                         options: dict[str, Any]) -> None:
    state = finished_match(game, options, players, seed=3)
    verdict = verify(document_of(state))
    assert verdict.ok, verdict.problems
    assert verdict.moves == len(state.record()["actions"])
    assert verdict.shuffles == len(state.chance_outcomes()) > 1
    assert verdict.result is not None


def test_a_swapped_card_is_caught(gin_file: dict[str, Any]) -> None:
    lie = copy.deepcopy(gin_file)
    deck = next(s for s in lie["shuffles"] if " " in s["order"])
    cards = deck["order"].split()
    cards[3], cards[4] = cards[4], cards[3]
    deck["order"] = " ".join(cards)
    problems = verify(lie).problems
    assert f"shuffle {deck['id']}: the revealed order does not match its commitment" in problems
    # The record still holds the true deal: the proofs no longer vouch for it.
    assert any("they differ from outcome" in p for p in problems)


def test_a_record_dealt_otherwise_than_its_proofs_is_caught(gin_file: dict[str, Any]) -> None:
    lie = copy.deepcopy(gin_file)
    where = next(i for i, o in enumerate(lie["record"]["chance"]) if isinstance(o, str))
    cards = lie["record"]["chance"][where].split()
    cards[0], cards[-1] = cards[-1], cards[0]
    lie["record"]["chance"][where] = " ".join(cards)
    problems = verify(lie).problems
    assert problems[0] == (f"the proofs vouch for {len(lie['shuffles'])} chance outcomes, "
                           f"the record holds {len(lie['shuffles'])}; they differ from "
                           f"outcome {where + 1} on")


def test_an_illegal_move_a_missing_deal_and_a_wrong_result_are_caught(
        gin_file: dict[str, Any]) -> None:
    illegal = copy.deepcopy(gin_file)
    illegal["record"]["actions"][2] = {"type": "knock", "card": "Kh"}
    assert verify(illegal).problems[-1].startswith("move 3 ({'type': 'knock', 'card': 'Kh'}) "
                                                   "is illegal")
    short = copy.deepcopy(gin_file)
    short["record"]["chance"].pop()
    short["shuffles"].pop()
    assert verify(short).problems[-1].startswith("the record does not replay: the record "
                                                 "needs a deal")
    wrong = copy.deepcopy(gin_file)
    wrong["result"] = {"winner": 1 - gin_file["result"]["winner"]}
    assert verify(wrong).problems == [
        "the file's result is not the one the record replays to"]
    unfinished = copy.deepcopy(gin_file)
    unfinished["record"]["actions"] = unfinished["record"]["actions"][:5]
    assert verify(unfinished).problems == ["the record stops before the match is over"]


@pytest.mark.parametrize("bad", [
    None, [], {"format": "something/1"}, {"format": FORMAT},
    {"format": FORMAT, "shuffles": [{"id": "1.0"}], "record": {"chance": []}},
    {"format": FORMAT, "shuffles": [], "record": {"chance": [1.5]}},
    {"format": FORMAT, "shuffles": [], "record": {"game": "nope", "chance": [],
                                                  "actions": []}},
])
def test_a_malformed_file_gets_a_reason_not_a_crash(bad: Any) -> None:
    verdict = verify(bad)
    assert not verdict.ok and verdict.problems[0]
