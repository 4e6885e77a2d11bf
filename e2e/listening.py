"""The harness that listens: what the browser really plays, recorded, while the page may be locked
as an iPhone locks it (issues 31 and 46).

Chromium plays into a PulseAudio null sink that the test run starts itself (one daemon per pytest
worker, in a temporary XDG_RUNTIME_DIR; no system daemon), and `parec` records the sink's monitor
as 48 kHz mono 16-bit. A test asks for the `listening_browser` and `audio_sink` fixtures
(e2e/conftest.py), opens its page with `open_page(listening_browser, iphone=True)` when the device
should ignore `audio.volume` as an iPhone does, and then, for example:

    with audio_sink.record() as recording:             # a sleep timer set to end in 30 s
        page.get_by_role("button", name="Play").click()
        recording.wait_for_seconds(1)                 # a second of audio, not a second of sleep
        with locked(page):                            # the screen is off: no timer, no event runs
            recording.wait_for_seconds(35)
        sound = recording.samples()
    begins = onset(sound)
    assert silent_from(sound) == pytest.approx(begins + 30, abs=0.3)  # the fade is in the audio itself
    assert dominant_frequency(recording.samples(begins + 1, begins + 2)) == pytest.approx(440, abs=5)

The iPhone lock model (`lock`, `wake`, `locked`; the gate in e2e/iphone_lock.js that `open_page`
adds to every page) stops what a locked iPhone stops and nothing else, as public reports describe
it: the page's timers, events, handlers, observers and the answers to its fetches wait for the
wake, every AudioContext is suspended ("interrupted"), so Web Audio is silent, and a media
element's `volume` stays ignored (iphone=True); a media element plays on and keeps loading (a file
past its read-ahead, a live stream), and a lock-screen button (`press`) runs the page's Media
Session handler. `lock` says in detail what escapes the gate. It is a model: a real iPhone must
confirm what it claims.

Times that the analysis functions return are seconds from the start of the samples they are given;
`recording.samples(start, end)` cuts a stretch by seconds of the recording, and `recording.seconds`
read just after an action marks when it happened in the recording (what it makes heard comes
~0.2–0.4 s later: the audio path's own latency, so compare times with an `onset`, not the mark).
"""

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import wave
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

RATE = 48_000
"""Samples per second of every recording (mono, 16-bit)."""

IPHONE_VOLUME = """
Object.defineProperty(HTMLMediaElement.prototype, "volume", {
  configurable: true,
  get() { return 1; },
  set(value) {},
});
"""
"""An init script that makes the page's media elements ignore `volume`, as iOS Safari does: a set
does nothing and the getter answers 1. Web Audio gain still works, as it does on an iPhone."""

IPHONE_TAP_RULE = """(() => {
  let inTap = false;
  const unlocked = new WeakSet();
  // The tap's own task (its handlers and their microtasks) ends before a message posted in it
  // arrives (a MessageChannel, which Playwright's fake clock does not hold back as it does timers).
  const after = new MessageChannel();
  after.port1.onmessage = () => { inTap = false; };
  const tapped = (event) => {
    if (!event.isTrusted) return;
    inTap = true;
    after.port2.postMessage(0);
  };
  for (const type of ["click", "pointerup", "touchend", "keydown"]) addEventListener(type, tapped, true);
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () {
    if (!inTap && !unlocked.has(this)) return Promise.reject(new DOMException("play() needs a tap", "NotAllowedError"));
    unlocked.add(this);
    return play.call(this);
  };
  window.__reverieTapRule = true;
})()"""
"""An init script for iOS's rule on sound, as public reports tell it: a media element may start
playing only when `play()` is called inside a tap (its event's own task), and once it has, that
element may play again later without one (a page unlocks an element in the tap, before the sound
it will play is known). Headless Chromium under Playwright counts every page as touched, so
without this a test cannot tell a page that obeys the rule from one that does not."""


# MARK: - The sink and its recordings

