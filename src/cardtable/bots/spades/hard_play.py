"""Card play of the hard Spades player: which card, and the reason in a few words.

Each function returns ``(card, reason)``.  The order of concerns:

1. our own nil: lead and follow with the card least likely to win, shed high cards;
2. partner's nil: go high ahead of him, overtake him when he is winning, lead suits
   he is out of (he throws his danger cards) or boss cards he can play under;
3. an opponent's nil: lead low in suits he still holds, play under him, keep the
   trick low while he is still to play;
4. otherwise the side's aim (:meth:`Reading.aim`): take tricks (cheapest card that
   holds against the seats still to play; second hand low, third hand high; never
   overtake partner's likely winner; ruff as low as holds; cash sure winners, draw
   trumps with the top spades, back partner's suit, give partner ruffs, keep off the
   suits partner threw away and the opponents are out of) or duck them (highest card
   that loses, unload winners when the trick is ours anyway).

The thresholds below were set by playing against the normal bot on the same deals.
"""

from __future__ import annotations

from cardtable.bots.spades.hard_read import Reading
from cardtable.engine.cards import pretty_card
from cardtable.engine.games.spades.tricks import POWER_OF, SPADES, SUIT_OF

Choice = tuple[int, str]

HOLDS = 0.75  # a card "holds" when the opponents still to play let it win this often
THROWN_SUIT = 3.0  # leading a suit partner threw away costs this much (in ranks)
KEEP = 0.5  # how much a card's later worth counts against spending it now
PARTNER_HOLDS = 0.7  # partner's winning card is left alone when it holds this well


def name(c: int) -> str:
    return pretty_card(c)


def low_key(c: int) -> tuple[bool, int, int]:
    """Cheapest first: a plain card before a spade, low before high."""
    return SUIT_OF[c] == SPADES, POWER_OF[c], SUIT_OF[c]


def high_key(c: int) -> tuple[int, bool, int]:
    return POWER_OF[c], SUIT_OF[c] == SPADES, SUIT_OF[c]


def choose_play(r: Reading, allowed: list[int]) -> Choice:
    if len(allowed) == 1:
        return allowed[0], f"{name(allowed[0])} is the only card you may play"
    t = r.table
    if t.nil_alive(r.seat):
        return nil_follow(r, allowed) if r.trick else nil_lead(r, allowed)
    if t.nil_alive(r.partner):
        covered = cover_partner(r, allowed)
        if covered is not None:
            return covered
    nil_opponents = [s for s in r.opponents if t.nil_alive(s)]
    if nil_opponents:
        attacked = attack_nil(r, allowed, nil_opponents)
        if attacked is not None:
            return attacked
    if r.aim() == "duck":
        return duck_follow(r, allowed) if r.trick else duck_lead(r, allowed)
    return take_follow(r, allowed) if r.trick else take_lead(r, allowed)


# -- our nil ---------------------------------------------------------------------------------


def nil_lead(r: Reading, allowed: list[int]) -> Choice:
    c = min(allowed, key=lambda c: (round(r.p_win_alone(c), 2), -POWER_OF[c]))
    return c, f"nil: lead {name(c)}, the card least likely to win"


def nil_follow(r: Reading, allowed: list[int]) -> Choice:
    losers = [c for c in allowed if not r.beats(c)]
    if losers:
        c = max(losers, key=danger)
        return c, f"nil: {name(c)} goes under the trick and sheds a high card"
    if not r.later:
        c = max(allowed, key=high_key)
        return c, f"nil is lost here: {name(c)} at least spends a high card"
    c = min(allowed, key=lambda c: (round(r.p_win_alone(c), 2), POWER_OF[c]))
    return c, f"nil: {name(c)} leaves the most room to be overtaken"


def danger(c: int) -> tuple[int, int]:
    """How likely a card is to win a trick later: spades first, then rank."""
    return POWER_OF[c] + (6 if SUIT_OF[c] == SPADES else 0), POWER_OF[c]


# -- partner's nil -----------------------------------------------------------------------------


def cover_partner(r: Reading, allowed: list[int]) -> Choice | None:
    partner = r.partner
    assert partner is not None
    if not r.trick:
        voids = [c for c in allowed if SUIT_OF[c] in r.voids[partner] and SUIT_OF[c] != SPADES]
        if voids and SPADES not in r.voids[partner]:
            c = max(voids, key=high_key)
            return c, f"cover nil: partner is out of {suit_word(c)}, he can throw his danger"
        c = max(allowed, key=lambda c: (r.is_boss(c), SUIT_OF[c] != SPADES, POWER_OF[c]))
        return c, f"cover nil: lead {name(c)} high so partner plays under it"
    winner, _ = r.winner()
    winners = [c for c in allowed if r.beats(c)]
    if winner == partner:
        if winners:
            c = min(winners, key=low_key)
            return c, f"cover nil: {name(c)} overtakes partner's card"
        return None
    if partner in r.later:
        led = r.led
        follow = [c for c in allowed if SUIT_OF[c] == led]
        if follow:
            c = max(follow, key=high_key)
            return c, f"cover nil: {name(c)} high, so partner can play under it"
        if winners:  # a ruff: partner follows or throws under it
            c = max(winners, key=high_key) if SPADES in r.voids[partner] or len(
                r.out[r.led or 0]) == 0 else min(winners, key=low_key)
            return c, f"cover nil: ruff with {name(c)} to take the trick from partner"
    return None


