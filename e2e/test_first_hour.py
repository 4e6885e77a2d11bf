"""The first hour, as a new user lives it: opening offline, passwords, large text on a small
phone, where focus goes, and the small edges (new songs, short sessions, delivery)."""

import gzip
import json
import re
import urllib.request
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import expect

from conftest import ROOT, PASSWORD, PHONE, close, expect_error, open_page, screenshot, sign_in, wait_until
from test_write import THEMES, contrast, rgb

pytestmark = pytest.mark.real_speech  # the first meditation waits for the narration Piper speaks

SMALL = {"width": 320, "height": 568}


def owner_page(server, browser, **options):
    page = open_page(browser, **options)
    sign_in(server, page)
    return page


def api(page, method, path, body=None):
    return page.evaluate("""([method, path, body]) => fetch(path, {method, headers: {'Content-Type': 'application/json'},
        body: body === null ? undefined : JSON.stringify(body)}).then(async r => ({status: r.status, body: await r.text()}))""",
                         [method, path, body])


# MARK: - Offline


def test_installed_app_opens_offline_as_the_last_person(server, browser):
    page = owner_page(server, browser)
    song = json.loads(api(page, "POST", "/api/compositions", {"title": "Plane Song", "lyrics": "Over the clouds"})["body"])
    wait_until(page, "navigator.serviceWorker.ready.then(() => navigator.serviceWorker.controller !== null)")
    # A song opens with its rhyme analysis, which waits for the rhymes index the fresh server is
    # still building (about 10 s in a debug build): this test is about offline, so it waits for warm.
    wait_until(page, "fetch('/api/health').then(r => r.json()).then(h => h.rhymes.state === 'ready')", timeout=120,
               message="the rhymes index never became ready")
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Write", exact=True).click()
    page.get_by_text("Plane Song").click()  # opened once here, so this device has a copy
    expect(page.get_by_role("textbox", name="Lyrics")).to_have_value("Over the clouds")
    page.get_by_role("link", name="Back to your songs").click()
    expect(page.get_by_text("Plane Song")).to_be_visible()
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Meditate", exact=True).click()
    expect(page.get_by_text("All sessions")).to_be_visible()

    # Go offline, close the app, open it again.
    context = page.context
    context.set_offline(True)
    page.close()
    page = context.new_page()
    page.on("pageerror", lambda error: pytest.fail(str(error)))
    page.goto(server.url + "/write")
    expect(page.get_by_role("heading", name="Write", level=1)).to_be_visible()
    note = page.locator("#offline-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("may be out of date")
    expect(page.get_by_text("Plane Song")).to_be_visible()
    expect(page.get_by_text("Loading…")).to_have_count(0)
    screenshot(page, "offline-write-list")

    # A song opens from this device's copy; an edit is kept for later.
    page.get_by_text("Plane Song").click()
    lyrics = page.get_by_role("textbox", name="Lyrics")
    expect(lyrics).to_have_value("Over the clouds")
    lyrics.press("End")
    lyrics.type(" and home")
    expect(page.get_by_text("Kept on this device; it goes to the server when it is back")).to_be_visible()

    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Meditate", exact=True).click()
    expect(page.get_by_text("All sessions")).to_be_visible()
    screenshot(page, "offline-meditate")

    # Back online: the note goes, the edit reaches the server.
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(note).to_be_hidden()
    wait_until(page, f"fetch('/api/compositions/{song['id']}').then(r => r.json()).then(s => s.lyrics === 'Over the clouds and home')",
               message="the offline edit never reached the server")
    context.close()


def test_signing_out_leaves_nothing_to_open_offline(server, browser):
    page = owner_page(server, browser)
    wait_until(page, "navigator.serviceWorker.ready.then(() => navigator.serviceWorker.controller !== null)")
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Settings", exact=True).click()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert page.evaluate("caches.has('reverie-api-v1')") is False
    page.context.set_offline(True)
    page.reload()
    expect(page.get_by_role("heading", name="Reverie cannot start")).to_be_visible()
    expect(page.get_by_text("sign in once while connected")).to_be_visible()
    page.context.close()


# MARK: - Passwords


def test_changing_your_password_signs_out_your_other_devices(server, browser):
    phone = owner_page(server, browser)
    laptop = owner_page(server, browser)
    phone.get_by_role("navigation", name="Areas").get_by_role("link", name="Settings", exact=True).click()
    phone.locator("summary", has_text="Change password").click()
    phone.get_by_label("Current password").fill("not the password")
    phone.get_by_label("New password", exact=True).fill("a brand new secret")
    phone.get_by_label("Repeat new password").fill("a brand new secret")
    expect_error(phone, 403, r"/api/auth/password$")
    phone.get_by_role("button", name="Change password").click()
    expect(phone.get_by_text("current password is not right")).to_be_visible()
    phone.get_by_label("Current password").fill(PASSWORD)
    phone.get_by_role("button", name="Change password").click()
    expect(phone.locator("[data-password-done]")).to_contain_text("Password changed.")
    screenshot(phone, "settings-password-changed")

    # The laptop's session is gone; the phone's is not.
    assert api(laptop, "GET", "/api/auth/me")["status"] == 401
    assert api(phone, "GET", "/api/auth/me")["status"] == 200
    # Put it back for the other tests in this module.
    assert api(phone, "POST", "/api/auth/password", {"currentPassword": "a brand new secret", "newPassword": PASSWORD})["status"] == 200
    close(phone, laptop)


def test_a_forgotten_password_gets_the_same_account_back(server, browser):
    owner = owner_page(server, browser)
    assert api(owner, "POST", "/api/users", {"username": "grace", "password": "graces first"})["status"] == 201
    grace = open_page(browser)
    expect_error(grace, 401, r"/api/auth/me$")
    grace.goto(server.url)
    grace.get_by_label("Username").fill("grace")
    grace.get_by_label("Password").fill("graces first")
    grace.get_by_role("button", name="Sign in").click()
    expect(grace.get_by_role("navigation", name="Areas")).to_be_visible()
    api(grace, "POST", "/api/compositions", {"title": "Grace's Song", "lyrics": "Still here"})
    grace.get_by_role("navigation", name="Areas").get_by_role("link", name="Settings", exact=True).click()
    grace.get_by_role("button", name="Sign out").click()
    expect(grace.get_by_text("Ask the owner of this server for a temporary one")).to_be_visible()

    # The owner gives a temporary password from Settings.
    owner.get_by_role("navigation", name="Areas").get_by_role("link", name="Settings", exact=True).click()
    owner.locator("li", has_text="grace").get_by_role("button", name="Temporary password").click()
    dialog = owner.get_by_role("dialog")
    dialog.get_by_label("Temporary password").fill("for now only")
    screenshot(owner, "settings-temporary-password")
    dialog.get_by_role("button", name="Set temporary password").click()
    expect(owner.get_by_text("Tell grace the temporary password")).to_be_visible()

    # Grace signs in with it, must choose her own, and finds her song.
    grace.get_by_label("Username").fill("grace")
    grace.get_by_label("Password").fill("for now only")
    grace.get_by_role("button", name="Sign in").click()
    expect(grace.get_by_role("heading", name="Choose a new password")).to_be_visible()
    expect(grace.get_by_role("navigation", name="Areas")).to_be_hidden()
    assert grace.evaluate("document.activeElement.id") == "choose-current"
    screenshot(grace, "choose-new-password")
    grace.get_by_label("Temporary password").fill("for now only")
    grace.get_by_label("New password", exact=True).fill("graces own words")
    grace.get_by_label("Repeat new password").fill("graces own words")
    grace.get_by_role("button", name="Save and continue").click()
    expect(grace.get_by_role("navigation", name="Areas")).to_be_visible()
    grace.get_by_role("navigation", name="Areas").get_by_role("link", name="Write", exact=True).click()
    expect(grace.get_by_text("Grace's Song")).to_be_visible()
    close(grace)
    close(owner)


# MARK: - Readable


def test_every_breathing_word_reads_on_the_circle_in_every_theme(server, browser):
    """The word over the breathing circle, at every point of its animation, in every theme: 4.5:1.

    What is behind the word is its own background where that is opaque; otherwise the circle
    (its gradient's two colours at its lowest and highest opacity) over the page."""
    page = owner_page(server, browser)
    ratios = {}
    for theme in THEMES:
        page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
        found = page.evaluate("""() => {
            const breath = document.createElement('div');
            breath.className = 'breath';
            breath.innerHTML = '<div class="breath-circle"></div><p class="breath-word">Inhale</p>';
            document.querySelector('main').append(breath);
            const word = getComputedStyle(breath.querySelector('.breath-word'));
            const root = getComputedStyle(document.documentElement);
            const result = {color: word.color, background: word.backgroundColor, opacity: word.opacity,
                            accent: root.getPropertyValue('--accent').trim(), accent2: root.getPropertyValue('--accent-2').trim(),
                            page: root.getPropertyValue('--bg').trim()};
            breath.remove();
            return result;
        }""")
        text = rgb(found["color"])
        assert float(found["opacity"]) == 1
        background = found["background"]
        alpha = 1.0 if background.startswith("rgb(") else float(background.split(",")[-1].strip(" )"))
        if alpha == 1.0:
            behind = [rgb(background)]
        else:
            behind = [blend(hex_rgb(colour), hex_rgb(found["page"]), opacity)
                      for colour in (found["accent"], found["accent2"]) for opacity in (0.6, 0.8, 1.0)]
        for index, colour in enumerate(behind):
            ratios[(theme, index)] = contrast(text, colour)
    low = {key: round(value, 2) for key, value in ratios.items() if value < 4.5}
    assert low == {}, low
    close(page)


def hex_rgb(value):
    value = value.lstrip("#")
    return tuple(int(value[i:i + 2], 16) for i in (0, 2, 4))


def blend(top, bottom, alpha):
    return tuple(alpha * t + (1 - alpha) * b for t, b in zip(top, bottom))


SCREENS = ["/meditate", "/meditate#active", "/write", "/write/new", "/settings", "/wind-down", "/bedside", "/listen", "/listen/playing", "/listen/librivox", "/listen/podcasts", "/listen/radio", "/listen/articles"]

LAYOUT_CHECK = """() => {
    const problems = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width + 1) problems.push(`page is ${document.documentElement.scrollWidth} px wide on a ${width} px screen`);
    const controls = [...document.querySelectorAll('main button, main a[href], main input:not([type=radio]), main textarea, main summary, main label:has(input[type=radio]), nav a')]
        .filter(el => el.offsetParent !== null && !el.closest('[hidden]') && !el.closest('dialog')
                && !(el.closest('details:not([open])') && el.tagName !== 'SUMMARY'));
    for (const el of controls) {
        el.scrollIntoView({block: 'center', inline: 'center'});
        const box = el.getBoundingClientRect();
        const name = (el.getAttribute('aria-label') || el.textContent || el.name || el.tagName).trim().slice(0, 30);
        if (box.right > width + 1 || box.left < -1) { problems.push(`${name}: sticks out sideways (${Math.round(box.left)}–${Math.round(box.right)})`); continue; }
        if (box.width < 8 || box.height < 8) { problems.push(`${name}: ${Math.round(box.width)}×${Math.round(box.height)} px`); continue; }
        const part = el.getClientRects()[0] || box;  // a link that wraps: the middle of its first line
        const x = Math.min(Math.max(part.left + part.width / 2, 0), width - 1);
        const y = Math.min(Math.max(part.top + part.height / 2, 0), innerHeight - 1);
        const hit = document.elementFromPoint(x, y);
        if (!hit || !(el === hit || el.contains(hit) || hit.contains(el) && hit.tagName === 'LABEL')) {
            problems.push(`${name}: a tap on its centre lands on ${hit ? (hit.closest('nav') ? 'the tab bar' : hit.tagName + '.' + hit.className) : 'nothing'}`);
        }
    }
    window.scrollTo(0, 0);
    return problems;
}"""


@pytest.mark.parametrize("viewport,large_text,label", [
    (PHONE, False, "390x844"), (SMALL, False, "320x568"), (PHONE, True, "390x844-200pct"), (SMALL, True, "320x568-200pct"),
])
def test_every_screen_fits_and_every_control_can_be_tapped(server, browser, viewport, large_text, label):
    problems = {}

    def check(page, name):
        found = page.evaluate(LAYOUT_CHECK)
        if found:
            problems[name] = found
        screenshot(page, f"layout-{label}-{name.strip('/').replace('/', '-').replace('#', '-') or 'home'}")

    # Before signing in: the sign-in (or, on a new server, the setup) screen.
    first = open_page(browser, viewport=viewport, large_text=large_text)
    expect_error(first, 401, r"/api/auth/me$")
    first.goto(server.url)
    expect(first.locator("main h1").first).to_be_visible()
    check(first, "/login")
    sign_in(server, first)
    page = first
    page.clock.install(time=datetime.now() - timedelta(minutes=10))

    # Someone with a temporary password sees only "Choose a new password".
    name = f"temp{label.replace('-', '').replace('x', '')}"
    assert api(page, "POST", "/api/users", {"username": name, "password": "first password"})["status"] == 201
    person = next(u for u in json.loads(api(page, "GET", "/api/users")["body"]) if u["username"] == name)
    assert api(page, "PUT", f"/api/users/{person['id']}/password", {"password": "temporary one"})["status"] == 200
    other = open_page(browser, viewport=viewport, large_text=large_text)
    expect_error(other, 401, r"/api/auth/me$")
    other.goto(server.url)
    other.get_by_label("Username").fill(name)
    other.get_by_label("Password").fill("temporary one")
    other.get_by_role("button", name="Sign in").click()
    expect(other.get_by_role("heading", name="Choose a new password")).to_be_visible()
    check(other, "/password")
    close(other)

    for path in SCREENS:
        if path == "/meditate#active":
            page.get_by_role("button", name="Start").click()
            expect(page.locator("[data-phase]")).to_have_text("Introduction", timeout=120_000)
            expect(page.get_by_role("button", name="Pause")).to_be_visible()
        else:
            page.goto(server.url + path)
            expect(page.locator("main h1").first).to_be_attached()
            expect(page.get_by_text("Loading…")).to_have_count(0)
            page.wait_for_load_state("networkidle")
        if path == "/settings":
            page.locator("summary", has_text="Change password").click()  # its form counts too
        check(page, path)
        if path == "/meditate#active":
            # A tap on Pause pauses, and the session stays on screen.
            page.get_by_role("button", name="Pause").click()
            expect(page.locator("[data-phase]")).to_have_text("Paused")
            assert page.url.endswith("/meditate")
            page.get_by_role("button", name="End").click()
            page.get_by_role("button", name="End Session").click()
            expect(page.get_by_role("heading", name="Session ended")).to_be_visible()
    assert problems == {}, json.dumps(problems, indent=1)
    close(page)


# MARK: - Focus


def test_focus_lands_on_the_heading_or_the_first_field_and_follows_actions(server, browser):
    page = open_page(browser, viewport={"width": 1280, "height": 800})
    expect_error(page, 401, r"/api/auth/me$")
    page.goto(server.url)
    expect(page.get_by_role("heading", name="Sign in").or_(page.get_by_role("heading", name="Welcome to Reverie"))).to_be_visible()
    assert page.evaluate("document.activeElement.name") == "username"
    sign_in(server, page)
    page.clock.install(time=datetime.now() - timedelta(minutes=10))
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Meditate", exact=True).click()
    expect(page.get_by_role("heading", name="Meditate", level=1)).to_be_focused()
    # No ring around a heading or the content area.
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "none"
    start = page.get_by_role("button", name="Start")
    start.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Pause")).to_be_focused(timeout=120_000)
    page.get_by_role("button", name="End").focus()
    page.keyboard.press("Enter")
    page.get_by_role("button", name="End Session").press("Enter")
    expect(page.get_by_role("button", name="Done")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Start")).to_be_focused()
    assert page.evaluate("document.activeElement.tagName") != "BODY"
    screenshot(page, "focus-desktop-meditate")
    close(page)


# MARK: - Smaller edges


def test_backing_out_of_a_new_song_leaves_no_untitled_row(server, browser):
    page = owner_page(server, browser)
    before = json.loads(api(page, "GET", "/api/compositions")["body"])
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Write", exact=True).click()
    page.get_by_role("button", name="New song").click()
    expect(page.get_by_role("textbox", name="Title")).to_be_focused()
    back = page.get_by_role("link", name="Back to your songs")
    box = back.bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44, box
    back.click()
    expect(page.get_by_role("heading", name="Write", level=1)).to_be_visible()
    assert json.loads(api(page, "GET", "/api/compositions")["body"]) == before
    assert page.locator("main .gear").count() == 0  # Settings is the tab bar's

    # The first keystroke makes the song, and the address becomes the song's.
    page.get_by_role("button", name="New song").click()
    page.get_by_role("textbox", name="Lyrics").type("A first line")
    expect(page.get_by_text("Saved", exact=True)).to_be_visible()
    assert "/write/new" not in page.url
    songs = json.loads(api(page, "GET", "/api/compositions")["body"])
    assert len(songs) == len(before) + 1
    close(page)


def test_a_session_ended_in_its_first_minute_says_it_does_not_count(server, browser):
    page = owner_page(server, browser)
    page.clock.install(time=datetime.now() - timedelta(minutes=10))
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Meditate", exact=True).click()
    expect(page.get_by_text("All sessions")).to_be_visible()
    before = json.loads(api(page, "GET", "/api/meditation-sessions/stats")["body"])
    page.get_by_role("button", name="Start").click()
    expect(page.locator("[data-phase]")).to_have_text("Introduction", timeout=120_000)
    page.clock.run_for(3_000)
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_text("Sessions shorter than a minute stay in your history but do not count")).to_be_visible()
    wait_until(page, "JSON.parse(localStorage.getItem('meditation-upload-queue') || '[]').length === 0")
    after = json.loads(api(page, "GET", "/api/meditation-sessions/stats")["body"])
    assert (after["totalSessions"], after["currentStreak"]) == (before["totalSessions"], before["currentStreak"])
    screenshot(page, "meditate-too-short")
    close(page)


def test_files_arrive_compressed_and_repeat_loads_come_from_the_device(server, browser):
    request = urllib.request.Request(server.url + "/app.js", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert response.headers["ETag"]
        body = gzip.decompress(response.read())
    assert b"serviceWorker" in body

    page = owner_page(server, browser)
    wait_until(page, "navigator.serviceWorker.ready.then(() => navigator.serviceWorker.controller !== null)")
    page.wait_for_load_state("networkidle")
    answered = {}
    page.on("response", lambda r: answered.setdefault(r.url.replace(server.url, ""), r.from_service_worker))
    # From now on the network's app.js says so when it runs: a repeat load that waited for the
    # network (rather than using the device's copy) would run that one.
    page.context.route("**/app.js", lambda route: route.fulfill(
        status=200, content_type="text/javascript", body=body.decode() + "\nwindow.fromNetwork = true;"))
    page.reload()
    expect(page.get_by_role("navigation", name="Areas")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert answered.get("/app.js") is True and answered.get("/styles.css") is True, answered
    assert page.evaluate("window.fromNetwork") is None, "the repeat load waited for the network's app.js"
    # The copy is refreshed behind: the load after that has the network's version.
    shell = re.search(r'const CACHE = "([^"]+)"', (ROOT / "Web" / "sw.js").read_text()).group(1)
    wait_until(page, f"caches.open({shell!r}).then(c => c.match('/app.js')).then(r => r.text()).then(t => t.includes('fromNetwork'))",
               message="the device's copy was never refreshed")
    close(page)
