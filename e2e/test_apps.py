"""Settings → Apps: a podcast app is connected with a password of its own, shown once with the
server and the steps; the password works for the app's protocol; Revoke waits out its Undo, Undo
keeps the app, and once the window has passed the password no longer works."""

import base64
import json
import re
import shutil
import urllib.error
import urllib.request

from playwright.sync_api import expect

from conftest import OWNER, screenshot, settled, sign_in, wait_until

# The connected apps as the page's own fetch sees them (a revoke is sent only once Undo has passed).
APPS = "fetch('/api/apps', {credentials: 'same-origin'}).then((r) => r.json())"


def subscriptions(server, username, password, path="/api/2/subscriptions/{username}.json"):
    """The status and answer of a podcast app asking for its subscriptions (gpodder.net's API v2,
    as AntennaPod does; or `path`, such as the simple API's)."""
    basic = base64.b64encode(f"{username}:{password}".encode()).decode()
    request = urllib.request.Request(server + path.format(username=username), headers={"Authorization": f"Basic {basic}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, None


def test_connect_a_podcast_app_then_revoke_it_with_undo(server, page):
    sign_in(server, page, "Settings")
    section = page.get_by_role("region", name="Apps", exact=True)
    apps = section.locator('[data-list="apps"]')
    deletes = []
    page.on("request", lambda request: deletes.append(request.url) if request.method == "DELETE" and "/api/apps/" in request.url else None)

    # Nothing connected yet; only the podcast kind can be picked.
    expect(apps.get_by_text("No apps connected yet.")).to_be_visible()
    expect(section.get_by_role("radio", name="Podcast app (gpodder)")).to_be_checked()
    expect(section.get_by_role("radio", name=re.compile(r"^Music app \(Subsonic\)"))).to_be_disabled()
    expect(section.get_by_role("radio", name=re.compile(r"^wallabag"))).to_be_disabled()
    expect(section.get_by_text("(coming)")).to_have_count(2)

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
    steps = box.locator("ol li")
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
