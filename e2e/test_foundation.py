"""A new person's first visit: setup, sign in, every area, the theme, sign out."""

import json
import re
import subprocess
import tempfile
import zipfile
from pathlib import Path
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import BINARY, expect_error, screenshot, settled, sign_in, start_server

AREAS = [("bedside", "Bedside"), ("meditate", "Meditate"), ("wind-down", "Wind Down"), ("listen", "Listen"), ("write", "Write")]
OWNER, PASSWORD = "ada", "correct horse battery"


@pytest.fixture
def fresh_server():
    """A server of this test's own: the first visit needs one nobody has set up."""
    instance = start_server()
    yield instance
    instance.stop()


def test_first_visit_to_sign_out(fresh_server, page):
    server = fresh_server
    expect_error(page, 401, r"/api/auth/me$")  # signed out: before setup, and after signing out
    expect_error(page, 401, r"/api/auth/login$")  # the wrong password below
    # A fresh server shows the setup screen, and nothing else.
    page.goto(server.url)
    expect(page.get_by_role("heading", name="Welcome to Reverie")).to_be_visible()
    expect(page.locator("#tabs")).to_be_hidden()
    screenshot(page, "setup")

    # Different passwords are caught before anything is sent.
    page.get_by_label("Username").fill(OWNER)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Repeat password").fill(PASSWORD + "!")
    page.get_by_role("button", name="Create owner account").click()
    expect(page.get_by_role("alert")).to_contain_text("different")

    page.get_by_label("Repeat password").fill(PASSWORD)
    page.get_by_role("button", name="Create owner account").click()
    expect(page.get_by_role("heading", name="Bedside")).to_be_visible()
    expect(page).to_have_url(server.url + "/bedside")

    # The session cookie is HttpOnly: scripts cannot read it.
    assert "reverie_session" not in page.evaluate("document.cookie")

    # Sign out, then a wrong password is refused with a clear message, the right one signs in.
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Settings").click()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.get_by_label("Username").fill(OWNER)
    page.get_by_label("Password").fill("not my password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("do not match")
    screenshot(page, "login")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Bedside")).to_be_visible()

    # Every area opens from the tab bar.
    for area_id, name in AREAS:
        page.get_by_role("link", name=name, exact=True).click()
        expect(page).to_have_url(f"{server.url}/{area_id}")
        expect(page.get_by_role("heading", name=name, level=1)).to_be_visible()
        if area_id == "meditate":
            expect(page.get_by_role("button", name="Start")).to_be_visible()
        elif area_id == "write":
            expect(page.get_by_role("button", name="New song")).to_be_visible()
        elif area_id == "wind-down":
            expect(page.get_by_text("Featured Tonight")).to_be_visible()
        elif area_id == "bedside":
            expect(page.get_by_role("toolbar", name="Bedside").get_by_role("button")).to_have_count(4)
        elif area_id == "listen":
            expect(page.get_by_role("tab", name="Books")).to_be_visible()
        else:
            raise AssertionError(f"no check for {area_id}")
        expect(page.get_by_role("link", name=name, exact=True)).to_have_attribute("aria-current", "page")
        screenshot(page, area_id)

    # A reload on an area's address opens that area.
    page.goto(server.url + "/listen")
    expect(page.get_by_role("heading", name="Listen", level=1)).to_be_visible()

    # The theme changes everywhere, is saved for the account, and survives a reload on a device
    # that has forgotten it locally.
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Settings").click()
    expect(page.get_by_role("radio", name="Retro Futuristic")).to_be_checked()
    screenshot(page, "settings")
    with page.expect_response(lambda r: r.url.endswith("/api/settings") and r.request.method == "PATCH"):
        page.get_by_text("Plain Light", exact=True).click()
    expect(page.locator("html")).to_have_attribute("data-theme", "PlainLight")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(247, 247, 249)", background
    page.evaluate("localStorage.clear()")
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "PlainLight")
    expect(page.get_by_role("radio", name="Plain Light")).to_be_checked()
    screenshot(page, "settings-plain-light")

    # Sign out: the session is over on the server too.
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    status = page.evaluate("fetch('/api/auth/me').then(r => r.status)")
    assert status == 401


# The default comes last: choosing the theme already chosen sends nothing, and the app is left as it began.
THEMES = [("PlainLight", "Plain Light"), ("PlainDark", "Plain Dark"), ("DirtyDishes", "Dirty Dishes"), ("RetroFuturistic", "Retro Futuristic")]


def test_every_theme_in_every_area(server, page):
    sign_in(server, page)
    backgrounds = set()
    for theme_id, theme_name in THEMES:
        page.get_by_role("navigation", name="Areas").get_by_role("link", name="Settings").click()
        with page.expect_response(lambda r: r.url.endswith("/api/settings") and r.request.method == "PATCH"):
            page.get_by_text(theme_name, exact=True).click()
        expect(page.locator("html")).to_have_attribute("data-theme", theme_id)
        for area_id, name in AREAS:
            page.get_by_role("link", name=name, exact=True).click()
            expect(page.get_by_role("heading", name=name, level=1)).to_be_visible()
            settled(page)  # the crossfade has finished before the colours are read and the picture taken
            # The area is drawn in the theme: its background is the theme's own.
            body = page.evaluate("getComputedStyle(document.body).backgroundColor")
            bg = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()")
            backgrounds.add(bg)
            assert body != "rgba(0, 0, 0, 0)", f"{name} in {theme_id} has no background"
            screenshot(page, f"{area_id}-{theme_id}")
    assert len(backgrounds) == len(THEMES), backgrounds


