#!/usr/bin/env python3
"""The web app's import graph, held to its layers (STYLE.md habits 11 and 13, DESIGN.md "Shape").

Reads every `import … from "…"`, `import "…"`, `export … from "…"` and `import("…")` in
Web/**/*.js and fails (exit 1, naming each offending import) when:

  - an import names a file that is not there (no build step: the browser would fail to load it),
    or anything but a path (a bare name needs a bundler Reverie does not have);
  - the playback core (Web/player/) imports anything but itself and the few root modules it
    stands on (CORE_MAY_USE); those modules in turn import only each other. An area folder is
    never allowed: a player never imports a screen;
  - a shared module at Web/'s root imports an area (only app.js, the composition root, wires the
    areas together);
  - an area folder imports another area folder's module, unless that very import is allowed
    below (ACROSS_AREAS) with the reason;
  - modules import each other in a circle.

    scripts/web-imports.py            check; silent when all is well
    scripts/web-imports.py --print    also print the graph folder by folder: folder → folder, how many imports

Standard library only: tests (e2e/test_web_imports.py) and CI run it as it is.
"""

import argparse
import posixpath
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

WEB = Path(__file__).resolve().parent.parent / "Web"

CORE = "player"
"""The playback core's folder: transport, lock screen, sleep timer, levels, downloads, progress, time."""

CORE_MAY_USE = {
    "api.js": "the one fetch wrapper",
    "dom.js": "escaping, announcements, dialogs, stored JSON",
    "idb.js": "IndexedDB, for the downloads",
    "ids.js": "client ids for listening events",
    "item-key.js": "item keys: what progress, queues and downloads call a thing played",
}
"""Root modules under the core: it may import them, and they import only each other."""

COMPOSITION_ROOT = "app.js"
"""Start-up and the router: the one root module that imports the areas' screens."""

NOT_AREAS = {"", CORE, "icons"}
"""Folders that are not areas: Web/'s root, the core, the icons."""

ACROSS_AREAS = {
    # Articles are part of Listen (/listen/articles): Listen's screen hands those addresses to the articles screen…
    ("listen/listen.js", "articles/articles.js"),
    # …and an article read aloud plays in Listen's speech player, and goes into Up Next, like a book.
    ("articles/reader.js", "listen/deck.js"),
    ("articles/reader.js", "listen/queues.js"),
    # Settings holds settings that belong to areas: Write's draft sync, Listen's podcast storage
    # rules, and the account's password form.
    ("settings/settings.js", "write/drafts.js"),
    ("settings/storage.js", "listen/podcast-rules.js"),
    ("settings/settings.js", "account/password.js"),
}
"""Imports from one area folder into another that are meant: (importer, imported), with why."""

# Statements at the start of a line (so not in a comment), possibly over several lines.
STATIC = re.compile(r"""^[ \t]*(?:import|export)\b[^;'"`]*?\bfrom[ \t]*(["'])([^"'\n]+)\1""", re.M)
BARE = re.compile(r"""^[ \t]*import[ \t]*(["'])([^"'\n]+)\1""", re.M)
DYNAMIC = re.compile(r"""\bimport\(\s*(["'])([^"'\n]+)\1\s*\)""")


def folder(module):
    """`listen/deck.js` → `listen`; a root module → ``."""
    return module.split("/", 1)[0] if "/" in module else ""


def label(name):
    return name or "(root)"


def read_graph(web):
    """{module: [(specifier, resolved module or None), …]} for every .js file under `web`,
    modules named by their path inside it (`listen/deck.js`)."""
    graph = {}
    for path in sorted(web.rglob("*.js")):
        module = path.relative_to(web).as_posix()
        text = path.read_text(encoding="utf-8")
        found = []
        for pattern in (STATIC, BARE, DYNAMIC):
            for match in pattern.finditer(text):
                found.append((match.start(), match.group(2)))
        edges = []
        for _, specifier in sorted(found):
            if specifier.startswith("/"):
                target = posixpath.normpath(specifier.lstrip("/"))
            elif specifier.startswith(("./", "../")):
                target = posixpath.normpath(posixpath.join(posixpath.dirname(module), specifier))
            else:
                target = None
            edges.append((specifier, target))
        graph[module] = edges
    return graph


def problems_in(graph):
    problems = []
    for module, edges in graph.items():
        here = folder(module)
        for specifier, target in edges:
            if target is None or target.startswith("../"):
                problems.append(f"{module} imports {specifier!r}: not a path inside Web/")
                continue
            if target not in graph:
                problems.append(f"{module} imports {specifier!r}: there is no Web/{target}")
                continue
            there = folder(target)
            if here == CORE and there != CORE and target not in CORE_MAY_USE:
                problems.append(f"{module} → {target}: the playback core imports only itself and {', '.join(sorted(CORE_MAY_USE))}")
            elif module in CORE_MAY_USE and target not in CORE_MAY_USE:
                problems.append(f"{module} → {target}: a module under the playback core imports only {', '.join(sorted(CORE_MAY_USE))}")
            elif here == "" and module != COMPOSITION_ROOT and there not in NOT_AREAS:
                problems.append(f"{module} → {target}: a shared root module imports no area (only {COMPOSITION_ROOT} wires them)")
            elif here not in NOT_AREAS and there not in NOT_AREAS and here != there and (module, target) not in ACROSS_AREAS:
                problems.append(f"{module} → {target}: one area imports another's module (allow it in ACROSS_AREAS, with why, if it is meant)")
    problems += [f"import cycle: {' → '.join(cycle + [cycle[0]])}" for cycle in cycles(graph)]
    return problems


def cycles(graph):
    """One cycle through each strongly connected group of modules (Tarjan), as a list of modules."""
    successors = {module: sorted({target for _, target in edges if target in graph}) for module, edges in graph.items()}
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(root):
        # Iterative, so a long chain of imports cannot reach Python's recursion limit.
        work = [(root, iter(successors[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, rest = work[-1]
            step = next(rest, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(successors[step])))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in successors[node]:
                    groups.append(set(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    found = []
    for group in groups:
        # A shortest way back to the group's first module, by breadth-first search inside it.
        start = min(group)
        came_from = {start: None}
        queue = [start]
        end = None
        while queue and end is None:
            node = queue.pop(0)
            for step in successors[node]:
                if step == start:
                    end = node
                    break
                if step in group and step not in came_from:
                    came_from[step] = node
                    queue.append(step)
        path = []
        while end is not None:
            path.append(end)
            end = came_from[end]
        found.append(list(reversed(path)))
    return found


def print_graph(graph):
    modules = Counter(folder(module) for module in graph)
    edges = Counter((folder(module), folder(target)) for module, targets in graph.items() for _, target in targets if target in graph)
    width = max(len(label(name)) for name in modules)
    print("Web/ by folder: modules, then imports from it into each folder (→ count)")
    for name in sorted(modules, key=lambda name: (name != "", name != CORE, name)):
        out = sorted(((there, count) for (here, there), count in edges.items() if here == name), key=lambda pair: (pair[0] != name, pair[0]))
        arrows = ", ".join(f"{label(there)} {count}" for there, count in out) or "nothing"
        print(f"  {label(name):<{width}}  {modules[name]:>2} modules  → {arrows}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--print", action="store_true", help="print the graph folder by folder")
    parser.add_argument("--web", type=Path, default=WEB, help="the web app's folder (default: the checkout's Web/)")
    arguments = parser.parse_args()
    graph = read_graph(arguments.web)
    if arguments.print:
        print_graph(graph)
    problems = problems_in(graph)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
