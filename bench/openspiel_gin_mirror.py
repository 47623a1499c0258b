"""Rules, card numbers and a pyspiel mirror of our Gin hands, for `bench/openspiel_gin.py`.

:data:`OPENSPIEL_RULES` are our Gin options that play OpenSpiel's ``gin_rummy`` rules.
:class:`Mirror` replays one hand of ours in a pyspiel ``gin_rummy`` state: the deal from our
deck order, then every move, stock draws as chance outcomes; :func:`hand_script` reads a hand's
deck and moves from our match record.

Cards: ours are ``suit * 13 + rank`` with suits c d h s; OpenSpiel orders suits s c d h, so its
suit is ``(ours + 1) % 4`` (as in ``bench/peers.py``); ranks agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cardtable.engine.api import JSON
from cardtable.engine.cards import card as parse_card
from cardtable.engine.cards import parse
from cardtable.engine.games.gin import GinState, Options

OPENSPIEL_RULES: dict[str, Any] = {
    "gin_bonus": 25,
    "big_gin_bonus": 0,  # OpenSpiel has no big gin: with 11 melded cards one still discards
    "undercut_bonus": 25,
    "undercut_on_tie": False,  # its returns are the deadwood difference: a tie is 0
    "knock_limit": 10,
    "oklahoma": False,
    "first_upcard": True,
    "stock_floor": 2,  # its wall: kWallStockSize
    "fiftieth_card": True,  # at the wall the next player may take the upcard only to knock
}
"""Our Gin options that play OpenSpiel's ``gin_rummy`` rules (the match-level ones are ours)."""

HAND_SIZE = 10
_UPCARD_INDEX = 2 * HAND_SIZE  # deck position of the first upcard; the stock follows it


def openspiel_options(**overrides: Any) -> Options:
    """Standard Gin with :data:`OPENSPIEL_RULES` (and ``overrides``) on top."""
    return Options.from_dict({**OPENSPIEL_RULES, **overrides})


def arena_flags() -> list[str]:
    """The ``cardtable arena gin`` flags that set :data:`OPENSPIEL_RULES`."""
    flags: list[str] = []
    for key, value in OPENSPIEL_RULES.items():
        text = "true" if value is True else "false" if value is False else str(value)
        flags += ["--set", f"{key}={text}"]
    return flags


def rule_differences(options: Options) -> list[str]:
    """How ``options`` differ from OpenSpiel's rules, e.g. ``['stock_floor 0 (OpenSpiel: 2)']``.

    Knock limit, bonuses and Oklahoma are passed on to pyspiel; the others it cannot follow.
    """
    return [f"{key} {getattr(options, key)} (OpenSpiel: {value})"
            for key, value in OPENSPIEL_RULES.items() if getattr(options, key) != value]


def to_openspiel(card: int) -> int:
    """Ours -> OpenSpiel's card number (suits s c d h)."""
    suit, rank = divmod(card, 13)
    return (suit + 1) % 4 * 13 + rank


def from_openspiel(card: int) -> int:
    """OpenSpiel's card number -> ours (suits c d h s)."""
    suit, rank = divmod(card, 13)
    return (suit + 3) % 4 * 13 + rank


