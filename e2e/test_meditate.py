"""Meditate: a breathing session with narration on a phone. A session is one sound (the plan's
`sound`: the cues at their times, the bell at the end), and the circle, the phase and the clock
follow where that sound is, never the wall clock: the tests move the sound (a seek, as a person
could not) and Playwright's clock (the wall clock) apart to show which one the screen follows."""

import json
import math
import re
import time
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import expect

from conftest import ARTIFACTS, close, expect_error, open_page, screenshot, sign_in, wait_for, wait_until
from listening import RATE, level, locked, onset, silent_from
from shared_cases import shared_cases

pytestmark = pytest.mark.real_speech  # the first plan waits for the narration Piper speaks

SOUND = "document.querySelector('audio.meditation-sound')"
"""The session's audio element, as an expression in the page."""

WATCH = r"""(() => {
    window.started = [];  // where the session's sound was each time it began to play
    window.ended = [];    // where it was when it played to its end
    for (const [name, list] of [['playing', 'started'], ['ended', 'ended']]) {
        document.addEventListener(name, (event) => {
            if (event.target.classList.contains('meditation-sound')) window[list].push(event.target.currentTime);
        }, true);
    }
})()"""


def open_meditate(server, page, minutes_ago=10):
    """Installs the virtual clock, signs in and opens Meditate."""
    # Ten minutes ago: sessions end before the server's real "now", on the same day as the page.
    page.add_init_script(WATCH)
    page.clock.install(time=datetime.now() - timedelta(minutes=minutes_ago))
    sign_in(server, page, "Meditate")


def start_session(page, minutes=5):
    """Starts a session and waits until its sound plays."""
    page.get_by_text(f"{minutes}minutes").click()
    page.get_by_role("button", name="Start").click()
    # The first plan on a new server speaks the narration with Piper: give it time.
    expect(page.locator("[data-phase]")).to_have_text("Introduction", timeout=120_000)
    wait_until(page, f"{SOUND} && !{SOUND}.paused && {SOUND}.currentTime > 0.2",
               message="the session's sound never played")


def position(page):
    return page.evaluate(f"{SOUND}.currentTime")


def seek(page, seconds):
    """Moves the session's sound to `seconds` and waits until it plays on from there."""
    page.evaluate(f"{SOUND}.currentTime = {seconds}")
    wait_until(page, f"!{SOUND}.seeking && !{SOUND}.paused && {SOUND}.currentTime >= {seconds}",
               message=f"the sound never played on from {seconds} s")


def remaining_seconds(page):
    minutes, seconds = page.locator("[data-remaining]").inner_text().split(":")
    return int(minutes) * 60 + int(seconds)


REMAINING = "(([m, s]) => m * 60 + s)(document.querySelector('[data-remaining]').textContent.split(':').map(Number))"
"""The clock's seconds left, as an expression in the page."""


def stats(page):
    return page.evaluate("fetch('/api/meditation-sessions/stats').then(r => r.json())")


def watch_uploads(page):
    """The finished sessions the page sends, as the server answers them: [(status, record)]."""
    sent = []
    page.on("response", lambda response: sent.append((response.status, response.request.post_data_json))
            if response.url.endswith("/api/meditation-sessions") and response.request.method == "POST" else None)
    return sent


def uploaded(page, sent):
    """Waits until the finished session reached the server, which stored it; answers the record."""
    wait_for(page, lambda: sent, message="the finished session was never sent")
    wait_until(page, "JSON.parse(localStorage.getItem('meditation-upload-queue') || '[]').length === 0",
               message="the finished session never reached the server")
    status, record = sent[-1]
    assert status == 201, (status, record)
    return record