class AudioSink:
    """A PulseAudio daemon of its own with one null sink, `listening`, as the default sink.

    `server` is what `PULSE_SERVER` must be for a process to play into it. Start it with `start()`
    and end it with `stop()`; the `audio_sink` fixture does both once per pytest worker."""

    SINK = "listening"

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="reverie-pulse-"))
        self.server = f"unix:{self.folder / 'native'}"
        self.environment = {**os.environ, "XDG_RUNTIME_DIR": str(self.folder), "HOME": str(self.folder),
                            "PULSE_SERVER": self.server}
        self.process = None
        self.recordings = 0

    def start(self, timeout=60.0):
        if not shutil.which("pulseaudio") or not shutil.which("parec"):
            raise RuntimeError("pulseaudio and parec are missing: run `scripts/bootstrap.sh test`")
        script = self.folder / "listening.pa"
        script.write_text(
            f"load-module module-native-protocol-unix socket={self.folder / 'native'} auth-anonymous=1\n"
            f"load-module module-null-sink sink_name={self.SINK} rate={RATE} channels=2\n"
            f"set-default-sink {self.SINK}\n")
        # -n: no default script, only ours. Root is fine outside --system (it only warns).
        self.log = self.folder / "pulseaudio.log"
        self.process = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=false", "--system=false", "--exit-idle-time=-1",
             "--use-pid-file=false", "-F", str(script)],
            env=self.environment, stdout=subprocess.DEVNULL, stderr=self.log.open("w"))
        deadline = time.monotonic() + timeout
        while subprocess.run(["pactl", "info"], env=self.environment, capture_output=True).returncode != 0:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"PulseAudio did not start:\n{self.log.read_text()}")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=0.05)  # returns at once if the daemon dies: the check above says why
        return self

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)

    def record(self):
        """Starts recording everything played into the sink; a `Recording`, also a context manager
        that stops it."""
        self.recordings += 1
        return Recording(self.folder / f"recording-{self.recordings}.raw", self.environment)


class Recording:
    """What the sink plays from now on, written as raw 16-bit samples as it comes (it runs in real
    time, silence included, so its length is the wall time since it began)."""

    def __init__(self, path, environment):
        self.path = path
        self.process = subprocess.Popen(
            ["parec", f"--device={AudioSink.SINK}.monitor", f"--rate={RATE}", "--channels=1", "--format=s16le",
             "--latency-msec=20", str(path)], env=environment)

    @property
    def seconds(self):
        """Seconds of audio recorded so far."""
        return self.path.stat().st_size // 2 / RATE if self.path.exists() else 0.0

    def wait_for_seconds(self, seconds, timeout=None):
        """Returns once the recording is `seconds` long; fails when it does not get there in its own
        length from now plus `timeout` (default 60 s: a busy machine can stall for a minute) of slack."""
        deadline = time.monotonic() + max(0.0, seconds - self.seconds) + (60.0 if timeout is None else timeout)
        while self.seconds < seconds:
            if self.process.poll() is not None:
                raise AssertionError(f"parec stopped (exit {self.process.returncode}) at {self.seconds:.2f} s")
            if time.monotonic() > deadline:
                raise AssertionError(f"the recording reached {self.seconds:.2f} s, never {seconds} s")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=0.02)  # returns at once if parec stops: the check above says so

    def wait_until_heard(self, frequency, seconds=2.0, timeout=60.0, message=None):
        """Returns once the recording's last `seconds` are a tone of `frequency` (within 5 Hz, louder
        than −40 dBFS); fails after `timeout` without it."""
        self._wait_for_last(seconds, lambda last: abs(dominant_frequency(last) - frequency) < 5 and level(last) > -40,
                            timeout, message or f"{frequency} Hz was not heard within {timeout} s")

    def wait_until_below(self, dbfs, seconds=1.0, timeout=60.0, message=None):
        """Returns once the recording's last `seconds` are quieter than `dbfs`; fails after `timeout`
        without it (a level set by a script is heard later on a busy machine)."""
        self._wait_for_last(seconds, lambda last: level(last) < dbfs,
                            timeout, message or f"never below {dbfs:.1f} dBFS within {timeout} s")

    def wait_until_sounding(self, other_than, seconds=1.0, timeout=60.0, message=None):
        """Returns once the recording's last `seconds` sound (louder than −45 dBFS) and are not the
        tone `other_than` (within 5 Hz): a voice after a tone; fails after `timeout` without it."""
        self._wait_for_last(seconds, lambda last: level(last) > -45 and abs(dominant_frequency(last) - other_than) >= 5,
                            timeout, message or f"nothing but {other_than} Hz or silence was heard within {timeout} s")

    def _wait_for_last(self, seconds, check, timeout, message):
        """Returns once `check` holds for the recording's last `seconds`; fails with `message` after `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            end = self.seconds
            if end >= seconds and check(self.samples(end - seconds, end)):
                return
            if self.process.poll() is not None:
                raise AssertionError(f"parec stopped (exit {self.process.returncode}) at {self.seconds:.2f} s")
            if time.monotonic() > deadline:
                raise AssertionError(message)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=0.1)

    def samples(self, start=0.0, end=None):
        """The recording from `start` to `end` seconds (default: all so far) as floats in [-1, 1)."""
        first = int(start * RATE)
        count = -1 if end is None else max(0, int(end * RATE) - first)
        if not self.path.exists() or first * 2 >= self.path.stat().st_size:
            return np.zeros(0)
        return np.fromfile(self.path, dtype="<i2", count=count, offset=first * 2).astype(np.float64) / 32768

    def save(self, path):
        """Writes what was recorded so far as a WAV file (e2e/artifacts/… to listen to a failure)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE)
            out.writeframes(self.path.read_bytes())
        return path

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.stop()


