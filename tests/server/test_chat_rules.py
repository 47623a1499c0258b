"""The rules of table chat (server/chat.py) and of the settings (server/table/settings.py)."""

from __future__ import annotations

import pytest

from cardtable.server.chat import (
    HISTORY,
    MAX_LENGTH,
    QUICK_PHRASES,
    RATE_MESSAGES,
    RATE_WINDOW,
    ChatRefused,
    ChatRoom,
    clean,
)
from cardtable.server.table.settings import TURN_TIMES, TableSettings


def refused(room: ChatRoom, text: str, *, sender: str = "seat:0", now: float = 0.0) -> str:
    with pytest.raises(ChatRefused) as error:
        room.post(sender, 0, "Ann", text, "players", now=now)
    assert error.value.message and str(error.value).startswith(error.value.code + ": ")
    code: str = error.value.code
    return code


# -- cleaning ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "shown"), [
    ("gg", "gg"),
    ("  good game  ", "good game"),
    ("good\x00 game\x07", "good game"),  # C0 controls go
    ("bell\x1b[31mred", "bell[31mred"),  # an escape sequence loses its ESC
    ("a\x7fb\x9bc", "abc"),  # DEL and C1 controls (here CSI) go
    ("abc\u202edcba", "abcdcba"),  # a bidi override could reorder what others see
    ("zero\u200bwidth", "zerowidth"),  # format characters hide text
    ("two\n lines\tand\r\ntabs", "two lines and tabs"),  # white space: one plain space
    ("<b>&amp;\"'</b>", "<b>&amp;\"'</b>"),  # markup is text: never escaped here
    ("Grüße 🂡 ♠ 你好", "Grüße 🂡 ♠ 你好"),
])
def test_clean_strips_control_and_format_characters_only(raw: str, shown: str) -> None:
    assert clean(raw) == shown


def test_a_message_is_stored_cleaned_with_increasing_ids() -> None:
    room = ChatRoom()
    first = room.post("seat:0", 0, "Ann", "  good\x00 game ", "players", now=1.5)
    second = room.post("spectator:7", None, "Zoe", "who wins?", "spectators", now=2.0)
    assert (first.id, first.text, first.seat, first.name, first.channel) == \
        (1, "good game", 0, "Ann", "players")
    assert second.id == 2 and second.seat is None and second.channel == "spectators"
    assert first.to_json() == {"id": 1, "channel": "players", "seat": 0, "name": "Ann",
                               "text": "good game", "at": 1500}
    assert list(room.history(("players", "spectators"))) == [first, second]


@pytest.mark.parametrize("text", ["", "   ", "\x00\x01\x1f", "\u200b\u202e", "\n\t \r"])
def test_nothing_left_is_chat_empty(text: str) -> None:
    room = ChatRoom()
    assert refused(room, text) == "chat_empty"
    assert not room.history(("players", "spectators"))


def test_length_limit_counts_the_cleaned_text() -> None:
    room = ChatRoom()
    assert room.post("seat:0", 0, "Ann", "x" * MAX_LENGTH, "players", now=0).text == \
        "x" * MAX_LENGTH
    assert refused(room, "y" * (MAX_LENGTH + 1), now=1) == "chat_too_long"
    # control characters do not count: they are gone before the length is measured
    text = room.post("seat:0", 0, "Ann", "z" * MAX_LENGTH + "\x00" * 20, "players", now=2).text
    assert text == "z" * MAX_LENGTH
    assert len(room.history(("players", "spectators"))) == 2


def test_sixth_message_within_the_window_is_chat_rate() -> None:
    room = ChatRoom()
    for i in range(RATE_MESSAGES):
        room.post("seat:0", 0, "Ann", f"message {i}", "players", now=float(i))
    assert refused(room, "one too many", now=RATE_WINDOW - 0.5) == "chat_rate"
    # another sender is not limited by Ann's messages
    room.post("seat:1", 1, "Bob", "my first", "players", now=RATE_WINDOW - 0.5)
    # once the oldest message is RATE_WINDOW seconds old, there is room for one more
    room.post("seat:0", 0, "Ann", "one more", "players", now=RATE_WINDOW)
    assert refused(room, "and another", now=RATE_WINDOW + 0.1) == "chat_rate"
    assert len(room.history(("players", "spectators"))) == RATE_MESSAGES + 2


def test_refused_messages_do_not_count_towards_the_rate() -> None:
    room = ChatRoom()
    room.post("seat:0", 0, "Ann", "gg", "players", now=0)
    for _ in range(10):
        assert refused(room, "gg", now=1) == "chat_repeat"
        assert refused(room, "", now=1) == "chat_empty"
    for i in range(RATE_MESSAGES - 1):
        room.post("seat:0", 0, "Ann", f"fine {i}", "players", now=2)
    assert refused(room, "sixth", now=3) == "chat_rate"