def test_full_session(server, page):
    asked = []
    page.on("request", lambda request: asked.append(request.url.removeprefix(server.url)))
    sent = watch_uploads(page)
    open_meditate(server, page)
    expect(page.get_by_text("No sessions yet")).to_be_visible()
    expect(page.get_by_role("radio", name="5 minutes")).to_be_checked()
    screenshot(page, "meditate-setup")

    start_session(page)
    # One sound for the whole session: no narration or bell started on its own.
    sounds = {url for url in asked if url.startswith("/api/meditation/plan/audio?")}
    assert len(sounds) == 1 and "minutes=5" in next(iter(sounds)), asked
    assert [url for url in asked if url.startswith("/audio/meditation/") and "silence" not in url] == [], asked
    assert remaining_seconds(page) in (299, 300)

    # Into the breathing phase where the sound is: the circle follows 4-2-6-2.
    seek(page, 41)
    expect(page.locator("[data-phase]")).to_have_text("Breathing")
    expect(page.locator("[data-word]")).to_have_text("Inhale")
    assert 257 <= remaining_seconds(page) <= 259
    # Each drawing of the circle is noted in the page with where the sound was as it was drawn: two
    # reads from here, one after the wait, could be seconds apart on a busy machine. The first
    # drawing at 42 s or later is the one asserted.
    page.evaluate(f"""(() => {{
        const circle = document.querySelector('[data-circle]');
        window.drawn = [];
        window.drawing = new MutationObserver(() => window.drawn.push([parseFloat(circle.style.transform.slice(6)), {SOUND}.currentTime]));
        window.drawing.observe(circle, {{ attributes: true, attributeFilter: ['style'] }});
    }})()""")
    scale, at = wait_until(page, "window.drawn.find(([scale, at]) => at >= 42.0)")
    page.evaluate("window.drawing.disconnect()")
    assert 1.3 < scale < 1.7 and at < 43, (scale, at)  # 2 s into the 4 s inhale (1 → 1.8), drawn every 250 ms
    expect(page.locator("[data-word]")).to_have_text("Hold")
    expect(page.locator("[data-word]")).to_have_text("Exhale")
    screenshot(page, "meditate-active")
    # The lock screen shows the session and the phase.
    lock = page.evaluate("({title: navigator.mediaSession.metadata.title, artist: navigator.mediaSession.metadata.artist,"
                         " state: navigator.mediaSession.playbackState})")
    assert lock == {"title": "Basic Breathing", "artist": "Breathing", "state": "playing"}, lock

    # End asks first; Cancel keeps the session running.
    page.get_by_role("button", name="End").click()
    expect(page.get_by_role("heading", name="End session?")).to_be_visible()
    page.get_by_role("button", name="Cancel").click()
    before = remaining_seconds(page)
    wait_until(page, f"{REMAINING} <= {before - 2}", message="the clock stood still after Cancel")

    # Pause is a pause in the sound: the clock stands still however long the wall clock runs.
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("[data-phase]")).to_have_text("Paused")
    paused, held = remaining_seconds(page), position(page)
    page.clock.run_for(60_000)
    assert remaining_seconds(page) == paused
    assert page.evaluate(f"{SOUND}.paused") and position(page) == held
    assert page.evaluate("navigator.mediaSession.playbackState") == "paused"
    # Resume goes on from the same place in the sound.
    page.evaluate("window.started = []")
    page.get_by_role("button", name="Resume").click()
    wait_until(page, "window.started.length > 0")
    assert abs(page.evaluate("window.started[0]") - held) < 0.3, (page.evaluate("window.started"), held)
    wait_until(page, f"{SOUND}.currentTime > {held + 1}")
    assert remaining_seconds(page) <= paused

    # Five minutes of the wall clock are not five minutes of meditation: only the sound counts.
    before = remaining_seconds(page)
    page.clock.run_for(300_000)
    assert before - 5 <= remaining_seconds(page) <= before, (before, remaining_seconds(page))

    # To the end: the bell is in the sound; the session is complete once the sound reaches it.
    seek(page, 297)
    expect(page.get_by_role("heading", name="Session complete")).to_be_visible()
    expect(page.get_by_text("5:00 of calm breathing.")).to_be_visible()
    expect(page.get_by_text("All sessions")).to_be_visible()
    screenshot(page, "meditate-complete")
    record = uploaded(page, sent)
    assert stats(page)["totalSessions"] == 1
    assert (record["actual_duration_seconds"], record["planned_duration_seconds"], record["completed_fully"]) == (300, 300, True), record
    # The bell rings on to the end of the sound after the screen changed, then the sound stops.
    wait_until(page, f"{SOUND} === null", message="the sound was not let go after the bell")
    sound_ends = page.evaluate("JSON.parse(localStorage.getItem('meditation-plan-5')).sound.durationMs") / 1000
    assert page.evaluate("window.ended") == [pytest.approx(sound_ends, abs=0.5)], "the bell was cut short"

    page.get_by_role("button", name="Done").click()
    expect(page.get_by_text("Last meditated: today")).to_be_visible()
    expect(page.locator('[data-stat="streak"]')).to_have_text("1 day")


