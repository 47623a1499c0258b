"""Classic Rummy's computer players: ``normal`` and ``hard`` are the table-meld family's
players (:mod:`cardtable.bots.tablemelds`) with Rummy's card values, options and tuning."""
