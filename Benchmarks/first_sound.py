#!/usr/bin/env python3
"""make bench, first sound (issue 46, part 6): how long after a tap each area's audio starts
playing, in Chromium against the release server with the real voice (Piper), the server warm
(health says so: its engines loaded and Meditate's narration spoken). Goal: at most 1 s each.

  - Listen: a song from the library (a plain file: the floor any area could reach; the peer the
    others are read against).
  - Bedside: Content off → a meditation: the voice of a piece never spoken on this server (heard
    as it is spoken, in one stream from its first phrase: …/live).
  - Wind Down: an item never played (spoken as it plays, from its first phrase); and a seek to
    80 % of one never played, once it starts (that part spoken first).
  - Meditate: Start of a 5-minute session, tapped at once (its one file, asked for as the setup
    opened, is still being made from the narration kept at warm-up), and tapped after the setup
    has been open 3 s, as a person choosing a length (the file made meanwhile). The second of
    silence its player plays within the tap is not its first sound.
  - Articles: Listen on a pasted article never spoken (its first part spoken first).

The time is from the click's event on the page to the element's `playing` event (the browser
has data and plays; the sound card's own latency, a few tens of ms, comes after either way).
Each area runs three times (a new piece, item or article each time, so nothing is cached by an
earlier run; each Meditate session is ended before the next), each tap on a quiet server (the
server and its helpers under 5 % of a core: a Wind Down item an earlier round started goes on
being made, and a person at night is alone on their server); the median is printed beside the
floor's.

    .venv/bin/python Benchmarks/first_sound.py [--binary .build/release/reverie] [--only 'Wind Down']
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from reverie_process import ROOT, ReverieProcess, call  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
GOAL_SECONDS = 1.0
ROUNDS = 3
PASSWORD = "a long enough password"

# Every element's `playing` after the latest click, in page time (ms), with what it played.
WATCH = """(() => {
  window.__tap = null;
  window.__played = [];
  document.addEventListener('click', () => { window.__tap = performance.now(); window.__played = []; }, true);
  // Players' elements need not be in the document: each is watched from its first play().
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function (...args) {
    if (!this.__watched) {
      this.__watched = true;
      this.addEventListener('playing', () => window.__played.push({ element: this, at: performance.now(), src: this.currentSrc }));
    }
    return play.apply(this, args);
  };
})();"""

# Seconds from the click to the first `playing` of an element matching the selector, or null yet.
FIRST = """(selector) => {
  // (Not the second of silence a player plays within the tap to be let play later: no sound.)
  const hit = window.__played.find((entry) => entry.element.matches(selector) && !/silence/.test(entry.src));
  return hit && window.__tap != null ? (hit.at - window.__tap) / 1000 : null;
}"""

# Seconds from setting the element's time (as the scrubber sets it) until the seek is done (its
# `seeked`: the browser has the audio there), once it then plays on from there; null after 120 s.
SEEK = """(fraction) => new Promise((resolve) => {
  const element = document.querySelector('.player-audio');
  const target = element.duration * fraction;
  let seeked = null;
  const events = ['seeked', 'timeupdate', 'playing'];
  const finish = (value) => { events.forEach((name) => element.removeEventListener(name, heard)); clearTimeout(limit); resolve(value); };
  const heard = (event) => {
    if (event.type === 'seeked' && seeked == null) seeked = performance.now();
    if (seeked != null && !element.paused && element.currentTime > target) finish((seeked - asked) / 1000);
  };
  const limit = setTimeout(() => finish(null), 120000);
  events.forEach((name) => element.addEventListener(name, heard));
  const asked = performance.now();
  element.currentTime = target;
})"""

WIND_DOWN_ITEMS = ["story_candle_room", "meditation_gratitude", "affirmation_peaceful"]
# Long stories never played, for a seek to 80 % while the voice is still near the start.
FAR_ITEMS = ["story_night_train", "story_rainforest_rain", "story_cabin_fire"]
ARTICLE = ("The harbour was quiet when the last boat came in. Gulls stood on the posts and watched the water. "
           "An old man coiled a rope on the pier and hummed a song his father used to sing. ")


def tone_file(folder):
    path = Path(folder) / "floor.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=60",
                    "-metadata", "title=Floor Tone", "-c:a", "libmp3lame", "-b:a", "128k", str(path)], check=True)
    return path


def upload(server, cookie, path):
    request = urllib.request.Request(server.url + "/api/library", data=path.read_bytes(), method="POST",
                                     headers={"Cookie": cookie, "Content-Type": "audio/mpeg", "X-File-Name": path.name})
    with urllib.request.urlopen(request, timeout=120) as answer:
        assert answer.status in (200, 201), answer.status


def cpu_seconds(root):
    """CPU seconds used so far by process `root` and every process under it (the server, its
    Piper workers, its ffmpegs), from /proc."""
    parents, used = {}, {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        used[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    total, family = 0.0, {root}
    grew = True  # (a child's pid may be lower than its parent's: walk until nothing is added)
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in family and pid not in family:
                family.add(pid)
                grew = True
    for pid in family:
        total += used.get(pid, 0.0)
    return total


def wait_quiet(pid, timeout=180):
    """Waits until the server and its helpers are idle (under 5 % of a core over half a second):
    what an earlier round left speaking (a Wind Down item goes on being made for everyone) is not
    measured as this tap's wait. A person at night is alone on their server."""
    deadline = time.monotonic() + timeout
    before = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = cpu_seconds(pid)
        if now - before < 0.025:
            return
        before = now
    print(f"the server was still busy after {timeout} s; measured anyway", file=sys.stderr)


