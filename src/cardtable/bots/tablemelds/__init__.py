"""The computer players the table-meld family shares (Rummy, Rummy 500, Rommé): ``normal``
(every choice judged by the best arrangement of the hand it leaves) and ``hard`` (adds a
model of each opponent's hand, safe discards, going out first), built on ``evaluation``
(what a hand is worth: its best arrangement into melds), ``judgement`` (what a game values,
the seat's view parsed; each game subclasses it) and ``hard_hint`` (the hard player's
reasons in a line).  Each game's folder beside this one only adds its judgement."""