def test_tokens_and_people_from_settings(server, page):
    sign_in(server, page, "Settings")

    # A personal token is shown once and works as a bearer token.
    expect(page.get_by_text("No tokens yet")).to_be_visible()
    page.get_by_label("New token name").fill("my scripts")
    page.get_by_role("button", name="Create", exact=True).click()
    expect(page.locator("[data-secret-value]")).to_have_text(re.compile(r"^rvr_[A-Za-z0-9_-]{40,}$"))
    secret = page.locator("[data-secret-value]").inner_text()
    request = urllib.request.Request(server.url + "/api/auth/me", headers={"Authorization": f"Bearer {secret}"})
    with urllib.request.urlopen(request) as response:
        assert json.load(response)["user"]["username"] == OWNER

    # Revoking asks first; Cancel keeps it, Revoke ends it.
    page.get_by_role("button", name="Revoke").click()
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    expect(page.get_by_text("my scripts", exact=True)).to_be_visible()
    page.get_by_role("button", name="Revoke").click()
    page.get_by_role("dialog").get_by_role("button", name="Revoke").click()
    expect(page.get_by_text("No tokens yet")).to_be_visible()
    try:
        urllib.request.urlopen(request)
        raise AssertionError("a revoked token still works")
    except urllib.error.HTTPError as error:
        assert error.code == 401

    # The owner adds a person, who can then sign in in another browser.
    expect_error(page, 400, r"/api/users$")  # the short password below, refused with a reason
    page.get_by_label("Username").fill("grace")
    page.get_by_label("Password", exact=True).fill("short")
    page.get_by_role("button", name="Add person").click()
    expect(page.get_by_role("alert").filter(has_text="8 characters")).to_be_visible()
    page.get_by_label("Password", exact=True).fill("grace's own password")
    page.get_by_role("button", name="Add person").click()
    people = page.locator('[data-list="people"]')
    expect(people.get_by_text("grace", exact=True)).to_be_visible()
    screenshot(page, "settings-people")

    body = json.dumps({"username": "grace", "password": "grace's own password"}).encode()
    login = urllib.request.Request(server.url + "/api/auth/login", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(login) as response:
        assert response.status == 200

    # Removing asks first, then the account is gone.
    people.get_by_role("button", name="Remove").click()
    page.get_by_role("dialog").get_by_role("button", name="Remove").click()
    expect(people.get_by_text("grace", exact=True)).to_be_hidden()


def test_a_backup_from_settings_downloads_and_restores(server, page):
    """The owner makes a backup, follows it, downloads the zip, and `reverie restore` brings it back."""
    sign_in(server, page, "Settings")
    backups = page.locator('[data-list="backups"]')
    expect(backups.get_by_text("No backups yet")).to_be_visible()
    page.get_by_role("button", name="Make a backup").click()
    download_link = backups.get_by_role("link", name=re.compile("^Download the backup of"))
    # The backup is a job on the server, which can take minutes on a busy machine.
    expect(download_link).to_be_visible(timeout=180_000)
    expect(page.get_by_role("button", name="Make a backup")).to_be_enabled()
    expect(backups.locator(".meta")).to_contain_text(re.compile(r"\d+ files? · SQLite"))
    page.get_by_role("heading", name="Backups").scroll_into_view_if_needed()
    settled(page)
    screenshot(page, "settings-backups")

    with page.expect_download() as started:
        download_link.click()
    download = started.value
    assert re.fullmatch(r"reverie-backup-\d{4}-\d{2}-\d{2}-\d{4}\.zip", download.suggested_filename), download.suggested_filename
    with tempfile.TemporaryDirectory() as folder:
        saved = Path(folder) / download.suggested_filename
        download.save_as(saved)
        with zipfile.ZipFile(saved) as archive:
            assert {"manifest.json", "reverie.sqlite"} <= set(archive.namelist())
        # The real command restores the zip into an empty folder, checking every file.
        restored = Path(folder) / "restored"
        done = subprocess.run([str(BINARY), "restore", str(saved), "--data-dir", str(restored)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "Restored" in done.stdout and (restored / "reverie.sqlite").stat().st_size > 0

    # Removing asks first; Cancel keeps it.
    backups.get_by_role("button", name="Remove").click()
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    expect(download_link).to_be_visible()
    backups.get_by_role("button", name="Remove").click()
    page.get_by_role("dialog").get_by_role("button", name="Remove").click()
    expect(backups.get_by_text("No backups yet")).to_be_visible()