def test_the_bell_rings_on_time_with_the_screen_locked(server, audio_sink, listening_browser):
    """The closing and the bell need no script: with the page's scripts stopped as on a locked
    phone, the bell is heard when the sound reaches the session's end, and the page that wakes
    after it records the whole session."""
    page = open_page(listening_browser, iphone=True)
    sent = watch_uploads(page)
    open_meditate(server, page)
    start_session(page)
    plan = page.evaluate("JSON.parse(localStorage.getItem('meditation-plan-5'))")
    total = plan["totalSeconds"]
    closing = [cue for cue in plan["cues"] if cue["audio"]["audioFile"].endswith("/closing")][0]
    closing_ends = closing["atSeconds"] + closing["audio"]["durationMs"] / 1000
    bell_seconds = plan["sound"]["durationMs"] / 1000 - total
    # The wall clock of a whole session (the server refuses a record longer than its start to end),
    # then the sound to a few seconds before its end, after the closing words.
    page.clock.run_for(total * 1000)
    start = max(total - 4.0, closing_ends + 0.5)
    assert start < total - 1.5, (closing_ends, total)
    seek(page, start)

    with audio_sink.record() as recording:
        recording.wait_for_seconds(0.5)
        # Where the sound is, and when that is in the recording (what it plays is heard ~0.1–0.4 s later).
        asked = recording.seconds
        heard_at = page.evaluate(f"{SOUND}.currentTime")
        marked = (asked + recording.seconds) / 2
        with locked(page):
            # Nothing of the page runs now: wait, by the recording, until the sound has ended.
            recording.wait_for_seconds(marked + (total - heard_at) + bell_seconds + 2.0)
        sound = recording.samples()
        recording.save(ARTIFACTS / "meditate-bell-locked.wav")  # to listen to

    due = marked + (total - heard_at)  # in the recording, when the sound reaches totalSeconds
    quiet = level(sound[int(marked * RATE):int((due - 0.3) * RATE)])
    assert quiet < -50, f"something sounded before the bell: {quiet:.1f} dBFS"
    rings = onset(sound[int(marked * RATE):])
    assert rings is not None, "no bell was heard"
    rings += marked
    assert abs(rings - due) <= 1.0, f"the bell was due at {due:.2f} s of the recording, heard at {rings:.2f} s"
    assert level(sound[int(rings * RATE):int((rings + 1.0) * RATE)]) > -35, "the bell was too quiet"
    ends = silent_from(sound)
    assert ends is not None and ends < due + bell_seconds + 1.0, f"the sound went on past the bell ({ends} s)"
    (ARTIFACTS / "meditate-bell-locked.json").write_text(json.dumps({
        "locked at (s of the recording)": marked, "sound then at (s)": heard_at, "totalSeconds": total,
        "bell due at": due, "bell heard at": rings, "late by": rings - due, "before it (dBFS)": quiet,
        "bell's first second (dBFS)": level(sound[int(rings * RATE):int((rings + 1.0) * RATE)]), "silent from": ends}, indent=1))

    # Woken after the end: the session is complete, as if it had been watched, and saved whole.
    expect(page.get_by_role("heading", name="Session complete")).to_be_visible()
    expect(page.get_by_text("5:00 of calm breathing.")).to_be_visible()
    record = uploaded(page, sent)
    assert (record["actual_duration_seconds"], record["planned_duration_seconds"], record["completed_fully"]) == (300, 300, True), record
    assert page.evaluate("localStorage.getItem('meditation-session-state')") is None
    close(page)


