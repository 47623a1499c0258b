"""Computer opponents.  A bot sees only ``state.view(seat)`` (and its ``"legal"`` list),
exactly what a human in that seat sees, so it cannot cheat by construction.

One package per game (``gin``, ``spades``, ``indian``, ``rummy``, ``rummy500``, ``romme``),
each with its ``normal`` and ``hard`` players (a descriptor's ``bot`` and ``hard_bot``);
``tablemelds`` holds the players the table-meld family shares.  Beside them, what every
game uses: ``levels`` (the computer levels), ``search`` (the expert), ``standing`` (what the
search compares), ``autoplay`` (a timed-out turn's move), ``arena`` and ``arena_report``
(bot-against-bot matches and their figures)."""
