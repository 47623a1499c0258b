"""Gin Rummy's computer players: ``normal`` (melds greedily, knocks at the first chance)
and ``hard`` (reads the opponent from his picks and declines, throws safe cards, knocks
on judgement), with the hard player's pieces beside it: ``hard_read`` (what it reads
from the view), ``hard_eval`` (a hand's deadwood now and after the next draw) and
``words`` (its reasons as the hints a player reads)."""
