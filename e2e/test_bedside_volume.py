"""Bedside's levels where `audio.volume` does nothing, as on an iPhone (issue 31): the room slider,
the chime's ducking under the wake greeting and a piece's fade when it is turned off go through Web
Audio gain (Web/player/volume.js), heard in what Chromium plays (e2e/listening.py); on a desktop
browser the element's volume does it, as before. Where there is no Web Audio either, the Gear
slider says to use the phone's buttons."""

import re
from datetime import datetime

import pytest
from playwright.sync_api import expect

from conftest import PATIENCE, close, open_page, screenshot, wait_until
from listening import RATE, level, levels, onset, silent_from
from test_bedside import open_bedside, wait_leaf, wait_whole, without_night
from test_listening_harness import tone

ROOM = "document.querySelector('.bs-room-sound')"
CHIME = "document.querySelector('.bs-chime')"
GREETING = "document.querySelector('.bs-greeting-audio')"
NO_WEB_AUDIO = "delete window.AudioContext; delete window.webkitAudioContext;"


def stretch(sound, start, end):
    return sound[int(start * RATE):int(end * RATE)]


@pytest.mark.parametrize("iphone", [False, True], ids=["desktop", "iphone"])
def test_the_room_slider_turns_the_room_down(server, audio_sink, listening_browser, iphone):
    page = open_page(listening_browser, iphone=iphone)
    open_bedside(server, page, room="brown", roomVolume=1.0)
    with audio_sink.record() as recording:
        page.get_by_role("button", name="Bedside settings").click()  # a tap: the room's sound starts
        sheet = page.get_by_role("dialog", name="Bedside settings")
        expect(sheet.get_by_label(re.compile("^Room volume"))).to_be_enabled()
        wait_until(page, f"{ROOM}.currentTime > 1.5", message="the room's sound never played")
        lowered_at = recording.seconds
        sheet.get_by_label(re.compile("^Room volume")).fill("0.1")
        expect(sheet.locator('[data-out="volume"]')).to_have_text("10%")
        recording.wait_for_seconds(lowered_at + 2.0)
        sound = recording.samples()
        if iphone:
            screenshot(page, "bedside-gear-iphone")
    close(page)

    begins = onset(sound)
    assert begins is not None and begins < lowered_at, "the room was not heard before the slider moved"
    full = level(stretch(sound, begins + 0.3, lowered_at))
    low = level(sound[-RATE:])  # the last second, well after the change was heard
    print(f"room at full {full:.1f} dBFS, at 10% {low:.1f} dBFS ({'iphone' if iphone else 'desktop'})")
    assert full - low >= 10, f"the room went from {full:.1f} to only {low:.1f} dBFS"
    assert low > -80, "the room went silent rather than quieter"


@pytest.mark.parametrize("iphone", [False, True], ids=["desktop", "iphone"])
def test_the_chime_ducks_under_the_greeting(server, audio_sink, listening_browser, iphone):
    """The alarm rings (the page's clock jumps to its time), the greeting is spoken 5 s later: while
    it speaks the chime is lower, after it the chime is back at full. The chime is a steady tone and
    the greeting's audio a silent 4 s clip here, so what is heard is the chime's level alone (the
    real chime rises over a minute, which would hide the duck)."""
    page = open_page(listening_browser, iphone=iphone, service_workers="block")  # page.route sees the audio
    without_night(page)  # the page's clock is virtual: its own chime rings
    page.route(re.compile(r"/api/bedside/sounds/chime$"), lambda route: route.fulfill(body=tone(440, 30), content_type="audio/wav"))
    page.route(re.compile(r"/api/speech/renders/[^/]+/audio$"),
               lambda route: route.fulfill(body=tone(440, 4.0, amplitude=0.0), content_type="audio/wav"))
    page.clock.install(time=datetime(2026, 11, 23, 22, 0, 0))
    open_bedside(server, page, room="silence", contentCompletedSuccessfully=True,
                 alarm={"time": "22:01", "enabled": True, "days": []})
    with audio_sink.record() as recording:
        page.get_by_role("button", name="Alarm").click()  # a tap, as the person's last before sleep
        page.get_by_role("dialog", name="Alarm").get_by_role("button", name="Cancel").click()
        page.clock.fast_forward("01:00")
        ringing = page.get_by_role("alertdialog", name="Alarm")
        expect(ringing).to_be_visible()
        wait_until(page, f"!{CHIME}.paused && {CHIME}.currentTime > 0")
        wait_until(page, f"!{GREETING}.paused && {GREETING}.currentTime > 0", message="the greeting was not spoken")
        speaking_at = recording.seconds
        # The greeting's 4 s clip plays in real time first.
        wait_until(page, f"{GREETING}.ended", timeout=4 + PATIENCE, message="the greeting never ended")
        ended_at = recording.seconds
        recording.wait_for_seconds(ended_at + 2.0)
        sound = recording.samples()
    expect(ringing.locator(".bs-greeting")).to_contain_text(re.compile(r"^Good (morning|afternoon|evening)\."))
    close(page)

    begins = onset(sound)
    assert begins is not None and begins < speaking_at, "the chime was not heard before the greeting"
    under = level(stretch(sound, speaking_at + 0.8, min(ended_at, speaking_at + 3.0)))
    after = level(stretch(sound, ended_at + 0.9, ended_at + 1.9))
    print(f"chime under the greeting {under:.1f} dBFS, after it {after:.1f} dBFS ({'iphone' if iphone else 'desktop'})")
    assert after - under >= 6, f"the chime under the greeting was {under:.1f} dBFS, after it {after:.1f}"
    assert under > -40, "the chime stopped under the greeting rather than going down"


