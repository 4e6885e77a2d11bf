"""A `reverie serve` of its own, for the browser tests, the robustness run and the load benchmark.

It runs on a free port with an empty data directory and the repository's web app, SQLite only
(DATABASE_URL is dropped). Everything the server prints goes to `server.log` in that directory,
read as it comes so that a full pipe can never stall the server.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from librivox_fixture import LibriVoxFixture
from podcast_fixture import PodcastFixture

ROOT = Path(__file__).resolve().parent.parent


def call(url, method="GET", body=None, headers=None):
    """One JSON request: (status, headers, decoded body); HTTP errors raise."""
    data = json.dumps(body).encode() if body is not None else None
    headers = dict(headers or {}, **({"Content-Type": "application/json"} if data else {}))
    with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers), timeout=60) as response:
        return response.status, response.headers, json.loads(response.read() or b"null")


class ReverieProcess:
    def __init__(self, binary, prefix="reverie-", log_level="warning", librivox=None, podcasts=None, environment=None):
        # LibriVox is a local fixture (the given one, else a catalog of its own): never the real site.
        self.librivox_owned = librivox is None
        self.librivox = librivox or LibriVoxFixture()
        # So are iTunes, Podcast Index and radio-browser.
        self.podcasts_owned = podcasts is None
        self.podcasts = podcasts or PodcastFixture()
        self.data = Path(tempfile.mkdtemp(prefix=prefix))
        # Wind Down's rendered audio is cached by content, so every test server can share one
        # cache: the yoga nidra is spoken once per checkout, not once per server.
        shared = ROOT / ".build" / "test-cache" / "sleep"
        shared.mkdir(parents=True, exist_ok=True)
        (self.data / "cache").mkdir()
        (self.data / "cache" / "sleep").symlink_to(shared, target_is_directory=True)
        self.log_path = self.data / "server.log"
        self._log = open(self.log_path, "w")
        env = dict(os.environ, REVERIE_WEB_DIR=str(ROOT / "Web"), LOG_LEVEL=log_level)
        env.update(self.librivox.env())
        env.update(self.podcasts.env())
        env.pop("DATABASE_URL", None)
        env.update(environment or {})  # e.g. REVERIE_ENV=development
        self.process = subprocess.Popen([str(binary), "serve", "--port", "0", "--data-dir", str(self.data)],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.url = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not self.url:
            line = self.process.stdout.readline()
            if not line:
                break
            self._write(line)
            match = re.search(r"serving (http://\S+)", line)
            self.url = match.group(1) if match else None
        if not self.url:
            self.stop()
            raise RuntimeError("reverie serve did not start:\n" + self.log_text())
        threading.Thread(target=self._drain, daemon=True).start()

    def _write(self, line):
        self._log.write(line)
        self._log.flush()

    def _drain(self):
        for line in self.process.stdout:
            self._write(line)

    def log_text(self):
        return self.log_path.read_text() if self.log_path.exists() else ""

    def alive(self):
        return self.process.poll() is None and call(self.url + "/api/health")[0] == 200

    def owner_token(self, username, password, token_name):
        """Sets up the owner and returns a personal token's secret (for `Authorization: Bearer`)."""
        _, headers, _ = call(self.url + "/api/setup", "POST", {"username": username, "password": password})
        cookie = headers["Set-Cookie"].split(";")[0]
        return call(self.url + "/api/tokens", "POST", {"name": token_name}, {"Cookie": cookie})[2]["secret"]

    def wait_until_warm(self, seconds=120):
        """Waits while health says the server is still warming (rhymes index, engines, narration)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and call(self.url + "/api/health")[2]["status"] == "warming":
            time.sleep(0.5)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self._log.close()
        shutil.rmtree(self.data, ignore_errors=True)
        if self.librivox_owned:
            self.librivox.stop()
        if self.podcasts_owned:
            self.podcasts.stop()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()
