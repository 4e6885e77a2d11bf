"""The web app's layers hold (scripts/web-imports.py): the playback core imports no area, areas
import each other only where that is meant, nothing imports in a circle, every import names a file
that is there. No browser: the check reads Web/ as it is on disk."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECK = ROOT / "scripts" / "web-imports.py"


def check(web=None):
    arguments = [sys.executable, str(CHECK)] + (["--web", str(web)] if web else [])
    return subprocess.run(arguments, capture_output=True, text=True, timeout=60)


def check_with(tmp_path, additions):
    """The check on a copy of Web/ with each `(file, line)` put at the top of its file."""
    web = tmp_path / "Web"
    shutil.copytree(ROOT / "Web", web, ignore=shutil.ignore_patterns("icons", "*.png", "*.svg"))
    for name, line in additions:
        path = web / name
        path.write_text(line + "\n" + path.read_text())
    return check(web)


def test_the_web_app_keeps_its_layers():
    result = check()
    assert result.returncode == 0, result.stderr


def test_the_core_importing_an_area_fails(tmp_path):
    result = check_with(tmp_path, [("player/transport.js", 'import { deck } from "../listen/deck.js";')])
    assert result.returncode == 1
    assert "player/transport.js → listen/deck.js" in result.stderr


def test_an_area_importing_another_fails_unless_allowed(tmp_path):
    result = check_with(tmp_path, [("bedside/scene.js", 'import { player } from "../wind-down/player.js";')])
    assert result.returncode == 1
    assert "bedside/scene.js → wind-down/player.js" in result.stderr
    # The allowed ones (articles playing through Listen's deck) are not reported.
    assert "articles/reader.js" not in result.stderr


def test_a_cycle_and_a_missing_file_fail(tmp_path):
    result = check_with(tmp_path, [("api.js", 'import "./dom.js";'),   # dom.js imports api.js
                                    ("jobs.js", 'const later = () => import("./gone.js");')])
    assert result.returncode == 1
    assert "import cycle: api.js → dom.js → api.js" in result.stderr
    assert "there is no Web/gone.js" in result.stderr


def test_the_graph_prints_folder_by_folder():
    result = subprocess.run([sys.executable, str(CHECK), "--print"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    player = next(line for line in lines if line.strip().startswith("player "))
    assert "listen" not in player and "wind-down" not in player
