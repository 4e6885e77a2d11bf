#!/usr/bin/env python3
"""The slowest tests of a `make test` run, for scripts/test.sh to print at its end.

Reads what the run left behind: the output of `swift test` (Swift Testing's lines
`Test "name" passed after 1.234 seconds.`, one per test; a test with arguments is one line for
all its cases) and the JUnit XML of the browser tests (each test's time there is its setup, call
and teardown, so the first test of a file also pays for starting that file's server).
Missing files are skipped: a run of only some phases still gets its list.

    scripts/slowest-tests.py [--count 10] [--swift LOG] [--junit XML]
"""

import argparse
import re
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

# `✔ Test "a render runs" passed after 1.2 seconds.`, `✘ Test foo() with 2 test cases failed after
# 3.4 seconds with 1 issue.` The whole run's own line ("Test run with 300 tests …") is not a test.
SWIFT_RESULT = re.compile(r"\bTest (?!run with )(?P<name>.+?)(?: with \d+ test cases?)? (?P<outcome>passed|failed) after (?P<seconds>[0-9.]+) seconds")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def swift_durations(log):
    results = []
    for line in log.read_text(errors="replace").splitlines():
        match = SWIFT_RESULT.search(ANSI.sub("", line))
        if match:
            name = match["name"].strip()
            if len(name) > 2 and name[0] == name[-1] == '"':
                name = name[1:-1]
            results.append((float(match["seconds"]), "swift", name, match["outcome"]))
    return results


def browser_durations(junit):
    results = []
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        module = case.get("classname", "").rsplit(".", 1)[-1]
        results.append((float(case.get("time", 0)), "browser", f"{module}::{case.get('name')}", "failed" if failed else "passed"))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--swift", type=Path)
    parser.add_argument("--junit", type=Path)
    arguments = parser.parse_args()
    results = []
    if arguments.swift and arguments.swift.exists():
        results += swift_durations(arguments.swift)
    if arguments.junit and arguments.junit.exists():
        results += browser_durations(arguments.junit)
    if not results:
        return 0
    # Swift Testing runs tests side by side (and pytest-xdist runs two files at once), so the
    # times overlap: each is the test's own wall time, not its share of the run.
    print(f"The {min(arguments.count, len(results))} slowest of {len(results)} tests (wall time each; tests run side by side):")
    for seconds, kind, name, outcome in sorted(results, key=lambda result: -result[0])[:arguments.count]:
        mark = "" if outcome == "passed" else f"  ({outcome})"
        if len(name) > 110:
            name = name[:107] + "..."
        print(f"  {seconds:7.1f} s  {kind:<7}  {name}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
