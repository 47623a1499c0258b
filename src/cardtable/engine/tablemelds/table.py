"""Melds lying face up on the table: ids, owners, lay-offs and joker exchange.

A :class:`TableMeld` is a :class:`~cardtable.engine.melds.Meld` that has been
laid: it has an ``id`` (what views and actions name it by), the seat that laid
it, and for every card the seat that placed it (Rummy 500 credits lay-offs to
the player who laid them off).  Table melds are immutable values; a lay-off
returns a new meld with the same id.

Placed cards never move: a run keeps the positions its cards (and jokers)
were given, so extending it only adds a card at one end, and a joker keeps
the card it stands for.  In a set a joker stands for a missing suit, the
lowest one still missing after each lay-off.

>>> from cardtable.engine.cards import parse, format_cards
>>> run = lay(1, 0, parse("8h 9h Th"))
>>> run = extend(extend(run, parse("Jh")[0], 1), parse("7h")[0], 0)
>>> format_cards(run.cards), run.laid_by
('7h 8h 9h Th Jh', (0, 0, 0, 0, 1))
>>> extend(lay(2, 0, parse("2c 2d 2h 2s")), parse("As")[0], 0)
Traceback (most recent call last):
...
cardtable.engine.melds.InvalidMeld: a set holds at most 4 cards
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..api import JSON
from ..cards import JOKER, format_cards, str_card
from ..melds import InvalidMeld, MeldRules, make_meld

ACE_LOW = MeldRules()
"""The classic meld rules (ace low only, sets of 3-4, runs of 3+): the default."""

MeldProblem = Callable[["TableMeld"], "str | None"]
"""A game's house rule on melds: why a meld may not lie on the table (``None``: it may)."""

