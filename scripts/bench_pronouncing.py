"""The peer for `make bench` (rhymes): the pronouncing library on the same words.

Reads words (one per line) on stdin; prints JSON with its dictionary load time, the median time
of five passes of pronouncing.rhymes() over every word, and the rhymes themselves (for comparing
results).
"""

import json
import sys
import time

import pronouncing

words = [line.strip() for line in sys.stdin if line.strip()]
start = time.perf_counter()
pronouncing.init_cmu()
load = time.perf_counter() - start
passes = []
for _ in range(5):
    start = time.perf_counter()
    rhymes = {word: pronouncing.rhymes(word) for word in words}
    passes.append(time.perf_counter() - start)
lookups = sorted(passes)[2]
print(json.dumps({"load_seconds": load, "lookup_seconds": lookups, "rhymes": rhymes}))
