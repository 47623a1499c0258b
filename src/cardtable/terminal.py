"""Gin Rummy in the terminal: you (seat 0) against the simple bot (seat 1).

Everything on screen comes from ``state.view(0)`` and ``event.view(0)``, so
the bot's hidden cards cannot leak.  A move is picked from a numbered menu of
the legal actions or typed ("d 7h", "knock 7h", "s", "pile"); when the engine
refuses one, its ``IllegalAction`` reason is shown and the prompt repeats.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rich.columns import Columns
from rich.console import Console
from rich.padding import Padding
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from cardtable.bots.gin import normal as gin_bot
from cardtable.engine.api import Action, IllegalAction, Options, Rng
from cardtable.engine.cards import card as parse_card
from cardtable.engine.cards import deadwood_value, parse, sort_key_suit, str_card
from cardtable.engine.games import gin

HUMAN, BOT = 0, 1
WHO = ("You", "Bot")
View = dict[str, Any]
# A four-colour deck: suits stay distinguishable without relying on red/black alone.
SUIT_STYLES = {"c": "green", "d": "bright_blue", "h": "red", "s": "bold"}
KIND_NAMES = {"knock": "knock", "undercut": "undercut", "gin": "gin", "big_gin": "big gin"}
HELP = """\
Type a menu number, or a command (cards: rank A 2-9 T J Q K, then suit c d h s):
  s, stock      draw from the stock           pile         take the pile's top (or the upcard)
  pass          leave the first upcard        d 7h, 7h     discard 7h
  k 7h, knock   knock (with the best card)    g 7h, gin    go gin
  big gin       all 11 cards melded           help, quit"""
NARRATION = {  # event type -> (what you did, what the bot did)
    "pass": ("You pass.", "Bot passes."),
    "take_upcard": ("You take the upcard {card}.", "Bot takes the upcard {card}."),
    "draw_stock": ("You draw {card} from the stock.", "Bot draws from the stock."),
    "draw_discard": ("You take {card} from the discard pile.",
                     "Bot takes {card} from the discard pile."),
    "discard": ("You discard {card}.", "Bot discards {card}."),
}
MENU_ORDER = ["pass", "draw_stock", "take_upcard", "draw_discard", "big_gin", "gin", "knock",
              "discard", "deal"]
ALIASES = {
    "s": "draw_stock", "stock": "draw_stock", "draw": "draw_stock", "draw_stock": "draw_stock",
    "p": "pile", "pile": "pile", "take": "pile", "upcard": "pile", "draw_discard": "pile",
    "take_upcard": "pile", "pass": "pass", "d": "discard", "discard": "discard",
    "k": "knock", "knock": "knock", "g": "gin", "gin": "gin", "big": "big_gin",
    "biggin": "big_gin", "big_gin": "big_gin", "deal": "deal",
}


class Quit(Exception):
    """The player asked to leave the match."""


class BadInput(ValueError):
    """Typed text that is not a move; the message says why."""


@dataclass(frozen=True)
class Choice:
    label: Text
    action: Action


# -- cards as text -------------------------------------------------------------------------


def card_text(name: str, fresh: str | None = None) -> Text:
    style = SUIT_STYLES.get(name[-1:].lower(), "")
    return Text(name, style=f"{style} reverse" if name == fresh else style)


def cards_text(names: Iterable[str], fresh: str | None = None) -> Text:
    return Text(" ").join(card_text(n, fresh) for n in names)


def by_suit(names: Iterable[str]) -> list[str]:
    return [str_card(c) for c in sorted(parse(" ".join(names)), key=sort_key_suit)]


def hand_text(melds: Iterable[Iterable[str]], deadwood: Iterable[str],
              fresh: str | None = None) -> Text:
    """Melds in brackets, then the deadwood sorted by suit so near-runs stand out."""
    parts = [Text.assemble(("[", "dim"), cards_text(m, fresh), ("]", "dim")) for m in melds]
    if loose := by_suit(deadwood):
        parts.append(cards_text(loose, fresh))
    return Text("  ").join(parts) if parts else Text("(no cards)")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def _verb(seat: int | None, you: str, bot: str) -> str:
    return you if seat == HUMAN else bot


# -- the menu and typed commands ---------------------------------------------------------------


def _deadwood_after(view: View) -> dict[str, int]:
    """Your deadwood after throwing each card (for the knock labels and 'knock' alone)."""
    hand = parse(" ".join(view["hands"][HUMAN]["cards"]))
    return {str_card(c): gin.deadwood([x for x in hand if x != c]) for c in hand}


def menu(view: View) -> list[Choice]:
    """The legal actions in the order a player scans them: the big moves first, then the
    discards with the unmatched cards (highest first) ahead of the melded ones."""
    pile = view["discard"][-1] if view["discard"] else "?"
    after = _deadwood_after(view) if view["phase"] == "discard" else {}
    melding = view.get("melding", {"melds": [], "deadwood": []})
    unmatched = sorted(parse(" ".join(melding["deadwood"])),
                       key=lambda c: (-deadwood_value(c), sort_key_suit(c)))
    hand_order = [str_card(c) for c in unmatched] + [c for m in melding["melds"] for c in m]

    def order(action: Action) -> tuple[int, int, int]:
        name = str_card(action.card) if action.card is not None else ""
        finish = after.get(name, 0) if action.type in ("gin", "knock") else 0
        return MENU_ORDER.index(action.type), finish, hand_order.index(name) if name else 0

    def label(action: Action) -> Text:
        card = card_text(str_card(action.card)) if action.card is not None else Text()
        return {
            "take_upcard": Text.assemble("take the upcard ", card_text(pile)),
            "draw_stock": Text("draw from the stock"),
            "draw_discard": Text.assemble("take ", card_text(pile), " from the discard pile"),
            "big_gin": Text("big gin: lay down all 11 cards"),
            "gin": Text.assemble("gin, discarding ", card),
            "knock": Text.assemble("knock, discarding ", card,
                                   f" (deadwood {after.get(card.plain)})"),
            "discard": card,
        }.get(action.type, Text(str(action)))

    actions = sorted((Action.from_json(a) for a in view["legal"]), key=order)
    return [Choice(label(a), a) for a in actions]


def interpret(text: str, view: View, choices: list[Choice]) -> Action:
    """The action meant by ``text`` (a menu number or a command); ``BadInput`` if none.

    Whether the action is legal is left to the engine, which explains a refusal.
    """
    words = text.split()
    if not words:
        raise BadInput("type a menu number or a command (help lists them)")
    head = words[0].lower()
    if head.isdigit():
        if not 1 <= int(head) <= len(choices):
            raise BadInput(f"choose a number from 1 to {len(choices)}")
        return choices[int(head) - 1].action
    kind = ALIASES.get(head)
    if kind is None:
        try:  # a bare card is a discard
            return Action("discard", card=parse_card(words[0]))
        except ValueError:
            raise BadInput(f"unknown command {words[0]!r} (help lists the commands)") from None
    if kind == "pile":
        if view["phase"] != "first_upcard":
            return Action("draw_discard")
        if head == "p":
            raise BadInput("'p' could mean pile or pass here: type 'pile' or 'pass'")
        return Action("take_upcard")
    if kind not in ("discard", "knock", "gin"):
        return Action(kind)
    if len(words) < 2:
        if kind == "discard":
            raise BadInput("which card? for example 'd 7h'")
        return _best_finish(kind, view, choices)
    try:
        card = parse_card(words[1])
    except ValueError as error:
        raise BadInput(str(error)) from None
    if kind == "knock" and Action("gin", card=card) in {c.action for c in choices}:
        return Action("gin", card=card)  # knocking with no deadwood is gin
    return Action(kind, card=card)


def _best_finish(kind: str, view: View, choices: list[Choice]) -> Action:
    """'knock' or 'gin' without a card: the legal one leaving the least deadwood, or else the
    best try, so that the engine says why it fails (too much deadwood, not drawn yet...)."""
    for wanted in ("gin", "knock") if kind == "knock" else ("gin",):
        if offered := [c.action for c in choices if c.action.type == wanted]:
            return offered[0]  # the menu lists them by deadwood left
    after = _deadwood_after(view)
    throwable = [name for name in after if name != view["taken"]] or list(after)
    if not throwable:
        raise BadInput(f"you hold no card to {kind} with")
    return Action(kind, card=parse_card(min(throwable, key=after.__getitem__)))


# -- the screen ------------------------------------------------------------------------------


def _hand_terms(view: View) -> list[str]:
    """What is unusual about this hand: an Oklahoma knock limit, a doubled score."""
    limit, terms = view["knock_limit"], []
    if limit != 10:
        terms.append(f"knock limit {limit}" if limit else "gin only (no knocking)")
    if view["multiplier"] != 1:
        terms.append(f"spade upcard: scores x{view['multiplier']}")
    return terms


def _outcome(row: View) -> str:
    """The headline of a scored hand: "Bot knocks", "You knock, Bot undercuts", "You go gin"."""
    knocker, kind = row["knocker_seat"], row["kind"]
    if kind in ("gin", "big_gin"):
        return f"{WHO[knocker]} {_verb(knocker, 'go', 'goes')} {KIND_NAMES[kind]}"
    headline = _verb(knocker, "You knock", "Bot knocks")
    if kind == "undercut":
        headline += _verb(1 - knocker, ", you undercut", ", Bot undercuts")
    return headline


def _grid() -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", min_width=9)
    grid.add_column()
    return grid


class GinTerminal:
    """One match on one console; ``read`` is the line reader (``input`` in real use)."""

    def __init__(self, state: gin.GinState, console: Console, read: Callable[[str], str]):
        self.state, self.console, self.read = state, console, read
        self.fresh: str | None = None  # the card you just drew, highlighted in your hand

    def run(self) -> None:
        self.show_deal(self.state.view(HUMAN))
        while not self.state.is_over():
            if self.state.current_player() == BOT:
                self.play(gin_bot.choose(self.state.view(BOT)))
            else:
                self.human_turn()
        self.show_settlement(self.state.view(HUMAN))

    def play(self, action: Action) -> None:
        """Apply ``action`` (``IllegalAction`` leaves the state as it was) and narrate it."""
        for event in self.state.apply(action):
            self.narrate(event.view(HUMAN))

    def ask(self, prompt: str) -> str:
        text = self.read(prompt)
        if text.strip().lower() in ("q", "quit", "exit"):
            raise Quit
        return text

    def human_turn(self) -> None:
        view = self.state.view(HUMAN)
        if view["phase"] == "hand_over":
            while self.ask("Your deal: press Enter to deal ").strip().lower() not in (
                    "", "deal", "1"):
                self.console.print("  Press Enter to deal, or type quit.", style="red")
            self.play(Action("deal"))
            return
        self.show_table(view)
        choices = menu(view)
        self.show_menu(view, choices)
        while True:
            text = self.ask("move> ")
            if text.strip().lower() in ("h", "help", "?"):
                self.console.print(HELP)
                continue
            try:
                self.play(interpret(text, view, choices))
                return
            except (BadInput, IllegalAction) as error:
                self.console.print(Text(f"  ✗ {error}", style="red"))

    def narrate(self, event: View) -> None:
        kind, seat = event["type"], event["seat"]
        if seat == HUMAN and kind in NARRATION:
            self.fresh = event.get("card") if kind != "discard" else None
        if kind in NARRATION:
            before, _, after = NARRATION[kind][seat != HUMAN].partition("{card}")
            card = card_text(event["card"]) if _ else Text()
            self.console.print(Text.assemble("  ", before, card, after))
        elif kind == "hand_over":
            self.show_showdown(event)
            self.show_scorecard(self.state.view(HUMAN))
        elif kind == "deal":
            self.show_deal(self.state.view(HUMAN))

    # -- during a hand -------------------------------------------------------------------------

    def show_deal(self, view: View) -> None:
        self.fresh = None
        self.console.print()
        self.console.print(Text.assemble(
            (f"Hand {view['hand']}: ", "bold cyan"), _verb(view["dealer"], "You deal", "Bot deals"),
            "; the upcard is ", card_text(view["upcard"]), ".",
            *(f" {term.capitalize()}." for term in _hand_terms(view))))

    def show_table(self, view: View) -> None:
        title = [f"Hand {view['hand']}", f"{WHO[view['dealer']]} dealt", *_hand_terms(view)]
        scores, won, bot, pile = view["scores"], view["boxes"], view["hands"][BOT], view["discard"]
        grid = _grid()
        grid.add_row("Score", f"You {scores[HUMAN]} · Bot {scores[BOT]}   (playing to "
                              f"{view['target']}; hands won {won[HUMAN]} · {won[BOT]})")
        known = by_suit(bot["picked"])  # taken from the pile, so public
        grid.add_row("Bot", Text.assemble(_count(bot["count"], "card"),
                                          *((", known: ", cards_text(known)) if known else ())))
        grid.add_row("Pile", Text.assemble(
            *((card_text(pile[-1]), f"  ({_count(len(pile), 'card')})") if pile else ("empty",)),
            f"    Stock {_count(view['stock'], 'card')}"))
        melding = view["melding"]
        grid.add_row("Your hand", Text.assemble(
            hand_text(melding["melds"], melding["deadwood"], self.fresh),
            f"   deadwood {melding['points']}"))
        self.console.print(Rule(" · ".join(title), style="dim"))
        self.console.print(grid)

    def show_menu(self, view: View, choices: list[Choice]) -> None:
        finishing = any(c.action.type in ("knock", "gin", "big_gin") for c in choices)
        asks = {"first_upcard": "take the upcard or pass?", "draw": "draw a card.",
                "discard": "discard a card, or knock." if finishing else "discard a card.",
                "final_discard": "take the last discard to knock, or pass (void hand)."}
        self.console.print(Text(f"Your turn: {asks.get(view['phase'], '')}", style="bold"))
        numbered = [(Text.assemble((f"{i}) ", "bold"), c.label), c.action.type == "discard")
                    for i, c in enumerate(choices, 1)]
        others = [item for item, is_discard in numbered if not is_discard]
        discards = [item for item, is_discard in numbered if is_discard]
        if discards:  # the knocks are long: one a line
            for item in others:
                self.console.print(Text("  ").append(item))
            self.console.print("  discard:")
            self.console.print(Padding(Columns(discards, padding=(0, 2)), (0, 0, 0, 4)))
        else:
            self.console.print(Text("  ").append(Text("   ").join(others)))
        self.console.print("  (or type a command: s, pile, d 7h, knock 7h, help)", style="dim")

    # -- end of a hand and of the match -------------------------------------------------------

    def show_showdown(self, row: View) -> None:
        if row["kind"] == "void":
            self.console.print(Rule(f"Hand {row['hand']} is void", style="yellow"))
            self.console.print("  Nobody knocked before the stock ran down: no score. "
                               + _verb(row["dealer"], "You deal", "Bot deals") + " again.")
            return
        self.console.print(Rule(f"Hand {row['hand']}: {_outcome(row)}", style="yellow"))
        knocker, grid = row["knocker_seat"], _grid()
        for seat, role in ((knocker, "knocker"), (1 - knocker, "defender")):
            side = row[role]
            melds = hand_text([m.split() for m in side["melds"]], side["deadwood"].split())
            grid.add_row(f"{WHO[seat]} ({role})", Text.assemble(
                melds, f"   deadwood {side['points']}"))
        if row["layoffs"]:
            melds = row["knocker"]["melds"]
            grid.add_row("laid off", Text(", ").join(
                Text.assemble(card_text(x["card"]), " on ", cards_text(melds[x["meld"]].split()))
                for x in row["layoffs"]))
        self.console.print(grid)
        self.console.print("  " + self._score_line(row), style="bold")

    def _score_line(self, row: View) -> str:
        if row["winner"] is None:
            return "Equal deadwood: nobody scores."
        options = self.state.view(HUMAN)["options"]
        knocker, defender = row["knocker"]["points"], row["defender"]["points"]
        terms = {
            "knock": f"{defender} - {knocker}",
            "undercut": f"undercut: {knocker} - {defender} + {options['undercut_bonus']} bonus",
            "gin": f"{defender} + {options['gin_bonus']} gin bonus",
            "big_gin": f"{defender} + {options['big_gin_bonus']} big gin bonus",
        }[row["kind"]]
        doubled = f", x{row['multiplier']} for the spade upcard" if row["multiplier"] != 1 else ""
        winner = _verb(row["winner"], "You score", "Bot scores")
        return f"{winner} {row['points']} ({terms}{doubled})."

    def show_scorecard(self, view: View) -> None:
        table = Table(title="Scorecard", title_justify="left", box=None, padding=(0, 2))
        table.add_column("Hand", justify="right")
        table.add_column("Won by")
        table.add_column("How")
        for name in ("Points", "You", "Bot"):
            table.add_column(name, justify="right")
        for row in view["history"]:
            winner, totals = row["winner"], row["totals"]
            table.add_row(str(row["hand"]), "-" if winner is None else WHO[winner],
                          KIND_NAMES.get(row["kind"], row["kind"]),
                          "" if winner is None else f"+{row['points']}",
                          str(totals[HUMAN]), str(totals[BOT]))
        won = view["boxes"]
        table.add_row("", "hands won", "", "", str(won[HUMAN]), str(won[BOT]), style="dim")
        self.console.print(Padding(table, (1, 0, 0, 0)))
        self.console.print(f"  {match_length(view)}.", style="dim")

    def show_settlement(self, view: View) -> None:
        result, winner = view["result"], view["result"]["winner"]
        table = Table(title="Final settlement", title_justify="left", box=None, padding=(0, 2))
        table.add_column("")
        table.add_column("You", justify="right")
        table.add_column("Bot", justify="right")
        for name, values in settlement_rows(view):
            table.add_row(name, *(str(v) for v in values), style="bold" * (name == "total"))
        self.console.print()
        self.console.print(table)
        shutout = " It's a shutout!" if result["shutout"] else ""
        if winner is None:
            self.console.print("  The match is drawn.", style="bold")
            return
        self.console.print(f"  {_verb(winner, 'You win', 'Bot wins')} the match by "
                           f"{result['margin']}.{shutout}",
                           style="bold green" if winner == HUMAN else "bold red")


SHUTOUT_TEXT = {"double_hand_points": "hand points doubled",
                "double_game_bonus": "game bonus doubled", "double_total": "total doubled"}


def settlement_rows(view: View) -> list[tuple[str, list[int]]]:
    """The final settlement as rows of points per seat that add up to the engine's totals.

    The game bonus shows at its option's value and whatever the shutout rule doubled
    (hand points, the game bonus or the total) as a row of its own; the web client's
    settlement (web/games/gin/score.js) shows the same rows.

    >>> rows = settlement_rows({"options": {"game_bonus": 100, "box_bonus": 25,
    ...     "shutout": "double_hand_points"}, "result": {"winner": 1, "points": [0, 34],
    ...     "game_bonus": 100, "box_points": [0, 25], "totals": [0, 193]}})
    >>> rows[-2:]
    [('shutout (hand points doubled)', [0, 34]), ('total', [0, 193])]
    >>> all(sum(r[1][s] for r in rows[:-1]) == rows[-1][1][s] for s in (0, 1))
    True
    """
    result, options = view["result"], view["options"]
    winner = result["winner"]
    base = min(result["game_bonus"], options.get("game_bonus", result["game_bonus"]))
    rows: list[tuple[str, list[int]]] = [
        ("hand points", list(result["points"])),
        ("game bonus", [base * (seat == winner) for seat in (0, 1)]),
        (f"hands won x {options['box_bonus']}", list(result["box_points"]))]
    extra = [total - sum(values[seat] for _, values in rows)
             for seat, total in enumerate(result["totals"])]
    if any(extra):
        how = SHUTOUT_TEXT.get(options.get("shutout", ""))
        rows.append((f"shutout ({how})" if how else "shutout", extra))
    rows.append(("total", list(result["totals"])))
    return rows


def match_length(view: View) -> str:
    """"One hand" for an express match, else the number of deals or the target."""
    deals = view["options"].get("deals", 0)
    if deals == 1:
        return "One hand"
    return f"{deals} hands" if deals else f"Playing to {view['target']}"


def play_gin(options: Options, rng: Rng, console: Console | None = None,
             read: Callable[[str], str] | None = None) -> int:
    """Play one match of Gin Rummy (``options``: Gin's, as ``cardtable play`` parses them
    for the game's descriptor); the exit code is 0 at the end or on quit/EOF, 130 on
    Ctrl-C."""
    console = console or Console(highlight=False)
    state = gin.DESCRIPTOR.new_match(options, rng=rng)
    assert isinstance(state, gin.GinState), "the terminal draws Gin Rummy only"
    ui = GinTerminal(state, console, read or console.input)
    try:
        ui.run()
    except Quit:
        console.print("\nMatch abandoned. Bye!")
    except EOFError:
        console.print("\nEnd of input: match abandoned. Bye!")
    except KeyboardInterrupt:
        console.print("\nInterrupted: match abandoned. Bye!")
        return 130
    return 0


__all__ = ["GinTerminal", "interpret", "match_length", "menu", "play_gin", "settlement_rows"]
