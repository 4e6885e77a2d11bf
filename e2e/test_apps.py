"""Settings → Apps: a podcast app is connected with a password of its own, shown once with the
server and the steps; the password works for the app's protocol; Revoke waits out its Undo, Undo
keeps the app, and once the window has passed the password no longer works. An app that signs in
with Nextcloud's Login Flow v2 (AntennaPod's "Nextcloud" sync) is approved in Settings → Apps and
collects a password of its own. A read-later app (wallabag) is shown its client id and secret with
the password and its own steps, and signs in with them to wallabag's API."""

import base64
import json
import re
import shutil
import urllib.error
import urllib.parse
import urllib.request

from playwright.sync_api import expect

from conftest import OWNER, PASSWORD, close, controlled, expect_error, open_page, screenshot, settled, sign_in, wait_until

# The connected apps as the page's own fetch sees them (a revoke is sent only once Undo has passed).
APPS = "fetch('/api/apps', {credentials: 'same-origin'}).then((r) => r.json())"


def answer(url, data=None, headers=None):
    """The status and decoded JSON answer of one request as an app sends it (a POST when `data`,
    a form unless `headers` says otherwise); an error's body too, or None when it has none."""
    request = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data is not None else "GET")
    if data is not None and not request.has_header("Content-type"):
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        body = error.read()
        return error.code, json.loads(body) if body.strip().startswith((b"{", b"[")) else None


def subscriptions(server, username, password, path="/api/2/subscriptions/{username}.json"):
    """A podcast app asking for its subscriptions (gpodder.net's API v2, as AntennaPod does; or
    `path`, such as the simple API's)."""
    basic = base64.b64encode(f"{username}:{password}".encode()).decode()
    return answer(server + path.format(username=username), headers={"Authorization": f"Basic {basic}"})


def start_login_flow(server, agent):
    """An app starting Nextcloud's Login Flow v2, as AntennaPod does: `{"poll": {"token",
    "endpoint"}, "login"}`."""
    status, flow = answer(server.url + "/index.php/login/v2", data=b"", headers={"User-Agent": agent})
    assert status == 200, status
    return flow


def poll_login_flow(flow):
    """The app polling its flow (`token=…` as a form, as AntennaPod sends it)."""
    return answer(flow["poll"]["endpoint"], data=f"token={flow['poll']['token']}".encode())


