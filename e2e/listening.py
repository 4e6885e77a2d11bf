"""The harness that listens: what the browser really plays, recorded, while the page's scripts may
be stopped as on a locked phone (issue 31).

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

Times that the analysis functions return are seconds from the start of the samples they are given;
`recording.samples(start, end)` cuts a stretch by seconds of the recording, and `recording.seconds`
read just after an action marks when it happened in the recording (what it makes heard comes
~0.2–0.4 s later: the audio path's own latency, so compare times with an `onset`, not the mark).
"""

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
import wave
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

    def samples(self, start=0.0, end=None):
        """The recording from `start` to `end` seconds (default: all so far) as floats in [-1, 1)."""
        raw = np.fromfile(self.path, dtype="<i2") if self.path.exists() else np.zeros(0, dtype="<i2")
        stop = None if end is None else int(end * RATE)
        return raw[int(start * RATE):stop].astype(np.float64) / 32768

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


def dominant_frequency(samples):
    """The frequency in Hz of the strongest component (an FFT of at least 1 s with a Hann window,
    the peak interpolated between bins: within about 1 Hz for a steady tone)."""
    size = max(len(samples), RATE)
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples)), n=size))
    peak = int(np.argmax(spectrum[1:-1])) + 1
    left, middle, right = np.log(spectrum[peak - 1:peak + 2] + 1e-12)
    offset = 0.5 * (left - right) / (left - 2 * middle + right) if left - 2 * middle + right else 0.0
    return (peak + offset) * RATE / size


# MARK: - A locked phone

def lock(page):
    """Stops the page's scripts as a locked phone does, while its media keep playing: the main
    thread halts at its next statement (a timer, an event, a frame), and nothing runs until `wake`.

    While locked, nothing may evaluate in the page: `page.evaluate`, `wait_for_function`, locators'
    `expect` and clicks all wait for the page's scripts and would hang. Wait on the recording
    instead. Workers (a service worker) are not stopped. (Chromium's `Page.setWebLifecycleState`
    frozen does not stop timers here, the debugger does.)"""
    session = page.context.new_cdp_session(page)
    session.send("Debugger.enable")
    session.send("Debugger.pause")
    page.lock_session = session


def wake(page):
    """Lets the page's scripts run again after `lock`: the timers due meanwhile fire now."""
    session = page.lock_session
    del page.lock_session
    session.send("Debugger.resume")
    session.detach()


@contextlib.contextmanager
def locked(page):
    """`lock(page)` for the block, `wake(page)` after it (after a failure too)."""
    lock(page)
    try:
        yield page
    finally:
        wake(page)


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
