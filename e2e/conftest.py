"""Browser-test fixtures: a fresh Reverie server per test module, Chromium from Debian at 390×844,
and a Chromium whose sound is recorded (e2e/listening.py)."""

import os
import re
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

import listening

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from reverie_process import ReverieProcess  # noqa: E402  (the one way scripts and tests start a server)

ARTIFACTS = ROOT / "e2e" / "artifacts"
BINARY = Path(os.environ.get("REVERIE_BINARY", ROOT / ".build" / "debug" / "reverie"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
PHONE = {"width": 390, "height": 844}

# Every expect() waits for its condition; on a machine busy with a build or a render a page can
# take longer than Playwright's 5 s to show what it will show, and a shared 2-core machine can
# stall for most of a minute, so the limit is a minute. Nothing waits longer than its condition
# needs: the limit only decides how long a broken feature takes to fail, so a slow machine is slow, not red.
PATIENCE = 60  # seconds: the default deadline of every wait on a condition in these tests
expect.set_options(timeout=PATIENCE * 1000)


def pytest_configure(config):
    config.addinivalue_line("markers", "real_speech: the file's tests wait for the real Piper voice (minutes on a "
                                       "fresh checkout); such files run first")


def pytest_collection_modifyitems(config, items):
    """The files marked `real_speech` first, then the rest, each in its own order. With xdist
    (`--dist loadfile --no-loadscope-reorder`, as scripts/test.sh runs them) a worker takes the
    next file in this order when it is nearly done, so the slow files start at once, one per
    worker, instead of landing on one worker at the end. Every test still runs, once."""
    items.sort(key=lambda item: 0 if item.get_closest_marker("real_speech") else 1)  # a stable sort


def start_server(environment=None, **options):
    """A running `reverie serve` on a free port with its own empty data directory (`options`:
    ReverieProcess's, e.g. shared_sleep_cache=False)."""
    return ReverieProcess(BINARY, prefix="reverie-e2e-", environment=environment, **options)


@pytest.fixture(scope="module")
def server():
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is missing: run `swift build` first (make test does).")
    instance = start_server()
    yield instance
    instance.stop()


@pytest.fixture(scope="session")
def playwright():
    """One Playwright per worker: the sync API cannot run two at once in a thread."""
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright):
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def audio_sink():
    """This worker's PulseAudio null sink, started by the run (e2e/listening.py): `record()` it."""
    sink = listening.AudioSink().start()
    yield sink
    sink.stop()


@pytest.fixture(scope="session")
def listening_browser(playwright, audio_sink):
    """Chromium that plays into `audio_sink` (unmuted), for tests that assert what is heard.

    Its audio output asks for 100 ms at a time, not Chromium's default of about 10 ms: on this
    2-core machine under a load of ~19, the default left gaps of 10–500 ms in 4 of 5 recordings of
    a 4 s tone, 4800 frames in 1 of 11. What is heard is then ~0.1 s later, the same throughout."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required",
                                                                         "--audio-buffer-size=4800"],
                                         ignore_default_args=["--mute-audio"], env={**os.environ, "PULSE_SERVER": audio_sink.server})
    yield browser
    browser.close()


def open_page(browser, viewport=PHONE, large_text=False, service_workers="allow", iphone=False, tap_rule=False):
    """A phone-sized page in a context of its own (a device of its own: cookies, storage,
    IndexedDB) that records console errors and uncaught exceptions in `page.problems`.

    `large_text` sets the browser's text size to 200% (32 px), as a person does in their phone's
    settings: rem units and em media queries both follow it. `service_workers="block"` keeps the
    app's service worker out, so `page.route` sees every request (it cannot see those the
    worker answers). `iphone` makes media elements ignore `volume` (getter 1), as iOS does;
    `tap_rule` lets an element start playing only inside a tap, or once it has (listening.IPHONE_TAP_RULE).
    Every page gets the lock gate (listening.LOCK_GATE), so a test can `lock(page)` it."""
    context = browser.new_context(viewport=viewport, device_scale_factor=1, service_workers=service_workers)
    page = context.new_page()
    page.add_init_script(listening.LOCK_GATE)
    page.iphone = iphone  # lock(page) interrupts an iPhone's Web Audio, not another device's
    if iphone:
        page.add_init_script(listening.IPHONE_VOLUME)
    if tap_rule:
        page.add_init_script(listening.IPHONE_TAP_RULE)
    if large_text:
        context.new_cdp_session(page).send("Page.setFontSizes", {"fontSizes": {"standard": 32, "fixed": 26}})
    return watch(page)


def patient(context):
    """`context` with PATIENCE as the deadline of its pages' actions and waits (click, fill, goto,
    wait_for_load_state, expect_download, …), not Playwright's 30 s: each waits for a condition,
    and a busy machine can stall for a minute before the condition is met. Returns `context`."""
    context.set_default_timeout(PATIENCE * 1000)
    context.set_default_navigation_timeout(PATIENCE * 1000)
    return context


def watch(page):
    """Records `page`'s console errors and uncaught exceptions in `page.problems` (open_page's
    pages do; this is for a page opened otherwise, such as a persistent context's), letting
    through those `expect_error` names. Its context gets PATIENCE as its deadline (`patient`)."""
    patient(page.context)
    problems = []
    page.expected_errors = []

    def on_console(message):
        if message.type != "error":
            return
        url = (message.location or {}).get("url", "")
        for expected in page.expected_errors:
            if expected["text"] in message.text and re.search(expected["url"], url):
                expected["seen"] += 1
                return
        problems.append(f"{message.text} ({url})")

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.problems = problems
    return page


@pytest.fixture
def page(browser):
    """A phone-sized page that fails the test on any console error or uncaught exception."""
    page = open_page(browser)
    yield page
    page.context.close()
    assert page.problems == [], f"browser errors: {page.problems}"


def close(*pages):
    """Closes each page's device and fails on the browser errors it recorded."""
    for page in pages:
        problems = list(page.problems)
        page.context.close()
        assert problems == [], f"browser errors: {problems}"


