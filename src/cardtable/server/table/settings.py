"""What the host of a table decides, beside the game's own options.

==================  =============================================  ===============================
setting             meaning                                        default
==================  =============================================  ===============================
``turn_time``       seconds per turn: 0 (off), 15, 30 or 60        30 with invited people, else 0
``private``         kept out of the public lobby                   true
``spectators``      people may watch                               true
``spectator_chat``  spectators may chat among themselves           true
``levels``          computer level per seat (one of ``LEVELS``)    "normal" everywhere
``hints``           players may ask for hints (``hints``)          true
``rated``           the match counts in the ratings (chosen when   false
                    the table is made; ``history``)
==================  =============================================  ===============================

A computer level is one of ``cardtable.bots.levels.LEVELS``; that tuple is the only list
of them (the browser reads it from ``GET /api/games``).

>>> TableSettings.create(players=2, invited=True).turn_time
30
>>> TableSettings.create(players=2, invited=False).merged({"turn_time": 45}, players=2)
Traceback (most recent call last):
...
ValueError: turn_time: Input should be 0, 15, 30 or 60
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from ...bots.levels import LEVELS
from ...engine import get_game
from ...engine.api import Options
from ...store import TableRecord

TURN_TIMES = (0, 15, 30, 60)
DEFAULT_LEVEL = "normal"


class TableSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    turn_time: Literal[0, 15, 30, 60] = 0
    private: bool = True
    spectators: bool = True
    spectator_chat: bool = True
    levels: tuple[str, ...] = ()
    hints: bool = True
    rated: bool = False

    @field_validator("levels")
    @classmethod
    def _known_levels(cls, levels: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [level for level in levels if level not in LEVELS]
        if unknown:
            raise ValueError(f"unknown computer level {unknown[0][:16]!r}; levels: "
                             f"{', '.join(LEVELS)}")
        return levels

    @classmethod
    def create(cls, players: int, invited: bool, given: dict[str, Any] | None = None
               ) -> TableSettings:
        """The settings of a new table: defaults for its kind, then what the creator gave."""
        base = cls(turn_time=30 if invited else 0, levels=(DEFAULT_LEVEL,) * players)
        return base.merged(given or {}, players)

    @classmethod
    def from_record(cls, data: dict[str, Any], players: int, invited: bool) -> TableSettings:
        """Settings as stored; what a table from before settings existed lacks gets the
        defaults a new table of its kind would get."""
        defaults = cls.create(players, invited).to_json()
        return cls.model_validate({**defaults, **data, "levels": tuple(
            data.get("levels") or defaults["levels"])}, strict=False)

    def merged(self, changes: dict[str, Any], players: int) -> TableSettings:
        """These settings with ``changes`` applied; ValueError with the reason if bad."""
        data = self.model_dump() | changes
        if isinstance(data.get("levels"), list):
            data["levels"] = tuple(data["levels"])
        try:
            settings = type(self).model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "settings"
            message = first["msg"].removeprefix("Value error, ")
            if where == "turn_time":
                message = "Input should be " + ", ".join(map(str, TURN_TIMES[:-1])) + \
                    f" or {TURN_TIMES[-1]}"
            raise ValueError(f"{where}: {message}") from None
        if len(settings.levels) != players:
            raise ValueError(f"levels: give one level per seat ({players})")
        return settings

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump()
        data["levels"] = list(self.levels)
        return data


def settings_of(record: TableRecord) -> TableSettings:
    """The table's settings (its row's ``private`` column counts for old rows without)."""
    invited = any(s.kind == "human" for s in record.seats[1:])
    return TableSettings.from_record({"private": record.private, **record.settings},
                                     record.players, invited)


def is_express(game: str, options: Options) -> bool:
    """The options are the game's one-hand "express" options (``Options.EXPRESS``)."""
    express = get_game(game).options.EXPRESS
    return bool(express) and all(getattr(options, key, None) == value
                                 for key, value in express.items())