def suit_word(c: int) -> str:
    return ("clubs", "diamonds", "hearts", "spades")[SUIT_OF[c]]


# -- an opponent's nil -----------------------------------------------------------------------


def attack_nil(r: Reading, allowed: list[int], nils: list[int]) -> Choice | None:
    if not r.trick:
        plain = [c for c in allowed if not all(SUIT_OF[c] in r.voids[s] for s in nils)]
        if not plain:
            return None
        c = min(plain, key=lambda c: (POWER_OF[c], SUIT_OF[c] == SPADES, SUIT_OF[c]))
        return c, f"set the nil: lead {name(c)} low, he may have to win it"
    winner, _ = r.winner()
    losers = [c for c in allowed if not r.beats(c)]
    if winner in nils and losers:
        c = max(losers, key=high_key)
        return c, f"set the nil: {name(c)} stays under his card"
    if any(s in r.later for s in nils) and winner not in r.opponents:
        lowest = min(allowed, key=low_key)
        if SUIT_OF[lowest] == r.led:
            return lowest, f"set the nil: {name(lowest)} keeps the trick low for him"
    return None


# -- ducking (contract made, no set in reach) ---------------------------------------------


def duck_lead(r: Reading, allowed: list[int]) -> Choice:
    c = min(allowed, key=lambda c: (round(r.p_win_alone(c), 2), -POWER_OF[c]))
    return c, f"contract made: lead {name(c)}, no bags wanted"


def duck_follow(r: Reading, allowed: list[int]) -> Choice:
    winner, _ = r.winner()
    ours = winner in (r.seat, r.partner)
    losers = [c for c in allowed if not r.beats(c)]
    if ours and not r.later_opponents():  # the trick is ours whatever: unload a winner
        c = max(allowed, key=danger)
        return c, f"the trick is ours anyway: unload {name(c)}"
    if losers:
        c = max(losers, key=danger)
        return c, f"contract made: {name(c)} ducks, no bags"
    c = min(allowed, key=lambda c: (round(r.p_win_alone(c), 2), POWER_OF[c]))
    return c, f"contract made: {name(c)} leaves the trick to the others"


# -- taking tricks ----------------------------------------------------------------------------


def cheapest_holding(r: Reading, cards: list[int]) -> tuple[int, float] | None:
    """Of ``cards``, the best bargain: its chance of holding, less what the card would be
    worth later (a top spade spent on a trick a low one takes as well is a trick lost)."""
    if not cards:
        return None
    odds = {c: r.p_hold(c) for c in cards}
    c = max(cards, key=lambda c: (round(odds[c] - KEEP * later_value(r, c), 3),
                                  [-x for x in low_key(c)]))
    return c, odds[c]


def later_value(r: Reading, c: int) -> float:
    """Roughly the chance ``c`` wins a trick later if kept: by the cards above it still out."""
    above = sum(1 for u in r.out[SUIT_OF[c]] if POWER_OF[u] > POWER_OF[c])
    if SUIT_OF[c] == SPADES:
        return max(0.0, 1.0 - 0.3 * above)
    return max(0.0, 0.8 - 0.4 * above)


def take_follow(r: Reading, allowed: list[int]) -> Choice:
    winner, winning = r.winner()
    winners = [c for c in allowed if r.beats(c)]
    led = r.led
    if winner == r.partner:
        partner_odds = r.p_hold(winning)
        if partner_odds >= PARTNER_HOLDS or not winners:
            return throw(r, allowed, f"partner's {name(winning)} should win")
        best = cheapest_holding(r, winners)
        if best and best[1] >= partner_odds + 0.3 and SUIT_OF[best[0]] == led:
            return best[0], f"third hand high: {name(best[0])} over partner's {name(winning)}"
        return throw(r, allowed, f"partner's {name(winning)} may win")
    if not winners:
        return throw(r, allowed, "cannot win this trick")
    best = cheapest_holding(r, winners)
    assert best is not None
    c, odds = best
    if r.partner in r.later:  # second hand: partner still plays after us
        if odds >= HOLDS or (POWER_OF[winning] >= 9 and odds >= 0.5):
            return c, f"{name(c)} should take the trick"
        return throw(r, allowed, "second hand low: partner plays after us")
    if odds >= 0.3 or not r.later:
        why = "ruff" if SUIT_OF[c] == SPADES and led != SPADES else "take"
        return c, f"{why} with {name(c)}: {round(odds * 100)}% to hold"
    follow = [w for w in winners if SUIT_OF[w] == led]
    if follow:  # third hand high: make the last hand spend his best card
        c = max(follow, key=high_key)
        return c, f"third hand high: {name(c)} makes the last hand pay"
    return throw(r, allowed, "a ruff would be overruffed")


