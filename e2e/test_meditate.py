"""Meditate: a breathing session with narration on a phone, in virtual time (Playwright's clock)."""

import math
import re
import time
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import expect

from conftest import expect_error, screenshot, sign_in, wait_for, wait_until
from shared_cases import shared_cases

pytestmark = pytest.mark.real_speech  # the first plan waits for the narration Piper speaks



def open_meditate(server, page):
    """Installs the virtual clock, signs in and opens Meditate."""
    # Ten minutes ago: sessions end before the server's real "now", on the same day as the page.
    page.clock.install(time=datetime.now() - timedelta(minutes=10))
    sign_in(server, page, "Meditate")


def start_session(page, minutes=5):
    page.get_by_text(f"{minutes}minutes").click()
    page.get_by_role("button", name="Start").click()
    # The first plan on a new server speaks the narration with Piper: give it time.
    expect(page.locator("[data-phase]")).to_have_text("Introduction", timeout=120_000)


def remaining_seconds(page):
    minutes, seconds = page.locator("[data-remaining]").inner_text().split(":")
    return int(minutes) * 60 + int(seconds)


def stats(page):
    return page.evaluate("fetch('/api/meditation-sessions/stats').then(r => r.json())")


def test_full_session(server, page):
    cues = []
    page.on("request", lambda request: cues.append(request.url.split("/audio/meditation/")[1])
            if "/audio/meditation/" in request.url and "silence" not in request.url else None)
    open_meditate(server, page)
    expect(page.get_by_text("No sessions yet")).to_be_visible()
    expect(page.get_by_role("radio", name="5 minutes")).to_be_checked()
    screenshot(page, "meditate-setup")

    start_session(page)
    # The request events reach the test a moment after the page makes them.
    wait_for(page, lambda: cues, message="no narration cue was asked for")
    assert cues[:1] == ["sessions/basic-breathing/intro-welcome"], cues
    assert remaining_seconds(page) in (299, 300)

    # Into the breathing phase: the circle follows 4-2-6-2.
    page.clock.run_for(40_000)
    expect(page.locator("[data-phase]")).to_have_text("Breathing")
    page.clock.run_for(2_000)  # halfway through the first inhale
    expect(page.locator("[data-word]")).to_have_text("Inhale")
    scale = page.evaluate("parseFloat(document.querySelector('[data-circle]').style.transform.slice(6))")
    assert 1.3 < scale < 1.6, scale  # 2 s into the 4 s inhale (1 → 1.8), give or take the test's own time
    page.clock.run_for(2_500)
    expect(page.locator("[data-word]")).to_have_text("Hold")
    page.clock.run_for(2_000)
    expect(page.locator("[data-word]")).to_have_text("Exhale")
    screenshot(page, "meditate-active")
    # The lock screen shows the session and the phase, with the position.
    lock = page.evaluate("({title: navigator.mediaSession.metadata.title, artist: navigator.mediaSession.metadata.artist,"
                         " state: navigator.mediaSession.playbackState})")
    assert lock == {"title": "Basic Breathing", "artist": "Breathing", "state": "playing"}, lock

    # End asks first; Cancel keeps the session running.
    page.get_by_role("button", name="End").click()
    expect(page.get_by_role("heading", name="End session?")).to_be_visible()
    page.get_by_role("button", name="Cancel").click()
    before = remaining_seconds(page)
    page.clock.run_for(3_000)
    assert remaining_seconds(page) <= before - 2

    # Pause stops the clock; Resume goes on from there.
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("[data-phase]")).to_have_text("Paused")
    paused = remaining_seconds(page)
    page.clock.run_for(60_000)
    assert remaining_seconds(page) == paused
    page.get_by_role("button", name="Resume").click()

    # To the end: the closing, then the bell, once.
    page.clock.run_for((paused + 2) * 1000)
    expect(page.get_by_role("heading", name="Session complete")).to_be_visible()
    expect(page.get_by_text("5:00 of calm breathing.")).to_be_visible()
    assert len(cues) == 4 and cues[1].startswith("sessions/basic-breathing/reminder-"), cues
    assert [cues[0], cues[2], cues[3]] == ["sessions/basic-breathing/intro-welcome", "sessions/basic-breathing/closing", "shared/bell"], cues
    expect(page.get_by_text("All sessions")).to_be_visible()
    screenshot(page, "meditate-complete")
    assert stats(page)["totalSessions"] == 1

    page.get_by_role("button", name="Done").click()
    expect(page.get_by_text("Last meditated: today")).to_be_visible()
    expect(page.locator('[data-stat="streak"]')).to_have_text("1 day")


