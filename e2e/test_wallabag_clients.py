"""wallabag's own command-line client (PyPI wallabag-client, the library its users script with)
against a real Reverie: configured with the client id and secret and the app password from
Settings → Apps, it adds a page by its address (Reverie reads it), lists it, marks it read and
starred, tags it, and deletes it; Reverie's Listen has the article, read as any other."""

import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import BINARY
from reverie_process import ReverieProcess, call
from test_articles import PARAGRAPHS, story_html

WALLABAG = Path(__file__).resolve().parent.parent / ".venv" / "bin" / "wallabag"


@pytest.fixture(scope="module")
def site():
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_HEAD(self):
            self.send_response(200 if self.path == "/keeper.html" else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()

        def do_GET(self):
            if self.path != "/keeper.html":
                return self.send_error(404)
            body = story_html().encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def server():
    instance = ReverieProcess(BINARY, prefix="reverie-e2e-")
    yield instance
    instance.stop()


def wallabag(config, *arguments, feed=None):
    """Runs the client; its output, or the test fails with what it said."""
    done = subprocess.run([str(WALLABAG), "--config", str(config), "--no-spinner", *arguments], input=feed, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"wallabag {' '.join(arguments)}: {done.stdout}{done.stderr}"
    return done.stdout


def test_wallabag_client_saves_lists_marks_and_deletes(server, site, tmp_path):
    token = server.owner_token("ada", "correct horse battery", "tests")
    bearer = {"Authorization": f"Bearer {token}"}
    made = call(server.url + "/api/apps", "POST", {"kind": "wallabag", "name": "wallabag on the laptop"}, bearer)[2]
    assert made["clientId"] and made["clientSecret"] and made["secret"]

    # Its own set-up, as a person answers its questions: server, user name, password, client id, secret.
    config = tmp_path / "wallabag.ini"
    wallabag(config, "config", feed=f"{server.url}\nada\n{made['secret']}\n{made['clientId']}\n{made['clientSecret']}\n")
    wallabag(config, "config", "--check")

    wallabag(config, "add", "--tags", "sea,lights", f"{site}/keeper.html")
    listed = wallabag(config, "list")
    assert "The Last Keeper of Gull Rock" in listed, listed
    entry = next(line.split()[0] for line in listed.splitlines() if "Gull Rock" in line)
    # Read the same as the web app reads it: in Listen, its text the article's paragraphs.
    articles = call(server.url + "/api/articles", headers=bearer)[2]["items"]
    assert [a["title"] for a in articles] == ["The Last Keeper of Gull Rock"] and articles[0]["status"] == "saved"
    shown = wallabag(config, "show", entry)
    assert PARAGRAPHS[1][:40] in shown, shown

    # Marked read (finished in Reverie) and starred; the tags it was added with.
    wallabag(config, "read", entry)
    wallabag(config, "star", entry)
    articles = call(server.url + "/api/articles", headers=bearer)[2]["items"]
    assert articles[0]["status"] == "finished"
    assert "lights" in wallabag(config, "tags") and "sea" in wallabag(config, "tags")
    assert "Gull Rock" in wallabag(config, "list", "--starred")
    assert "Gull Rock" not in wallabag(config, "list", "--unread")

    # Settings → Apps says what it last did.
    apps = call(server.url + "/api/apps", headers=bearer)[2]
    assert apps[0]["kind"] == "wallabag" and apps[0]["lastUsedAt"] and apps[0]["lastAction"]

    # Deleted from the app, gone from Listen; saved again for what follows.
    wallabag(config, "delete", "--force", entry)
    assert call(server.url + "/api/articles", headers=bearer)[2]["items"] == []
    wallabag(config, "add", f"{site}/keeper.html")

    # Revoked, the app is refused at once: it can no longer list what it could a moment ago.
    assert "Gull Rock" in wallabag(config, "list")
    call(server.url + f"/api/apps/{made['id']}", "DELETE", headers=bearer)
    done = subprocess.run([str(WALLABAG), "--config", str(config), "--no-spinner", "list"], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Gull Rock" not in done.stdout, done.stdout + done.stderr
    assert [a["title"] for a in call(server.url + "/api/articles", headers=bearer)[2]["items"]] == ["The Last Keeper of Gull Rock"]