def expect_error(page, status, url):
    """Lets one kind of failed request through the console check: an answer the app expects and
    explains to the person (a stale save's 412, the 401 of a signed-out start), or with
    `status="offline"` a request that failed because the test took the network away. Everything
    else (a missing file, a server error, a script error, any other 4xx) still fails the test."""
    if isinstance(status, int):
        text = f"status of {status} "
    else:
        text = {"offline": "net::ERR_INTERNET_DISCONNECTED", "aborted": "net::ERR_FAILED"}.get(status, status)
    entry = {"text": text, "url": url, "seen": 0}
    page.expected_errors.append(entry)
    return entry


def screenshot(page, name):
    """Saves a 390×844 screenshot to e2e/artifacts/<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def wait_until(page, expression, timeout=PATIENCE, message=None):
    """Evaluates `expression` in the page until it is truthy, awaiting it when it is a promise.

    Playwright's wait_for_function takes a returned promise itself as truthy and returns at once,
    so anything asynchronous (fetch, caches, serviceWorker.ready) is polled through evaluate."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(message or f"never true within {timeout} s: {expression}")
        time.sleep(0.2)


def wait_for(page, check, timeout=PATIENCE, message=None):
    """Calls `check` (a condition the test itself sees: a request the page made, a hit on a fixture
    site) until it is truthy, letting the page's events in between; fails after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(message or f"never true within {timeout} s: {check}")
        page.wait_for_timeout(50)
    return value


def eventually(check, timeout, message, interval=0.5):
    """Calls `check` until it returns something truthy, which it returns; fails after `timeout` s
    with `message` and the last value seen."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{message} (not within {timeout} s; last: {value!r})")
        time.sleep(interval)


def settled(page, timeout=PATIENCE):
    """Waits until every animation and transition on the page that ends has ended (a sheet's spring,
    a crossfade), for a screenshot or a colour read after it; endless ones (a breathing leaf) are
    not waited for."""
    wait_until(page, """document.getAnimations().every((a) => a.playState !== 'running'
                        || a.effect?.getComputedTiming().endTime === Infinity)""",
               timeout=timeout, message="an animation never finished")


OWNER, PASSWORD = "ada", "correct horse battery"


def sign_in(server, page, area=None):
    """Opens the app signed in as the owner: sets the owner up on a fresh server, else signs in.
    With `area` ("Write", "Meditate", …), opens that area from the tab bar."""
    from playwright.sync_api import expect
    expect_error(page, 401, r"/api/auth/me$")  # the app asks who is signed in before anyone is
    page.goto(server.url)
    setup = page.get_by_role("heading", name="Welcome to Reverie")
    login = page.get_by_role("heading", name="Sign in")
    expect(setup.or_(login)).to_be_visible()
    if setup.is_visible():
        page.get_by_label("Username").fill(OWNER)
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_label("Repeat password").fill(PASSWORD)
        page.get_by_role("button", name="Create owner account").click()
    else:
        page.get_by_label("Username").fill(OWNER)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
    tabs = page.get_by_role("navigation", name="Areas")
    expect(tabs).to_be_visible()
    if area:
        tabs.get_by_role("link", name=area, exact=True).click()
        expect(page.get_by_role("heading", name=area, level=1)).to_be_visible()


def controlled(server, page, area=None):
    """Signed in, on a page the service worker controls (it answers downloaded files)."""
    sign_in(server, page, area)
    wait_until(page, "navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    wait_until(page, "navigator.serviceWorker.controller !== null")