def test_an_interruption_pauses_and_one_tap_resumes(server, page):
    """A call or another app's audio pauses the sound: the clock stands while the system holds it,
    the screen says Paused, and back in the app one tap goes on from the same place."""
    open_meditate(server, page)
    start_session(page)
    wait_until(page, f"{SOUND}.currentTime > 1.5")
    page.evaluate(f"{SOUND}.pause()")  # what the system does to the page's audio
    expect(page.locator("[data-phase]")).to_have_text("Paused")
    expect(page.get_by_role("button", name="Resume")).to_be_visible()
    screenshot(page, "meditate-interrupted")
    held, left = position(page), remaining_seconds(page)
    page.clock.run_for(120_000)
    assert (position(page), remaining_seconds(page)) == (held, left)
    assert page.evaluate("navigator.mediaSession.playbackState") == "paused"
    page.evaluate("window.started = []")
    page.get_by_role("button", name="Resume").click()
    expect(page.locator("[data-phase]")).to_have_text("Introduction")
    wait_until(page, "window.started.length > 0")
    assert abs(page.evaluate("window.started[0]") - held) < 0.3, (page.evaluate("window.started"), held)
    wait_until(page, f"{SOUND}.currentTime > {held + 1}")
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()


def test_recovery_credits_what_was_heard(server, page):
    """A session left after a few seconds and reopened 30 minutes later resumes where its sound
    stopped and is credited with what was heard, not with the time away (it was recorded as a
    complete 10 minutes)."""
    sent = watch_uploads(page)
    open_meditate(server, page, minutes_ago=45)
    page.get_by_text("10minutes").click()  # remembered for next time
    start_session(page, minutes=10)
    wait_until(page, "JSON.parse(localStorage.getItem('meditation-session-state')).heardSeconds >= 4",
               message="the heard position was not kept on the device")
    # The app is closed (its sound stops with it) and opened again half an hour later.
    page.goto("about:blank")
    page.clock.fast_forward("30:00")
    page.goto(server.url)
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Meditate", exact=True).click()
    expect(page.get_by_role("heading", name="Resume your session?")).to_be_visible()
    heard = page.evaluate("JSON.parse(localStorage.getItem('meditation-session-state')).heardSeconds")
    assert 4 <= heard < 30, heard
    expect(page.get_by_text(re.compile(r"You were 0:\d\d into a 10-minute session\."))).to_be_visible()
    screenshot(page, "meditate-recovery")

    page.evaluate("window.started = []")
    page.get_by_role("button", name="Resume").click()
    wait_until(page, "window.started.length > 0", message="the sound never resumed")
    resumed_at = page.evaluate("window.started[0]")
    assert heard - 0.3 <= resumed_at <= heard + 0.3, (resumed_at, heard)
    left = remaining_seconds(page)
    assert 600 - heard - 3 <= left <= 600 - heard + 1, (left, heard)
    wait_until(page, f"{SOUND}.currentTime > {heard + 2}")
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()
    record = uploaded(page, sent)
    assert heard + 1.5 <= record["actual_duration_seconds"] <= heard + 15, (record, heard)  # what was heard after it, rounded
    assert not record["completed_fully"]
    expect(page.get_by_text(re.compile(rf"You breathed for 0:\d\d of 10:00"))).to_be_visible()
    page.get_by_role("button", name="Done").click()
    expect(page.get_by_role("radio", name="10 minutes")).to_be_checked()


