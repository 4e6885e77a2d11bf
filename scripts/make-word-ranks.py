"""Writes the English words people use most, most common first, one per line.

The Rhymes engine ranks rhyme suggestions with this list (common words first). The counts come
from the `wordfreq` package (installed into .venv by scripts/bootstrap.sh); only words made of
letters and apostrophes are kept, lower-cased, each once.

    .venv/bin/python scripts/make-word-ranks.py OUTPUT [COUNT]
"""

import re
import sys

import wordfreq


def main():
    output = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 60000
    word = re.compile(r"^[a-z][a-z']*$")
    seen = set()
    ranked = []
    for candidate in wordfreq.top_n_list("en", count * 2):
        candidate = candidate.lower().replace("\u2019", "'")
        if word.match(candidate) and candidate not in seen:
            seen.add(candidate)
            ranked.append(candidate)
        if len(ranked) == count:
            break
    with open(output, "w", encoding="utf-8") as handle:
        handle.write("\n".join(ranked) + "\n")


if __name__ == "__main__":
    main()
