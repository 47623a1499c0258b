"""Every game explains itself: each preset has a clear title and a one-line note, each option
a doc, and the descriptor a rules summary (issue 14). The create-table dialog and the
how-to page are generated from exactly these, so what is missing here is missing there."""

from __future__ import annotations

import pytest

from cardtable.engine import descriptors
from cardtable.engine.registry import Descriptor

GAMES = {d.name: d for d in descriptors()}


@pytest.mark.parametrize("name", list(GAMES))
def test_every_preset_has_a_title_and_a_note_and_nothing_else_has(name: str) -> None:
    options = GAMES[name].options
    presets = set(options.PRESETS)
    assert set(options.PRESET_NOTES) == presets, "a note for every preset, none without one"
    assert set(options.PRESET_TITLES) == presets, "a title for every preset, none without one"
    for preset in presets:
        note, title = options.PRESET_NOTES[preset], options.PRESET_TITLES[preset]
        assert 15 <= len(note) <= 160 and "\n" not in note, f"{preset}: one line, please: {note!r}"
        assert note[0].isupper() and note.endswith("."), f"{preset}: a sentence: {note!r}"
        assert title and len(title) <= 32, f"{preset}: a short title: {title!r}"
    titles = [options.PRESET_TITLES[p] for p in options.PRESETS]
    assert len(set(titles)) == len(titles), "two presets with one title cannot be told apart"


@pytest.mark.parametrize("name", list(GAMES))
def test_described_presets_follow_the_presets(name: str) -> None:
    options = GAMES[name].options
    described = options.describe_presets()
    assert [p["name"] for p in described] == list(options.PRESETS)
    for entry in described:
        assert entry["title"] == options.PRESET_TITLES[entry["name"]]
        assert entry["note"] == options.PRESET_NOTES[entry["name"]]
        assert entry["sets"] == dict(options.PRESETS[entry["name"]])
        # what a preset sets is what playing it gives
        assert options.preset(entry["name"]).to_dict() == {**options().to_dict(), **entry["sets"]}


@pytest.mark.parametrize("name", list(GAMES))
def test_every_option_has_a_doc_and_its_allowed_values(name: str) -> None:
    for option in GAMES[name].options.describe():
        assert option["doc"].strip(), f"option {option['name']!r} has no doc"
        assert (option["range"] is None) != (option["choices"] is None), option["name"]


@pytest.mark.parametrize("name", [d.name for d in descriptors() if d.board])
def test_games_played_in_the_browser_carry_a_rules_summary(name: str) -> None:
    text = GAMES[name].rules_text
    paragraphs = text.split("\n\n")
    assert 2 <= len(paragraphs) <= 8 and 400 <= len(text) <= 2500, f"{name}: a few paragraphs"
    assert any(p.startswith("- ") for p in paragraphs), f"{name}: the turn as a list"
    for paragraph in paragraphs:
        lines = paragraph.splitlines()
        # a list paragraph: items start with "- ", wrapped lines are indented under them
        if lines[0].startswith("- "):
            assert all(line.startswith(("- ", "  ")) for line in lines), paragraph
        else:
            assert not any(line.startswith("- ") for line in lines), paragraph


def test_the_rules_summary_is_read_without_its_source_indentation() -> None:
    spades = GAMES["spades"]
    assert spades.rules.startswith("\n    ") and not spades.rules_text.startswith((" ", "\n"))
    assert Descriptor(spades.state, "X", (4,), "bot").rules_text == ""
