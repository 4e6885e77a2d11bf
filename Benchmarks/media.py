#!/usr/bin/env python3
"""make bench, media section: Wind Down's audio through our server beside nginx, and the sleep
timer's rendition of an hour-long item.

  - Range streaming: 64 KiB byte ranges at random places in the same one-hour M4A, from a release
    `reverie serve` (signed in, with Range) and from nginx serving the file, over the same number
    of concurrent clients. Goal: >= 70% of nginx's throughput.
  - Timer rendition: the time until the first byte of `GET /api/winddown/{id}/audio?until=S` for
    an hour-long item, each `S` new (so each is made, not found in the cache). Goal: <= 2 s.

    .venv/bin/python Benchmarks/media.py [--binary .build/release/reverie] [--seconds 5]
"""

import json
import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from load import start_nginx, stop_all, wrk  # noqa: E402
from reverie_process import ReverieProcess  # noqa: E402

ITEM = "story_night_train"
CHUNK = 65536


def hour_long_item(url, auth, work, data):
    """An hour of sound (a sine under pink noise, 64 kb/s MP3) given to the Coming Soon story ITEM
    as its owner would, through `url` with the `auth` header; waits until it is levelled. Returns
    the stored M4A under `data` (the server's data directory) and the seconds from upload to ready."""
    source = work / "hour.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=196:duration=3600", "-f", "lavfi",
                    "-i", "anoisesrc=color=pink:amplitude=0.05:duration=3600", "-filter_complex", "amix=inputs=2",
                    "-ac", "1", "-ar", "44100", "-b:a", "64k", str(source)], check=True)
    started = time.monotonic()
    request = urllib.request.Request(f"{url}/api/winddown/{ITEM}/audio", data=source.read_bytes(), method="PUT",
                                     headers={"Authorization": auth, "Content-Type": "audio/mpeg", "X-File-Name": "hour.mp3"})
    with urllib.request.urlopen(request, timeout=600) as response:
        assert response.status == 202
    # Levelled in the background: the item is ready when its audio is.
    while True:
        probe = urllib.request.Request(f"{url}/api/winddown/{ITEM}", headers={"Authorization": auth})
        with urllib.request.urlopen(probe, timeout=60) as answer:
            if json.loads(answer.read())["audio"]["state"] != "preparing":
                break
        time.sleep(0.2)
    return next((data / "media" / "winddown").glob("*.m4a")), time.monotonic() - started


