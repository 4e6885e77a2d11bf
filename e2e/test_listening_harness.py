"""The harness that listens (e2e/listening.py) hears what Chromium plays, at the right time and
frequency; a locked page's timers stop while its audio plays on; the iPhone script makes
`volume` do nothing; the chapter book has its tone in each chapter (issue 31).

The pages here are served by `page.route` on an origin of their own, not by the app."""

import io
import json
import subprocess
import wave

import numpy as np
import pytest

from conftest import PATIENCE, close, open_page, wait_until
from listening import RATE, chapter_book, dominant_frequency, level, levels, lock, onset, silent_from, wake

ORIGIN = "http://listening.test"
PLAYER = """<!doctype html><link rel="icon" href="data:,"><audio id="player" src="/sound"></audio>
<script>
  window.ticks = [];  // performance.now() of every tick; once pauseAt has passed, a tick pauses the player
  setInterval(() => {
    ticks.push(performance.now());
    if (window.pauseAt && performance.now() >= pauseAt) player.pause();
  }, 50);
</script>"""


def tone(frequency, seconds, amplitude=0.5, fade=0.0):
    """A mono 48 kHz WAV of a sine whose last `fade` seconds fall linearly to silence."""
    time = np.arange(int(seconds * RATE)) / RATE
    gain = np.clip((seconds - time) / fade, 0, 1) if fade else 1.0
    samples = (amplitude * gain * np.sin(2 * np.pi * frequency * time) * 32767).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(RATE)
        file.writeframes(samples.tobytes())
    return out.getvalue()


def open_player(browser, sound, content_type="audio/wav", iphone=False):
    """A page with an <audio id=player> of `sound` (bytes) and the ticking interval above."""
    page = open_page(browser, iphone=iphone)

    def answer(route):
        if route.request.url == f"{ORIGIN}/":
            route.fulfill(body=PLAYER, content_type="text/html")
        else:
            route.fulfill(body=sound, content_type=content_type)

    page.route(f"{ORIGIN}/**", answer)
    page.goto(f"{ORIGIN}/")
    return page


def test_a_tone_and_its_fade_are_heard_when_and_as_they_are_played(audio_sink, listening_browser):
    page = open_player(listening_browser, tone(440, 3.5, fade=1.5))
    with audio_sink.record() as recording:
        recording.wait_for_seconds(0.3)  # some silence before the tone
        played_at = recording.seconds
        page.evaluate("player.play()")
        wait_until(page, "player.ended")
        recording.wait_for_seconds(recording.seconds + 1.0)  # the tail still on its way is heard
        sound = recording.samples()
    close(page)

    begins = onset(sound)
    assert played_at <= begins < played_at + 1.0, f"play() at {played_at:.2f} s, heard from {begins} s"
    steady = sound[int((begins + 0.2) * RATE):int((begins + 1.8) * RATE)]
    assert dominant_frequency(steady) == pytest.approx(440, abs=2)
    assert level(steady) == pytest.approx(-9.0, abs=1.0)  # a sine at half of full scale
    fade = levels(sound[int((begins + 2.0) * RATE):int((begins + 3.4) * RATE)])
    assert all(later < earlier + 0.5 for earlier, later in zip(fade, fade[1:])), f"the fade rose: {fade}"
    assert fade[-1] == pytest.approx(-29.0, abs=2.0), f"the fade fell too little: {fade}"  # 10% left: −20 dB
    assert silent_from(sound) == pytest.approx(begins + 3.5, abs=0.3)


def test_a_locked_page_runs_no_timer_while_its_audio_plays_on_and_wakes(audio_sink, listening_browser):
    page = open_player(listening_browser, tone(440, 10))
    with audio_sink.record() as recording:
        page.evaluate("player.play()")
        wait_until(page, "player.currentTime > 0.3")
        page.evaluate("window.pauseAt = performance.now() + 1000")  # the next tick after this second pauses
        lock(page)
        locked_at = recording.seconds
        recording.wait_for_seconds(locked_at + 3.0)
        woken_at = recording.seconds
        wake(page)
        wait_until(page, "player.paused", message="the interval never ran again after wake")
        recording.wait_for_seconds(recording.seconds + 1.5)
        sound = recording.samples()
    ticks = page.evaluate("ticks")
    close(page)

    heard = sound[int((locked_at + 1.5) * RATE):int(woken_at * RATE)]  # after the pause was due
    assert level(heard) == pytest.approx(-9.0, abs=1.0), "the audio stopped while the page was locked"
    assert dominant_frequency(heard) == pytest.approx(440, abs=2)
    gaps = np.diff(ticks)
    assert gaps.max() > (woken_at - locked_at - 0.5) * 1000, f"a tick ran while locked (longest gap {gaps.max():.0f} ms)"
    quiet = silent_from(sound[int(woken_at * RATE):])
    assert quiet is not None and quiet < 1.5, "the audio did not stop soon after the wake"


@pytest.mark.parametrize("iphone", [False, True], ids=["desktop", "iphone"])
def test_the_iphone_script_makes_volume_do_nothing(audio_sink, listening_browser, iphone):
    page = open_player(listening_browser, tone(440, 6), iphone=iphone)
    with audio_sink.record() as recording:
        page.evaluate("player.play()")
        wait_until(page, "player.currentTime > 1.0")
        changed_at = recording.seconds
        volume = page.evaluate("player.volume = 0.2, player.volume")
        recording.wait_for_seconds(changed_at + 2.0)
        sound = recording.samples()
    close(page)

    # Before: the tone's first half second as heard. After: the last half second, 1.5 s past the
    # change, as what was already on its way at the old volume (~0.4 s under load) has been heard.
    begins = onset(sound)
    before = level(sound[int((begins + 0.1) * RATE):int((begins + 0.6) * RATE)])
    after = level(sound[-RATE // 2:])
    if iphone:
        assert volume == 1
        assert after == pytest.approx(before, abs=0.5)
    else:  # the control: the same steps on a desktop are heard 14 dB quieter
        assert volume == 0.2
        assert after - before == pytest.approx(20 * np.log10(0.2), abs=1.0)


def test_the_chapter_book_plays_its_own_tone_in_each_chapter(audio_sink, listening_browser, tmp_path):
    book = chapter_book(tmp_path, chapter_seconds=2.0)
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_chapters", "-of", "json", str(book)],
                           check=True, capture_output=True, text=True)
    chapters = [(float(c["start_time"]), float(c["end_time"]), c["tags"]["title"]) for c in json.loads(probe.stdout)["chapters"]]
    assert chapters == [(0.0, 2.0, "Chapter 1"), (2.0, 4.0, "Chapter 2"), (4.0, 6.0, "Chapter 3")]

    page = open_player(listening_browser, book.read_bytes(), content_type="audio/mp4")
    with audio_sink.record() as recording:
        page.evaluate("player.play()")
        wait_until(page, "player.ended", timeout=6 + PATIENCE)  # The book's 6 s play in real time first.
        recording.wait_for_seconds(recording.seconds + 1.0)
        sound = recording.samples()
    close(page)

    begins = onset(sound)
    heard = [round(dominant_frequency(sound[int((begins + start + 0.3) * RATE):int((begins + end - 0.3) * RATE)]))
             for start, end, _ in chapters]
    assert heard == pytest.approx([440, 660, 880], abs=3)
    assert silent_from(sound) == pytest.approx(begins + 6.0, abs=0.3)