def test_reload_resumes_where_it_was(server, page):
    open_meditate(server, page)
    page.get_by_text("10minutes").click()  # remembered for next time
    start_session(page, minutes=10)
    page.clock.run_for(60_000)
    page.reload()
    page.get_by_role("link", name="Meditate", exact=True).wait_for()
    expect(page.get_by_role("heading", name="Resume your session?")).to_be_visible()
    expect(page.get_by_text("into a 10-minute session")).to_be_visible()
    page.get_by_role("button", name="Resume").click()
    # Time kept going by the clock while the page reloaded: about nine minutes left.
    left = remaining_seconds(page)
    assert 530 <= left <= 541, left
    page.clock.run_for(5_000)
    assert remaining_seconds(page) <= left - 4
    # Ending early keeps a shorter session.
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()
    expect(page.get_by_text(re.compile(r"You breathed for 1:0\d of 10:00"))).to_be_visible()
    page.get_by_role("button", name="Done").click()
    expect(page.get_by_role("radio", name="10 minutes")).to_be_checked()


def test_offline_completion_is_uploaded_once(server, page):
    expect_error(page, "offline", r"/api/")  # the upload while the network is off
    open_meditate(server, page)
    expect(page.get_by_text("All sessions")).to_be_visible()
    before = stats(page)["totalSessions"]
    page.get_by_text("5minutes").click()
    # The installed clock also flows in real time, so the session lasts the 90 s run here plus
    # however long the clicks around it really took (a second or more on a busy machine).
    began = time.monotonic()
    start_session(page)
    page.clock.run_for(90_000)
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
    wait_until(page, "JSON.parse(localStorage.getItem('meditation-upload-queue')).length === 0", timeout=30)
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
    page.clock.run_for(42_000)
    expect(page.locator(".breath.reduced")).to_be_visible()
    expect(page.locator("[data-word]")).to_have_text("Inhale")
    assert page.evaluate("document.querySelector('[data-circle]').style.transform") == ""
    screenshot(page, "meditate-reduced-motion")
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()


def test_narration_that_fails_offers_retry_and_skip(server, page):
    open_meditate(server, page)
    expect_error(page, "aborted", r"/audio/meditation/sessions/")  # the failing narration is the point of this test
    page.route("**/audio/meditation/sessions/**", lambda route: route.abort())
    start_session(page)
    overlay = page.get_by_role("alertdialog")
    expect(overlay).to_contain_text("could not be played")
    page.get_by_role("button", name="Retry").click()
    expect(overlay).to_be_visible()  # still failing
    page.get_by_role("button", name="Skip").click()
    expect(overlay).to_be_hidden()
    # The session went on underneath.
    page.clock.run_for(45_000)
    expect(page.locator("[data-phase]")).to_have_text("Breathing")
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()


def test_stale_session_is_discarded(server, page):
    open_meditate(server, page)
    expect(page.get_by_role("button", name="Start")).to_be_visible()
    # A session saved two hours ago (the tab was closed mid-session and forgotten).
    page.evaluate("""() => {
        const twoHoursAgo = Date.now() - 2 * 3600 * 1000;
        localStorage.setItem('meditation-session-state', JSON.stringify({
            status: 'active', sessionType: 'basic-breathing', durationMinutes: 5, sessionStartedAt: twoHoursAgo,
            pausedAt: null, pausedElapsed: 0, scheduledCues: [], currentPhaseIndex: 0, savedAt: twoHoursAgo,
            plan: {totalSeconds: 300, phases: [], cues: [], pattern: []}}));
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
            cues: shared.plan.cues.map((cue) => ({ atSeconds: cue.atSeconds, audio: { audioFile: cue.audioFile, url: '', durationMs: 1000 } })) };
        const name = (event) => ({
            phase: () => `phase ${event.index}`, cue: () => `cue ${event.cue.audioFile}`, skip: () => `skip ${event.cue.audioFile}`,
            bell: () => 'bell', complete: () => `complete ${event.record.actual_duration_seconds}`,
            ended: () => `${event.timedOut ? 'timed out' : 'ended'} ${event.record.actual_duration_seconds}`,
        }[event.type] || (() => `unknown ${event.type}`))();
        const problems = [];
        const base = 1_800_000_000_000;
        for (const sharedCase of shared.cases) {
            const run = machine.createRun(plan);
            sharedCase.steps.forEach((step, number) => {
                const now = base + step.at * 1000;
                const label = `${sharedCase.name}, step ${number + 1} (${step.do} at ${step.at} s)`;
                const check = (what, got, want) => {
                    if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${label}: ${what} ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
                };
                if (step.do === 'start') check('events', machine.start(run, now).map(name), step.events || []);
                else if (step.do === 'tick') check('events', machine.tick(run, now).map(name), step.events || []);
                else if (step.do === 'pause') check('returns', machine.pause(run, now), step.returns);
                else if (step.do === 'resume') check('returns', machine.resume(run, now), step.returns);
                else if (step.do === 'end') {
                    const record = machine.endEarly(run, now);
                    if ('record' in step) check('record', record ? record.actual_duration_seconds : null, step.record);
                } else problems.push(`${label}: unknown step`);
                if ('status' in step) check('status', run.status, step.status);
                if ('elapsed' in step && Math.abs(machine.elapsed(run, now) - step.elapsed) >= 0.01) {
                    problems.push(`${label}: elapsed ${machine.elapsed(run, now)}, expected ${step.elapsed}`);
                }
            });
        }
        return problems;
    }""", shared)
    assert len(shared["cases"]) >= 7
    assert mismatches == [], "\n".join(mismatches)
