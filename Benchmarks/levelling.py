#!/usr/bin/env python3
"""make bench, levelling section: a one-hour podcast episode downloaded by a release `reverie
serve` from a local feed host, levelled to -16 LUFS with its silences shortened: the time from
asking for the download to the episode being ready (the download over loopback, reading it,
measuring its loudness, trimming and encoding). Goal: <= 30 s on this machine.

The episode is made once (cached under .build/bench-cache): speech-band noise shaped into
20-second stretches at -30 dBFS with 4-second silences between them, mono MP3 at 64 kb/s.

    .venv/bin/python Benchmarks/levelling.py [--binary .build/release/reverie] [--minutes 60]
"""

import argparse
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from podcast_fixture import PodcastFixture  # noqa: E402
from reverie_process import ReverieProcess  # noqa: E402


def episode(minutes):
    cache = ROOT / ".build" / "bench-cache"
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"episode-{minutes}min.mp3"
    if not path.exists():
        seconds = minutes * 60
        # Pink noise band-limited to speech, on for 20 s and off for 4 s.
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"anoisesrc=color=pink:r=44100:d={seconds}:a=0.3",
                        "-af", "highpass=f=120,lowpass=f=5000,volume='if(lt(mod(t,24),20),0.1,0)':eval=frame",
                        "-ac", "1", "-b:a", "64k", str(path) + ".part.mp3"], check=True)
        Path(str(path) + ".part.mp3").rename(path)
    return path


def request(server, path, cookie, method="GET", body=None):
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Cookie": cookie, **({"Content-Type": "application/json"} if data else {})}
    with urllib.request.urlopen(urllib.request.Request(server.url + path, data=data, method=method, headers=headers), timeout=120) as answer:
        return json.loads(answer.read() or b"null")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/reverie"))
    parser.add_argument("--minutes", type=int, default=60)
    args = parser.parse_args()
    source = episode(args.minutes)
    site = PodcastFixture(episode=source)
    try:
        with ReverieProcess(args.binary, prefix="reverie-levelling-", podcasts=site) as server:
            setup = urllib.request.Request(server.url + "/api/setup", data=json.dumps({"username": "bench", "password": "bench password"}).encode(),
                                           method="POST", headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(setup) as answer:
                cookie = answer.headers["Set-Cookie"].split(";")[0]
            podcast = request(server, "/api/podcasts", cookie, "POST", {"feedURL": site.url + "/feeds/night.xml"})
            detail = request(server, f"/api/podcasts/{podcast['id']}", cookie)
            chosen = detail["episodes"][0]
            started = time.monotonic()
            request(server, f"/api/episodes/{chosen['id']}/download", cookie, "POST", {"trimSilence": True})
            while True:
                now = request(server, f"/api/episodes/{chosen['id']}", cookie)
                if now["download"]["status"] in ("ready", "failed"):
                    break
                time.sleep(0.2)
            elapsed = time.monotonic() - started
            download = now["download"]
            if download["status"] != "ready":
                print(f"levelling: the download failed: {download.get('message')}")
                sys.exit(1)
            print(f"Levelling and trimming a {args.minutes}-minute episode ({source.stat().st_size / 1e6:.1f} MB MP3), download to ready:")
            print(f"  {elapsed:6.1f} s   (goal <= 30 s)  {'OK' if elapsed <= 30 else 'ABOVE GOAL'}")
            print(f"  measured {download['measuredLoudness']:.1f} LUFS, levelled to -16; {download['removedSeconds']:.0f} s of silence shortened "
                  f"in {len(download['timeMap'])} places; the file is {download['duration'] / 60:.1f} min")
    finally:
        site.stop()


if __name__ == "__main__":
    main()