# MARK: - Reading a recording

def level(samples):
    """The RMS level in dBFS (a full-scale sine reads −3 dBFS; digital silence −inf)."""
    if len(samples) == 0:
        return -np.inf
    with np.errstate(divide="ignore"):
        return float(20 * np.log10(np.sqrt(np.mean(np.square(samples)))))


def levels(samples, window=0.1):
    """The level in dBFS of each whole `window` seconds (default 100 ms), in order."""
    size = int(window * RATE)
    return [level(samples[start:start + size]) for start in range(0, len(samples) - size + 1, size)]


def onset(samples, threshold=-40.0, window=0.01):
    """Seconds until the first `window` at or above `threshold` dBFS; None when it never is."""
    loud = [index for index, value in enumerate(levels(samples, window)) if value >= threshold]
    return loud[0] * window if loud else None


def silent_from(samples, threshold=-50.0, window=0.01):
    """Seconds from which the sound stays below `threshold` dBFS to the end; None when the last
    `window` is still at or above it (the sound has not fallen yet)."""
    windows = levels(samples, window)
    loud = [index for index, value in enumerate(windows) if value >= threshold]
    if not loud:
        return 0.0
    return None if loud[-1] == len(windows) - 1 else (loud[-1] + 1) * window


def band_level(samples, frequency, width=25.0):
    """The level in dBFS of what sounds within `width` Hz of `frequency` (the same scale as `level`:
    a full-scale sine at that frequency reads −3 dBFS), to hear one tone beside another. A Hann
    window keeps a loud tone elsewhere from leaking in (a rectangular one let a −9 dBFS tone
    440 Hz away read about −57 dBFS in the band)."""
    if len(samples) == 0:
        return -np.inf
    window = np.hanning(len(samples))
    spectrum = np.fft.rfft(samples * window)
    frequencies = np.fft.rfftfreq(len(samples), 1 / RATE)
    inside = np.abs(frequencies - frequency) <= width
    # Parseval: the mean square of what is in the band, the window's own mean square taken out.
    power = 2 * np.sum(np.abs(spectrum[inside]) ** 2) / len(samples) ** 2 / np.mean(window ** 2)
    with np.errstate(divide="ignore"):
        return float(10 * np.log10(power))


