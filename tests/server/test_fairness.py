"""The commitment scheme of provably fair deals (cardtable.fairness) and a table's keeper of
it (server/table/fairness.py): salts, commitments, hands, reveals."""

from __future__ import annotations

import hashlib
import secrets

import pytest

from cardtable.engine import get_game
from cardtable.fairness import Shuffle, commitment, outcome_text, problems, salt_for
from cardtable.server.table.fairness import Drawn, Fairness

KEY = bytes(range(32))


def test_commitment_is_sha256_of_salt_colon_order() -> None:
    salt = "ab" * 32
    order = "7h Ts Jk"
    assert commitment(salt, order) == hashlib.sha256(f"{salt}:{order}".encode()).hexdigest()


def test_salts_are_256_bits_and_differ_by_table_version_and_index() -> None:
    salts = {salt_for(KEY, table, version, index)
             for table in ("t_a", "t_b") for version in (0, 1, 12) for index in (0, 1)}
    assert len(salts) == 12
    assert all(len(s) == 64 and int(s, 16) >= 0 for s in salts)
    assert salt_for(KEY, "t_a", 1, 0) != salt_for(secrets.token_bytes(32), "t_a", 1, 0)
    assert salt_for(KEY, "t_a", 1, 0) == salt_for(KEY, "t_a", 1, 0)  # derived: a restart agrees


def test_outcome_text_is_the_recorded_deck_or_a_decimal() -> None:
    assert outcome_text("7h Ts") == "7h Ts"
    assert outcome_text(3) == "3"
    for bad in (True, None, 1.5, ["7h"]):
        with pytest.raises(ValueError):
            outcome_text(bad)


def test_a_proof_holds_and_any_change_breaks_it() -> None:
    salt = salt_for(KEY, "t_x", 4, 0)
    match = get_game("gin").new_match(players=2, rng=secrets.SystemRandom())
    order = next(o for o in match.chance_outcomes() if isinstance(o, str))  # the deck
    good = Shuffle("4.0", commitment(salt, order), order, salt)
    assert good.problem() is None and problems([good]) == []
    cards = order.split()
    cards[10], cards[11] = cards[11], cards[10]
    swapped = Shuffle("4.0", good.commit, " ".join(cards), salt)
    assert swapped.problem() == "shuffle 4.0: the revealed order does not match its commitment"
    other_salt = Shuffle("4.0", good.commit, order, salt_for(KEY, "t_x", 4, 1))
    assert other_salt.problem() is not None
    assert Shuffle("4.0", good.commit, order, salt[:-2]).problem() == \
        "shuffle 4.0: the salt is not 256 bits"
    assert Shuffle("4.0", good.commit).problem() == "shuffle 4.0: not revealed"


def test_shuffle_json_round_trips_and_hides_until_revealed() -> None:
    hidden = Shuffle("2.1", "c" * 64)
    assert hidden.to_json() == {"id": "2.1", "commit": "c" * 64}
    shown = Shuffle("2.1", "c" * 64, "7h", "a" * 64)
    for proof in (hidden, shown):
        assert Shuffle.from_json(proof.to_json()) == proof
    with pytest.raises(ValueError, match="lacks 'commit'"):
        Shuffle.from_json({"id": "1.0"})


def test_the_table_commits_each_hand_and_reveals_it_only_when_asked() -> None:
    fair = Fairness.of("t_x", KEY.hex(), [Drawn(0, ["7h 8h", 1], True)])
    playing = fair.hand(revealed=False)
    assert playing is not None and playing["revealed"] is False
    assert [s["id"] for s in playing["shuffles"]] == ["0.0", "0.1"]
    assert all(set(s) == {"id", "commit"} for s in playing["shuffles"])
    fair.drew(Drawn(5, ["9c Tc"], False))  # a new stock from the discards: the same hand
    done = fair.hand(revealed=True)
    assert done is not None
    proofs = [Shuffle.from_json(s) for s in done["shuffles"]]
    assert [p.order for p in proofs] == ["7h 8h", "1", "9c Tc"] and problems(proofs) == []
    # The commitments of the hand did not change when it was revealed.
    assert [p.commit for p in proofs][:2] == [s["commit"] for s in playing["shuffles"]]
    fair.drew(Drawn(9, ["2s 3s"], True))  # the next deal: a new hand
    hand = fair.hand(revealed=False)
    assert hand is not None and [s["id"] for s in hand["shuffles"]] == ["9.0"]
    # The match keeps every proof; the hand in play stays unrevealed.
    match = fair.proofs(revealed=False)
    assert [p.shuffle_id for p in match] == ["0.0", "0.1", "5.0", "9.0"]
    assert [p.revealed for p in match] == [True, True, True, False]


def test_a_table_rebuilt_from_its_log_commits_to_the_same_salts() -> None:
    drawn = [Drawn(0, ["7h 8h"], True), Drawn(7, ["9c Tc"], True)]
    live = Fairness.of("t_x", KEY.hex(), drawn[:1])
    live.drew(drawn[1])
    assert Fairness.of("t_x", KEY.hex(), drawn).hand(True) == live.hand(True)
    # A rematch starts a match of its own.
    live.new_match(12, ["Ah 2h"])
    assert [p.shuffle_id for p in live.proofs(True)] == ["12.0"]


def test_a_table_without_a_key_publishes_nothing() -> None:
    legacy = Fairness.of("t_old", None, [Drawn(0, ["7h 8h"], True)])
    assert not legacy.enabled
    assert legacy.hand(revealed=True) is None and legacy.proofs(True) == []
