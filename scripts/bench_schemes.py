"""The peer for `make bench` (rhyme schemes): the `pronouncing` library's rhyming parts as a
scheme labeller, on a folder of stanzas in the Chicago Rhyming Poetry Corpus `.pgold` format.

Two line endings share a group when they share a rhyming part (any of their pronunciations,
joined transitively); a word the dictionary lacks is a group of its own. Prints JSON:
{"stanzas": N, "correct": K} over every `.pgold` file in the folder given as the argument.
"""

import json
import pathlib
import sys

import pronouncing


def stanzas(folder):
    """(words, gold scheme) for each block of every .pgold file, in file order."""
    for path in sorted(pathlib.Path(folder).glob("*.pgold")):
        block = []
        for line in path.read_text(encoding="utf-8").splitlines() + [""]:
            if line.strip():
                block.append(line.split())
                continue
            if len(block) >= 2:
                yield block[0][1:], block[1]
            block = []


def partition(labels):
    """The partition of positions a labelling makes: same label, same group."""
    groups = {}
    for position, label in enumerate(labels):
        groups.setdefault(label, []).append(position)
    return sorted(tuple(members) for members in groups.values())


def pronouncing_labels(words):
    parent = list(range(len(words)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner = {}
    for i, word in enumerate(words):
        for phones in pronouncing.phones_for_word(word):
            part = pronouncing.rhyming_part(phones)
            if part in owner:
                parent[find(i)] = find(owner[part])
            else:
                owner[part] = i
    return [find(i) for i in range(len(words))]


def main():
    total = correct = 0
    for words, gold in stanzas(sys.argv[1]):
        if len(words) != len(gold):
            continue
        total += 1
        correct += partition(pronouncing_labels(words)) == partition(gold)
    print(json.dumps({"stanzas": total, "correct": correct}))


if __name__ == "__main__":
    main()
