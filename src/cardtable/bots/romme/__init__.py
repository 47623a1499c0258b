"""Rommé's computer players: ``normal`` and ``hard`` are the table-meld family's players
(:mod:`cardtable.bots.tablemelds`) with Rommé's judgement: building toward the first meld
of 40, joker exchanges, and (hard) a hidden first meld for a Hand-Rommé."""
