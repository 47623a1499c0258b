"""Rummy 500's computer players: ``normal`` and ``hard`` are the table-meld family's players
(:mod:`cardtable.bots.tablemelds`) with Rummy 500's judgement: placed cards score, deep
pickups from the fanned pile, melds held back from the opponent's lay-offs."""
