"""Bedside in the browser. For now: the browser's Leaf/Masks machine (Web/bedside/mode.js) against the
cases in Tests/Shared/bedside-mode-cases.json, which the Swift machine (Bedside's ContentModeMachine)
answers too: one truth for both."""

import json

from conftest import ROOT, expect_error


def test_the_browser_machine_answers_the_shared_cases(server, page):
    shared = json.loads((ROOT / "Tests" / "Shared" / "bedside-mode-cases.json").read_text())
    expect_error(page, 404, r"/favicon\.ico$")  # a bare image asks for it; the app's pages name their icons
    page.goto(server.url + "/icons/icon.svg")  # the app's origin, without running the app
    problems = page.evaluate("""async (shared) => {
        const mode = await import('/bedside/mode.js');
        const problems = [];
        for (const sharedCase of shared.cases) {
            let machine = mode.createMachine();
            if ('open' in sharedCase) {
                const opened = mode.opened(sharedCase.open);
                machine = opened.machine;
                if ('openEffects' in sharedCase && JSON.stringify(opened.effects) !== JSON.stringify(sharedCase.openEffects)) {
                    problems.push(`${sharedCase.name}, on open: ${JSON.stringify(opened.effects)}`);
                }
            }
            sharedCase.steps.forEach((step, number) => {
                const label = `${sharedCase.name}, step ${number + 1} (${step.event})`;
                const effects = mode.handle(machine, step.event);
                const check = (what, got, want) => {
                    if (want !== undefined && JSON.stringify(got) !== JSON.stringify(want)) {
                        problems.push(`${label}: ${what} ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
                    }
                };
                check('effects', effects, step.effects);
                check('mode', machine.mode, step.mode);
                check('phase', machine.phase, step.phase);
                check('icon', mode.icon(machine), step.icon);
                check('needsGesture', machine.needsGesture, step.needsGesture);
            });
        }
        // Rapid tapping with the player's answers in any order (test 48): never a state the Swift
        // machine cannot reach, and busy states ignore taps.
        let seed = 7;
        const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        const events = ['tap', 'continueTapped', 'started', 'refused', 'failed', 'finished', 'stopped', 'gapElapsed', 'roomChanged'];
        for (let run = 0; run < 200; run += 1) {
            const machine = mode.createMachine();
            for (let step = 0; step < 60; step += 1) {
                const event = random() < 0.5 ? 'tap' : events[Math.floor(random() * events.length)];
                const before = JSON.stringify(machine);
                const busy = mode.isBusy(machine);
                const effects = mode.handle(machine, event);
                if (busy && (event === 'tap' || event === 'continueTapped' || event === 'roomChanged')
                    && (JSON.stringify(machine) !== before || effects.length)) problems.push(`a ${event} while busy changed ${before}`);
                if (machine.mode === 'off' && (machine.phase !== 'idle' || machine.afterStop)) problems.push(`off but ${JSON.stringify(machine)}`);
                if (machine.phase === 'gap' && machine.mode !== 'meditation') problems.push(`gap in ${machine.mode}`);
            }
        }
        return problems;
    }""", shared)
    assert len(shared["cases"]) >= 10
    assert problems == [], "\n".join(problems)


# MARK: - The screen

import time  # noqa: E402
from datetime import datetime, timedelta  # noqa: E402

import pytest  # noqa: E402
from playwright.sync_api import expect  # noqa: E402

from conftest import CHROMIUM, PHONE, close, open_page, screenshot, sign_in, wait_until  # noqa: E402

SMALL = {"width": 320, "height": 568}
# eSpeak NG speaks a five-minute meditation in about a second, so most tests choose it in Gear's
# place; the Done-when test below listens with Piper, the default voice.
QUICK_VOICE = "en-us"
LEAF = "document.querySelector('.bs-leaf')"


