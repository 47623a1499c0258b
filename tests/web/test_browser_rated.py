"""A rated Gin match between two registered players in two browsers (issue 17, items 3-5),
real Chromium against a real `cardtable serve`: the table says it is rated, both play by
clicks to the end, both ratings move, each profile shows its rating (with its graph) and
the rated match, and the leaderboard says where each stands. The server trusts
127.0.0.1 as a proxy and each browser comes from an address of its own (a rated table
takes one player per address). Screenshots: artifacts/screenshots/rated-*.png."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from browser_harness import (
    GinPlayer,
    WebServer,
    rated_gin_table,
    running_server,
    screenshot,
    screenshot_sizes,
    whose_turn,
)


@pytest.fixture(scope="module")
def rated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    with running_server(tmp_path_factory.mktemp("rated"),
                        CARDTABLE_TRUSTED_PROXIES="127.0.0.1") as server:
        yield server


def test_a_rated_match_in_two_browsers(browser: Browser, rated_server: WebServer) -> None:
    base = rated_server.base_url
    with rated_gin_table(browser, rated_server) as table:
        ann, bob, pages = table.ann, table.bob, [table.ann, table.bob]
        screenshot(ann, "rated-table")

        players = {"ann": GinPlayer(ann), "bob": GinPlayer(bob)}
        for _ in range(400):
            mover = whose_turn({name: p.page for name, p in players.items()}, ".gin")
            if mover is None:
                break
            players[mover].play_turn()
        else:
            raise AssertionError("the rated match did not end")
        for page in pages:  # the hand is over on both pages
            page.wait_for_selector(".gin[data-mode=hand-over]")

        standings = []
        for page in pages:
            me = page.request.get(f"{base}/api/me").json()
            page.goto(f"{base}/p/{me['player_id']}")
            page.wait_for_selector('#ratings .rating-row[data-game="gin"] .rating-value')
            standings.append(page.inner_text('#ratings .rating-row[data-game="gin"] .rating-value'))
            assert page.locator("#match-list .match-row .rated-tag").count() == 1
        assert all(s.endswith("?") for s in standings)  # provisional: one rated match
        # Both moved from where a new player starts (mu - 3 sigma = 0): one won and one
        # lost, apart, the winner above; or the one deal was drawn (a void hand, equal
        # deadwood), alike.
        values = [float(s.rstrip("?")) for s in standings]
        match = page.request.get(f"{base}/api/players/{me['player_id']}").json()["recent"][0]
        winners = [s["seat"] for s in match["seats"] if s["won"]]
        seat_of = [grant["seat"] for grant in table.grants]  # Ann's page, Bob's page
        if winners:
            assert len(winners) == 1, match
            won = seat_of.index(winners[0])
            assert values[won] > values[1 - won], (standings, match)
        else:
            assert values[0] == values[1] > 0, (standings, match)
        screenshot_sizes(ann, "rated-profile")
        # The rated match's replay steps through it, hands face up, its deals proved.
        ann.click("#match-list .match-row .replay-link")
        ann.wait_for_selector('#replay-fair[data-fair="ok"]')
        ann.click("#replay-forward")
        assert ann.inner_text("#replay-move").startswith("Move 1 of")
        assert ann.locator('.replay-seat[data-seat="1"] .card').count() >= 10  # Bob's, face up
        ann.go_back()
        ann.wait_for_selector('#ratings .rating-row[data-game="gin"] a')
        ann.click('#ratings .rating-row[data-game="gin"] a')
        ann.wait_for_selector("#board-you")
        assert "more rated matches to be listed" in ann.inner_text("#board-you")
        assert ann.locator("#board-empty").count() == 1
        screenshot(ann, "rated-leaderboard")
        assert table.problems == []
