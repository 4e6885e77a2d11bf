#!/usr/bin/env python3
"""make bench, chapters section: reading the chapters and metadata of 500 generated M4B and MP3
files with `reverie chapters --json` (one process for all of them) beside ffprobe (one run per
file, as a tool that reads a library would call it). Both must find the same chapters: starts
within 1 ms, the same titles. Goal: >= 20x faster than ffprobe.

    .venv/bin/python Benchmarks/chapters.py [--binary .build/release/reverie] [--files 500]
"""

import argparse
import json
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

DISTINCT = 50


def make_files(work: Path, count: int) -> list[Path]:
    """DISTINCT files made by ffmpeg (half M4B, half MP3; 3 to 24 chapters each), copied to `count`."""
    rng = random.Random(7)
    masters = []
    for index in range(DISTINCT):
        chapters = rng.randint(3, 24)
        seconds = chapters * 0.5
        meta = work / f"meta{index}.txt"
        lines = [";FFMETADATA1", f"title=Book {index}", "artist=Bench Reader", f"album=Bench Album {index}"]
        for number in range(chapters):
            lines += ["[CHAPTER]", "TIMEBASE=1/1000", f"START={number * 500}", f"END={(number + 1) * 500}",
                      f"title=Chapter {number + 1} of book {index} ✓"]
        meta.write_text("\n".join(lines) + "\n")
        m4b = index % 2 == 0
        out = work / f"master{index}.{'m4b' if m4b else 'mp3'}"
        codec = ["-c:a", "aac", "-b:a", "32k"] if m4b else ["-c:a", "libmp3lame", "-b:a", "32k"]
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency={200 + index}:duration={seconds}",
                        "-i", str(meta), "-map", "0", "-map_metadata", "1", "-map_chapters", "1", *codec, str(out)], check=True)
        masters.append(out)
    files = []
    for index in range(count):
        master = masters[index % DISTINCT]
        copy = work / f"file{index:04d}{master.suffix}"
        shutil.copyfile(master, copy)
        files.append(copy)
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="")
    parser.add_argument("--files", type=int, default=500)
    args = parser.parse_args()
    binary = args.binary or str(Path(__file__).resolve().parent.parent / ".build/release/reverie")
    work = Path(tempfile.mkdtemp(prefix="reverie-chapters-"))
    try:
        files = make_files(work, args.files)
        # Warm the page cache for both.
        for file in files:
            file.read_bytes()

        started = time.perf_counter()
        theirs = {}
        for file in files:
            out = subprocess.run(["ffprobe", "-v", "error", "-show_format", "-show_chapters", "-of", "json", str(file)],
                                 check=True, capture_output=True).stdout
            theirs[str(file)] = json.loads(out)
        ffprobe_seconds = time.perf_counter() - started

        started = time.perf_counter()
        out = subprocess.run([binary, "chapters", "--json", *map(str, files)], check=True, capture_output=True).stdout
        ours_seconds = time.perf_counter() - started
        ours = {entry["file"]: entry for entry in map(json.loads, out.decode().splitlines())}

        identical = 0
        for name, probe in theirs.items():
            mine = ours.get(name, {"chapters": []})["chapters"]
            other = [(c.get("tags", {}).get("title", ""), float(c["start_time"])) for c in probe["chapters"]]
            if len(mine) == len(other) and all(m["title"] == t and abs(m["start"] - s) < 0.001 for m, (t, s) in zip(mine, other)):
                identical += 1
        chapters = sum(len(entry["chapters"]) for entry in ours.values())
        ratio = ffprobe_seconds / ours_seconds
        print(f"chapters and metadata of {len(files)} files ({chapters} chapters), M4B and MP3")
        print(f"  ffprobe, one run per file   {ffprobe_seconds * 1000:9.0f} ms  {len(files) / ffprobe_seconds:8.0f} files/s")
        print(f"  reverie chapters --json     {ours_seconds * 1000:9.0f} ms  {len(files) / ours_seconds:8.0f} files/s")
        print(f"  ratio {ratio:.1f}x faster than ffprobe (goal >= 20x: {'met' if ratio >= 20 else 'NOT met'}); "
              f"identical chapters in {identical} of {len(files)} files")
        if identical != len(files):
            raise SystemExit("chapters differ from ffprobe's")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
