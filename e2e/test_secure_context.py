"""The app knows its context (issue 32): on a plain-http LAN address the browser has no service
worker, no wake lock and no crypto.randomUUID. The app says so where it matters (Settings, the
alarm), links to the server's /welcome page about HTTPS, and still writes songs there."""

import re
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from conftest import CHROMIUM, close, open_page, screenshot, sign_in
from test_bedside import QUICK_VOICE

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
NOTICE = "[data-secure-notice]"


@pytest.fixture(scope="module")
def lan_browser(playwright):
    """Chromium that finds reverie.test at 127.0.0.1: an address that is not loopback by name, as a
    LAN address is, so a page over plain http there is not a secure context."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", "--autoplay-policy=no-user-gesture-required", "--host-resolver-rules=MAP reverie.test 127.0.0.1"])
    yield browser
    browser.close()


def lan(server):
    """The server as a device on the LAN sees it: http://reverie.test:<port>."""
    return SimpleNamespace(url=server.url.replace("127.0.0.1", "reverie.test"))


def bedside(server, page):
    """Opens Bedside signed in, its content off (nothing plays) and no alarm set."""
    settings = {"contentMode": "off", "voice": QUICK_VOICE, "captions": True, "room": "rain", "rate": 1,
                "contentCompletedSuccessfully": False, "alarm": {"time": "07:00", "enabled": False, "days": []}}
    status = page.evaluate("""settings => fetch('/api/settings', {method: 'PATCH', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({bedside: settings})}).then(r => r.status)""", settings)  # from the page: only it finds reverie.test
    assert status == 200, status
    page.goto(server.url + "/bedside")
    expect(page.get_by_role("toolbar", name="Bedside")).to_be_visible()


def test_a_plain_http_address_says_what_is_missing_and_still_writes(server, lan_browser):
    page = open_page(lan_browser)
    site = lan(server)
    sign_in(site, page, "Settings")
    context = page.evaluate("({ secure: isSecureContext, worker: 'serviceWorker' in navigator,"
                            " wakeLock: 'wakeLock' in navigator, randomUUID: typeof crypto.randomUUID })")
    assert context == {"secure": False, "worker": False, "wakeLock": False, "randomUUID": "undefined"}, context

    # Settings says what this address cannot do, and where to set up HTTPS.
    notice = page.locator(NOTICE)
    expect(notice).to_have_count(1)
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("This address is not secure, so this browser can't install Reverie, open it offline, "
                                   "or keep the screen on for the alarm.")
    expect(notice.get_by_role("link", name="Set up HTTPS")).to_have_attribute("href", "/welcome")
    assert page.locator(".settings > *").nth(1).get_attribute("data-secure-notice") is not None, "the notice is not at the top"
    screenshot(page, "settings-not-secure")

    # Every id made on the device is a UUID here too (songs, meditation records, progress events).
    made = page.evaluate("import('/ids.js').then(({ uuid }) => [uuid(), uuid()])")
    assert all(UUID.match(value) for value in made) and made[0] != made[1], made

    # Write with sync off: a new song gets its id on this device.
    switch = page.get_by_label("Sync this device's songs with the server")
    switch.uncheck()
    expect(page.locator("[data-sync-done]")).to_contain_text("Sync is off")
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Write").click()
    expect(page.get_by_text("Sync is off on this device")).to_be_visible()
    page.get_by_role("button", name="New song").click()
    page.get_by_label("Title", exact=True).fill("Over Plain HTTP")
    page.get_by_role("textbox", name="Lyrics").fill("A line written on the LAN")
    expect(page.locator("[data-save]")).to_have_text("Saved on this device")
    song = page.url.rsplit("/", 1)[-1]
    assert UUID.match(song), page.url
    page.get_by_role("link", name="Back to your songs").click()
    expect(page.locator(".song-link", has_text="Over Plain HTTP")).to_be_visible()

    # Bedside's alarm: the screen may sleep, and why.
    bedside(site, page)
    page.get_by_role("button", name="Alarm").click()
    sheet = page.get_by_role("dialog", name="Alarm")
    alarm_notice = sheet.locator(NOTICE)
    expect(alarm_notice).to_have_text("This address is not secure, so this browser can't keep the screen on: "
                                      "it may sleep before the alarm rings. Set up HTTPS")
    expect(alarm_notice.get_by_role("link", name="Set up HTTPS")).to_have_attribute("href", "/welcome")
    screenshot(page, "bedside-alarm-not-secure")
    sheet.get_by_label("Time").fill("06:30")
    sheet.get_by_role("button", name="Save").click()
    expect(page.locator(".bs-alarm-line")).to_be_visible()
    expect(page.locator("#announcer")).to_contain_text("it may sleep before the alarm rings")
    close(page)


def test_a_secure_address_shows_no_notice(server, page):
    sign_in(server, page, "Settings")
    assert page.evaluate("isSecureContext") is True
    expect(page.locator(".settings .card").first).to_be_visible()  # drawn with the notice's place
    expect(page.locator(NOTICE)).to_have_count(0)
    bedside(server, page)
    page.get_by_role("button", name="Alarm").click()
    sheet = page.get_by_role("dialog", name="Alarm")
    expect(sheet.get_by_label("Alarm on")).to_be_visible()
    expect(sheet.locator(NOTICE)).to_have_count(0)


def test_the_service_worker_leaves_the_welcome_page_to_the_server(server, page):
    """/welcome is the server's page about HTTPS, not an app location the shell would route."""
    sign_in(server, page)
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    response = page.goto(server.url + "/welcome")
    assert response is not None and not response.from_service_worker, "the service worker answered /welcome with the app"