def dominant_frequency(samples):
    """The frequency in Hz of the strongest component (an FFT of at least 1 s with a Hann window,
    the peak interpolated between bins: within about 1 Hz for a steady tone)."""
    size = max(len(samples), RATE)
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples)), n=size))
    peak = int(np.argmax(spectrum[1:-1])) + 1
    left, middle, right = np.log(spectrum[peak - 1:peak + 2] + 1e-12)
    offset = 0.5 * (left - right) / (left - 2 * middle + right) if left - 2 * middle + right else 0.0
    return (peak + offset) * RATE / size


def locked_across_a_join(page, sink, then, artifact, unchanged, timeout=60.0):
    """Locks `page` and records what it plays until the tone `then` (the next item, which only the
    stream can bring while no script runs) has sounded for 2 s; while still locked, `unchanged`
    (an expression and the value it had) shows no script ran. Saves the recording to `artifact`
    and returns (frequency, level) of its first seconds (the item before the join, from 0.3 to
    2.5 s) and of its last 2 s."""
    with sink.record() as recording:
        with locked(page):
            recording.wait_until_heard(then, timeout=timeout, message="the next item did not play on with the phone locked")
            expression, value = unchanged
            assert page.evaluate(expression) == value, "a script ran while locked"
        sound = recording.samples()
    recording.save(artifact)
    end = len(sound) / RATE
    return heard_between(sound, (0.3, 2.5), (end - 2.0, end))


def heard_between(sound, *windows):
    """(dominant frequency, level) of the recording in each window of seconds (start, end): the
    tone heard before a join and the one after it."""
    return tuple(value for start, end in windows
                 for value in (dominant_frequency(sound[int(start * RATE):int(end * RATE)]), level(sound[int(start * RATE):int(end * RATE)])))


# MARK: - A locked phone

LOCK_GATE = (Path(__file__).with_name("iphone_lock.js")).read_text()
"""The init script of the iPhone lock model (e2e/iphone_lock.js): `open_page` adds it to every page,
before the page's own scripts; `lock` and `wake` close and open it."""


COUNT_GRAPHS = """(() => {
  window.__graphs = 0;
  const make = window.AudioContext && AudioContext.prototype.createMediaElementSource;
  if (make) AudioContext.prototype.createMediaElementSource = function (...args) { window.__graphs += 1; return make.apply(this, args); };
})();"""
"""An init script that counts the media elements a page sends through Web Audio (`window.__graphs`):
none may on an iPhone, where such sound goes silent when the screen locks (issue 46)."""