def test_offline_completion_is_uploaded_once(server, page):
    expect_error(page, "offline", r"/api/")  # the upload while the network is off
    open_meditate(server, page)
    expect(page.get_by_text("All sessions")).to_be_visible()
    before = stats(page)["totalSessions"]
    page.get_by_text("5minutes").click()
    start_session(page)
    # 90 s of the wall clock, and the sound to 90 s: the sound plays on in real time from there
    # until the end, so the record holds 90 s plus the seconds the clicks really took.
    page.clock.run_for(90_000)
    seek(page, 90)
    began = time.monotonic()
    page.context.set_offline(True)
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    real = time.monotonic() - began
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()
    expect(page.get_by_text("kept on this device and will be uploaded")).to_be_visible()
    queued = page.evaluate("JSON.parse(localStorage.getItem('meditation-upload-queue'))")
    assert len(queued) == 1 and 90 <= queued[0]["actual_duration_seconds"] <= 90 + math.ceil(real), (queued, real)

    with page.expect_response(lambda r: r.url.endswith("/api/meditation-sessions") and r.request.method == "POST"):
        page.context.set_offline(False)
    wait_until(page, "JSON.parse(localStorage.getItem('meditation-upload-queue')).length === 0")
    assert stats(page)["totalSessions"] == before + 1
    # The acknowledgment can be lost (the connection drops after the server saved it), so the
    # same record is still queued: opening Meditate again sends it again, and it counts once.
    page.evaluate("(record) => localStorage.setItem('meditation-upload-queue', JSON.stringify([record]))", queued[0])
    with page.expect_response(lambda r: r.url.endswith("/api/meditation-sessions") and r.request.method == "POST") as resent:
        page.reload()
    assert resent.value.status == 200, resent.value.status  # already stored: 200, not 201
    wait_until(page, "JSON.parse(localStorage.getItem('meditation-upload-queue') || '[]').length === 0")
    expect(page.get_by_text("All sessions")).to_be_visible()
    assert stats(page)["totalSessions"] == before + 1


def test_reduced_motion_shows_a_still_indicator(server, page):
    page.emulate_media(reduced_motion="reduce")
    open_meditate(server, page)
    start_session(page)
    page.clock.run_for(42_000)  # the wall clock too: the server refuses a record longer than its start to end
    seek(page, 42)
    expect(page.locator(".breath.reduced")).to_be_visible()
    expect(page.locator("[data-word]")).to_have_text("Inhale")
    assert page.evaluate("document.querySelector('[data-circle]').style.transform") == ""
    screenshot(page, "meditate-reduced-motion")
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()


def start_with_a_failing_sound(page):
    """Starts a session whose sound cannot load (its requests aborted until `page.unroute`) and
    waits for the overlay that says so; returns the overlay."""
    expect_error(page, "aborted", r"/api/meditation/plan/audio")  # the failing sound is the point of these tests
    page.route("**/api/meditation/plan/audio**", lambda route: route.abort())
    page.get_by_role("button", name="Start").click()
    overlay = page.get_by_role("alertdialog")
    expect(overlay).to_contain_text("could not be played", timeout=120_000)
    return overlay


def test_a_sound_that_fails_offers_retry_and_waits(server, page):
    open_meditate(server, page)
    overlay = start_with_a_failing_sound(page)
    screenshot(page, "meditate-sound-failed")
    # Without its sound the session waits where it was: the clock does not run on its own.
    page.clock.run_for(30_000)
    assert remaining_seconds(page) == 300
    page.get_by_role("button", name="Retry").click()
    expect(overlay).to_be_visible()  # still failing
    page.unroute("**/api/meditation/plan/audio**")
    page.get_by_role("button", name="Retry").click()
    expect(overlay).to_be_hidden()
    wait_until(page, f"{SOUND}.currentTime > 1.5", message="the sound never played after Retry")
    expect(page.locator("[data-remaining]")).not_to_have_text("5:00")
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()


