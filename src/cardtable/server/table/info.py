"""What the lobby and a table's page read about a table (``TableInfo``): one builder
for a live table and for a stored one nobody has loaded yet."""

from __future__ import annotations

from ...engine import get_game
from ...engine.api import Options
from ...store import TableRecord
from .. import protocol as p
from .presence import Presence, host_of
from .settings import TableSettings, is_express, settings_of
from .turns import now_ms


def table_info(record: TableRecord, options: Options, status: str,
               seats: list[p.SeatInfo], settings: TableSettings,
               spectators: int) -> p.TableInfo:
    return p.TableInfo(
        table_id=record.table_id, code=record.code, game=record.game,
        title=get_game(record.game).title, options=options.to_dict(),
        status=status,  # type: ignore[arg-type]
        seats=seats, settings=settings.to_json(), express=is_express(record.game, options),
        spectators=spectators, host=host_of(record.seats), now=now_ms())


def stored_info(record: TableRecord) -> p.TableInfo:
    """The table info of a stored table nobody has loaded yet (the lobby at start-up):
    nobody connected, nothing held, options and settings as saved."""
    settings = settings_of(record)
    options = get_game(record.game).options.from_dict(record.options)
    seats = Presence(len(record.seats)).seat_infos(record, settings, set())
    return table_info(record, options, record.status, seats, settings, 0)


__all__ = ["stored_info", "table_info"]
