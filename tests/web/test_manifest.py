"""The table can be added to a phone's home screen (issue 14): a web app manifest with
icons, served with its type, that Chromium itself finds installable.

The icons are files in web/icons/ (drawn once from icon.svg and icon-maskable.svg in
Chromium); nothing is fetched from elsewhere.
"""

from __future__ import annotations

import struct
from pathlib import Path
from xml.etree import ElementTree

import httpx
from playwright.sync_api import sync_playwright

from browser_harness import CHROMIUM_ARGS, chromium_path

MANIFEST_TYPE = "application/manifest+json"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_names_every_icon_and_each_is_served_at_its_size(base_url: str) -> None:
    answer = httpx.get(f"{base_url}/manifest.webmanifest")
    assert answer.status_code == 200 and answer.headers["content-type"] == MANIFEST_TYPE
    manifest = answer.json()
    assert manifest["name"] and manifest["short_name"] == "cardtable"
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert manifest["theme_color"].startswith("#") and manifest["background_color"].startswith("#")
    purposes: dict[str, set[str]] = {}
    for icon in manifest["icons"]:
        assert icon["src"].startswith("/static/icons/"), "served by this server, never fetched"
        got = httpx.get(base_url + icon["src"])
        assert got.status_code == 200, icon["src"]
        assert got.headers["content-type"] == icon["type"], icon["src"]
        if icon["type"] == "image/png":
            width, height = png_size(got.content)
            assert f"{width}x{height}" == icon["sizes"], icon["src"]
        else:
            root = ElementTree.fromstring(got.content)
            assert root.tag.endswith("svg") and root.get("viewBox") == "0 0 512 512"
        purposes.setdefault(icon.get("purpose", "any"), set()).add(icon["sizes"])
    assert {"192x192", "512x512", "any"} <= purposes["any"]  # "any": the SVG
    assert "512x512" in purposes["maskable"]


def test_the_page_links_the_manifest_and_an_apple_touch_icon(base_url: str) -> None:
    page = httpx.get(f"{base_url}/").text
    touch = httpx.get(f"{base_url}/static/icons/apple-touch-icon.png")
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert 'href="/static/icons/apple-touch-icon.png"' in page
    assert touch.status_code == 200 and png_size(touch.content) == (180, 180)


def test_chromium_finds_the_app_installable(base_url: str, tmp_path: Path) -> None:
    # A persistent profile: Playwright's usual contexts are incognito, where nothing installs.
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = context.new_page()
            page.goto(f"{base_url}/")
            page.wait_for_selector("#play-computer")
            cdp = context.new_cdp_session(page)
            manifest = cdp.send("Page.getAppManifest")
            assert manifest["url"] == f"{base_url}/manifest.webmanifest"
            assert manifest["errors"] == [], manifest["errors"]
            assert manifest["manifest"]["display"] == "kStandalone"
            installable = cdp.send("Page.getInstallabilityErrors")
            assert installable["installabilityErrors"] == []
        finally:
            context.close()