def test_connect_a_podcast_app_then_revoke_it_with_undo(server, page):
    sign_in(server, page, "Settings")
    section = page.get_by_role("region", name="Apps", exact=True)
    apps = section.locator('[data-list="apps"]')
    deletes = []
    page.on("request", lambda request: deletes.append(request.url) if request.method == "DELETE" and "/api/apps/" in request.url else None)

    # Nothing connected yet; the podcast kind is picked, the read-later kind can be, Subsonic not yet.
    expect(apps.get_by_text("No apps connected yet.")).to_be_visible()
    expect(section.get_by_role("radio", name="Podcast app (gpodder)")).to_be_checked()
    expect(section.get_by_role("radio", name="Read-later app (wallabag)")).to_be_enabled()
    expect(section.get_by_role("radio", name=re.compile(r"^Music app \(Subsonic\)"))).to_be_disabled()
    expect(section.get_by_text("(coming)")).to_have_count(1)

    # A name is asked for, so the app is known later.
    section.get_by_role("button", name="Connect").click()
    expect(section.get_by_role("alert")).to_contain_text("Give the app a name")
    expect(section.get_by_label("Name", exact=True)).to_be_focused()

    # Connecting shows the server, the user name and the password, once, with the steps.
    section.get_by_label("Name", exact=True).fill("AntennaPod")
    section.get_by_role("button", name="Connect").click()
    box = section.locator("[data-app-secret]")
    expect(box).to_be_visible()
    expect(section.get_by_role("alert")).to_be_hidden()
    expect(box.get_by_text("Shown once: copy the password now.")).to_be_visible()
    expect(box.locator("[data-app-secret-value]")).to_have_text(re.compile(r"\S{8,}"))
    secret = box.locator("[data-app-secret-value]").inner_text()
    address = box.locator("[data-app-server]").inner_text()
    assert address == page.evaluate("location.origin")
    expect(box.locator("[data-app-username]")).to_have_text(OWNER)
    expect(box.get_by_role("button", name="Copy the app password")).to_be_visible()
    expect(box.get_by_text("Client ID", exact=True)).to_be_hidden()  # wallabag's only
    expect(box.get_by_role("button", name="Copy the client ID")).to_be_hidden()
    expect(box.get_by_role("button", name="Copy the client secret")).to_be_hidden()
    expect(box.get_by_role("heading", name="In wallabag")).to_be_hidden()
    steps = box.locator("ol:visible li")
    expect(steps).to_have_count(3)
    expect(steps.nth(0)).to_contain_text("AntennaPod")
    expect(steps.nth(0)).to_contain_text("Custom server")
    expect(steps.nth(1)).to_contain_text("Kasts")
    expect(steps.nth(2)).to_contain_text("gPodder")
    if shutil.which("qrencode"):  # the server draws the QR code with it
        expect(box.get_by_role("img", name=f"QR code of {address}")).to_be_visible()
        expect(box.get_by_text("Scan to type the server address")).to_be_visible()
    item = apps.locator("li", has_text="AntennaPod")
    expect(item).to_be_visible()
    expect(item).to_contain_text("Podcast app")
    expect(item).to_contain_text("connected today")
    expect(item).to_contain_text("last used never")
    expect(apps.get_by_text("No apps connected yet.")).to_have_count(0)

    section.evaluate("(apps) => apps.scrollIntoView({block: 'start'})")
    settled(page)
    screenshot(page, "settings-apps")
    box.evaluate("(box) => box.scrollIntoView({block: 'end'})")
    settled(page)
    screenshot(page, "settings-apps-steps")

    # The password works for the podcast protocol, under the person's name; a wrong one does not.
    assert subscriptions(address, OWNER, secret) == (200, [])
    assert subscriptions(address, OWNER, secret + "x")[0] == 401

    # Revoke hides the app at once and offers Undo; nothing is sent, and Undo brings it back.
    section.get_by_role("button", name="Revoke AntennaPod").click()
    expect(item).to_be_hidden()
    undo = section.get_by_role("button", name="Undo")
    expect(section.get_by_text("Revoked “AntennaPod”.")).to_be_visible()
    expect(undo).to_be_focused()
    expect(apps.get_by_text("No apps connected yet.")).to_be_visible()
    screenshot(page, "settings-apps-undo")
    undo.click()
    expect(item).to_be_visible()
    expect(undo).to_be_hidden()
    assert deletes == []
    assert [app["name"] for app in page.evaluate(APPS)] == ["AntennaPod"]
    assert subscriptions(address, OWNER, secret)[0] == 200

    # Revoked for good once the Undo window passes: the password stops working, and is not left
    # on the screen.
    section.get_by_role("button", name="Revoke AntennaPod").click()
    expect(item).to_be_hidden()
    wait_until(page, f"{APPS}.then((list) => list.length === 0)", message="the revoke was never sent")
    assert len(deletes) == 1
    expect(section.get_by_text("Revoked “AntennaPod”.")).to_be_hidden()
    expect(apps.get_by_text("No apps connected yet.")).to_be_visible()
    expect(box).to_be_hidden()
    assert subscriptions(address, OWNER, secret)[0] == 401

    # An app that has signed in says when, and what it did, the next time Settings opens.
    section.get_by_label("Name", exact=True).fill("gPodder on the laptop")
    section.get_by_role("button", name="Connect").click()
    expect(box).to_be_visible()
    expect(box.locator("[data-app-secret-value]")).not_to_have_text(secret)
    laptop = box.locator("[data-app-secret-value]").inner_text()
    assert subscriptions(address, OWNER, laptop, path="/subscriptions/{username}.json")[0] == 200
    page.reload()
    item = apps.locator("li", has_text="gPodder on the laptop")
    expect(item).to_contain_text("last used today — read subscriptions")
    expect(box).to_be_hidden()  # shown once