def test_a_sound_that_fails_can_go_on_without_it_and_rings_the_bell_at_the_end(server, page):
    """The seed's Skip: after the sound fails, "Go on without sound" carries the session on the
    page's clock (phases, the clock, Pause), and at its end the bell alone is tried."""
    asked = []
    page.on("request", lambda request: asked.append(request.url.removeprefix(server.url)))
    sent = watch_uploads(page)
    open_meditate(server, page)
    overlay = start_with_a_failing_sound(page)
    page.get_by_role("button", name="Go on without sound").click()
    expect(overlay).to_be_hidden()
    # (The hint on the screen: the announcer says the same words to a screen reader, briefly.)
    expect(page.locator("[data-without-sound]")).to_contain_text("Going on without sound")
    expect(page.locator("[data-without-sound]")).to_be_visible()
    screenshot(page, "meditate-without-sound")
    page.clock.run_for(45_000)
    expect(page.locator("[data-phase]")).to_have_text("Breathing")
    assert 253 <= remaining_seconds(page) <= 256
    # Paused, the clock stands.
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("[data-phase]")).to_have_text("Paused")
    held = remaining_seconds(page)
    page.clock.run_for(60_000)
    assert remaining_seconds(page) == held
    page.get_by_role("button", name="Resume").click()
    page.clock.run_for(held * 1000 + 1000)
    expect(page.get_by_role("heading", name="Session complete")).to_be_visible()
    # The bell alone was asked for at the end, and the whole session was credited.
    # (The bell is asked for as the session ends: the request may come just after the heading.)
    wait_for(page, lambda: [url for url in asked if url.startswith("/audio/meditation/shared/bell")],
             message=f"the bell was never asked for: {asked}")
    wait_for(page, lambda: sent, message="the session was not sent")
    assert sent[0][1]["completed_fully"] and sent[0][1]["actual_duration_seconds"] == 300, sent


def test_the_session_is_prepared_while_its_length_is_shown(server, page):
    """The setup asks for a plan of the length shown as it opens, and again when another length is
    chosen, so the server makes that session's one file while the person is still choosing: Start
    plays the plan asked for then (its seed's sound), with no plan to wait for at the tap."""
    plans = []
    page.on("requestfinished", lambda request: plans.append(request) if "/api/meditation/plan?" in request.url else None)
    sounds = []
    page.on("request", lambda request: sounds.append(request.url) if "/api/meditation/plan/audio?" in request.url else None)
    open_meditate(server, page)
    expect(page.get_by_role("radio", name="5 minutes")).to_be_checked()
    # The first plan on a new server waits for the narration Piper speaks.
    wait_for(page, lambda: any("minutes=5" in request.url for request in plans), timeout=120,
             message="no plan was asked for while the setup showed")
    page.get_by_text("10minutes").click()
    wait_for(page, lambda: any("minutes=10" in request.url for request in plans),
             message="choosing 10 minutes asked for no plan")
    asked_before_start = len(plans)
    prepared = plans[-1].response().json()
    assert prepared["durationMinutes"] == 10, prepared
    page.get_by_role("button", name="Start").click()
    expect(page.locator("[data-phase]")).to_have_text("Introduction")
    wait_until(page, f"{SOUND} && !{SOUND}.paused && {SOUND}.currentTime > 0.2", message="the session's sound never played")
    assert len(plans) == asked_before_start, [request.url for request in plans]
    assert sounds and all(f"seed={prepared['seed']}" in url and "minutes=10" in url for url in sounds), (prepared["seed"], sounds)
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()


def test_start_plays_under_the_phones_tap_rule(server, browser):
    """On a phone, sound may start only inside a tap (listening.IPHONE_TAP_RULE): Start unlocks the
    session's element in its tap, so the sound plays when the plan arrives, after the tap; Pause
    and Resume are taps too."""
    page = open_page(browser, iphone=True, tap_rule=True)
    sign_in(server, page, "Meditate")
    # The rule holds on this page: an element played outside a tap is refused.
    refused = page.evaluate("new Audio('/audio/meditation/shared/silence-1s').play().then(() => 'played', (problem) => problem.name)")
    assert refused == "NotAllowedError"
    start_session(page)  # the plan comes from the server after the tap
    expect(page.get_by_role("alertdialog")).to_be_hidden()
    page.get_by_role("button", name="Pause").click()
    wait_until(page, f"{SOUND}.paused", message="Pause did not pause the sound")
    page.get_by_role("button", name="Resume").click()
    wait_until(page, f"!{SOUND}.paused", message="Resume did not play the sound again")
    expect(page.get_by_role("alertdialog")).to_be_hidden()
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()
    close(page)