def test_repeating_your_previous_message_is_chat_repeat() -> None:
    room = ChatRoom()
    room.post("seat:0", 0, "Ann", "gg", "players", now=0)
    assert refused(room, "gg", now=1) == "chat_repeat"
    assert refused(room, "  GG\x00 ", now=1) == "chat_repeat"  # same once cleaned, any case
    room.post("seat:1", 1, "Bob", "gg", "players", now=1)  # another sender may say it
    room.post("seat:0", 0, "Ann", "nice hand", "players", now=2)
    room.post("seat:0", 0, "Ann", "gg", "players", now=3)  # not the previous one any more
    kept = room.history(("players", "spectators"))
    assert [m.text for m in kept] == ["gg", "gg", "nice hand", "gg"]


def test_history_keeps_the_last_fifty() -> None:
    room = ChatRoom()
    total = HISTORY + 10
    for i in range(total):  # many senders: nobody hits the rate limit
        room.post(f"spectator:{i}", None, f"S{i}", f"line {i}", "spectators", now=0)
    kept = room.history(("spectators",))
    assert HISTORY == 50 and len(kept) == HISTORY
    assert [m.id for m in kept] == list(range(total - HISTORY + 1, total + 1))


def test_each_room_keeps_its_own_fifty() -> None:
    room = ChatRoom()
    room.post("seat:0", 0, "Ann", "hello", "players", now=0)
    for i in range(HISTORY + 5):
        room.post(f"spectator:{i}", None, f"S{i}", f"line {i}", "spectators", now=0)
    assert [m.text for m in room.history(("players",))] == ["hello"]
    assert len(room.history(("players", "spectators"))) == HISTORY + 1


def test_quick_phrases_are_ordinary_chat_text() -> None:
    room = ChatRoom()
    assert "Good game" in QUICK_PHRASES
    for seat, phrase in enumerate(QUICK_PHRASES):
        assert room.post(f"seat:{seat}", seat, "P", phrase, "players", now=0).text == phrase


# -- table settings ---------------------------------------------------------------------------


def test_defaults_depend_on_whether_people_are_invited() -> None:
    with_friend = TableSettings.create(players=2, invited=True)
    alone = TableSettings.create(players=4, invited=False)
    assert with_friend.to_json() == {"turn_time": 30, "private": True, "spectators": True,
                                     "spectator_chat": True, "levels": ["normal", "normal"],
                                     "hints": True, "rated": False}
    assert alone.turn_time == 0 and alone.levels == ("normal",) * 4


def test_create_applies_what_the_creator_gave() -> None:
    settings = TableSettings.create(2, False, {"turn_time": 15, "private": False,
                                               "levels": ["easy", "normal"]})
    assert settings.to_json() == {"turn_time": 15, "private": False, "spectators": True,
                                  "spectator_chat": True, "levels": ["easy", "normal"],
                                  "hints": True, "rated": False}
    with pytest.raises(ValueError, match="turn_time"):
        TableSettings.create(2, True, {"turn_time": 45})


@pytest.mark.parametrize("turn_time", TURN_TIMES)
def test_every_turn_time_is_accepted(turn_time: int) -> None:
    assert TableSettings.create(2, True).merged({"turn_time": turn_time}, 2).turn_time == \
        turn_time


@pytest.mark.parametrize(("changes", "reason"), [
    ({"turn_time": 45}, "turn_time: Input should be 0, 15, 30 or 60"),
    ({"turn_time": "30"}, "turn_time"),
    ({"turn_time": True}, "turn_time"),
    ({"private": "yes"}, "private"),
    ({"spectators": 1}, "spectators"),
    ({"hints": "off"}, "hints"),
    ({"levels": ["easy"]}, "levels: give one level per seat (2)"),
    ({"levels": ["easy", "normal", "easy"]}, "levels: give one level per seat (2)"),
    ({"levels": ["master", "normal"]}, "levels"),
    ({"levels": "easy"}, "levels"),
    ({"colour": "red"}, "colour"),
])
def test_bad_changes_are_refused_with_the_reason(changes: dict[str, object],
                                                 reason: str) -> None:
    settings = TableSettings.create(2, True)
    with pytest.raises(ValueError) as error:
        settings.merged(changes, 2)
    assert str(error.value).startswith(reason)
    assert settings == TableSettings.create(2, True)  # unchanged (frozen)


def test_merged_changes_only_what_is_given() -> None:
    settings = TableSettings.create(3, True)
    changed = settings.merged({"spectator_chat": False, "levels": ["normal", "easy", "easy"]}, 3)
    assert changed.to_json() == {"turn_time": 30, "private": True, "spectators": True,
                                 "spectator_chat": False, "levels": ["normal", "easy", "easy"],
                                 "hints": True, "rated": False}
    assert settings.spectator_chat is True  # the original is untouched
    assert changed.merged({}, 3) == changed


def test_from_record_fills_in_what_old_records_lack() -> None:
    assert TableSettings.from_record({}, 2, invited=False).to_json() == {
        "turn_time": 0, "private": True, "spectators": True, "spectator_chat": True,
        "levels": ["normal", "normal"], "hints": True, "rated": False}
    # The defaults of a new table of its kind: invited people get a turn clock.
    assert TableSettings.from_record({}, 2, invited=True).turn_time == 30
    stored = {"turn_time": 60, "private": False, "spectators": False, "spectator_chat": False,
              "levels": ["normal", "easy"]}
    # A table stored before hints existed has them on.
    assert TableSettings.from_record(stored, 2, invited=True).to_json() == {
        **stored, "hints": True, "rated": False}
