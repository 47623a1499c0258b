"""Spades' computer players: ``normal`` (counted bids, the play partners expect) and
``hard`` (nil play, set and bag play, card reading), with the hard player's pieces
beside it: ``hard_read`` (cards out, voids, odds, the side's aim, from the view) and
``hard_play`` (which card to play, and why in a few words)."""
