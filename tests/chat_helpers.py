"""Chat over :class:`table_life_helpers.Player` sockets: say, hear, read the history."""

from __future__ import annotations

from table_life_helpers import Frame, Player


async def history(player: Player) -> list[Frame]:
    """The messages of the ``chat_history`` that follows the player's welcome."""
    frame = next((f for f in player.frames if f["t"] == "chat_history"), None)
    if frame is None:
        frame = await player.until(lambda f: f["t"] == "chat_history", "the chat history")
    messages: list[Frame] = frame["d"]["messages"]
    return messages


async def say(player: Player, text: str, *hearers: Player) -> Frame:
    """``player`` says ``text``; every hearer (and the speaker) gets it: the message."""
    await player.send("chat", {"text": text})
    for hearer in (player, *hearers):
        frame = await hearer.until(lambda f: f["t"] == "chat" and f["d"]["text"] == text,
                                   f"{text!r}")
    message: Frame = frame["d"]
    return message


async def heard_before(player: Player, marker: str) -> list[str]:
    """The chat ``player`` gets before his own ``marker`` line, said now: the table handles
    frames in order, so anything sent to him earlier comes before it."""
    start = len(player.frames)
    await say(player, marker)
    return [f["d"]["text"] for f in player.frames[start:] if f["t"] == "chat"
            and f["d"]["text"] != marker]