def test_an_app_signing_in_with_nextcloud_is_approved_in_settings(server, page, browser):
    # On a page the service worker controls, as on a phone where Reverie was opened before: the
    # app's login address must still reach the server, not the worker's copy of the app.
    controlled(server, page, "Settings")
    section = page.get_by_role("region", name="Apps", exact=True)
    apps = section.locator('[data-list="apps"]')
    card = section.locator("[data-app-connect]")  # a group named by its text, which changes

    # AntennaPod starts a flow, and polls in vain until the person approves it.
    flow = start_login_flow(server, "AntennaPod/3.5.0")
    assert flow["login"].startswith(server.url + "/index.php/login/v2/flow/")
    assert flow["poll"]["endpoint"] == server.url + "/index.php/login/v2/poll"
    assert poll_login_flow(flow)[0] == 404

    # It opens the login address in the browser, which lands on Settings → Apps, asking.
    page.goto(flow["login"])
    expect(page).to_have_url(re.compile(r"/settings\?connect=[A-Za-z0-9_-]{20,}$"))
    expect(section.get_by_role("group", name="“AntennaPod/3.5.0” asks to keep your podcasts in step with Reverie.")).to_be_visible()
    connect = card.get_by_role("button", name="Connect")
    expect(connect).to_be_focused()
    expect(card.get_by_role("button", name="Not now")).to_be_visible()
    expect(card).to_be_in_viewport()
    settled(page)
    screenshot(page, "settings-apps-connect")

    # Connect: the app is listed under its own name, and its next poll collects its password,
    # once, which signs in to Nextcloud's gpoddersync.
    connect.click()
    expect(card).to_contain_text("Connected “AntennaPod/3.5.0”. Go back to the app: it finishes signing in by itself.")
    expect(connect).to_be_hidden()
    expect(page).to_have_url(re.compile(r"/settings$"))
    item = apps.locator("li", has_text="AntennaPod/3.5.0")
    expect(item).to_be_visible()
    expect(item).to_contain_text("Podcast app")
    status, collected = poll_login_flow(flow)
    assert status == 200
    assert collected["loginName"] == OWNER
    assert collected["server"] == server.url
    assert re.fullmatch(r"[a-z0-9]{5}(-[a-z0-9]{5}){4}", collected["appPassword"])
    assert poll_login_flow(flow)[0] == 404  # given once
    status, changes = subscriptions(server.url, collected["loginName"], collected["appPassword"],
                                    path="/index.php/apps/gpoddersync/subscriptions")
    assert status == 200
    assert set(changes) == {"add", "remove", "timestamp"}

    # The same link again, once answered: Settings says so, and asks nothing.
    expect_error(page, 404, r"/api/apps/login-flows/[A-Za-z0-9_-]+$")
    page.goto(flow["login"])
    expect(card).to_contain_text("This request to connect an app has ended or was approved: start again in the app.")
    expect(card.get_by_role("button", name="Connect")).to_be_hidden()
    expect(page).to_have_url(re.compile(r"/settings$"))

    # Another flow, opened on a device where no one is signed in: signing in leads to the card;
    # not now: the card goes, the address forgets the request, and nothing is connected.
    other = start_login_flow(server, "AntennaPod/3.6.0")
    device = open_page(browser)
    expect_error(device, 401, r"/api/auth/me$")  # the app asks who is signed in before anyone is
    device.goto(other["login"])
    expect(device.get_by_role("heading", name="Sign in")).to_be_visible()
    device.get_by_label("Username").fill(OWNER)
    device.get_by_label("Password").fill(PASSWORD)
    device.get_by_role("button", name="Sign in").click()
    expect(device).to_have_url(re.compile(r"/settings\?connect=[A-Za-z0-9_-]{20,}$"))
    card = device.get_by_role("region", name="Apps", exact=True).locator("[data-app-connect]")
    expect(card).to_contain_text("“AntennaPod/3.6.0” asks to keep your podcasts in step")
    card.get_by_role("button", name="Not now").click()
    expect(card).to_be_hidden()
    expect(device).to_have_url(re.compile(r"/settings$"))
    apps = device.get_by_role("region", name="Apps", exact=True).locator('[data-list="apps"]')
    expect(apps.locator("li", has_text="AntennaPod/3.5.0")).to_be_visible()
    expect(apps.locator("li", has_text="AntennaPod/3.6.0")).to_have_count(0)
    assert poll_login_flow(other)[0] == 404
    close(device)


def wallabag_token(server, fields):
    """A wallabag app asking for a token (`POST /oauth/v2/token`, its fields as a form, as
    wallabag's apps send them)."""
    return answer(server + "/oauth/v2/token", data=urllib.parse.urlencode(fields).encode())


def wallabag_entries(server, token):
    """`GET /api/entries` with a wallabag access token."""
    return answer(server + "/api/entries", headers={"Authorization": f"Bearer {token}"})


