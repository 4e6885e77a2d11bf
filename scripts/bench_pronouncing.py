"""The peer for `make bench` (rhymes): the pronouncing library on the same words.

Reads words (one per line) on stdin; prints JSON with its dictionary load time, the time for
pronouncing.rhymes() on every word, and the rhymes themselves (for comparing results).
"""

import json
import sys
import time

import pronouncing

words = [line.strip() for line in sys.stdin if line.strip()]
start = time.perf_counter()
pronouncing.init_cmu()
load = time.perf_counter() - start
start = time.perf_counter()
rhymes = {word: pronouncing.rhymes(word) for word in words}
lookups = time.perf_counter() - start
print(json.dumps({"load_seconds": load, "lookup_seconds": lookups, "rhymes": rhymes}))
