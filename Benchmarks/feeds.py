#!/usr/bin/env python3
"""make bench, feeds section: reading a set of podcast feeds with `reverie feed parse --json` (one
process for all of them) beside Python's feedparser (one process for all of them, as a feed reader
would run it). The set: small feeds written here (RSS 2.0 with the iTunes and Podcast Index
namespaces, Atom, RSS 1.0, feeds with real-world quirks) and three generated feeds of 5,000
episodes each. Both must read the same episodes, enclosures and durations. Goal: >= 20x faster.

    .venv/bin/python Benchmarks/feeds.py [--binary .build/release/reverie] [--episodes 5000]
"""

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ITUNES = 'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"'
PODCAST = 'xmlns:podcast="https://podcastindex.org/namespace/1.0"'
CONTENT = 'xmlns:content="http://purl.org/rss/1.0/modules/content/"'

SMALL = {
    "podcast.xml": f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" {ITUNES} {PODCAST} {CONTENT}><channel><title>Small Hours</title><link>https://small.example/</link>
<itunes:author>Ann Host</itunes:author><itunes:image href="https://small.example/art.jpg"/>
<item><title>Two</title><guid>s-2</guid><pubDate>Tue, 03 Jun 2025 09:39:21 GMT</pubDate><itunes:duration>1:02:03</itunes:duration>
<enclosure url="https://cdn.small.example/2.mp3" type="audio/mpeg" length="29000000"/>
<podcast:chapters url="https://small.example/2.json" type="application/json+chapters"/>
<podcast:transcript url="https://small.example/2.vtt" type="text/vtt"/><content:encoded><![CDATA[<p>Long notes.</p>]]></content:encoded></item>
<item><title>One</title><guid>s-1</guid><pubDate>Mon, 02 Jun 2025 09:00:00 +0100</pubDate><itunes:duration>754</itunes:duration>
<enclosure url="https://cdn.small.example/1.mp3" type="audio/mpeg" length="1200"/></item>
</channel></rss>""",
    "atom.xml": """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Atom Night</title><link href="https://atom.example/"/><id>urn:a</id>
<entry><title>First light</title><id>urn:a:1</id><updated>2025-06-01T20:00:00Z</updated>
<link rel="enclosure" href="https://atom.example/1.m4a" type="audio/mp4" length="4096"/></entry>
<entry><title>Dusk</title><id>urn:a:2</id><updated>2025-06-02T20:00:00+02:00</updated>
<link rel="enclosure" href="https://atom.example/2.m4a" type="audio/mp4" length="8192"/></entry></feed>""",
    "rss1.xml": """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="https://one.example/"><title>RSS One</title><link>https://one.example/</link></channel>
<item rdf:about="https://one.example/a"><title>A</title><link>https://one.example/a</link></item>
<item rdf:about="https://one.example/b"><title>B</title><link>https://one.example/b</link></item></rdf:RDF>""",
    "quirks.xml": f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" {ITUNES}><channel><title>Quirky</title><link>https://q.example/</link>
<item><title>Spaces in the URL</title><guid>q-1</guid><pubDate>Wed, 4 Jun 2025 10:00:00 EST</pubDate><itunes:duration>05:30</itunes:duration>
<enclosure url="https://q.example/a b.mp3" type="audio/mpeg" length="0"/></item>
<item><title>No guid</title><pubDate>Thu, 05 Jun 2025 10:00:00 GMT</pubDate><itunes:duration>45</itunes:duration>
<enclosure url="https://q.example/c.mp3" type="audio/mpeg" length="77"/></item>
</channel></rss>""",
}


def generated(index: int, episodes: int) -> str:
    rng = random.Random(index)
    items = []
    for n in range(episodes, 0, -1):
        seconds = rng.randint(300, 7200)
        form = n % 3
        duration = (f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}" if form == 0
                    else f"{seconds // 60}:{seconds % 60:02d}" if form == 1 else str(seconds))
        day = 1 + n % 28
        notes = " ".join(rng.choice(["owls", "moths", "rain", "lamplight", "harbour", "quiet", "tide", "fern"]) for _ in range(45))
        items.append(f"""<item><title>Episode {n}: {notes[:40]}</title><guid isPermaLink="false">gen-{index}-{n}</guid>
<pubDate>Mon, {day:02d} Jun 2025 {n % 24:02d}:00:00 GMT</pubDate><itunes:duration>{duration}</itunes:duration>
<itunes:episode>{n}</itunes:episode><description>{notes}</description>
<content:encoded><![CDATA[<p>{notes}</p><p>{notes}</p>]]></content:encoded>
<enclosure url="https://cdn.gen{index}.example/episodes/{n}.mp3" type="audio/mpeg" length="{seconds * 16000}"/></item>""")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" {ITUNES} {PODCAST} {CONTENT}><channel><title>Generated {index}</title><link>https://gen{index}.example/</link>
<itunes:author>Bench Host</itunes:author>
{chr(10).join(items)}
</channel></rss>"""


PEER = r"""
import json, sys, feedparser
def seconds(text):
    if not text: return None
    try:
        parts = [float(p) for p in str(text).strip().split(":")]
    except ValueError:
        return None
    total = 0.0
    for p in parts: total = total * 60 + p
    return total
for path in sys.argv[1:]:
    feed = feedparser.parse(path)
    episodes = []
    for entry in feed.entries:
        enclosure = next((l for l in entry.get("links", []) if l.get("rel") == "enclosure"), None)
        length = enclosure.get("length") if enclosure else None
        try: length = int(length) if length else None
        except ValueError: length = None
        episodes.append({"title": entry.get("title"), "duration": seconds(entry.get("itunes_duration")),
                         "enclosure": {"url": enclosure.get("href"), "type": enclosure.get("type"), "length": length or None} if enclosure else None})
    print(json.dumps({"title": feed.feed.get("title"), "episodes": episodes}))
"""


def best_of(runs, command):
    best, output = None, None
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, check=True)
        elapsed = time.perf_counter() - start
        if best is None or elapsed < best:
            best, output = elapsed, result.stdout
    return best, output


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="")
    parser.add_argument("--episodes", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    binary = args.binary or str(Path(__file__).resolve().parent.parent / ".build/release/reverie")
    with tempfile.TemporaryDirectory(prefix="reverie-feeds-") as folder:
        work = Path(folder)
        files = []
        for name, text in SMALL.items():
            (work / name).write_text(text)
            files.append(work / name)
        for index in range(3):
            path = work / f"generated{index}.xml"
            path.write_text(generated(index, args.episodes))
            files.append(path)
        names = [str(path) for path in files]
        size = sum(path.stat().st_size for path in files) / 1e6
        ours_time, ours_text = best_of(args.runs, [binary, "feed", "parse", "--json", *names])
        peer_time, peer_text = best_of(args.runs, [sys.executable, "-c", PEER, *names])
        ours = [json.loads(line) for line in ours_text.splitlines() if line.strip()]
        peer = [json.loads(line) for line in peer_text.splitlines() if line.strip()]
        episodes = same = 0
        differences = []
        for path, a, b in zip(files, ours, peer):
            for x, y in zip(a["episodes"], b["episodes"]):
                episodes += 1
                mine = (x["title"], x["duration"], x["enclosure"] and (x["enclosure"]["url"], x["enclosure"]["type"], x["enclosure"]["length"]))
                theirs = (y["title"], y["duration"], y["enclosure"] and (y["enclosure"]["url"], y["enclosure"]["type"], y["enclosure"]["length"]))
                if mine == theirs:
                    same += 1
                elif len(differences) < 5:
                    differences.append(f"{path.name}: {mine} vs feedparser {theirs}")
            if len(a["episodes"]) != len(b["episodes"]):
                differences.append(f"{path.name}: {len(a['episodes'])} episodes vs feedparser {len(b['episodes'])}")
        ratio = peer_time / ours_time
        print(f"Feeds: {len(files)} feeds ({size:.1f} MB, {episodes} episodes), best of {args.runs}")
        print(f"  reverie feed parse --json   {ours_time * 1000:8.0f} ms")
        print(f"  feedparser {getattr(__import__('feedparser'), '__version__', '?'):<16} {peer_time * 1000:8.0f} ms")
        print(f"  ratio {ratio:.1f}x (goal >= 20x)  {'OK' if ratio >= 20 else 'BELOW GOAL'}")
        print(f"  same title, duration and enclosure: {same}/{episodes}")
        for line in differences:
            print("   ", line)


if __name__ == "__main__":
    main()
