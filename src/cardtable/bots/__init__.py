"""Computer opponents.  A bot sees only ``state.view(seat)`` (and its ``"legal"`` list),
exactly what a human in that seat sees, so it cannot cheat by construction."""