def range_script(work, path, size, authorization=None):
    """A wrk script asking `path` for CHUNK bytes at random places of a `size`-byte file (the same
    places on every run), with `authorization` if given; returns its path."""
    script = work / f"range-{abs(hash((path, authorization)))}.lua"
    header = f', ["Authorization"] = "{authorization}"' if authorization else ""
    script.write_text(f"""
math.randomseed(7)
request = function()
  local first = math.random(0, {size - CHUNK})
  return wrk.format("GET", "{path}", {{ ["Range"] = "bytes=" .. first .. "-" .. (first + {CHUNK - 1}){header} }})
end
""")
    return str(script)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="")
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    binary = args.binary or str(Path(__file__).resolve().parent.parent / ".build/release/reverie")
    for tool in ("wrk", "nginx", "ffmpeg"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            raise SystemExit(f"{tool} is missing: scripts/bootstrap.sh bench installs it")
    work = Path(tempfile.mkdtemp(prefix="reverie-media-"))
    processes = []
    reverie = None
    try:
        reverie = ReverieProcess(binary, prefix="reverie-media-", log_level="error")
        processes.append(reverie.process)
        token = reverie.owner_token("bench", "a long enough password", "media")
        auth = f"Bearer {token}"

        stored, levelling = hour_long_item(reverie.url, auth, work, reverie.data)
        size = stored.stat().st_size

        # nginx serves the very same file.
        nginx, nginx_port = start_nginx(work, "audio/mp4 m4a;", f"location = /hour.m4a {{ alias {stored}; }}")
        processes.append(nginx)

        print(f"media on loopback: 64 KiB ranges of a one-hour M4A ({size / 1e6:.1f} MB; upload levelled in {levelling:.1f} s)")
        print(f"{'figure':<44}{'16 clients':>14}{'64 clients':>14}   ratio / goal")
        rows = []
        floors = []
        for connections in (16, 64):
            ours = wrk(f"{reverie.url}/api/winddown/{ITEM}/audio", connections, args.seconds,
                       script=range_script(work, f"/api/winddown/{ITEM}/audio", size, auth))
            theirs = wrk(f"http://127.0.0.1:{nginx_port}/hour.m4a", connections, args.seconds, script=range_script(work, "/hour.m4a", size))
            rows.append((ours, theirs))
            # The same requests unsigned: refused with a small 401 before any file is touched,
            # the most answers a second our HTTP stack (Vapor, its middleware) gives on this route.
            floors.append(wrk(f"{reverie.url}/api/winddown/{ITEM}/audio", connections, args.seconds,
                              script=range_script(work, f"/api/winddown/{ITEM}/audio", size)))
        mb = lambda result: result["rate"] * CHUNK / 1e6  # noqa: E731
        # A peer that refused (a file it may not read) would be fast for nothing: its errors are said too.
        refused = sum(t["non2xx"] + t["timeouts"] for _, t in rows)
        print(f"{'Range streaming, nginx':<44}" + "".join(f"{mb(t):>10.0f} MB/s" for _, t in rows)
              + (f"  [{refused} non-2xx or timeouts]" if refused else ""))
        ratios = [o["rate"] / t["rate"] for o, t in rows]
        ok_stream = all(r >= 0.7 for r in ratios) and all(o["non2xx"] + o["timeouts"] == 0 for o, _ in rows) and not refused
        print(f"{'Range streaming, reverie (signed in)':<44}" + "".join(f"{mb(o):>10.0f} MB/s" for o, _ in rows)
              + "   " + " / ".join(f"{r:.2f}" for r in ratios) + f" of nginx (goal >= 0.70: {'met' if ok_stream else 'NOT met'})")

        print(f"{'requests/s: nginx ranges':<44}" + "".join(f"{t['rate']:>14.0f}" for _, t in rows))
        print(f"{'requests/s: reverie ranges (signed in)':<44}" + "".join(f"{o['rate']:>14.0f}" for o, _ in rows))
        print(f"{'requests/s: reverie 401s (no file, no body)':<44}" + "".join(f"{f['rate']:>14.0f}" for f in floors)
              + "   " + " / ".join(f"{f['rate'] / t['rate']:.2f}" for f, (_, t) in zip(floors, rows))
              + " of nginx's ranges: the ceiling for any handler behind this HTTP stack")

        # The timer's rendition: time to the first byte, each end new.
        times = []
        for index, until in enumerate((900.5, 1800.5, 2700.5, 3300.5, 1234.5)):
            started = time.monotonic()
            request = urllib.request.Request(f"{reverie.url}/api/winddown/{ITEM}/audio?until={until}", headers={"Authorization": auth})
            with urllib.request.urlopen(request, timeout=60) as response:
                response.read(1)
                times.append(time.monotonic() - started)
                response.read()
        ok_rendition = max(times) <= 2
        print(f"{'timer rendition of a 60-minute item':<44}{statistics.median(times):>10.2f} s median{max(times):>8.2f} s max"
              f"   goal <= 2 s: {'met' if ok_rendition else 'NOT met'}")
        if not reverie.alive():
            raise SystemExit("the server died during the media run")
        print("media goals:", "all met" if ok_stream and ok_rendition else "NOT all met")
        return 0
    finally:
        stop_all(processes, work, reverie)

if __name__ == "__main__":
    sys.exit(main())
