"""Indian Rummy: the arranger's prunes hold at every state of the plain search.

:func:`arrange._survey` gives the search the cards no group can hold and a lower
bound of the rest's loose count; the search drops a state whose bound reaches its
budget.  Here every state the exhaustive search answers is checked against them.
"""

from __future__ import annotations

from cardtable.engine.games.indian import arrange
from cardtable.engine.games.indian.arrange import _INF
from test_indian_search import PlainSearch, random_cases


def test_no_state_answers_below_its_survey() -> None:
    for hand, wild, rules in random_cases(11, 300):
        search = PlainSearch(rules.joker_group)
        four = int(rules.four_card_life)
        for naturals, jokers, _ in arrange._splits(hand, wild):
            for strict in (False, True):
                search.solve(naturals, jokers, 1, 2, four, strict)
                search.solve(naturals, jokers, 0, 0, 0, strict)
        for (naturals, jokers, _, _, _, strict), (cost, _) in search.memo.items():
            if not naturals or cost >= _INF:
                continue
            _, dead, bound = arrange._survey(naturals, jokers)
            assert bound >= 0
            assert dead + bound <= cost, (naturals, jokers, strict)
            if strict:
                assert dead == bound == 0, (naturals, jokers)


def test_one_joker_groups_the_unpartnered_cards_of_one_suit_or_one_rank() -> None:
    # two kings of two suits and a five and a seven of a third: one joker makes a set
    # of the kings or a run of the five and the seven, never both
    kings, five_seven = (12, 25), (26 + 4, 26 + 6)
    naturals = tuple(sorted(kings + five_seven))
    assert arrange._survey(naturals, 1) == (naturals, 0, 5 + 7)
    assert arrange._SEARCHES["sequence"].solve(naturals, 1, 0, 0, 0, False)[0] == 5 + 7