@pytest.mark.parametrize("iphone", [False, True], ids=["desktop", "iphone"])
def test_a_piece_turned_off_fades_out(server, audio_sink, listening_browser, iphone):
    """A tap that stops a meditation fades its voice down over 0.6 s, neither cut nor left loud. The
    whole render's audio is a steady tone here, so the fade is what changes its level."""
    page = open_page(listening_browser, iphone=iphone, service_workers="block")
    page.route(re.compile(r"/api/speech/renders/[^/]+/audio$"), lambda route: route.fulfill(body=tone(440, 60), content_type="audio/wav"))
    open_bedside(server, page, room="silence")
    page.get_by_role("button", name="Content off. Play a meditation").click()
    wait_leaf(page, "leafFilled")
    wait_whole(page)
    with audio_sink.record() as recording:
        recording.wait_for_seconds(1.0)
        tapped_at = recording.seconds
        page.get_by_role("button", name="Meditation playing. Change to a poem").click()
        expect(page.locator(".bs-leaf")).to_have_attribute("data-icon", "dots")  # the fade ended: the gap
        recording.wait_for_seconds(recording.seconds + 1.0)
        sound = recording.samples()
    close(page)

    full = level(stretch(sound, 0.2, tapped_at))
    assert full > -12, f"the tone was not playing at full before the tap ({full:.1f} dBFS)"
    after = sound[int(tapped_at * RATE):]
    quiet = silent_from(after)
    assert quiet is not None and quiet < 1.5, "the voice did not stop after the tap"
    steps = levels(after[:int(quiet * RATE)], window=0.05)
    between = [value for value in steps if -45 < value < full - 3]
    print(f"fade ({'iphone' if iphone else 'desktop'}): full {full:.1f} dBFS, then " + ", ".join(f"{value:.0f}" for value in steps))
    assert len(between) >= 4, f"the voice was cut, not faded: {steps}"
    falling = [value for value in steps if value < full - 1]
    assert all(later < earlier + 1.5 for earlier, later in zip(falling, falling[1:])), f"the fade rose: {steps}"


def test_without_web_audio_the_slider_says_to_use_the_phone_buttons(server, browser):
    page = open_page(browser, iphone=True)
    page.add_init_script(NO_WEB_AUDIO)
    open_bedside(server, page)
    page.get_by_role("button", name="Bedside settings").click()
    sheet = page.get_by_role("dialog", name="Bedside settings")
    slider = sheet.get_by_label(re.compile("^Room volume"))
    expect(slider).to_be_disabled()
    expect(slider).to_have_accessible_description("On this phone, use its volume buttons.")
    expect(sheet.get_by_text("On this phone, use its volume buttons.")).to_be_visible()
    screenshot(page, "bedside-gear-level-fixed")
    close(page)


def test_a_desktop_slider_has_no_such_note(server, browser):
    page = open_page(browser)
    open_bedside(server, page)
    page.get_by_role("button", name="Bedside settings").click()
    sheet = page.get_by_role("dialog", name="Bedside settings")
    expect(sheet.get_by_label(re.compile("^Room volume"))).to_be_enabled()
    expect(sheet.get_by_text("use its volume buttons")).to_have_count(0)
    close(page)
