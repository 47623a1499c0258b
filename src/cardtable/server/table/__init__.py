"""The table actor and its collaborators: one live table, its commands in order.

=============  ======================================================================
``actor``      :class:`Table`: the inbox, the dispatch, what clients see of the table
``commands``   the typed commands the actor takes (from sockets, HTTP, its timers)
``moves``      the match's changes: a move checked and applied, a deal, the log reread
``commit``     the journal: log before acknowledge, database faults, healing
``turns``      the turn clock, timeouts, computer moves and stand-ins
``presence``   seats, connections, the grace period, leaving
``talk``       chat, mutes, ending a match by agreement, the host's settings
``settings``   what the host decides beside the game's options
``hints``      a hint for the player to act, worked out from his view
``eviction``   leaving memory when idle, and coming back as it was
``fairness``   the provably fair shuffles: commitments and reveals
``history``    each finished match, into its players' history
``replay``     rebuilding a table's state from its event log
``info``       what the lobby and a table's page read about a table
=============  ======================================================================

Modules outside the package import from here; the modules inside import each other
directly (never this ``__init__``), so that no import runs in a circle.
"""

from .actor import Table
from .commands import HostBlocked
from .commit import SaveFailed
from .eviction import Resident
from .fairness import Drawn, Fairness
from .info import stored_info
from .presence import COMPUTER_NAME
from .replay import MOVES, NEW_MATCH, rebuild
from .settings import TableSettings, settings_of

__all__ = ["COMPUTER_NAME", "MOVES", "NEW_MATCH", "Drawn", "Fairness", "HostBlocked",
           "Resident", "SaveFailed", "Table", "TableSettings", "rebuild", "settings_of",
           "stored_info"]