def lock(page):
    """Locks the page as an iPhone's screen lock does, in the model the tests use (issue 46):

    - the page's scripts stop: every callback the browser would run is held, in order, until
      `wake` (timers and intervals, animation frames, idle callbacks, every event listener and
      on… handler, observers, and the settlement of fetch, response bodies, the Cache API,
      `play()`, `decodeAudioData`, the service worker's `ready`, storage and lock calls);
    - on a page opened as an iPhone (`open_page(..., iphone=True)`; another device's page keeps
      its Web Audio running, as Android and desktop browsers do), every AudioContext the page
      made is suspended (iOS moves them to "interrupted": `state`
      reads so, and `resume()` does nothing until the wake), so what plays through Web Audio is
      silent;
    - the media elements are not touched: they play on and keep fetching (a file past its
      read-ahead, a live stream), as on a locked iPhone, and with `open_page(…, iphone=True)`
      their `volume` stays ignored.

    What is not stopped (e2e/iphone_lock.js lists it): IndexedDB's events (a transaction would
    not outlive a held callback; one begun before the lock calls back within milliseconds), a
    timer given a string, inline on…="" attributes, dynamic import(), promises the browser settles
    outside that list, the service worker, and the page's Media Session action handlers: the lock
    screen's buttons run them on an iPhone, and `press(page, action)` is such a press. What they
    schedule (a timer, a fetch's answer) waits for the wake.

    The page's main thread is free, so `page.evaluate`, `wait_until` and locators' `expect` work
    while locked; a test uses them only to read state (or `press`), never to run the page's code
    in its place: that would be script a locked phone does not run. An evaluation that awaits
    what the gate holds (a fetch, `play()`) waits for the wake. A click is an event like any other:
    held. On a page with Playwright's `page.clock` installed, the clock's own timer is held, so
    no fake timer fires while locked, and at the wake the clock fires every one due meanwhile (an
    interval as many times as it was due, where the gate alone runs it once). (The model before
    this one paused the main thread with CDP `Debugger.pause`, which also stopped the media's
    loading: a stream fell silent within seconds, a file when its read-ahead of a few MB ran out.)

    This is a model of public reports (DESIGN.md, "Sound on a locked phone"); what a real iPhone
    does, a real iPhone must confirm. Each frame of the page with the gate is locked."""
    frames = [frame for frame in page.frames if frame.evaluate("typeof window.__reverieLock === 'object'")]
    if page.main_frame not in frames:
        raise RuntimeError("the page has no lock gate: open it with open_page (e2e/conftest.py), which adds LOCK_GATE")
    # An iPhone page (open_page(..., iphone=True)) has its Web Audio interrupted; another device's
    # page (Android, a desktop) keeps it running with the screen locked, as those browsers do.
    interrupt = getattr(page, "iphone", True)
    for frame in frames:
        frame.evaluate("(interruptAudio) => window.__reverieLock.lock({ interruptAudio })", interrupt)
    page.locked_frames = frames


def wake(page):
    """Unlocks the page after `lock`: the AudioContexts it suspended run again, then what was held
    runs, in order, each in a task of its own (an interval due many times once, so the timers due
    meanwhile fire now, as on a phone that wakes). Returns how many callbacks were held."""
    frames = page.locked_frames
    del page.locked_frames
    return sum(frame.evaluate("window.__reverieLock.wake()") for frame in frames if not frame.is_detached())


@contextlib.contextmanager
def locked(page):
    """`lock(page)` for the block, `wake(page)` after it (after a failure too)."""
    lock(page)
    try:
        yield page
    finally:
        wake(page)


def press(page, action, **details):
    """Presses a lock-screen button: runs the handler the page gave Media Session for `action`
    ("play", "pause", "nexttrack", "seekto" with seekTime=…, …), at once, locked or not."""
    page.evaluate("([action, details]) => window.__reverieLock.press(action, details)", [action, details])


# MARK: - Test media

