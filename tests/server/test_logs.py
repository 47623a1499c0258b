"""The server's log (server/logs.py): settings, the two formats, and repeats throttled."""

from __future__ import annotations

import json
import logging
import re
import sqlite3

import pytest

from cardtable.server.config import ServerConfig
from cardtable.server.logs import (
    JsonFormatter,
    LogSettings,
    RepeatThrottle,
    TextFormatter,
    configure,
    dict_config,
)

TEXT_LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (\w+) ([\w.]+) \[\d+\] (.*)$")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def record(msg: str, *args: object, name: str = "cardtable.table",
           level: int = logging.WARNING) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, msg, args, None)


def test_settings_default_and_from_the_environment() -> None:
    assert LogSettings.from_env({}) == LogSettings("text", "INFO", 60.0)
    assert LogSettings.from_env({"CARDTABLE_LOG_FORMAT": "JSON", "CARDTABLE_LOG_LEVEL": "debug",
                                 "CARDTABLE_LOG_REPEATS": "0"}) == LogSettings("json", "DEBUG",
                                                                               0.0)


@pytest.mark.parametrize(("variable", "value"), [
    ("CARDTABLE_LOG_FORMAT", "xml"), ("CARDTABLE_LOG_LEVEL", "LOUD"),
    ("CARDTABLE_LOG_REPEATS", "-1"), ("CARDTABLE_LOG_REPEATS", "often")])
def test_a_bad_setting_names_its_variable(variable: str, value: str) -> None:
    with pytest.raises(ValueError, match=variable):
        LogSettings.from_env({variable: value})
    with pytest.raises(ValueError, match=variable):  # the server reads it with the rest
        ServerConfig.from_env(environ={variable: value})


def test_a_text_line_has_its_time_level_logger_and_process() -> None:
    line = TextFormatter().format(record("table %s: could not log version %s", "ab12", 7))
    match = TEXT_LINE.match(line)
    assert match is not None, line
    assert match.groups() == ("WARNING", "cardtable.table",
                              "table ab12: could not log version 7")


def test_a_json_line_is_one_object_with_the_traceback() -> None:
    try:
        raise sqlite3.OperationalError("database is locked")
    except sqlite3.OperationalError as error:
        failing = record("commit failed: %r", error)
        failing.exc_info = (type(error), error, error.__traceback__)
    body = json.loads(JsonFormatter().format(failing))
    assert body["level"] == "WARNING" and body["logger"] == "cardtable.table"
    assert body["msg"] == "commit failed: OperationalError('database is locked')"
    assert "Traceback" in body["exc"] and re.match(r"^\d{4}-\d\d-\d\dT.*Z$", body["ts"])


def test_repeats_are_counted_then_reported_once_the_window_is_over() -> None:
    clock = Clock()
    throttle = RepeatThrottle(60, clock=clock)
    assert throttle.filter(record("table %s: not saved", "a"))
    assert not any(throttle.filter(record("table %s: not saved", t)) for t in "bcdef")
    clock.now += 59
    assert not throttle.filter(record("table %s: not saved", "g"))
    clock.now += 2
    reported = record("table %s: not saved", "h")
    assert throttle.filter(reported)
    assert reported.getMessage() == "table h: not saved (and 6 more like it in the last 60 s)"
    next_one = record("table %s: not saved", "i")
    assert not throttle.filter(next_one)  # a new window began with the report


def test_kinds_differ_by_template_level_logger_and_fault() -> None:
    throttle = RepeatThrottle(60, clock=Clock())
    assert throttle.filter(record("failed: %r", TimeoutError()))
    assert throttle.filter(record("failed: %r", sqlite3.OperationalError("locked")))
    assert not throttle.filter(record("failed: %r", TimeoutError("again")))
    assert throttle.filter(record("failed: %r", TimeoutError(), level=logging.ERROR))
    assert throttle.filter(record("failed: %r", TimeoutError(), name="cardtable.cluster"))
    assert throttle.filter(record("other %r", TimeoutError()))


def test_a_window_of_zero_writes_every_line() -> None:
    throttle = RepeatThrottle(0, clock=Clock())
    assert all(throttle.filter(record("same %s", n)) for n in range(5))


def test_configured_uvicorns_lines_and_ours_come_through_one_handler(
        capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        configure(LogSettings("json", "INFO", 60))
        logging.getLogger("uvicorn.error").warning("uvicorn says %s", "hello")
        logging.getLogger("cardtable.registry").info("table %s left memory", "x1")
        logging.getLogger("cardtable.registry").info("table %s left memory", "x2")
        logging.getLogger("uvicorn.access").warning("GET / 200")  # the access log stays off
        err = capsys.readouterr().err
        lines = [json.loads(line) for line in err.splitlines()]
        assert [(line["logger"], line["msg"]) for line in lines] == [
            ("uvicorn.error", "uvicorn says hello"),
            ("cardtable.registry", "table x1 left memory")]
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])


def test_the_dict_config_names_importable_classes() -> None:
    config = dict_config(LogSettings("text", "WARNING", 5))
    assert config["formatters"]["cardtable"]["()"] == "cardtable.server.logs.TextFormatter"
    assert config["filters"]["repeats"] == {"()": "cardtable.server.logs.RepeatThrottle",
                                            "window": 5}
    assert config["root"]["level"] == "WARNING"
