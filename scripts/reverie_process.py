"""A `reverie serve` of its own, for the browser tests, the robustness run and the load benchmark.

It runs on a free port with an empty data directory and the repository's web app, SQLite only
(DATABASE_URL is dropped). Everything the server prints goes to `server.log` in that directory,
read as it comes so that a full pipe can never stall the server.
"""

import json
import os
import queue
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
# How long `reverie serve` has to print where it is serving. On a busy shared machine a debug build
# can take minutes to get there; the wait ends at the line, so only a server that never starts
# waits this long.
STARTUP_TIMEOUT = 180  # seconds
# Where a server that crashes leaves its backtrace (Swift's backtracer writes `reverie-<pid>-*.log`
# there) and its log beside it: `stop` then fails, so no crash passes unseen.
CRASHES = ROOT / ".build" / "test-logs" / "crashes"


class ServerCrashed(RuntimeError):
    """The server crashed while it ran, or as it stopped."""


def call(url, method="GET", body=None, headers=None):
    """One JSON request: (status, headers, decoded body); HTTP errors raise."""
    data = json.dumps(body).encode() if body is not None else None
    headers = dict(headers or {}, **({"Content-Type": "application/json"} if data else {}))
    with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers), timeout=60) as response:
        return response.status, response.headers, json.loads(response.read() or b"null")


class ReverieProcess:
    def __init__(self, binary, prefix="reverie-", log_level="warning", librivox=None, podcasts=None, environment=None,
                 https=False, shared_sleep_cache=True, prepare=None):
        """`https` serves HTTPS too, as at home (REVERIE_TLS=on, on a free port unless `environment`
        says REVERIE_TLS_PORT): its port is read from the start-up lines into `https_port`.
        `shared_sleep_cache=False` gives the server a Wind Down cache of its own, where no item has
        been spoken yet (a first play). `prepare(data)` puts files in the data directory before
        the server starts (an authority near its end, say)."""
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
        if shared_sleep_cache:
            (self.data / "cache" / "sleep").symlink_to(shared, target_is_directory=True)
        if prepare:
            prepare(self.data)
        self.log_path = self.data / "server.log"
        self._stopped = False
        self._log = open(self.log_path, "w")
        # REVERIE_PATIENCE: the server waits ten times its usual for fixture hosts and first
        # sounds, as the machine running the tests may be busy for a minute.
        env = dict(os.environ, REVERIE_WEB_DIR=str(ROOT / "Web"), LOG_LEVEL=log_level, REVERIE_PATIENCE="10")
        env.update(self.librivox.env())
        env.update(self.podcasts.env())
        env.pop("DATABASE_URL", None)
        if https:
            env.update(REVERIE_TLS="on", REVERIE_TLS_PORT="0")
        env.update(environment or {})  # e.g. REVERIE_ENV=development, REVERIE_TLS_NAMES=reverie.test
        CRASHES.mkdir(parents=True, exist_ok=True)
        self.started = time.time()
        env.setdefault("SWIFT_BACKTRACE", f"enable=yes,interactive=no,output-to={CRASHES}")
        self.process = subprocess.Popen([str(binary), "serve", "--port", "0", "--data-dir", str(self.data)],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.url = None
        self.https_port = None  # with `https`: the HTTPS listener's port ("HTTPS on port N", after the first line)
        # Lines are read on a thread of their own from the start, so a server that never prints its
        # first line fails here after the deadline instead of blocking a readline for ever.
        self._lines = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not (self.url and (self.https_port or not https)):
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            if match := re.search(r"serving (http://\S+)", line):
                self.url = match.group(1)
            elif self.url and (match := re.match(r"HTTPS on port (\d+)", line)):
                self.https_port = int(match.group(1))
        self._lines = None  # the rest goes to the log alone
        if not self.url or (https and not self.https_port):
            what = "HTTPS" if self.url else "listening"
            ended = self.process.poll()
            why = f"it exited with status {ended}" if ended is not None else f"it printed nothing more within {STARTUP_TIMEOUT} s"
            printed = self.log_text()  # before stop() removes the data directory and its log
            self.stop()
            raise RuntimeError(f"reverie serve did not start {what}: {why}:\n" + printed)

    def _write(self, line):
        # (The server's last lines may come after `stop` closed its log: they are let go.)
        try:
            self._log.write(line)
            self._log.flush()
        except ValueError:
            pass

    def _drain(self):
        for line in self.process.stdout:
            self._write(line)
            if (lines := self._lines) is not None:
                lines.put(line)
        if (lines := self._lines) is not None:
            lines.put(None)  # the server closed its output

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
        """Stops the server and removes its data; raises ServerCrashed (after that) when it crashed,
        with its backtrace and log kept in CRASHES."""
        if self._stopped:
            return
        self._stopped = True
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # (A file of an earlier server's with the same pid is older than this one.)
        crashes = sorted(path for path in CRASHES.glob(f"reverie-{self.process.pid}-*.log") if path.stat().st_mtime >= self.started)
        if crashes:
            self._log.flush()
            shutil.copy(self.log_path, CRASHES / f"reverie-{self.process.pid}.server.log")
        self._log.close()
        shutil.rmtree(self.data, ignore_errors=True)
        if self.librivox_owned:
            self.librivox.stop()
        if self.podcasts_owned:
            self.podcasts.stop()
        if crashes:
            first = crashes[0].read_text(errors="replace").splitlines()
            crashed = next((line for line in first if "crashed" in line), first[0] if first else "")
            raise ServerCrashed(f"the server crashed ({crashed.strip()}): its backtrace is {crashes[0]}, its log beside it")

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()