def chapter_book(folder, name="Three Tones.m4b", tones=(440, 660, 880), chapter_seconds=3.0, title="Three Tones"):
    """An audiobook made by ffmpeg in `folder` with one chapter per tone ("Chapter 1", …), each
    `chapter_seconds` long and a steady sine of its frequency in Hz (−21 dBFS), so what is heard
    tells which chapter plays. `.m4b` is AAC in MP4 with MP4 chapters, `.mp3` has ID3 CHAP frames."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    milliseconds = int(chapter_seconds * 1000)
    meta = folder / f"{name}.ffmetadata"
    meta.write_text(f";FFMETADATA1\ntitle={title}\nartist=Ann Author\n" + "".join(
        f"[CHAPTER]\nTIMEBASE=1/1000\nSTART={index * milliseconds}\nEND={(index + 1) * milliseconds}\n"
        f"title=Chapter {index + 1}\n" for index in range(len(tones))))
    inputs = []
    for tone in tones:
        inputs += ["-f", "lavfi", "-i", f"sine=frequency={tone}:sample_rate=44100:duration={chapter_seconds}"]
    joined = "".join(f"[{index}:a]" for index in range(len(tones))) + f"concat=n={len(tones)}:v=0:a=1"
    codec = ["-c:a", "libmp3lame"] if name.endswith(".mp3") else ["-c:a", "aac", "-movflags", "+faststart", "-f", "mp4"]
    out = folder / name
    subprocess.run(["ffmpeg", "-v", "error", "-y", *inputs, "-i", str(meta), "-filter_complex", joined,
                    "-map_metadata", str(len(tones)), "-map_chapters", str(len(tones)), *codec, str(out)], check=True)
    return out


class MediaServer:
    """A small HTTP server on 127.0.0.1, started by a test, that Chromium streams from as from the
    network: `pages` ({path: html}), `files` ({path: Path}) answered with Range (206), and `live`
    ({path: (ffmpeg arguments that write an endless constant-bitrate stream to stdout, its bytes
    per second)}) answered as a radio station answers, with no Content-Length: the first
    `BURST` seconds at once, then paced in real time by its byte rate (each request starts its
    own ffmpeg). `sent[path]` counts the bytes written to the socket so far (on loopback the
    kernel's buffers take megabytes ahead of what Chromium has read, so it is no measure of
    Chromium's reading); `url` is its origin. A context manager that stops it (and its ffmpegs)."""

    BURST = 4.0
    """Seconds of a live stream sent at once on connecting, as Icecast's burst-on-connect does: with
    none, the player starts with nothing in hand, and the first hiccup of a busy machine is a gap."""

    def __init__(self, pages=None, files=None, live=None):
        self.pages, self.files, self.live = pages or {}, files or {}, live or {}
        self.sent = {path: 0 for path in [*self.pages, *self.files, *self.live]}
        self.requests = []  # (path, Range header or None), in order
        self.processes = []
        self.guard = threading.Lock()
        self.stopped = threading.Event()
        media = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def do_GET(self):
                path = self.path.split("?")[0]
                with media.guard:
                    media.requests.append((path, self.headers.get("Range")))
                try:
                    if path in media.pages:
                        self.whole(path, media.pages[path].encode(), "text/html; charset=utf-8")
                    elif path in media.files:
                        self.ranged(path, Path(media.files[path]))
                    elif path in media.live:
                        self.stream(path, media.live[path])
                    else:
                        self.send_error(404)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # Chromium let go of the response

            def write(self, path, data):
                self.wfile.write(data)
                self.wfile.flush()
                with media.guard:
                    media.sent[path] += len(data)

            def whole(self, path, body, content_type):
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.write(path, body)

            def ranged(self, path, file):
                size = file.stat().st_size
                asked = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range") or "")
                start, end = 0, size - 1
                if asked and asked.group(1):
                    start, end = int(asked.group(1)), int(asked.group(2)) if asked.group(2) else size - 1
                elif asked and asked.group(2):
                    start = max(0, size - int(asked.group(2)))
                end = min(end, size - 1)
                if start > end:
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{size}")
                    self.end_headers()
                    return
                self.send_response(206 if asked else 200)
                self.send_header("Content-Type", "audio/mpeg")
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Length", str(end - start + 1))
                if asked:
                    self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
                self.end_headers()
                with file.open("rb") as source:
                    source.seek(start)
                    left = end - start + 1
                    while left > 0 and (piece := source.read(min(left, 64 * 1024))):
                        self.write(path, piece)
                        left -= len(piece)

            def stream(self, path, live):
                arguments, rate = live
                process = subprocess.Popen(["ffmpeg", "-v", "error", *arguments], stdout=subprocess.PIPE,
                                           stderr=subprocess.DEVNULL)
                with media.guard:
                    media.processes.append(process)
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "audio/mpeg")
                    self.send_header("Cache-Control", "no-store")
                    self.end_headers()
                    began, written = time.monotonic(), 0
                    while not media.stopped.is_set():
                        due = rate * (media.BURST + time.monotonic() - began) - written
                        if due < 1024:
                            media.stopped.wait((1024 - due) / rate)  # the stream's pace
                            continue
                        piece = process.stdout.read(int(due))
                        if not piece:
                            break
                        self.write(path, piece)
                        written += len(piece)
                finally:
                    process.kill()
                    process.wait()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.stopped.set()
        with self.guard:
            for process in self.processes:
                process.kill()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.stop()
