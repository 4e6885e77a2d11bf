"""The case files in Tests/Shared: rules Reverie writes twice, in a Swift engine and in its
JavaScript twin under Web/, held to the same cases. The browser tests read them here; the Swift
suites read the same files through Tests/SharedCases (SharedCases.load)."""

import json
from pathlib import Path

SHARED = Path(__file__).resolve().parent.parent / "Tests" / "Shared"


def shared_cases(name):
    """The file `name` (with its .json) in Tests/Shared, parsed."""
    return json.loads((SHARED / name).read_text(encoding="utf-8"))
