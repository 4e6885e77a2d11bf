"""Plans: the paywall card on Plus themes and icons, the owner's grant, Bypass IAP in development mode."""

import json

import pytest
from playwright.sync_api import expect

from conftest import close, expect_error, open_page, screenshot, sign_in, start_server, wait_until

FREE_THEMES = ["RetroFuturistic", "PlainLight", "PlainDark", "DirtyDishes"]
PLUS_THEMES = ["VelvetHour", "PaperMoon"]


def settled(page):
    """Waits for the card's entrance to finish, so the screenshot shows it as a person sees it."""
    wait_until(page, "document.getAnimations().every(a => a.playState !== 'running')")


def open_settings(server, page):
    sign_in(server, page, "Settings")
    expect(page.locator("[data-plan-state]")).not_to_have_text("…")


def test_a_plus_theme_meets_a_tidy_paywall_card(server, page):
    open_settings(server, page)
    expect(page.locator("[data-plan-state]")).to_contain_text("Free")
    # In production mode there is no bypass switch.
    expect(page.get_by_label("Bypass IAP (Dev)", exact=False)).to_be_hidden()

    page.locator('.theme-option[data-preview="VelvetHour"]').click()
    card = page.get_by_role("dialog", name="Reverie Plus")
    expect(card).to_be_visible()
    expect(card.get_by_text("Velvet Hour is a Plus theme.")).to_be_visible()
    for name in ["Premium themes", "App icons", "Advanced rhymes", "AI co-writer", "Music integrations"]:
        expect(card.get_by_text(name, exact=True)).to_be_visible()
    expect(card.locator(".status.coming")).to_have_count(3)
    expect(card.get_by_text("Trial: none needed", exact=False)).to_be_visible()
    # The theme did not change behind the card.
    expect(page.locator("html")).to_have_attribute("data-theme", "RetroFuturistic")
    card.get_by_role("button", name="Subscribe").click()
    expect(card.locator("[data-how]")).to_contain_text("You own this server")
    card.get_by_role("button", name="Restore").click()
    expect(card.locator("[data-how]")).to_have_text("This account has no Plus on this server yet.")
    card.get_by_role("button", name="Not now").click()
    expect(card).to_be_hidden()
    expect(page.locator('input[name="theme"][value="RetroFuturistic"]')).to_be_checked()

    # A Plus icon meets the same card.
    page.locator(".icon-option", has_text="Lavender").click()
    expect(page.get_by_role("dialog", name="Reverie Plus").get_by_text("The Lavender icon comes with Plus.")).to_be_visible()
    page.get_by_role("dialog", name="Reverie Plus").get_by_role("button", name="Not now").click()

    # The card in each free theme.
    for theme in FREE_THEMES:
        page.evaluate(f"fetch('/api/settings', {{method: 'PATCH', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{theme: '{theme}'}})}})")
        page.reload()
        expect(page.locator("html")).to_have_attribute("data-theme", theme)
        page.get_by_role("button", name="See what Plus adds").click()
        expect(page.get_by_role("dialog", name="Reverie Plus")).to_be_visible()
        settled(page)
        screenshot(page, f"paywall-{theme}")
        page.get_by_role("dialog", name="Reverie Plus").get_by_role("button", name="Not now").click()