def wait_first(page, selector, timeout=120):
    """Polls through evaluate (the app's CSP refuses a string evaluated as script, which
    wait_for_function is)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seconds = page.evaluate(FIRST, selector)
        if seconds is not None:
            return seconds
        time.sleep(0.05)
    raise TimeoutError(f"nothing matching {selector} played within {timeout} s of the tap")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/reverie"))
    parser.add_argument("--only", default="", help="measure only the areas whose names hold this (e.g. 'Wind'); the floor always")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    results = {}
    with ReverieProcess(args.binary, prefix="reverie-bench-first-sound-", shared_sleep_cache=False) as server, \
            tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        server.wait_until_warm()
        _, headers, _ = call(server.url + "/api/setup", "POST", {"username": "bench", "password": PASSWORD})
        cookie = headers["Set-Cookie"].split(";")[0]
        upload(server, cookie, tone_file(folder))
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block")
        name, value = cookie.split("=", 1)
        context.add_cookies([{"name": name, "value": value, "url": server.url}])
        context.add_init_script(WATCH)
        page = context.new_page()

        def measure(area, selector, tap, reset=None, rounds=ROUNDS):
            if args.only.lower() not in area.lower() and not area.startswith("Listen"):
                return
            times = []
            try:
                for round_ in range(rounds):
                    wait_quiet(server.process.pid)
                    tap(round_)
                    times.append(wait_first(page, selector))
                    if reset:
                        reset(round_)
            except Exception as problem:  # the other areas are still measured; the screen is kept
                shot = Path(tempfile.gettempdir()) / f"first-sound-{area.split()[0].lower()}.png"
                page.screenshot(path=str(shot))
                print(f"{area}: {str(problem).splitlines()[0]} (the screen: {shot})", file=sys.stderr)
            results[area] = times

        # Listen: the floor.
        def listen(round_):
            page.goto(server.url + "/listen")
            page.get_by_role("tab", name="Music").click()
            page.locator(".listen-item", has_text="Floor Tone").locator("[data-play]").click()
        measure("Listen (a song)", "audio[data-channel=music]", listen,
                lambda _: page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.pauseAll())"))

        # Bedside: a new meditation each round, in the server's own voice.
        def bedside(round_):
            settings = {"contentMode": "off", "captions": True, "room": "rain", "rate": 1, "contentCompletedSuccessfully": False,
                        "alarm": {"time": "07:00", "enabled": False, "days": []}}
            call(server.url + "/api/settings", "PATCH", {"bedside": settings}, headers={"Cookie": cookie})
            page.goto(server.url + "/bedside")
            page.get_by_role("button", name="Content off. Play a meditation").click()
        measure("Bedside (a meditation)", ".bs-voice", bedside)

        # Wind Down: an item never played, each round another.
        def wind_down(round_):
            page.goto(server.url + "/wind-down")
            page.locator(f'[data-item="{WIND_DOWN_ITEMS[round_]}"].wd-card').first.click()
        measure("Wind Down (first play)", ".player-audio", wind_down)

        # Wind Down: once an item never played starts, a seek to 80 % of it (the voice is minutes
        # of the item short of there): from the seek to its sound.
        area = "Wind Down (far seek)"
        if args.only.lower() in area.lower():
            times = []
            try:
                for round_ in range(ROUNDS):
                    wait_quiet(server.process.pid)
                    page.goto(server.url + "/wind-down")
                    page.locator(f'[data-item="{FAR_ITEMS[round_]}"].wd-card').first.click()
                    wait_first(page, ".player-audio")
                    seconds = page.evaluate(SEEK, 0.8)
                    if seconds is None:
                        raise RuntimeError("no sound within 120 s of the seek")
                    times.append(seconds)
            except Exception as problem:
                print(f"{area}: {str(problem).splitlines()[0]}", file=sys.stderr)
            results[area] = times

        # Meditate: Start, at once and after a moment on the setup (each session ended after, or
        # the next opening offers to resume it).
        def meditate(wait):
            def tap(round_):
                page.goto(server.url + "/meditate")
                page.get_by_text("5minutes").click()
                if wait:
                    page.wait_for_timeout(wait * 1000)
                page.get_by_role("button", name="Start").click()
            return tap

        def end_session(round_):
            page.get_by_role("button", name="End").click()
            page.get_by_role("button", name="End Session").click()
            page.get_by_role("heading", name="Session ended").wait_for()
        measure("Meditate (Start at once)", "audio.meditation-sound", meditate(0), end_session)
        measure("Meditate (Start after 3 s)", "audio.meditation-sound", meditate(3), end_session)

        # Articles: Listen on a new article each round.
        def article(round_):
            _, _, saved = call(server.url + "/api/articles", "POST", {"title": f"Harbour {round_ + 1}", "text": ARTICLE * (4 + round_)},
                               headers={"Cookie": cookie})
            page.goto(f"{server.url}/listen/articles/{saved['id']}")
            page.locator("[data-listen]").click()
        measure("Articles (Listen)", "audio", article)
        browser.close()

    floor = statistics.median(results["Listen (a song)"] or [float("nan")])
    print(f"First sound after a tap (median of {ROUNDS}; goal <= {GOAL_SECONDS:.1f} s), release server, Piper's voice, warm and quiet:")
    for area, times in results.items():
        if not times:
            print(f"  {area:26s} not measured (above)")
            continue
        median = statistics.median(times)
        runs = ", ".join(f"{value:.2f}" for value in times)
        verdict = "ok" if median <= GOAL_SECONDS else "over"
        print(f"  {area:26s} {median:6.2f} s  ({runs})  {median / floor:5.1f}x the plain file's  {verdict}")


if __name__ == "__main__":
    main()