_RANK_NAMES = ["ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king"]


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table.

    ``cards`` are as laid (a run in sequence order, low end first; a set with
    its naturals first), ``stands_for`` the card each one plays as (a joker's
    entry is the natural card it replaces), ``laid_by`` the seat that placed
    each card.
    """

    id: int
    owner: int
    kind: str  # "set" or "run"
    cards: tuple[int, ...]
    stands_for: tuple[int, ...]
    laid_by: tuple[int, ...]

    def to_json(self) -> dict[str, JSON]:
        return {"id": self.id, "owner": self.owner, "kind": self.kind,
                "cards": format_cards(self.cards).split(),
                "stands_for": format_cards(self.stands_for).split(),
                "laid_by": list(self.laid_by)}

    def __str__(self) -> str:
        return f"#{self.id} {format_cards(self.cards)}"


def lay(meld_id: int, seat: int, cards: Sequence[int], rules: MeldRules = ACE_LOW) -> TableMeld:
    """The table meld ``cards`` make when ``seat`` lays them (:class:`InvalidMeld` if none)."""
    meld = make_meld(cards, rules)
    return TableMeld(meld_id, seat, meld.kind, meld.cards, meld.stands_for,
                     (seat,) * len(meld.cards))


def points(meld: TableMeld, value: Callable[[int], int]) -> int:
    """What a meld is worth, counting each joker as the card it stands for."""
    return sum(value(c) for c in meld.stands_for)


# -- lay-off ---------------------------------------------------------------------


def extend(meld: TableMeld, card: int, seat: int, rules: MeldRules = ACE_LOW) -> TableMeld:
    """``meld`` with ``card`` laid off on it by ``seat``, or :class:`InvalidMeld` saying why.

    A joker laid off on a run goes on the high end when there is room, else
    on the low end.
    """
    if meld.kind == "set":
        return _extend_set(meld, card, seat, rules)
    return _extend_run(meld, card, seat, rules)


def fits(meld: TableMeld, card: int, rules: MeldRules = ACE_LOW,
         problem: MeldProblem | None = None) -> bool:
    """Whether ``card`` may be laid off on ``meld``: it extends it, and ``problem`` (a
    game's ``meld_problem``, its house rules such as joker limits) finds nothing wrong
    with the longer meld.

    >>> from cardtable.engine.cards import parse
    >>> run, joker = lay(1, 0, parse("7h 8h Jk")), parse("Jk")[0]
    >>> fits(run, joker), fits(run, joker, problem=lambda m: "one joker a meld")
    (True, False)
    """
    try:
        longer = extend(meld, card, meld.owner, rules)
    except InvalidMeld:
        return False
    return problem is None or problem(longer) is None


def extension_cards(meld: TableMeld, rules: MeldRules = ACE_LOW,
                    problem: MeldProblem | None = None) -> frozenset[int]:
    """Every card that :func:`fits` ``meld``: a lay-off's few possible cards, tried.

    Only a missing suit of a set's rank, a run's next card at either end, or a
    joker can extend a meld, so listing lay-offs tries these instead of every card held.

    >>> from cardtable.engine.cards import parse, format_cards
    >>> format_cards(sorted(extension_cards(lay(1, 0, parse("8h 9h Th")))))
    '7h Jh Jk'
    """
    if meld.kind == "set":
        rank = _set_rank(meld)
        tried = [s * 13 + rank for s in range(4)]
    else:
        suit = meld.stands_for[0] // 13
        low, length = _run_span(meld)
        tried = [suit * 13 + (low + length) % 13, suit * 13 + (low - 1) % 13]
    return frozenset(c for c in (*tried, JOKER) if fits(meld, c, rules, problem))


def swap_cards(meld: TableMeld, rules: MeldRules = ACE_LOW) -> frozenset[int]:
    """Every natural card :func:`swap_joker` accepts for a joker of ``meld``: the card
    a joker stands for, or in a set that is not full any missing suit of its rank."""
    if JOKER not in meld.cards:
        return frozenset()
    tried = {s * 13 + meld.stands_for[0] % 13 for s in range(4)} if meld.kind == "set" \
        else {f for c, f in zip(meld.cards, meld.stands_for, strict=True) if c >= JOKER}
    found = set()
    for card in tried:
        try:
            swap_joker(meld, card, meld.owner, rules)
        except InvalidMeld:
            continue
        found.add(card)
    return frozenset(found)


def _set_rank(meld: TableMeld) -> int:
    return meld.stands_for[0] % 13


def _extend_set(meld: TableMeld, card: int, seat: int, rules: MeldRules) -> TableMeld:
    if len(meld.cards) >= rules.max_set:
        raise InvalidMeld(f"a set holds at most {rules.max_set} cards")
    rank = _set_rank(meld)
    naturals = [c for c in meld.cards if c < JOKER]
    if card < JOKER:
        if card % 13 != rank:
            raise InvalidMeld(f"{str_card(card)} does not belong in a set of {_RANK_NAMES[rank]}s")
        if card // 13 in {c // 13 for c in naturals}:
            raise InvalidMeld("a set needs cards of different suits")
    cards = (*meld.cards, card)
    return _replace(meld, cards, _set_stands_for(cards, rank), (*meld.laid_by, seat))


def _set_stands_for(cards: Sequence[int], rank: int) -> tuple[int, ...]:
    """Naturals stand for themselves; jokers for the missing suits, lowest first."""
    taken = {c // 13 for c in cards if c < JOKER}
    missing = iter([s for s in range(4) if s not in taken])
    return tuple(c if c < JOKER else next(missing) * 13 + rank for c in cards)


def _run_span(meld: TableMeld) -> tuple[int, int]:
    """(position of the low end, length): position p is rank p % 13 (13 = a high ace)."""
    return meld.stands_for[0] % 13, len(meld.cards)


def _position_ok(low: int, length: int, rules: MeldRules) -> bool:
    if length > 13:
        return False
    if rules.around_corner:
        return True
    return low >= 0 and low + length - 1 <= (13 if rules.ace_high else 12)


def _extend_run(meld: TableMeld, card: int, seat: int, rules: MeldRules) -> TableMeld:
    suit = meld.stands_for[0] // 13
    low, length = _run_span(meld)
    high_ok = _position_ok(low, length + 1, rules)
    low_ok = _position_ok(low - 1, length + 1, rules)
    above = suit * 13 + (low + length) % 13
    below = suit * 13 + (low - 1) % 13
    if card >= JOKER:
        if not (high_ok or low_ok):
            raise InvalidMeld("this run cannot be made any longer")
    elif card // 13 != suit:
        raise InvalidMeld(f"{str_card(card)} is not of this run's suit")
    elif not ((high_ok and card == above) or (low_ok and card == below)):
        raise InvalidMeld(f"{str_card(card)} does not extend this run at either end")
    if high_ok and (card >= JOKER or card == above):
        return _replace(meld, (*meld.cards, card), (*meld.stands_for, above),
                        (*meld.laid_by, seat))
    return _replace(meld, (card, *meld.cards), (below, *meld.stands_for), (seat, *meld.laid_by))


def _replace(meld: TableMeld, cards: tuple[int, ...], stands_for: tuple[int, ...],
             laid_by: tuple[int, ...]) -> TableMeld:
    return TableMeld(meld.id, meld.owner, meld.kind, cards, stands_for, laid_by)


# -- joker exchange ---------------------------------------------------------------


def swap_joker(meld: TableMeld, card: int, seat: int,
               rules: MeldRules = ACE_LOW) -> TableMeld:
    """``meld`` with a joker replaced by the natural ``card`` it stands for.

    In a set that is not full, any missing suit of the set's rank frees a
    joker; in a full set or a run only the exact card does.  The caller puts
    the freed joker where the game's rules say (Rommé: it must be played again
    in the same turn).
    """
    if card >= JOKER:
        raise InvalidMeld("a joker is exchanged for a natural card")
    jokers = [i for i, c in enumerate(meld.cards) if c >= JOKER]
    if not jokers:
        raise InvalidMeld("this meld has no joker")
    if meld.kind == "set" and len(meld.cards) < rules.max_set:
        rank = _set_rank(meld)
        suits = {c // 13 for c in meld.cards if c < JOKER}
        if card % 13 != rank or card // 13 in suits:
            raise InvalidMeld(f"{str_card(card)} cannot take a joker's place in this set")
        at = jokers[0]
        cards = (*meld.cards[:at], card, *meld.cards[at + 1:])
        return _replace(meld, cards, _set_stands_for(cards, rank),
                        (*meld.laid_by[:at], seat, *meld.laid_by[at + 1:]))
    for at in jokers:
        if meld.stands_for[at] == card:
            cards = (*meld.cards[:at], card, *meld.cards[at + 1:])
            return _replace(meld, cards, meld.stands_for,
                            (*meld.laid_by[:at], seat, *meld.laid_by[at + 1:]))
    wanted = ", ".join(str_card(meld.stands_for[i]) for i in jokers)
    raise InvalidMeld(f"the joker here stands for {wanted}, not {str_card(card)}")