def load_pyspiel() -> Any:
    """The ``pyspiel`` module (from the ``bench`` extra), or ImportError saying how to get it."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except Exception as e:  # ImportError, or a broken native extension
        raise ImportError(f"open_spiel not importable ({e}); pip install 'cardtable[bench]'") from e
    return pyspiel


class MirrorError(Exception):
    """The pyspiel mirror cannot follow our hand (rules differ, or it refused a move)."""


class Mirror:
    """One hand of ours replayed in a pyspiel ``gin_rummy`` state.

    pyspiel's player 0 is our non-dealer (both act first), player 1 our dealer. Our deck
    order is the deal, non-dealer first, then the upcard, then the stock in drawing order.
    """

    def __init__(self, pyspiel: Any, game: Any, deck: Sequence[int], dealer: int):
        self._pyspiel, self._deck, self.dealer = pyspiel, list(deck), dealer
        self._gr = pyspiel.gin_rummy
        self.state = game.new_initial_state()
        self.played: list[Mapping[str, JSON]] = []  # our moves replayed so far
        self.before_wall: Any = None  # the pyspiel state where the wall was reached
        self._stock_drawn = 0
        first = 1 - dealer
        for seat in (first, dealer):  # pyspiel deals player 0's ten, then player 1's
            for i in range(2 * HAND_SIZE):
                if (first + i) % 2 == seat:
                    self._apply(to_openspiel(self._deck[i]))
        self._apply(to_openspiel(self._deck[_UPCARD_INDEX]))

    def player_of(self, seat: int) -> int:
        return 0 if seat != self.dealer else 1

    def hand(self, seat: int) -> list[int]:
        return sorted(from_openspiel(c) for c in self.state.hands()[self.player_of(seat)])

    def play(self, move: Mapping[str, JSON]) -> None:
        """Our move ``move`` (as ``Action.to_json``) in pyspiel's terms."""
        gr, kind = self._gr, move["type"]
        phase = self.state.current_phase()
        if phase == gr.Phase.WALL:  # a knock there is decided here and played after
            self.before_wall = self.state.clone()
        if kind in ("take_upcard", "draw_discard"):
            self._apply(gr.KNOCK_ACTION if phase == gr.Phase.WALL else gr.DRAW_UPCARD_ACTION)
        elif kind == "pass":
            self._apply(gr.PASS_ACTION)
        elif kind == "draw_stock":
            self._apply(gr.DRAW_STOCK_ACTION)
            if not self.state.is_chance_node():
                raise MirrorError("pyspiel dealt no stock card")
            self._apply(to_openspiel(self._deck[_UPCARD_INDEX + 1 + self._stock_drawn]))
            self._stock_drawn += 1
        elif kind == "discard":
            self._apply(to_openspiel(_card_of(move)))
        elif kind in ("knock", "gin"):
            if phase != gr.Phase.KNOCK:  # after a knock at the wall pyspiel is there already
                self._apply(gr.KNOCK_ACTION)
            self._apply(to_openspiel(_card_of(move)))
        else:  # big_gin (off under OpenSpiel's rules), deal: nothing pyspiel plays
            raise MirrorError(f"pyspiel has no counterpart of {kind!r}")
        self.played.append(move)

    def lay_melds(self, melds: Sequence[Sequence[int]]) -> None:
        """The knocker lays ``melds`` (our cards), then passes: the defender is to act."""
        for meld in melds:
            meld_id = _meld_ids().get(frozenset(map(to_openspiel, meld)))
            if meld_id is None:
                raise MirrorError(f"OpenSpiel has no meld {meld}")
            self._apply(self._gr.MELD_ACTION_BASE + meld_id)
        self._apply(self._gr.PASS_ACTION)

    def _apply(self, action: int) -> None:
        if action not in (_chance_actions(self.state) if self.state.is_chance_node()
                          else self.state.legal_actions()):
            raise MirrorError(f"pyspiel refuses {self.state.action_to_string(action)} in "
                              f"{self.state.current_phase()}")
        self.state.apply_action(action)


def _chance_actions(state: Any) -> list[int]:
    return [a for a, _ in state.chance_outcomes()]


_MELD_IDS: dict[frozenset[int], int] = {}


def _meld_ids() -> dict[frozenset[int], int]:
    """OpenSpiel's meld id of each meld (a set of its cards)."""
    if not _MELD_IDS:
        utils = load_pyspiel().gin_rummy.GinRummyUtils(13, 4, HAND_SIZE)
        _MELD_IDS.update({frozenset(cards): i for i, cards in utils.int_to_meld.items()})
    return _MELD_IDS


def _card_of(move: Mapping[str, JSON]) -> int:
    text = move.get("card")
    if not isinstance(text, str):
        raise MirrorError(f"{move} names no card")
    return parse_card(text)


# -- our hands, from the match record ------------------------------------------------------------


def hand_script(state: GinState, number: int) -> tuple[list[int], list[Mapping[str, JSON]]]:
    """Hand ``number`` (1-based) of ``state``: its deck and our moves in it so far."""
    record = state.record()
    decks = [o for o in record["chance"] if isinstance(o, str)]  # the rest: the first dealer
    if not 0 < number <= len(decks):
        raise MirrorError(f"the record holds no deck for hand {number}")
    hands: list[list[Mapping[str, JSON]]] = [[]]
    for move in record["actions"]:
        if move["type"] == "deal":
            hands.append([])
        else:
            hands[-1].append(move)
    return parse(decks[number - 1]), hands[number - 1] if number <= len(hands) else []
