"""The server's log: one format for every line (ours and uvicorn's), levels, timestamps, and
no flood when the same fault repeats a thousand times a second.

``CARDTABLE_LOG_FORMAT`` picks the format: ``text`` (the default; one line each, UTC time
to the millisecond, level, logger, process id, message) or ``json`` (one JSON object a
line, for a log shipper). ``CARDTABLE_LOG_LEVEL`` sets the level (default ``INFO``).

A database that goes away fails every table's next write at once: without care that is a
thousand identical lines a second, which hide the first (the one that says why) and fill
the disk. :class:`RepeatThrottle` lets the first line of a kind through, counts the
repeats for ``CARDTABLE_LOG_REPEATS`` seconds (default 60), and puts the count on
the next line of that kind after the window: "(and 941 more like it in the last 60 s)",
like the kernel's "callbacks suppressed". A kind is the logger, the level, the message's
template (its ``%s`` form, before the arguments go in) and the types of the exceptions
among its arguments: "could not log version %s: %r" with a ``TimeoutError`` is one kind,
with an ``OperationalError`` another.
"""

from __future__ import annotations

import json
import logging
import logging.config
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

FORMATS = ("text", "json")
DEFAULT_WINDOW = 60.0
# Loggers whose lines an operator reads: ours, and uvicorn's (start-up, errors; its access
# log stays off — a card room's requests are its players' business, not the log's).
UVICORN_LOGGERS = ("uvicorn", "uvicorn.error")


@dataclass(frozen=True)
class LogSettings:
    """How the log is written (from the environment: :meth:`from_env`)."""

    format: str = "text"
    level: str = "INFO"
    repeat_window: float = DEFAULT_WINDOW

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LogSettings:
        """``ValueError`` with a readable sentence for a value that cannot be used."""
        env = os.environ if env is None else env
        fmt = env.get("CARDTABLE_LOG_FORMAT", "text").strip().lower() or "text"
        if fmt not in FORMATS:
            raise ValueError(f"CARDTABLE_LOG_FORMAT must be one of {', '.join(FORMATS)}, "
                             f"not {fmt!r}")
        level = env.get("CARDTABLE_LOG_LEVEL", "INFO").strip().upper() or "INFO"
        if not isinstance(logging.getLevelName(level), int):
            raise ValueError(f"CARDTABLE_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, "
                             f"not {level!r}")
        text = env.get("CARDTABLE_LOG_REPEATS", "").strip()
        try:
            window = float(text) if text else DEFAULT_WINDOW
        except ValueError:
            window = -1
        if window < 0:
            raise ValueError("CARDTABLE_LOG_REPEATS must be a number of seconds, 0 "
                             "or more (0: every line is written)")
        return cls(fmt, level, window)


def _utc(created: float) -> str:
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created))
    return f"{seconds}.{int(created % 1 * 1000):03d}Z"


class TextFormatter(logging.Formatter):
    """``2026-11-29T07:01:02.345Z WARNING cardtable.table [4242] table ab12: ...``"""

    def format(self, record: logging.LogRecord) -> str:
        line = (f"{_utc(record.created)} {record.levelname} {record.name} "
                f"[{record.process}] {record.getMessage()}")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``ts``, ``level``, ``logger``, ``pid``, ``msg``, and
    ``exc`` (the traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        body: dict[str, Any] = {"ts": _utc(record.created), "level": record.levelname,
                                "logger": record.name, "pid": record.process,
                                "msg": record.getMessage()}
        if record.exc_info:
            body["exc"] = self.formatException(record.exc_info)
        return json.dumps(body, ensure_ascii=False)


class RepeatThrottle(logging.Filter):
    """Pass the first line of each kind in a window, count the rest (see the module)."""

    def __init__(self, window: float = DEFAULT_WINDOW, clock: Any = time.monotonic):
        super().__init__()
        self.window, self.clock = window, clock
        self._lock = threading.Lock()  # lines come from threads too (the lease keeper)
        self._seen: dict[tuple[Any, ...], list[float | int]] = {}  # kind -> [since, held]

    @staticmethod
    def kind(record: logging.LogRecord) -> tuple[Any, ...]:
        args = record.args if isinstance(record.args, tuple) else ()
        faults = tuple(type(a).__name__ for a in args if isinstance(a, BaseException))
        return record.name, record.levelno, str(record.msg), faults

    def filter(self, record: logging.LogRecord) -> bool:
        if self.window <= 0:
            return True
        kind, now = self.kind(record), self.clock()
        with self._lock:
            seen = self._seen.get(kind)
            if seen is not None and now - seen[0] < self.window:
                seen[1] += 1
                return False
            held = 0 if seen is None else int(seen[1])
            self._seen[kind] = [now, 0]
            if len(self._seen) > 10_000:  # kinds are templates: only a bug makes this many
                self._seen = {kind: [now, 0]}
        if held:
            # The message proper, then the count: the record is formatted once, here.
            record.msg = (f"{record.getMessage()} (and {held} more like it in the last "
                          f"{self.window:g} s)")
            record.args = None
        return True


def dict_config(settings: LogSettings) -> dict[str, Any]:
    """``logging.config.dictConfig``'s form of the log: uvicorn applies it (``log_config``)
    in the serving process and again in each ``--workers`` process."""
    formatter = JsonFormatter if settings.format == "json" else TextFormatter
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"cardtable": {"()": f"{__name__}.{formatter.__name__}"}},
        "filters": {"repeats": {"()": f"{__name__}.RepeatThrottle",
                                "window": settings.repeat_window}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr",
                                "formatter": "cardtable", "filters": ["repeats"]},
                     "nowhere": {"class": "logging.NullHandler"}},
        "root": {"handlers": ["stderr"], "level": settings.level},
        # uvicorn's lines come through the same handler; its access log stays off (a card
        # room's requests are its players' business, not the log's).
        "loggers": {**{name: {"handlers": [], "propagate": True} for name in UVICORN_LOGGERS},
                    "uvicorn.access": {"handlers": ["nowhere"], "propagate": False},
                    # Alembic narrates each migration step at INFO: its errors are enough.
                    "alembic": {"level": "WARNING"}},
    }


def configure(settings: LogSettings | None = None) -> None:
    """Apply :func:`dict_config` here (what uvicorn does when it starts)."""
    logging.config.dictConfig(dict_config(settings or LogSettings.from_env()))
