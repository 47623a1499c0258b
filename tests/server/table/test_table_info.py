"""The table info of a stored table (the lobby at start-up) and of a live one."""

from __future__ import annotations

from cardtable.server.table.info import stored_info
from cardtable.store import SeatRecord, TableRecord


def test_a_stored_table_is_described_as_saved() -> None:
    record = TableRecord(table_id="t_1", code="ABCDEF", game="spades", options={"target": 300},
                         players=4, private=False, status="waiting", start_chance=[],
                         seats=[SeatRecord(0, "Ann", "human", "ab" * 32),
                                SeatRecord(1, None, "human", None),
                                SeatRecord(2, "Computer", "bot", None),
                                SeatRecord(3, None, "human", None)],
                         settings={"hints": False, "levels": ["normal", "normal", "hard",
                                                              "normal"]})
    info = stored_info(record).model_dump(mode="json")
    assert (info["table_id"], info["code"], info["game"]) == ("t_1", "ABCDEF", "spades")
    assert info["title"] == "Spades" and info["options"]["target"] == 300
    assert info["status"] == "waiting" and info["host"] == 0 and info["spectators"] == 0
    assert info["settings"]["hints"] is False and info["express"] is False
    assert [s["name"] for s in info["seats"]] == ["Ann", None, "Computer", None]
    # nobody is here yet but the computer
    assert [bool(s.get("connected")) for s in info["seats"]] == [False, False, True, False]
