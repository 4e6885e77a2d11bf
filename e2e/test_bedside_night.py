"""Bedside's night as one live stream (issue 46).

Over real HTTP, decoded by ffmpeg: the chime starts at `alarmAt` whenever the stream began, and a
Stop (alarmAt 0) quiets it within the stream's lead and a reading of the settings.

In the browser, under the iPhone lock model (e2e/listening.py: scripts held, Web Audio suspended,
the element's volume ignored): with an alarm set the page plays the stream in a plain <audio> that
no level or graph touches, and the recording holds the chime at the alarm's minute with the page
locked; the lock screen's pause, pressed while locked, stops it."""

import json
import subprocess
import threading
import time
import urllib.request

import numpy as np
from datetime import datetime, timedelta
from playwright.sync_api import expect

from conftest import ARTIFACTS, close, open_page, screenshot, sign_in, wait_until
from listening import RATE as RECORDING_RATE, level, levels, locked, onset, press
from test_bedside import bedside_settings, open_bedside

RATE = 16_000


def decoded(data):
    """The MP3 bytes as 16 kHz mono floats."""
    pcm = subprocess.run(["ffmpeg", "-v", "error", "-i", "pipe:0", "-f", "s16le", "-ac", "1", "-ar", str(RATE), "pipe:1"],
                         input=data, capture_output=True, check=True).stdout
    return np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768


def test_the_chime_starts_at_its_moment_and_a_stop_quiets_it(server, page):
    sign_in(server, page)
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())

    def call(method, path, body=None):
        request = urllib.request.Request(server.url + path, method=method, headers={"Cookie": cookie, "Content-Type": "application/json"},
                                         data=None if body is None else json.dumps(body).encode())
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.loads(answer.read() or b"null")

    call("PATCH", "/api/settings", {"bedside": {"room": "silence"}})
    night = call("POST", "/api/bedside/night", {})
    deadline = time.monotonic() + 120
    while not night["prepared"]:  # a new server makes the chime after the first ask
        assert time.monotonic() < deadline, "the night's sounds were never made"
        night = call("POST", "/api/bedside/night", {})
    alarm = time.time() + 6
    call("PATCH", "/api/settings", {"bedside": {"alarmAt": round(alarm * 1000)}})
    received = bytearray()
    request = urllib.request.Request(server.url + night["stream"], headers={"Cookie": cookie})
    with urllib.request.urlopen(request, timeout=60) as stream:
        began = time.time()  # the stream's first sample is the night at this moment (± the answer's latency)
        stopper = threading.Timer(alarm + 4 - time.time(), lambda: call("PATCH", "/api/settings", {"bedside": {"alarmAt": 0}}))
        stopper.start()
        stopped = alarm + 4
        while time.time() < alarm + 9:
            received += stream.read1(4096)
        stopper.join()
    sound = decoded(bytes(received))
    windows = [20 * np.log10(np.sqrt(np.mean(sound[i:i + RATE // 10] ** 2)) + 1e-12) for i in range(0, len(sound) - RATE // 10, RATE // 10)]
    loud = [index / 10 for index, value in enumerate(windows) if value > -100]  # the silent room is digital zero: anything is the chime
    assert loud, "no chime in the stream"
    first, last = loud[0] + began, loud[-1] + began
    print(f"chime from {first - alarm:+.2f} s to {last - stopped:+.2f} s after the Stop")
    # The stream's first sound is the night 1 s on (what a player takes to start: playerStart).
    assert -1.5 <= first - alarm <= 0.0, f"the chime began {first - alarm:+.2f} s from its moment"
    # Made 3 s ahead (the lead) plus playerStart, the settings read twice a second.
    assert last - stopped <= 4.0, f"the chime went on {last - stopped:.2f} s after the Stop"
    assert len(sound) / RATE >= alarm + 8 - began, "the stream fell behind the wall clock"


NIGHT = "document.querySelector('.bs-night-sound')"


def test_the_alarm_rings_at_its_minute_with_the_screen_locked(server, audio_sink, listening_browser):
    page = open_page(listening_browser, iphone=True)
    open_bedside(server, page, room="silence", clock24=True)  # the room silent: what is heard is the chime
    # The alarm at the first whole minute at least two minutes ahead, on the real clock (the server's too).
    ring = (datetime.now() + timedelta(minutes=2)).replace(second=0, microsecond=0) + timedelta(minutes=1)
    if (ring - datetime.now()).total_seconds() > 170:
        ring -= timedelta(minutes=1)
    with audio_sink.record() as recording:
        page.get_by_role("button", name="Alarm").click()
        sheet = page.get_by_role("dialog", name="Alarm")
        sheet.get_by_label("Time").fill(ring.strftime("%H:%M"))
        sheet.get_by_role("button", name="Save").click()  # a tap: the night's stream starts playing
        expect(page.locator(".bs-alarm-locked")).to_have_text(f"Alarm {ring.strftime('%H:%M')} will ring with the screen locked.")
        wait_until(page, f"!{NIGHT}.paused && {NIGHT}.currentTime > 0.5", message="the night's stream never played")
        assert page.evaluate("document.querySelector('.bs-room-sound').paused")
        assert bedside_settings(server, page)["alarmAt"] == ring.timestamp() * 1000
        screenshot(page, "bedside-night-stream")
        mark, wall = recording.seconds, time.time()  # the wall clock's moment and the recording's, together
        rings_at = mark + (ring.timestamp() - wall)  # the alarm's minute in the recording
        with locked(page):
            recording.wait_for_seconds(rings_at + 20)
            sound = recording.samples()
            # Still locked, the lock screen's pause stops the alarm (its handler runs, as an iPhone's
            # lock screen runs it); the page's own clock had not run since the lock.
            stopped_at = recording.seconds
            press(page, "pause")
            recording.wait_for_seconds(stopped_at + 5)
            after = recording.samples(stopped_at)
        recording.save(ARTIFACTS / "bedside-night.wav")  # to listen to when it fails

        # Woken: no alarm rings or waits (it was a one-time alarm), and the room plays on.
        expect(page.get_by_role("alertdialog", name="Alarm")).to_have_count(0)
        expect(page.locator(".bs-alarm-line")).to_be_hidden()
        wait_until(page, "fetch('/api/settings').then(r => r.json()).then(s => s.bedside.alarmAt === 0 && !s.bedside.alarm.enabled)",
                   message="the Stop pressed on the lock screen was not kept")
        screenshot(page, "bedside-night-stopped")
    close(page)

    before = sound[int((mark + 1) * RECORDING_RATE):int((rings_at - 1.5) * RECORDING_RATE)]
    assert level(before) < -70, f"something sounded before the alarm's minute ({level(before):.1f} dBFS)"
    heard = onset(sound[int((rings_at - 10) * RECORDING_RATE):], threshold=-75)
    assert heard is not None, f"no chime in the {len(sound) / RECORDING_RATE - rings_at:.0f} s after the alarm's minute"
    late = heard - 10
    print(f"chime heard {late:+.2f} s from the alarm's minute (locked {len(sound) / RECORDING_RATE - mark:.0f} s)")
    assert abs(late) <= 2.0, f"the chime began {late:+.2f} s from the alarm's minute"
    rise = levels(sound[int((rings_at + 1) * RECORDING_RATE):int((rings_at + 19) * RECORDING_RATE)], window=3.0)
    assert rise[-1] > rise[0] + 3, f"the chime did not rise: {rise}"
    loud = [index * 0.1 for index, value in enumerate(levels(after, 0.1)) if value >= -75]
    assert not loud or loud[-1] <= 1.5, f"the chime went on {loud[-1]:.1f} s after the lock screen's pause"
