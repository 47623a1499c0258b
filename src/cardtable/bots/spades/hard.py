"""The hard Spades player: counted bids, nil play, set and bag play, card reading.

``choose(view)`` picks one of ``view["legal"]`` from the view alone, the same move
for the same view; ``hint(view, action)`` says why in a few words.  It is also the
rollout and move-ordering policy of the expert search, so every decision is cheap.

* Bidding (:func:`choose_bid`): the tricks the hand is likely to take (the normal
  bot's count: aces, guarded kings, spade honours and length, ruffs with spare
  spades) with a smaller allowance for loose tricks than the normal bot's (a set
  costs more than the bags saved), trimmed to what the other bids leave; nil when
  :func:`nil_risk` (high and long spades, aces, honours without low cards under
  them) is low, a little more readily behind a partner who bid high.
* Play (:mod:`cardtable.bots.spades.hard_play`, reading the view with
  :mod:`cardtable.bots.spades.hard_read`): nil, cover and nil attack first; then the
  side takes tricks while its contract or a set of the opponents needs them and
  ducks the rest (no bags, and the opponents collect them).
* The blind nil, the exchange and the two-player draw are the normal bot's.
"""

from __future__ import annotations

from typing import Any

from cardtable.bots.spades import normal
from cardtable.bots.spades.hard_play import choose_play, name
from cardtable.bots.spades.hard_read import Reading
from cardtable.engine.api import Action
from cardtable.engine.cards import card
from cardtable.engine.games.spades.tricks import POWER_OF, SPADES, SUIT_OF

View = dict[str, Any]

LOOSE = {4: 0.25, 3: 1.5, 2: 1.4}
"""Tricks added to the count before rounding, by players at the table: with four, a
quarter (measured against the normal player: more sets cost more than the bags saved);
with three or two, the normal bot's allowance for loose tricks."""

# What each high card adds to :func:`nil_risk`, by rank (2 = 0 .. ace 12, jokers 13 and 14).
SPADE_RISK = {14: 1.0, 13: 1.0, 12: 1.0, 11: 0.8, 10: 0.6, 9: 0.4, 8: 0.25, 7: 0.12}
PLAIN_RISK = {12: 0.8, 11: 0.5, 10: 0.3, 9: 0.15}
NIL_RISK = 0.9
"""Bid nil below this :func:`nil_risk` (measured: 0.8 to 1.0 scored best)."""
NIL_COVER = 0.1
"""The nil limit moves by this much per trick partner bid above three (strong cover)."""


def choose(view: View) -> Action:
    """The hard player's move for the seat of ``view``."""
    return _decide(view)[0]


def hint(view: View, action: Action) -> str:
    """Why ``action`` is a good move here, in a few plain words."""
    chosen, reason = _decide(view)
    if chosen == action:
        return reason
    if action.type == "play" and action.card is not None:
        r = Reading(view)
        if r.trick and not r.beats(action.card):
            return f"{name(action.card)} does not win this trick"
        return f"{name(action.card)}: {round(r.p_win_alone(action.card) * 100)}% to win the trick"
    if action.type == "bid" and action.number is not None:
        return "bid nil" if action.number == 0 else f"bid {action.number}"
    return action.type.replace("_", " ")


def _decide(view: View) -> tuple[Action, str]:
    legal = [Action.from_json(a) for a in view.get("legal", [])]
    if not legal:
        raise ValueError("the view offers no legal action: it is not this seat's turn")
    kinds = {a.type for a in legal}
    if "play" in kinds:
        r = Reading(view)
        plays = {a.card: a for a in legal if a.card is not None}
        allowed = [c for c in r.hand if c in plays]
        c, reason = choose_play(r, allowed)
        return plays[c], reason
    if "bid" in kinds:
        table = normal.Table.read(view)
        wanted, reason = choose_bid(table)
        bids = [a for a in legal if a.type == "bid" and a.number is not None]
        best = min(bids, key=lambda a: (abs((a.number or 0) - wanted), a.number))
        return best, reason
    action = normal.choose(view)
    if action.type == "deal":
        return action, "deal the next hand"
    if action.type == "blind_nil":
        return action, "far behind: blind nil is worth the risk"
    if action.type == "look":
        return action, "look at the cards before bidding"
    if action.type in ("keep", "reject"):
        offered = view.get("offered")
        what = name(card(offered)) if offered else "the card"
        return action, f"{action.type} {what}: " + (
            "spades and high cards win tricks" if action.type == "keep" else "too low to keep")
    if action.type == "pass_cards":
        return action, "pass " + " ".join(name(c) for c in action.cards)
    return action, action.type.replace("_", " ")


def choose_bid(table: normal.Table) -> tuple[int, str]:
    """The bid wanted (0 = nil) and why; the legal list may move it."""
    partner_bid = None if table.partner is None else table.bids[table.partner]
    limit = NIL_RISK + (0.0 if partner_bid is None else NIL_COVER * (min(partner_bid, 6) - 3))
    if partner_bid != 0 and table.players == 4 and nil_risk(table.hand) < limit:
        return 0, "nil: no sure winner, high cards have low ones to hide under"
    if partner_bid != 0 and normal.nil_is_safe(table.hand):
        return 0, "nil: no sure trick and every honour guarded"
    estimate = normal.estimate_tricks(table.hand, table.options["jokers"] != "none")
    if table.options["suicide"] and partner_bid is None and estimate < 2.5:
        return 0, "Suicide: one of us must bid nil, and this hand is the weaker"
    loose = LOOSE[table.players]
    wanted = estimate + loose + (1.0 if partner_bid == 0 else 0.0)
    bid = max(1, int(wanted + 0.5))
    opponents_bid = sum(table.bids[s] or 0 for s in table.opponents)
    room = table.hand_size - opponents_bid - (partner_bid or 0)
    bid = max(1, min(bid, room))
    if partner_bid:
        return bid, f"bid {bid}: about {estimate:.1f} tricks counted, partner bid {partner_bid}"
    return bid, f"bid {bid}: about {estimate:.1f} tricks counted"


def nil_risk(hand: list[int]) -> float:
    """Roughly the tricks a nil bidder will be forced to take with ``hand``: high spades
    and long spades, aces, and kings or queens without low cards to hide under."""
    risk = 0.0
    spades = sorted((POWER_OF[c] for c in hand if SUIT_OF[c] == SPADES), reverse=True)
    for i, p in enumerate(spades):
        below = len(spades) - i - 1
        hidden = below >= 2 and p <= 11  # a king or lower with two spades under it
        risk += SPADE_RISK.get(p, 0.03) * (0.5 if hidden else 1.0)
    risk += 0.3 * max(len(spades) - 3, 0)
    for suit in range(3):
        ranks = [POWER_OF[c] for c in hand if SUIT_OF[c] == suit]
        low = sum(1 for p in ranks if p <= 4)  # sixes and lower
        for p in ranks:
            if p == 12:  # an ace wins unless it is thrown on a void
                risk += PLAIN_RISK[p] * (0.75 if low >= 3 else 1.0)
            elif p >= 9:
                risk += PLAIN_RISK[p] * (0.35 if low >= 3 else 0.6 if low == 2 else 1.0)
    return risk


__all__ = ["LOOSE", "NIL_COVER", "NIL_RISK", "choose", "choose_bid", "hint", "nil_risk"]
