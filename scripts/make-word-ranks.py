"""Writes the English words people use most, most common first, one per line.

The Rhymes engine ranks rhyme suggestions with this list (common words first). The counts come
from the `wordfreq` package (installed into .venv by scripts/bootstrap.sh); only words made of
letters and apostrophes are kept, lower-cased, each once.

Proper names (joan, sharon, lancelot) go to the end of the list, after a line `# proper names`,
so suggestions offer them last or not at all: a name is a word that Debian's `wamerican` word list
(/usr/share/dict/american-english) has only with a capital letter. Without that list, names keep
their place.

    .venv/bin/python scripts/make-word-ranks.py OUTPUT [COUNT]
"""

import re
import sys

import wordfreq


def main():
    output = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 60000
    word = re.compile(r"^[a-z][a-z']*$")
    names = proper_names()
    seen = set()
    ranked = []
    for candidate in wordfreq.top_n_list("en", count * 2):
        candidate = candidate.lower().replace("\u2019", "'")
        if word.match(candidate) and candidate not in seen:
            seen.add(candidate)
            ranked.append(candidate)
        if len(ranked) == count:
            break
    ranked = [word for word in ranked if word not in names] + ["# proper names"] + [word for word in ranked if word in names]
    with open(output, "w", encoding="utf-8") as handle:
        handle.write("\n".join(ranked) + "\n")


def proper_names(path="/usr/share/dict/american-english"):
    """Words the list has only capitalized (Joan, never joan), lower-cased."""
    try:
        with open(path, encoding="utf-8") as handle:
            entries = [line.strip() for line in handle if line.strip()]
    except OSError:
        print(f"make-word-ranks: {path} is missing (Debian's wamerican); proper names keep their rank", file=sys.stderr)
        return set()
    lower = {entry for entry in entries if entry[0].islower()}
    return {entry.lower() for entry in entries if entry[0].isupper() and entry.lower() not in lower}


if __name__ == "__main__":
    main()