def test_a_plan_that_could_not_be_loaded_is_asked_again_when_it_is_needed(server, browser):
    page = open_page(browser, service_workers="block")
    try:
        sign_in(server, page)
        asked = []

        def unavailable_once(route):
            asked.append(route.request.url)
            if len(asked) == 1:
                route.fulfill(status=503, content_type="application/json",
                              body=json.dumps({"error": {"code": "unavailable", "message": "The server is busy."}}))
            else:
                route.continue_()

        expect_error(page, 503, r"/api/plan$")
        page.route("**/api/plan", unavailable_once)
        page.get_by_role("navigation", name="Areas").get_by_role("link", name="Settings", exact=True).click()
        expect(page.locator("[data-plan-state]")).to_have_text("Your plan cannot be loaded: The server is busy.")

        # A Plus theme asks again: the plan arrives, and a Free account meets the card (not a dead tap).
        chosen = page.evaluate("document.querySelector('input[name=\"theme\"]:checked').value")
        page.locator('.theme-option[data-preview="VelvetHour"]').click()
        card = page.get_by_role("dialog", name="Reverie Plus")
        expect(card.get_by_text("Velvet Hour is a Plus theme.")).to_be_visible()
        assert len(asked) == 2, asked
        expect(page.locator("[data-plan-state]")).to_contain_text("Free")
        expect(page.locator(f'input[name="theme"][value="{chosen}"]')).to_be_checked()
        card.get_by_role("button", name="Not now").click()
        # Known now: the next tap asks nobody.
        page.get_by_role("button", name="See what Plus adds").click()
        expect(card).to_be_visible()
        assert len(asked) == 2, asked
    finally:
        close(page)


def test_the_owner_grants_plus_and_the_locks_open(server, page):
    open_settings(server, page)
    page.get_by_role("button", name="Grant Plus to ada").click()
    expect(page.locator("[data-plan-state]")).to_contain_text("granted by ada")
    page.locator('.theme-option[data-preview="PaperMoon"]').click()
    expect(page.locator("html")).to_have_attribute("data-theme", "PaperMoon")
    expect(page.get_by_role("dialog", name="Reverie Plus")).to_have_count(0)

    # The icon for new installs: the favicon now, and the manifest a new install reads.
    page.locator(".icon-option", has_text="Sunrise").click()
    expect(page.locator('link[rel="icon"]')).to_have_attribute("href", "/icons/icon-sunrise.svg")
    expect(page.locator('link[rel="manifest"]')).to_have_attribute("href", "/manifest.webmanifest?icon=Sunrise")
    manifest = page.evaluate("fetch('/manifest.webmanifest?icon=Sunrise').then(r => r.json())")
    assert [icon["src"] for icon in manifest["icons"]] == ["/icons/icon-sunrise.svg", "/icons/icon-sunrise-192.png", "/icons/icon-sunrise-512.png"]
    assert manifest["id"] == "/" and manifest["name"] == "Reverie"
    expect(page.get_by_text("keeps its icon until you install it again")).to_be_visible()
    for path in ["/icons/icon-sunrise-192.png", "/icons/icon-lavender-512.png"]:
        assert page.evaluate(f"fetch('{path}').then(r => r.ok)"), path

    for theme in PLUS_THEMES:
        page.locator(f'.theme-option[data-preview="{theme}"]').click()
        expect(page.locator("html")).to_have_attribute("data-theme", theme)
        page.get_by_role("button", name="See what Plus adds").click()
        card = page.get_by_role("dialog", name="Reverie Plus")
        expect(card.locator(".status.included")).to_have_count(2)
        settled(page)
        screenshot(page, f"paywall-{theme}")
        card.get_by_role("button", name="Done").click()

    # Taken back: the Plus theme falls back to the default on the next load.
    page.get_by_role("button", name="Take back Plus from ada").click()
    expect(page.locator("[data-plan-state]")).to_contain_text("Free —")
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "RetroFuturistic")
    page.evaluate("fetch('/api/settings', {method: 'PATCH', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({icon: 'Classic'})})")


@pytest.fixture(scope="module")
def development_server():
    instance = start_server({"REVERIE_ENV": "development"})
    yield instance
    instance.stop()


def test_bypass_iap_in_development_mode(development_server, browser):
    page = open_page(browser)
    try:
        open_settings(development_server, page)
        bypass = page.get_by_label("Bypass IAP (Dev)", exact=False)
        expect(bypass).to_be_visible()
        bypass.check()
        expect(page.locator("[data-plan-state]")).to_contain_text("unlocked by Bypass IAP (Dev)")
        page.locator('.theme-option[data-preview="VelvetHour"]').click()
        expect(page.locator("html")).to_have_attribute("data-theme", "VelvetHour")
        screenshot(page, "settings-plan-bypass")
        bypass.uncheck()
        expect(page.locator("[data-plan-state]")).to_contain_text("Free")
    finally:
        close(page)
