"""Text a database can store: PostgreSQL's text holds no NUL character, and a lone UTF-16
surrogate is no character at all, so no encoding takes it. Neither can be typed; both come
from a JSON escape (``\\u0000``, ``\\ud800``) or a percent-escape (``%00``), and both are
refused where text comes in (HTTP: :func:`~.request_guards.storable_text`; sockets:
:func:`~.protocol.decode_json`), by the field's name, before a database sees them.
"""

from __future__ import annotations

import re
from typing import Any

JSON = Any
_SURROGATE = re.compile("[\ud800-\udfff]")


def unstorable(text: str) -> str | None:
    """Why ``text`` cannot be stored, or None.

    >>> unstorable("Ann") is None, unstorable("A\\x00nn")
    (True, 'holds a NUL character (\\\\u0000), which cannot be stored')
    >>> unstorable("A\\ud800")
    'holds a lone UTF-16 surrogate, which is no character'
    """
    if "\x00" in text:
        return "holds a NUL character (\\u0000), which cannot be stored"
    if not text.isascii() and _SURROGATE.search(text):
        return "holds a lone UTF-16 surrogate, which is no character"
    return None


def first_unstorable(value: JSON, where: str = "") -> tuple[str, str] | None:
    """The first string of a JSON value (keys too) that :func:`unstorable` refuses: its
    place, written as the 422 answers write a field (``options.target``, ``seats.0``),
    and why; None if every string can be stored.

    >>> first_unstorable({"name": "Ann", "options": {"seats": ["ok", "b\\x00"]}})
    ('options.seats.1', 'holds a NUL character (\\\\u0000), which cannot be stored')
    """
    if isinstance(value, str):
        why = unstorable(value)
        return None if why is None else (where or "body", why)
    items: list[tuple[str, JSON]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            place = f"{where}.{key}" if where else str(key)
            why = unstorable(key)
            if why is not None:
                return (where or "body", f"a key {why}")
            items.append((place, item))
    elif isinstance(value, list):
        items = [(f"{where}.{i}" if where else str(i), item) for i, item in enumerate(value)]
    for place, item in items:
        found = first_unstorable(item, place)
        if found is not None:
            return found
    return None
