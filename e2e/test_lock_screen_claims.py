"""The playback core's promises over many plays (Web/player/transport.js, Web/player/media-session.js):
Wind Down's player, opened and closed again and again, leaves the lock screen one claim, the last
item's, whose pause the headset can press; and a Bedside room sound whose first load failed loads
again on the next tap instead of staying broken."""

import re
import subprocess

from playwright.sync_api import expect

from conftest import close, expect_error, open_page, screenshot, wait_until
from test_bedside import open_bedside
from test_headset import INIT, press
from test_wind_down import open_wind_down, upload

# Two Wind Down items given uploaded audio (levelled, not spoken: no Piper), opened in turn.
ITEMS = [("story_night_train", "The Slow Night Train"), ("story_lighthouse_keeper", "The Lighthouse Keeper's Last Night")]
PLAYER_AUDIO = "document.querySelector('.player-audio')"
HELD = "import('/player/media-session.js').then(({ lockScreenOwner: o }) => o.held.map((c) => c.name))"
ROOM = "document.querySelector('.bs-room-sound')"


def play_item(page, item, title):
    page.locator(f'[data-item="{item}"].wd-card').first.click()
    player = page.get_by_role("dialog", name=f"{title}, player")
    expect(player.get_by_role("button", name="Pause", exact=True)).to_be_visible()  # one tap plays
    wait_until(page, f"{PLAYER_AUDIO}.currentTime > 0.3", message=f"{title} never played")
    wait_until(page, f"navigator.mediaSession.metadata?.title === {title!r}", message=f"the lock screen never showed {title}")
    return player


def test_reopening_wind_down_leaves_one_claim_whose_pause_pauses(server, browser):
    page = open_page(browser)
    page.add_init_script(INIT)  # keeps the handlers the browser holds in window.__mediaHandlers
    open_wind_down(server, page)
    tone = server.data / "claims-tone.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=220:duration=60",
                    "-ac", "1", "-ar", "22050", "-b:a", "32k", str(tone)], check=True)
    for item, _ in ITEMS:
        status, entry = upload(server, page, item, tone)
        assert status == 202 and entry["audio"]["state"] == "ready", entry
    page.reload()
    expect(page.locator(".wd-greeting")).to_be_visible()

    # Five opens, A B A B A, each played and closed (by its button, or Escape) before the next.
    order = [ITEMS[n % 2] for n in range(5)]
    for number, (item, title) in enumerate(order):
        player = play_item(page, item, title)
        if number == len(order) - 1:
            break
        if number % 2:
            page.keyboard.press("Escape")
        else:
            player.get_by_role("button", name="Close the player").click()
        expect(player).to_have_count(0)
        assert page.evaluate(HELD) == [], f"closing {title} left claims on the lock screen"

    # One claim, the last item's, shown on the lock screen; one player in the page.
    last = order[-1][1]
    assert wait_until(page, HELD) == ["Player"], page.evaluate(HELD)
    assert page.evaluate("import('/player/media-session.js').then(({ lockScreenOwner: o }) => o.current === o.held[0])")
    assert page.evaluate("navigator.mediaSession.metadata.title") == last
    assert page.evaluate("document.querySelectorAll('.player-audio').length") == 1
    screenshot(page, "lock-screen-claims-wind-down")

    # The headset's pause (the handler the browser holds) pauses what sounds, and the lock screen says so.
    press(page, "pause")
    wait_until(page, f"{PLAYER_AUDIO}.paused", message="the headset's pause did not pause the last item")
    expect(page.get_by_role("dialog", name=f"{last}, player").get_by_role("button", name="Play", exact=True)).to_be_visible()
    wait_until(page, "navigator.mediaSession.playbackState === 'paused'")
    assert page.evaluate("[...document.querySelectorAll('audio')].every((a) => a.paused)")
    close(page)


def test_a_bedside_room_sound_that_failed_loads_again_on_the_next_tap(server, browser):
    page = open_page(browser, service_workers="block")  # page.route sees the room's requests
    open_bedside(server, page, room="rain")
    assert page.request.get(server.url + "/api/bedside/sounds/rain").ok  # made on first use: made now
    failing = {"on": True, "asked": 0}

    def room(route):
        failing["asked"] += 1
        if failing["on"]:
            route.fulfill(status=503, body="busy")
        else:
            route.continue_()

    page.route(re.compile(r"/api/bedside/sounds/rain$"), room)
    expect_error(page, 503, r"/api/bedside/sounds/rain$")

    # A tap (Gear) starts the room's sound: its load fails, and nothing sounds.
    page.get_by_role("button", name="Bedside settings").click()
    wait_until(page, f"{ROOM}.error !== null", message="the room's failed load was never an error")
    assert failing["asked"] >= 1
    assert page.evaluate(f"{ROOM}.getAttribute('src')") == "/api/bedside/sounds/rain"
    assert page.evaluate(f"{ROOM}.currentTime") == 0
    page.get_by_role("dialog", name="Bedside settings").get_by_role("button", name="Done").click()
    expect(page.get_by_role("dialog", name="Bedside settings")).to_have_count(0)
    # The room says its sound did not load, and what brings it back.
    problem = page.locator(".bs-room-problem")
    expect(problem).to_have_text("The rain sound did not load. Tap any button to try again.")
    expect(problem).to_be_visible()
    screenshot(page, "bedside-room-sound-failed")

    # The server answers again; the next tap loads the same sound afresh and it plays.
    failing["on"] = False
    asked = failing["asked"]
    page.get_by_role("button", name="Bedside settings").click()
    wait_until(page, f"{ROOM}.error === null && !{ROOM}.paused && {ROOM}.currentTime > 1",
               message=f"the room never played after the failure (error {page.evaluate(f'{ROOM}.error?.code')})")
    assert failing["asked"] > asked, "the room's sound was not asked for again"
    expect(problem).to_be_hidden()
    page.get_by_role("dialog", name="Bedside settings").get_by_role("button", name="Done").click()
    screenshot(page, "lock-screen-claims-bedside-room-again")
    close(page)
