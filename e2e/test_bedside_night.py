"""Bedside's night stream as the server sends it (issue 46): one live MP3 made on the wall clock,
in which the alarm's chime starts at `alarmAt` whenever the stream began, and which quiets within
two seconds of a Stop (alarmAt 0), read from the settings each second. Read over real HTTP and
decoded by ffmpeg, without a browser; the page does not play it yet (see issue 46's note: Chromium
starts a 16 kb/s live MP3 from this server only after ~14 s, which is not understood yet)."""

import json
import subprocess
import threading
import time
import urllib.request

import numpy as np

from conftest import sign_in

RATE = 16_000


def decoded(data):
    """The MP3 bytes as 16 kHz mono floats."""
    pcm = subprocess.run(["ffmpeg", "-v", "error", "-i", "pipe:0", "-f", "s16le", "-ac", "1", "-ar", str(RATE), "pipe:1"],
                         input=data, capture_output=True, check=True).stdout
    return np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768


def test_the_chime_starts_at_its_moment_and_stops_within_two_seconds(server, page):
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
    assert abs(first - alarm) <= 0.5, f"the chime began {first - alarm:+.2f} s from its moment"
    assert last - stopped <= 2.0, f"the chime went on {last - stopped:.2f} s after the Stop"
    assert len(sound) / RATE >= alarm + 8 - began, "the stream fell behind the wall clock"