def throw(r: Reading, allowed: list[int], why: str) -> Choice:
    """A card that will not win: low in the suit led, else the least useful discard."""
    led = r.led
    follow = [c for c in allowed if SUIT_OF[c] == led]
    if follow:
        c = min(follow, key=low_key)
        return c, f"{why}: play low, {name(c)}"
    c = min(allowed, key=lambda c: discard_cost(r, c))
    return c, f"{why}: discard {name(c)}"


def discard_cost(r: Reading, c: int) -> float:
    """What a discard gives up: winners and spades most, guards of honours next;
    a short suit's low card least (the void lets us ruff later)."""
    suit = SUIT_OF[c]
    if suit == SPADES:
        return 40.0 + POWER_OF[c]
    mine = [x for x in r.hand if SUIT_OF[x] == suit]
    cost = float(POWER_OF[c])
    if r.is_boss(c):
        cost += 12
    honours = [x for x in mine if POWER_OF[x] >= 10 and x != c and not r.is_boss(x)]
    if honours and len(mine) <= 3:
        cost += 5  # a guard of the king or queen
    if len(mine) == 1 and any(SUIT_OF[x] == SPADES for x in r.hand):
        cost -= 3
    return cost


def take_lead(r: Reading, allowed: list[int]) -> Choice:
    plain = [c for c in allowed if SUIT_OF[c] != SPADES]
    spades = [c for c in allowed if SUIT_OF[c] == SPADES]
    sure = [(r.p_hold(c, r.opponents), c) for c in plain if r.is_boss(c)]
    sure = [(p, c) for p, c in sure if p >= HOLDS]
    top_spades = [c for c in spades if r.is_boss(c)]
    opponents_spades = any(SPADES not in r.voids[s] for s in r.opponents) and r.out[SPADES]
    # Draw trumps with the top spade when there are side winners for later.
    if top_spades and opponents_spades and (sure or len(spades) >= 3):
        c = max(top_spades, key=high_key)
        return c, f"draw trumps with {name(c)}"
    if sure:
        c = max(sure, key=lambda pc: (pc[0], POWER_OF[pc[1]]))[1]
        return c, f"cash {name(c)}: the highest left"
    if top_spades:
        c = max(top_spades, key=high_key)
        return c, f"cash {name(c)}: the highest spade left"
    ruff = partner_ruff(r, plain)
    if ruff is not None:
        return ruff, f"{name(ruff)}: partner is out of {suit_word(ruff)} and can ruff"
    back = partner_suit(r, plain)
    if back is not None:
        return back, f"back partner's {suit_word(back)}: {name(back)}"
    c = min(plain or allowed, key=lambda c: lead_cost(r, c))
    return c, f"lead {name(c)}: low, from a suit that gives nothing away"


def partner_ruff(r: Reading, plain: list[int]) -> int | None:
    partner = r.partner
    if partner is None or SPADES in r.voids[partner] or not r.out[SPADES]:
        return None
    for c in sorted(plain, key=low_key):
        suit = SUIT_OF[c]
        if suit in r.voids[partner] and not any(suit in r.voids[s] for s in r.opponents):
            return c
    return None


def partner_suit(r: Reading, plain: list[int]) -> int | None:
    """The plain suit partner led last (his strength), low unless our top is boss."""
    if r.partner is None:
        return None
    for leader, plays, _ in reversed(r.table.tricks):
        suit = SUIT_OF[plays[0][1]]
        if leader != r.partner or suit == SPADES:
            continue
        if any(suit in r.voids[s] for s in r.opponents):
            return None
        mine = [c for c in plain if SUIT_OF[c] == suit]
        if mine:
            top = max(mine, key=high_key)
            return top if r.is_boss(top) else min(mine, key=low_key)
        return None
    return None


def lead_cost(r: Reading, c: int) -> float:
    """How much a low lead from ``c``'s suit gives away: leading away from a lone king or
    queen, into an opponent's void, or partner's discarded suit costs; a long suit, a
    singleton with spades to ruff later gain."""
    suit = SUIT_OF[c]
    mine = [x for x in r.hand if SUIT_OF[x] == suit]
    cost = float(POWER_OF[c])
    top = max(POWER_OF[x] for x in mine)
    if top in (10, 11) and len(mine) <= 3 and not r.is_boss(max(mine, key=high_key)):
        cost += 6  # K-x or Q-x-x: wait for the suit to come to us
    if any(suit in r.voids[s] for s in r.opponents):
        cost += 8
    if r.partner is not None and suit in r.thrown[r.partner]:
        cost += THROWN_SUIT  # partner threw it away: nothing there for us
    spades = sum(1 for x in r.hand if SUIT_OF[x] == SPADES)
    if len(mine) == 1 and spades and POWER_OF[c] < 9:
        cost -= 4
    cost -= len(mine) * 0.5
    return cost


__all__ = ["choose_play", "danger", "discard_cost", "name"]
