"""Indian Rummy's computer players: ``normal`` (pure sequence first, jokers kept, shows at
once) and ``hard`` (draws counted by the copies still out, discards that do not feed the
next player, drops on judgement), each with the evaluation of a 13-card hand it plays by:
``normal_eval`` (how far a hand is from a show) and ``hard_eval`` (the same, aware of the
cards still out)."""
