#!/usr/bin/env python3
"""make bench, upload section: a large MP3 uploaded to the Listen library of a release
`reverie serve` on loopback (streamed to disk, hashed, read by MediaFormats, stored), beside
copying the same file on the same disk (`shutil.copyfile`), the ceiling for anything that writes
it once. Goal: >= 200 MB/s through the server.

    .venv/bin/python Benchmarks/upload.py [--binary .build/release/reverie] [--megabytes 512]
"""

import argparse
import http.client
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from reverie_process import ReverieProcess  # noqa: E402


def big_mp3(work: Path, megabytes: int) -> Path:
    """A minute of CBR MP3 from ffmpeg, its frames repeated to the size asked for (a valid MP3)."""
    minute = work / "minute.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=330:duration=60", "-c:a", "libmp3lame",
                    "-b:a", "320k", "-write_xing", "0", "-id3v2_version", "0", "-write_id3v1", "0", str(minute)], check=True)
    frames = minute.read_bytes()
    out = work / "big.mp3"
    with out.open("wb") as handle:
        written = 0
        while written < megabytes << 20:
            handle.write(frames)
            written += len(frames)
    return out


def upload(url: str, token: str, path: Path) -> float:
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=600)
    size = path.stat().st_size
    started = time.perf_counter()
    connection.putrequest("POST", "/api/library?kind=music")
    connection.putheader("Authorization", f"Bearer {token}")
    connection.putheader("Content-Type", "audio/mpeg")
    connection.putheader("Content-Length", str(size))
    connection.putheader("X-File-Name", path.name)
    connection.endheaders()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            connection.send(block)
    response = connection.getresponse()
    body = response.read()
    seconds = time.perf_counter() - started
    if response.status not in (200, 201):
        raise SystemExit(f"upload answered {response.status}: {body[:300]!r}")
    return seconds, json.loads(body)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="")
    parser.add_argument("--megabytes", type=int, default=512)
    args = parser.parse_args()
    binary = args.binary or str(Path(__file__).resolve().parent.parent / ".build/release/reverie")
    work = Path(tempfile.mkdtemp(prefix="reverie-upload-"))
    reverie = None
    try:
        source = big_mp3(work, args.megabytes)
        size_mb = source.stat().st_size / 1e6
        reverie = ReverieProcess(binary, prefix="reverie-upload-", log_level="error")
        token = reverie.owner_token("bench", "a long enough password", "upload")
        runs = []
        for attempt in range(3):
            started = time.perf_counter()
            shutil.copyfile(source, work / f"copy{attempt}.mp3")
            copy_seconds = time.perf_counter() - started
            (work / f"copy{attempt}.mp3").unlink()
            seconds, result = upload(reverie.url, token, source)
            runs.append((copy_seconds, seconds, result))
            # Remove it again so the next upload is new work, not a duplicate.
            item = result["item"]["id"]
            connection = http.client.HTTPConnection(*reverie.url.removeprefix("http://").split(":"))
            connection.request("DELETE", f"/api/library/{item}", headers={"Authorization": f"Bearer {token}"})
            connection.getresponse().read()
        copy = sorted(r[0] for r in runs)[1]
        through = sorted(r[1] for r in runs)[1]
        duration = runs[-1][2]["item"]["duration"]
        print(f"upload of a {size_mb:.0f} MB MP3 ({duration / 3600:.1f} h) to the Listen library, median of 3")
        print(f"  copying the file on the same disk   {size_mb / copy:8.0f} MB/s")
        print(f"  POST /api/library (stream, hash, read, store)  {size_mb / through:8.0f} MB/s  "
              f"({size_mb / through / (size_mb / copy):.2f} of the copy; goal >= 200 MB/s: {'met' if size_mb / through >= 200 else 'NOT met'})")
    finally:
        if reverie:
            reverie.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
