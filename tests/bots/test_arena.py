"""The arena (``cardtable.bots.arena`` and ``arena_report``): who sits where, mirrored
deals, what a match report holds, plug-ins, and the figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardtable.bots.arena import (
    Entrant,
    MatchJob,
    hand_outcomes,
    jobs,
    parse_seats,
    play_match,
    seating,
)
from cardtable.bots.arena_report import ArenaTally, mean_interval, percentile
from cardtable.engine import get_game

SPADES_SIDES = [[0, 2], [1, 3]]


def labels(seats: list[Entrant]) -> list[str]:
    return [e.label for e in seats]


def test_seats_rotate_by_seat_or_by_side() -> None:
    two = parse_seats("expert,hard", [], 2, [[0], [1]])
    assert labels(seating(two, 2, [[0], [1]], 0)) == ["expert", "hard"]
    assert labels(seating(two, 2, [[0], [1]], 1)) == ["hard", "expert"]
    sides = parse_seats("expert,hard", [], 4, SPADES_SIDES)
    assert labels(seating(sides, 4, SPADES_SIDES, 0)) == ["expert", "hard", "expert", "hard"]
    assert labels(seating(sides, 4, SPADES_SIDES, 1)) == ["hard", "expert", "hard", "expert"]
    three = parse_seats("hard,normal,easy", [], 3, [[0], [1], [2]])
    assert labels(seating(three, 3, [[0], [1], [2]], 2)) == ["easy", "hard", "normal"]
    assert labels(parse_seats(None, [1], 2, [[0], [1]])) == ["normal", "random"]


@pytest.mark.parametrize("text", ["master,hard", "hard,normal,easy", "", "nowhere.py:Bot"])
def test_seats_that_fit_nothing_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="--seats"):
        parse_seats(text, [], 4, SPADES_SIDES)


def test_each_deal_is_played_once_per_rotation() -> None:
    entrants = parse_seats("hard,normal", [], 2, [[0], [1]])
    run = list(jobs("gin", {}, 2, entrants, 5, 10, None))
    assert [j.deal_seed for j in run] == [10, 10, 11, 11, 12]
    assert [labels(list(j.seats)) for j in run[:2]] == [["hard", "normal"], ["normal", "hard"]]
    assert len({j.decision_seed for j in run}) == 5


def test_a_match_report_counts_hands_outcomes_points_and_times() -> None:
    job = MatchJob("gin", {"target": 50}, 2, 3, -4, (Entrant("hard"), Entrant("normal")))
    report = play_match(job)
    assert report.hands == len(report.net_points) >= 1 and report.illegal == 0
    assert all(abs(a + b) < 1e-9 for a, b in report.net_points)  # two seats: zero sum
    assert {what for _, what in report.outcomes} <= {"knock", "gin", "big_gin", "undercut",
                                                     "void"}
    assert report.winners in ([0], [1]) and set(report.times) == {0, 1}
    again = play_match(job)
    assert again.outcomes == report.outcomes and again.net_points == report.net_points


def test_a_match_past_its_move_limit_is_reported_stalled_not_played_for_ever() -> None:
    job = MatchJob("gin", {}, 2, 3, 4, (Entrant("normal"), Entrant("normal")), max_moves=30)
    report = play_match(job)
    assert report.stalled and report.winners == []
    tally = ArenaTally(["normal"])
    tally.add(report)
    assert tally.summary()["stalled"] == 1
    assert tally.per_entrant["normal"].match_scores == [1.0]  # a draw, shared by its seats


def test_a_spades_match_is_scored_by_side() -> None:
    job = MatchJob("spades", {"target": 150}, 4, 1, -2,
                   (Entrant("normal"), Entrant("easy"), Entrant("normal"), Entrant("easy")))
    report = play_match(job)
    assert report.teams == SPADES_SIDES and sorted(report.winners) in ([0, 2], [1, 3])
    for hand in report.net_points:
        assert hand[0] == hand[2] and hand[1] == hand[3] and hand[0] == -hand[1]
    assert {what for _, what in report.outcomes} <= {"contract made", "set", "nil made",
                                                     "nil set", "bag penalty"}


def test_hand_outcomes_read_each_games_scorecard() -> None:
    assert list(hand_outcomes("gin", {"kind": "void", "winner": None}, [[0], [1]])) == \
        [(None, "void")]
    assert list(hand_outcomes("gin", {"kind": "knock", "winner": None}, [[0], [1]])) == \
        [(None, "knock, tied")]
    assert list(hand_outcomes("gin", {"kind": "undercut", "winner": 1}, [[0], [1]])) == \
        [(1, "undercut")]
    assert list(hand_outcomes("rummy", {"winner": 1, "blocked": False, "rummy": True},
                              [[0], [1]])) == [(1, "rummy (all at once)")]
    assert list(hand_outcomes("indian", {"winner": 0, "status": ["declared", "dropped"]},
                              [[0], [1]])) == [(0, "won"), (1, "dropped")]


def test_a_plugin_from_a_file_takes_a_seat(tmp_path: Path) -> None:
    plugin = tmp_path / "first_legal.py"
    plugin.write_text(
        "class FirstLegal:\n"
        "    label = 'first-legal'\n"
        "    def __init__(self, game, options):\n"
        "        self.counts = {'decisions': 0}\n"
        "    def choose(self, state, seat):\n"
        "        self.counts['decisions'] += 1\n"
        "        return state.legal_actions()[0]\n")
    spec = f"{plugin}:FirstLegal"
    entrants = parse_seats(f"normal,{spec}", [], 2, [[0], [1]])
    assert labels(entrants) == ["normal", "first-legal"]
    report = play_match(MatchJob("gin", {"target": 25}, 2, 1, -1, tuple(entrants)))
    assert report.counts["first-legal"]["decisions"] > 0


def test_the_tally_gives_shares_with_intervals_and_writes_json(tmp_path: Path) -> None:
    entrants = parse_seats("normal,easy", [], 2, [[0], [1]])
    tally = ArenaTally(labels(entrants))
    for job in jobs("gin", {"target": 50}, 2, entrants, 6, 0, None):
        tally.add(play_match(job))
    summary = tally.summary()
    normal, easy = summary["entrants"]["normal"], summary["entrants"]["easy"]
    assert normal["matches"] == easy["matches"] == 6
    assert normal["win_share"] + easy["win_share"] == pytest.approx(1.0)
    low, high = normal["win_share_ci"]
    assert low <= normal["win_share"] <= high
    assert normal["net_points_per_hand"] == pytest.approx(-easy["net_points_per_hand"])
    assert normal["decision_ms"]["p50"] <= normal["decision_ms"]["p99"] <= \
        normal["decision_ms"]["max"]
    out = tmp_path / "arena.json"
    tally.write_json(out, {"game": "gin"})
    assert json.loads(out.read_text())["entrants"]["easy"]["matches"] == 6


def test_intervals_and_percentiles() -> None:
    assert mean_interval([]) == (0.0, 0.0, 0.0)
    assert mean_interval([1.0]) == (1.0, 1.0, 1.0)
    mean, low, _high = mean_interval([1.0, 0.0] * 50)
    assert mean == 0.5 and low == pytest.approx(0.5 - 1.96 * 0.5025 / 10, abs=1e-3)
    ordered = [float(i) for i in range(1, 101)]
    assert percentile(ordered, 0.5) == 50 and percentile(ordered, 0.99) == 99
    assert get_game("spades").teams(4) == SPADES_SIDES