def open_bedside(server, page, **bedside):
    """Signs in, starts the person's Bedside settings from `bedside` (Off, the quick voice, captions
    on, the rain room, no alarm unless given) and opens the Bedside screen."""
    sign_in(server, page)
    settings = {"contentMode": "off", "voice": QUICK_VOICE, "captions": True, "room": "rain", "rate": 1,
                "contentCompletedSuccessfully": False, "alarm": {"time": "07:00", "enabled": False, "days": []}}
    settings.update(bedside)
    answer = page.request.patch(server.url + "/api/settings", data={"bedside": settings})
    assert answer.ok, answer.text()
    page.goto(server.url + "/bedside")
    expect(page.get_by_role("toolbar", name="Bedside")).to_be_visible()


def bedside_settings(server, page):
    return page.request.get(server.url + "/api/settings").json()["bedside"]


def wait_leaf(page, icon, timeout=90):
    """Waits until the Leaf/Masks button shows `icon` and the machine is not busy."""
    wait_until(page, f"(() => {{ const leaf = {LEAF}; return leaf && leaf.dataset.icon === '{icon}' && leaf.getAttribute('aria-busy') === 'false'; }})()", timeout=timeout,
               message=f"the leaf never showed {icon}")


def voice_playing(page):
    return page.evaluate("(() => { const v = document.querySelector('.bs-voice'); return Boolean(v.src) && !v.paused && v.currentTime > 0; })()")


def timelines(page):
    """Every render timeline the page fetches, in order (the captions are read from them)."""
    seen = []
    page.on("response", lambda r: seen.append(r) if r.url.endswith("/timeline") and r.ok else None)
    return seen


def pieces_started(page):
    seen = []
    page.on("response", lambda r: seen.append(r) if r.url.endswith("/api/bedside/next") and r.ok else None)
    return seen


def test_off_screen_four_buttons_fit_and_the_clock_drifts(server, browser):
    """Tests 23–25: exactly four buttons (Gear, Quote, Clock, Leaf/Masks), all on a 320×568 screen;
    Off shows the grey outlined leaf. The clock follows 12/24 h and moves a little each minute."""
    for viewport, label in ((PHONE, "390x844"), (SMALL, "320x568")):
        page = open_page(browser, viewport=viewport)
        page.clock.install(time=datetime(2026, 11, 23, 21, 41, 10))
        open_bedside(server, page, clock24=False)
        toolbar = page.get_by_role("toolbar", name="Bedside")
        buttons = toolbar.get_by_role("button")
        expect(buttons).to_have_count(4)
        names = [buttons.nth(i).get_attribute("aria-label") for i in range(4)]
        assert names == ["Bedside settings", "My Content", "Alarm", "Content off. Play a meditation"], names
        boxes = [buttons.nth(i).bounding_box() for i in range(4)]
        for box in boxes:
            assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] and box["y"] + box["height"] <= viewport["height"], (label, box)
            assert box["width"] >= 44 and box["height"] >= 44
        for left, right in zip(boxes, boxes[1:]):
            assert left["x"] + left["width"] <= right["x"], "the buttons overlap"
        # Test 25: Off is the grey outlined leaf.
        expect(page.locator(".bs-leaf")).to_have_attribute("data-icon", "leafOutline")
        assert page.evaluate(f"getComputedStyle({LEAF}).color") == "rgb(179, 179, 179)"
        assert page.evaluate(f"getComputedStyle({LEAF}.querySelector('.shape')).fill") == "none"
        expect(page.locator(".bs-time")).to_have_text("9:41")
        expect(page.locator(".bs-period")).to_have_text("PM")
        # OLED black behind the clock.
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(0, 0, 0)"
        screenshot(page, f"bedside-off-{label}")
        close(page)

    page = open_page(browser)
    page.clock.install(time=datetime(2026, 11, 23, 21, 41, 10))
    open_bedside(server, page, clock24=True)
    expect(page.locator(".bs-time")).to_have_text("21:41")
    expect(page.locator(".bs-period")).to_have_text("")
    before = page.evaluate("getComputedStyle(document.querySelector('.bs-clock-box')).getPropertyValue('--drift-x') + getComputedStyle(document.querySelector('.bs-clock-box')).getPropertyValue('--drift-y')")
    page.clock.run_for(60_000)
    expect(page.locator(".bs-time")).to_have_text("21:42")
    after = page.evaluate("getComputedStyle(document.querySelector('.bs-clock-box')).getPropertyValue('--drift-x') + getComputedStyle(document.querySelector('.bs-clock-box')).getPropertyValue('--drift-y')")
    assert before != after, "the clock stayed in place for a minute"
    # Gear's 24-hour switch changes the clock at once and is kept for the person.
    page.get_by_role("button", name="Bedside settings").click()
    sheet = page.get_by_role("dialog", name="Bedside settings")
    with page.expect_response(lambda r: r.url.endswith("/api/settings") and r.request.method == "PATCH"):
        sheet.get_by_label("24-hour clock").uncheck()
    expect(page.locator(".bs-time")).to_have_text("9:42")
    assert bedside_settings(server, page)["clock24"] is False
    close(page)