def test_stale_session_is_discarded(server, page):
    open_meditate(server, page)
    expect(page.get_by_role("button", name="Start")).to_be_visible()
    # A session saved two hours ago (the tab was closed mid-session and forgotten).
    page.evaluate("""() => {
        const twoHoursAgo = Date.now() - 2 * 3600 * 1000;
        localStorage.setItem('meditation-session-state', JSON.stringify({
            status: 'active', sessionType: 'basic-breathing', durationMinutes: 5, sessionStartedAt: twoHoursAgo,
            pausedAt: null, heardSeconds: 60, currentPhaseIndex: 1, savedAt: twoHoursAgo,
            plan: {totalSeconds: 300, phases: [], cues: [], pattern: [], sound: {url: '/api/meditation/plan/audio?minutes=5&seed=1'}}}));
    }""")
    page.reload()
    page.get_by_role("link", name="Meditate", exact=True).wait_for()
    expect(page.get_by_role("button", name="Start")).to_be_visible()
    expect(page.get_by_role("heading", name="Resume your session?")).to_be_hidden()
    assert page.evaluate("localStorage.getItem('meditation-session-state')") is None

def test_the_browser_machine_answers_the_shared_cases(server, page):
    """Web/meditation/run.js against Tests/Shared/meditation-session-cases.json, the same cases
    the Swift machine (Breathing's MeditationRun) answers in BreathingTests: one truth for both."""
    shared = shared_cases("meditation-session-cases.json")
    expect_error(page, 404, r"/favicon\.ico$")  # a bare image asks for it; the app's pages name their icons
    page.goto(server.url + "/icons/icon.svg")  # the app's origin, without running the app
    mismatches = page.evaluate("""async (shared) => {
        const machine = await import('/meditation/run.js');
        let start = 0;
        const phases = shared.plan.phases.map((phase) => {
            const made = { type: phase.type, title: phase.type, startSeconds: start, durationSeconds: phase.durationSeconds };
            start += phase.durationSeconds;
            return made;
        });
        const plan = { sessionType: shared.plan.sessionType, durationMinutes: shared.plan.durationMinutes, totalSeconds: start, phases,
            sound: { audioFile: 'session', url: '', durationMs: start * 1000 } };
        const name = (event) => ({
            phase: () => `phase ${event.index}`, complete: () => `complete ${event.record.actual_duration_seconds}`,
            ended: () => `${event.timedOut ? 'timed out' : 'ended'} ${event.record.actual_duration_seconds}`,
        }[event.type] || (() => `unknown ${event.type}`))();
        const problems = [];
        const base = 1_800_000_000_000;
        for (const sharedCase of shared.cases) {
            let run = machine.createRun(plan);
            sharedCase.steps.forEach((step, number) => {
                const now = base + step.at * 1000;
                const label = `${sharedCase.name}, step ${number + 1} (${step.do} at ${step.at} s)`;
                const check = (what, got, want) => {
                    if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${label}: ${what} ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
                };
                if (step.do === 'start') check('events', machine.start(run, now).map(name), step.events || []);
                else if (step.do === 'tick') check('events', machine.tick(run, now, step.position).map(name), step.events || []);
                else if (step.do === 'pause') check('returns', machine.pause(run, now, step.position), step.returns);
                else if (step.do === 'resume') check('returns', machine.resume(run, now), step.returns);
                else if (step.do === 'end') {
                    const record = machine.endEarly(run, now, step.position);
                    if ('record' in step) check('record', record ? record.actual_duration_seconds : null, step.record);
                } else if (step.do === 'reopen') {
                    machine.save(run);
                    const back = machine.recover(now);
                    check('returns', back !== null, step.returns);
                    if (back) run = back;
                } else problems.push(`${label}: unknown step`);
                if ('status' in step) check('status', run.status, step.status);
                if ('elapsed' in step && Math.abs(machine.elapsed(run) - step.elapsed) >= 0.01) {
                    problems.push(`${label}: elapsed ${machine.elapsed(run)}, expected ${step.elapsed}`);
                }
            });
        }
        machine.clearSaved();
        return problems;
    }""", shared)
    assert len(shared["cases"]) >= 10
    assert mismatches == [], "\n".join(mismatches)