def test_connect_a_read_later_app_with_its_client_id_and_secret(server, page):
    sign_in(server, page, "Settings")
    section = page.get_by_role("region", name="Apps", exact=True)
    apps = section.locator('[data-list="apps"]')
    expect(section.locator(".hint").first).to_contain_text("read-later app (wallabag")

    # Choosing wallabag, the name's example follows; Connect shows the client id and secret beside
    # the server, user name and password, each secret with its Copy, and wallabag's steps.
    section.get_by_role("radio", name="Read-later app (wallabag)").check()
    name = section.get_by_label("Name", exact=True)
    expect(name).to_have_attribute("placeholder", "wallabag on my iPhone")
    name.fill("wallabag on my iPhone")
    section.get_by_role("button", name="Connect").click()
    box = section.locator("[data-app-secret]")
    expect(box).to_be_visible()
    expect(box.get_by_text("Shown once: copy the password and client secret now.")).to_be_visible()
    address = box.locator("[data-app-server]").inner_text()
    assert address == page.evaluate("location.origin")
    expect(box.locator("[data-app-username]")).to_have_text(OWNER)
    expect(box.locator("[data-app-secret-value]")).to_have_text(re.compile(r"\S{8,}"))
    expect(box.get_by_text("Client ID", exact=True)).to_be_visible()
    expect(box.locator("[data-app-client-id]")).to_have_text(re.compile(r"^rvr-\S{8,}$"))
    expect(box.get_by_text("Client secret", exact=True)).to_be_visible()
    expect(box.locator("[data-app-client-secret]")).to_have_text(re.compile(r"\S{20,}"))
    for label in ["Copy the app password", "Copy the client ID", "Copy the client secret"]:
        expect(box.get_by_role("button", name=label)).to_be_visible()
    expect(box.get_by_role("heading", name="In your podcast app")).to_be_hidden()
    expect(box.get_by_role("heading", name="In wallabag")).to_be_visible()
    steps = box.locator("ol:visible li")
    expect(steps).to_have_count(3)
    expect(steps.nth(0)).to_contain_text("wallabag app (iOS, Android)")
    expect(steps.nth(0)).to_contain_text("client ID, client secret, user name and app password")
    expect(steps.nth(1)).to_contain_text("wallabagger")
    expect(steps.nth(2)).to_contain_text("saved to Listen")
    item = apps.locator("li", has_text="wallabag on my iPhone")
    expect(item).to_contain_text("Read-later app")
    expect(item).to_contain_text("last used never")

    # The box from its start: what to type, the client id and secret among it; then its end, the steps.
    box.evaluate("(box) => box.scrollIntoView({block: 'start'})")
    settled(page)
    expect(box.get_by_text("Shown once: copy the password and client secret now.")).to_be_in_viewport(ratio=1)
    expect(box.locator("[data-app-client-secret]")).to_be_in_viewport(ratio=1)
    screenshot(page, "settings-apps-wallabag")
    box.evaluate("(box) => box.scrollIntoView({block: 'end'})")
    settled(page)
    expect(box.get_by_role("heading", name="In wallabag")).to_be_in_viewport(ratio=1)
    expect(steps.nth(2)).to_be_in_viewport(ratio=1)
    screenshot(page, "settings-apps-wallabag-steps")

    # Copy puts the client id on the clipboard (or selects it where the page may not write there).
    box.get_by_role("button", name="Copy the client ID").click()
    expect(box.get_by_role("button", name="Copy the client ID")).to_have_text(re.compile(r"^(Copied|Selected: copy it)$"))

    # What the box showed signs the app in, as wallabag's apps do (the password grant, a form),
    # and the token reads the person's entries (none yet); a wrong app password does not.
    fields = {"grant_type": "password", "client_id": box.locator("[data-app-client-id]").inner_text(),
              "client_secret": box.locator("[data-app-client-secret]").inner_text(),
              "username": box.locator("[data-app-username]").inner_text(),
              "password": box.locator("[data-app-secret-value]").inner_text()}
    status, token = wallabag_token(address, fields)
    assert status == 200, token
    assert token["token_type"] == "bearer" and token["expires_in"] == 3600 and token["refresh_token"]
    status, entries = wallabag_entries(address, token["access_token"])
    assert status == 200, entries
    assert entries["total"] == 0 and entries["_embedded"]["items"] == []
    status, refused = wallabag_token(address, dict(fields, password=fields["password"] + "x"))
    assert (status, refused["error"]) == (400, "invalid_grant")
    page.reload()
    expect(item).to_contain_text("last used today — listed 0 entries")