def test_leaf_cycles_meditation_poetry_off_with_captions_in_step(server, browser):
    """Tests 1–3 and 26–30: Off → Meditation (green filled leaf) → the three dots for the 1.5 s gap →
    Poetry (purple filled masks) → Off; the captions show the phrase and word the audio is at."""
    page = open_page(browser)
    page.clock.install(time=datetime.now())
    seen = timelines(page)
    started = pieces_started(page)
    open_bedside(server, page)
    page.get_by_role("button", name="Content off. Play a meditation").click()
    wait_leaf(page, "leafFilled")
    wait_until(page, "document.querySelector('.bs-voice').currentTime > 0.5", message="the meditation never played")
    assert started[-1].json()["kind"] == "meditation"
    assert page.evaluate(f"getComputedStyle({LEAF}).color") == "rgb(52, 199, 89)"
    assert page.evaluate(f"getComputedStyle({LEAF}.querySelector('.shape')).fill") == "rgb(52, 199, 89)"
    assert bedside_settings(server, page)["contentMode"] == "meditation"
    assert page.evaluate("[localStorage.getItem('contentMode'), localStorage.getItem('lastContentMode')]") == ["meditation", "meditation"]
    expect(page.locator(".bs-title")).to_have_text(started[-1].json()["title"] + (" · " + started[-1].json()["author"] if started[-1].json().get("author") else ""))
    # Test 28: the caption is the phrase the audio is saying, with the word marked, at any moment.
    timeline = seen[-1].json()
    check_captions(page, timeline)
    screenshot(page, "bedside-meditation-captions")
    # Captions off in Gear: none shown; back on: shown again.
    page.get_by_role("button", name="Bedside settings").click()
    page.get_by_role("dialog", name="Bedside settings").get_by_label("Captions").uncheck()
    expect(page.locator(".bs-caption")).to_be_hidden()
    page.get_by_role("dialog", name="Bedside settings").get_by_label("Captions").check()
    page.get_by_role("button", name="Done").click()
    page.evaluate("document.querySelector('.bs-voice').play()")
    expect(page.locator(".bs-caption")).to_be_visible()

    # Test 2: a tap stops the meditation, shows the pulsing dots for 1.5 s, then a poem starts.
    page.clock.pause_at(datetime.now() + timedelta(seconds=30))
    page.get_by_role("button", name="Meditation playing. Change to a poem").click()
    page.clock.run_for(700)  # the voice fades out
    expect(page.locator(".bs-leaf")).to_have_attribute("data-icon", "dots")
    screenshot(page, "bedside-dots")
    assert page.evaluate("document.querySelector('.bs-voice').paused")
    page.clock.run_for(1_000)
    expect(page.locator(".bs-leaf")).to_have_attribute("data-icon", "dots")  # still inside the 1.5 s gap
    page.clock.resume()
    wait_leaf(page, "masksFilled")
    assert started[-1].json()["kind"] == "poem"
    assert page.evaluate(f"getComputedStyle({LEAF}).color") == "rgb(175, 82, 222)"
    wait_until(page, "document.querySelector('.bs-voice').currentTime > 0.5")
    check_captions(page, seen[-1].json())  # test 30: captions for poetry too
    screenshot(page, "bedside-poetry")
    assert bedside_settings(server, page)["contentMode"] == "poetry"

    # Test 3: a tap in poetry stops it and goes Off.
    page.get_by_role("button", name="Poetry playing. Stop").click()
    wait_leaf(page, "leafOutline")
    expect(page.locator(".bs-leaf")).to_have_attribute("data-mode", "off")
    assert not voice_playing(page)
    assert bedside_settings(server, page)["contentMode"] == "off"
    assert bedside_settings(server, page)["lastContentMode"] == "poetry"
    close(page)


def check_captions(page, timeline):
    """Seeks the voice into words of several phrases and checks the caption marks that word."""
    phrases = [p for p in timeline["phrases"] if p["words"]]
    assert phrases
    page.evaluate("document.querySelector('.bs-voice').pause()")
    for phrase in phrases[:3] + phrases[-1:]:
        index = len(phrase["words"]) // 2
        word = phrase["words"][index]
        middle = (word["startMs"] + word["endMs"]) / 2000
        page.evaluate(f"document.querySelector('.bs-voice').currentTime = {middle}")
        wait_until(page, f"document.querySelector('.bs-caption').dataset.phraseStart === '{phrase['startMs']}'",
                   message=f"the caption never showed the phrase at {phrase['startMs']} ms")
        expect(page.locator(".bs-caption")).to_have_attribute("data-word", str(index))
        expect(page.locator(".bs-caption mark")).to_have_text(word["text"])
        expect(page.locator(".bs-caption")).to_contain_text(" ".join(w["text"] for w in phrase["words"]))


def test_rapid_taps_never_break_it(server, browser):
    """Tests 4 and 48: taps while a piece starts, stops or in the gap do nothing; the machine ends in
    a state it can be in and the screen shows it."""
    page = open_page(browser)
    open_bedside(server, page)
    started = pieces_started(page)
    leaf = page.locator(".bs-leaf")
    for _ in range(12):
        leaf.click()  # the first starts a meditation; the rest land while it is starting
    wait_leaf(page, "leafFilled")
    assert len(started) == 1, "taps while starting started more pieces"
    for _ in range(12):
        leaf.click(force=True)  # one stops the meditation; the rest land in the stop and the gap
    wait_leaf(page, "masksFilled")
    assert len(started) == 2 and started[-1].json()["kind"] == "poem"
    wait_until(page, "document.querySelector('.bs-voice').currentTime > 0.3")
    close(page)


def test_mode_is_kept_and_restarts_on_open_but_off_stays_off(server, browser):
    """Tests 9–11: a saved Meditation or Poetry mode starts a new random piece on open; Off stays Off."""
    page = open_page(browser)
    open_bedside(server, page)
    started = pieces_started(page)
    page.get_by_role("button", name="Content off. Play a meditation").click()
    wait_leaf(page, "leafFilled")
    first = started[-1].json()["id"]
    page.reload()
    wait_leaf(page, "leafFilled")
    wait_until(page, "document.querySelector('.bs-voice').currentTime > 0.3")
    assert started[-1].json()["kind"] == "meditation" and started[-1].json()["id"] != first, "no new meditation on open"

    page.get_by_role("button", name="Meditation playing. Change to a poem").click()
    wait_leaf(page, "masksFilled")
    page.reload()
    wait_leaf(page, "masksFilled")
    assert started[-1].json()["kind"] == "poem"
    wait_until(page, "document.querySelector('.bs-voice').currentTime > 0.3")

    page.get_by_role("button", name="Poetry playing. Stop").click()
    wait_leaf(page, "leafOutline")
    count = len(started)
    page.reload()
    expect(page.locator(".bs-leaf")).to_have_attribute("data-mode", "off")
    time.sleep(1.5)
    assert len(started) == count, "Off started a piece on open"
    assert not voice_playing(page)
    close(page)


# Headless Chromium under Playwright plays sound without a gesture (its pages count as touched
# from the start), so the page is given a phone's rule: play() is refused until the person has
# pressed something on this page.
PHONE_AUTOPLAY_RULE = """(() => {
    let touched = false;
    for (const type of ['pointerdown', 'keydown']) addEventListener(type, (event) => { if (event.isTrusted) touched = true; }, true);
    const play = HTMLMediaElement.prototype.play;
    HTMLMediaElement.prototype.play = function () {
        if (!touched) return Promise.reject(new DOMException('play() needs a gesture first', 'NotAllowedError'));
        return play.call(this);
    };
})()"""


def test_tap_to_continue_when_the_browser_wants_a_gesture(server, browser):
    """A saved Poetry mode on a browser that refuses sound before a gesture: one button offers
    "Tap to continue — Poetry", and a tap plays the poem that was made ready."""
    signing = open_page(browser)
    sign_in(server, signing)
    signing.request.patch(server.url + "/api/settings", data={"bedside": {"contentMode": "poetry", "voice": QUICK_VOICE}})
    # The next visit, that nobody has touched yet.
    page = open_page(browser)
    page.context.add_cookies(signing.context.cookies())
    close(signing)
    page.add_init_script(PHONE_AUTOPLAY_RULE)
    started = pieces_started(page)
    page.goto(server.url + "/bedside")
    cont = page.get_by_role("button", name="Tap to continue — Poetry")
    expect(cont).to_be_visible(timeout=60_000)
    expect(page.locator(".bs-leaf")).to_have_attribute("data-icon", "masksOutline")
    screenshot(page, "bedside-tap-to-continue")
    cont.click()
    wait_leaf(page, "masksFilled")
    wait_until(page, "document.querySelector('.bs-voice').currentTime > 0.3")
    assert len(started) == 1, "the poem made ready was not the one played"
    expect(cont).to_be_hidden()
    page.get_by_role("button", name="Poetry playing. Stop").click()
    wait_leaf(page, "leafOutline")
    close(page)


def test_switching_rooms_keeps_the_mode_and_starts_a_new_piece(server, browser):
    """Tests 12–13: rooms change by swipe or arrow keys, with their sound; a piece playing gives way
    to a new random piece of the same mode."""
    page = open_page(browser)
    open_bedside(server, page, roomVolume=0.4)
    started = pieces_started(page)
    expect(page.locator(".bs-room-name")).to_have_text("Rain")
    page.get_by_role("button", name="Content off. Play a meditation").click()
    wait_leaf(page, "leafFilled")
    wait_until(page, "(() => { const r = document.querySelector('.bs-room-sound'); return !r.paused && r.src.endsWith('/api/bedside/sounds/rain'); })()",
               message="the rain did not play under the voice")
    assert abs(page.evaluate("document.querySelector('.bs-room-sound').volume") - 0.4) < 0.01
    first = started[-1].json()["id"]
    page.keyboard.press("ArrowRight")
    expect(page.locator(".bs-room-name")).to_have_text("Ocean")
    wait_leaf(page, "leafFilled")
    wait_until(page, "document.querySelector('.bs-voice').currentTime > 0.3")
    assert started[-1].json()["kind"] == "meditation" and started[-1].json()["id"] != first
    assert page.evaluate("document.querySelector('.bs-room-sound').src").endswith("/api/bedside/sounds/ocean")
    assert bedside_settings(server, page)["room"] == "ocean"

    # Poetry, and a swipe to the left goes back a room.
    page.get_by_role("button", name="Meditation playing. Change to a poem").click()
    wait_leaf(page, "masksFilled")
    poem = started[-1].json()["id"]
    box = page.locator(".bs-scene").bounding_box()
    y = box["y"] + box["height"] * 0.7
    page.mouse.move(box["x"] + box["width"] * 0.2, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.8, y, steps=6)
    page.mouse.up()
    expect(page.locator(".bs-room-name")).to_have_text("Rain")
    wait_leaf(page, "masksFilled")
    assert started[-1].json()["kind"] == "poem" and started[-1].json()["id"] != poem
    for name in ("Ocean", "Night forest", "Brown noise", "Silence", "Rain"):
        page.keyboard.press("ArrowRight")
        expect(page.locator(".bs-room-name")).to_have_text(name)
        wait_leaf(page, "masksFilled")
    page.get_by_role("button", name="Poetry playing. Stop").click()
    wait_leaf(page, "leafOutline")
    close(page)
